package progress

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/evalrun/evalrun/trace"
)

var update = flag.Bool("update", false, "rewrite the golden frames in testdata/")

var t0 = time.Date(2026, 1, 6, 14, 3, 0, 0, time.UTC)

// at returns the time s seconds into the run.
func at(s float64) time.Time { return t0.Add(time.Duration(s * float64(time.Second))) }

// scenario is a sequence of events with the moments at which a frame is
// taken.
type scenario struct {
	name   string
	size   Size
	events []Event
	frames []float64
}

func scenarios() []scenario {
	var pm []Event
	pm = append(pm, Event{Time: at(0), Phase: Running, ID: 1, Kind: KindStep, Name: "summaries"})
	pm = append(pm, Event{Time: at(0.1), Phase: Running, ID: 2, Parent: 1, Kind: KindGroup, Name: "parallel-map", Total: 20})
	for i := 0; i < 20; i++ {
		ph := Waiting
		if i < 8 {
			ph = Running
		}
		pm = append(pm, Event{Time: at(0.2), Phase: ph, ID: uint64(10 + i), Parent: 2, Kind: KindTask, Name: "summarize-file", Executor: "openai:gpt-4.1"})
	}
	for i := 0; i < 7; i++ {
		pm = append(pm, Event{Time: at(3), Phase: Ended, ID: uint64(10 + i), Status: "completed", InputTokens: 1200, OutputTokens: 300, Cost: 0.0012, CostKnown: true})
		pm = append(pm, Event{Time: at(3), Phase: Running, ID: uint64(18 + i)})
		pm = append(pm, Event{Time: at(3), Phase: Progress, ID: 2, Done: i + 1})
	}
	agents := []Event{
		{Time: at(0), Phase: Running, ID: 1, Kind: KindAgent, Name: "code/implement", Executor: "agent:claude"},
		{Time: at(5), Phase: Progress, ID: 1, Line: "Editing internal/http/retry.go\t(3 hunks)"},
		{Time: at(1), Phase: Waiting, ID: 2, Kind: KindAgent, Name: "code/review", Executor: "agent:codex"},
		{Time: at(2), Phase: Running, ID: 3, Kind: KindTool, Name: "system_execute_shell_command", Parent: 0},
		{Time: at(4), Phase: Ended, ID: 3, Status: "failed"},
	}
	plan := []Event{
		{Time: at(0), Phase: Ended, ID: 1, Kind: KindPlanTask, Name: "IMPL-1", Title: "Design the authentication module", Executor: "@action-planning-agent", Status: "completed"},
		{Time: at(0), Phase: Planned, ID: 2, Kind: KindPlanTask, Name: "IMPL-2", Title: "Implement JWT authentication"},
		{Time: at(0), Phase: Ended, ID: 3, Parent: 2, Kind: KindPlanTask, Name: "IMPL-2.1", Title: "Token generation", Executor: "@code-developer", Status: "completed"},
		{Time: at(1), Phase: Running, ID: 4, Parent: 2, Kind: KindPlanTask, Name: "IMPL-2.2", Title: "Refresh tokens", Executor: "@code-developer"},
		{Time: at(1), Phase: Running, ID: 5, Parent: 4, Kind: KindAgent, Name: "plan/code-developer", Executor: "agent:claude"},
		{Time: at(0), Phase: Planned, ID: 6, Kind: KindPlanTask, Name: "IMPL-3", Title: "Documentation", Executor: "@doc-generator"},
	}
	return []scenario{
		{name: "parallel-map", size: Size{Width: 80, Height: 40}, events: pm, frames: []float64{1, 4}},
		{name: "parallel-map-short", size: Size{Width: 50, Height: 8}, events: pm, frames: []float64{4}},
		{name: "agents", size: Size{Width: 72, Height: 20}, events: agents, frames: []float64{1.5, 65}},
		{name: "plan", size: Size{Width: 100, Height: 20}, events: plan, frames: []float64{2}},
		{name: "workflow-plan", size: Size{Width: 100, Height: 20}, events: workflowPlan(), frames: []float64{0.5, 1.6, 3.5, 6.5, 8, 9.5}},
	}
}

// clocked is a Receiver that stamps each event with a time the test sets.
type clocked struct {
	now time.Time
	evs []Event
}

func (c *clocked) Event(e Event) {
	e.Time = c.now
	c.evs = append(c.evs, e)
}

// workflowPlan traces, through a Sink, a workflow of a step, a
// (plan-run) of three announced tasks that run one after the other on
// agents, and a second step; it returns the display events.
func workflowPlan() []Event {
	rec := &clocked{now: at(0)}
	s := NewSink(rec)
	ctx := trace.WithSinks(context.Background(), s)
	done := func(sp *trace.Span, in, out int) {
		sp.End(trace.Result{Status: trace.Completed}, trace.Usage{InputTokens: in, OutputTokens: out})
	}

	pctx, prep := trace.Start(ctx, trace.Step, "prepare", nil)
	prep.Running()
	_, sum := trace.Start(pctx, trace.Task, "summarize", nil, trace.Executor("openai:gpt-4.1"))
	rec.now = at(1)
	done(sum, 100, 20)
	done(prep, 0, 0)

	rec.now = at(1.5)
	rctx, run := trace.Start(ctx, trace.Step, "plan-run WFS-jwt-auth", nil)
	run.Running()
	s.Plan(run, []PlannedTask{
		{ID: "IMPL-1", Title: "Design the token model", Agent: "@action-planning-agent"},
		{ID: "IMPL-2", Title: "Issue tokens", Agent: "@code-developer"},
		{ID: "IMPL-3", Title: "Document the API", Agent: "@doc-generator"},
	})
	task := func(id, agent, exe string, from, to float64) {
		rec.now = at(from)
		tctx, pt := trace.Start(rctx, trace.PlanTask, id, nil, trace.Executor(agent))
		pt.Running()
		_, ag := trace.Start(tctx, trace.Task, "plan/"+strings.TrimPrefix(agent, "@"), nil, trace.Executor(exe))
		ag.Running()
		rec.now = at(from + 1)
		ag.Progress("Writing " + id + ".md\n")
		rec.now = at(to)
		done(ag, 70, 7)
		done(pt, 0, 0)
	}
	task("IMPL-1", "@action-planning-agent", "agent:gemini", 2, 4)
	task("IMPL-2", "@code-developer", "agent:claude", 4, 6)
	task("IMPL-3", "@doc-generator", "agent:codex", 6, 7)
	done(run, 0, 0)

	rec.now = at(7.5)
	qctx, report := trace.Start(ctx, trace.Step, "report", nil)
	report.Running()
	_, wr := trace.Start(qctx, trace.Task, "write-report", nil, trace.Executor("openai:gpt-4.1"))
	rec.now = at(9)
	done(wr, 200, 40)
	done(report, 0, 0)
	return rec.evs
}

// TestFrames draws each scenario at its moments and compares with the
// golden frames in testdata/NAME.golden.
func TestFrames(t *testing.T) {
	for _, sc := range scenarios() {
		t.Run(sc.name, func(t *testing.T) {
			var got strings.Builder
			for _, f := range sc.frames {
				m := NewModel(t0)
				for _, e := range sc.events {
					if !e.Time.After(at(f)) {
						m.Apply(e)
					}
				}
				lines := Frame(m, sc.size, at(f), false)
				if len(lines) > sc.size.Height-2 {
					t.Errorf("frame at %gs has %d lines, more than %d", f, len(lines), sc.size.Height-2)
				}
				for _, l := range lines {
					if n := len([]rune(l)); n > sc.size.Width-1 {
						t.Errorf("line %q is %d columns wide, more than %d", l, n, sc.size.Width-1)
					}
					if strings.Contains(l, "\x1b") {
						t.Errorf("line %q holds an escape sequence without colour", l)
					}
				}
				fmt.Fprintf(&got, "--- at %gs, %dx%d\n%s\n", f, sc.size.Width, sc.size.Height, strings.Join(lines, "\n"))
			}
			golden := filepath.Join("testdata", sc.name+".golden")
			if *update {
				if err := os.WriteFile(golden, []byte(got.String()), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run go test -update)", err)
			}
			if got.String() != string(want) {
				t.Errorf("frames differ from %s:\n%s\nwant:\n%s", golden, got.String(), want)
			}
		})
	}
}

func TestHeaderCounts(t *testing.T) {
	m := NewModel(t0)
	for _, e := range scenarios()[0].events {
		m.Apply(e)
	}
	done, running, waiting := m.Counts()
	if done != 7 || running != 8 || waiting != 5 {
		t.Fatalf("counts = %d done, %d running, %d waiting; want 7, 8, 5", done, running, waiting)
	}
	h := Frame(m, Size{Width: 120, Height: 10}, at(4), false)[0]
	want := "7 done · 8 running · 5 waiting · 10,500 tokens · $0.0084 · 4s"
	if h != want {
		t.Fatalf("header = %q, want %q", h, want)
	}
	m.Cancelling(at(5))
	if h := Frame(m, Size{Width: 120, Height: 10}, at(5), false)[0]; !strings.HasPrefix(h, "cancelling 8 running and 5 waiting calls") {
		t.Fatalf("cancelling header = %q", h)
	}
}

func TestColour(t *testing.T) {
	m := NewModel(t0)
	m.Apply(Event{Time: t0, Phase: Running, ID: 1, Kind: KindTask, Name: "t"})
	lines := Frame(m, Size{Width: 80, Height: 10}, t0, true)
	if !strings.HasPrefix(lines[1], styleGreen) || !strings.HasSuffix(lines[1], styleReset) {
		t.Fatalf("running line %q is not green", lines[1])
	}
}

// screen is a minimal terminal: it understands \r, \n, ESC[nA and ESC[J,
// which is all a Display writes, and keeps the lines on the screen.
type screen struct {
	lines []string
	row   int
}

func (s *screen) feed(t *testing.T, out string) {
	for i := 0; i < len(out); i++ {
		for len(s.lines) <= s.row {
			s.lines = append(s.lines, "")
		}
		switch c := out[i]; c {
		case '\r':
			// The Display only writes \r before erasing from a line start.
		case '\n':
			s.row++
		case 0x1b:
			j := i + 2
			for j < len(out) && out[j] >= '0' && out[j] <= '9' {
				j++
			}
			n := 1
			if j > i+2 {
				fmt.Sscan(out[i+2:j], &n)
			}
			switch out[j] {
			case 'A':
				s.row -= n
				if s.row < 0 {
					t.Fatalf("cursor moved above the screen")
				}
			case 'J':
				s.lines = s.lines[:s.row]
				s.lines = append(s.lines, "")
			default:
				t.Fatalf("unexpected escape %q", out[i:j+1])
			}
			i = j
		default:
			s.lines[s.row] += out[i : i+1]
		}
	}
}

func (s *screen) text() string {
	return strings.TrimRight(strings.Join(s.lines, "\n"), "\n")
}

// syncBuffer is a strings.Builder safe for the display's goroutine.
type syncBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.String()
}

// TestDisplayLeavesOnlyPassedLines checks that after Close the screen holds
// exactly the lines written through the display, in order, and that the
// frame was drawn while the run went on.
func TestDisplayLeavesOnlyPassedLines(t *testing.T) {
	var out syncBuffer
	d := NewDisplay(&out, Options{Size: func() Size { return Size{Width: 60, Height: 12} }})
	d.Event(Event{Phase: Running, ID: 1, Kind: KindTask, Name: "summarize", Executor: "echo:gpt-4o-mini"})
	time.Sleep(250 * time.Millisecond)
	fmt.Fprint(d, "log: first ")
	fmt.Fprintln(d, "line")
	d.Event(Event{Phase: Running, ID: 2, Kind: KindAgent, Name: "review", Executor: "agent:claude"})
	time.Sleep(250 * time.Millisecond)
	mid := &screen{}
	mid.feed(t, out.String())
	if !strings.Contains(mid.text(), "▸ agent review  agent:claude") || !strings.Contains(mid.text(), "log: first line") {
		t.Fatalf("mid-run screen lacks the frame or the log line:\n%s", mid.text())
	}
	fmt.Fprintln(d, "warning: second line")
	d.Event(Event{Phase: Ended, ID: 1, Status: "completed"})
	d.Event(Event{Phase: Ended, ID: 2, Status: "completed"})
	fmt.Fprint(d, "usage: 2 model calls")
	d.Close()
	final := &screen{}
	final.feed(t, out.String())
	want := "log: first line\nwarning: second line\nusage: 2 model calls"
	if final.text() != want {
		t.Fatalf("screen after Close:\n%q\nwant:\n%q", final.text(), want)
	}
}

// TestRedrawRate checks the display draws at most ten frames a second
// however many events (each of which changes the frame) arrive.
func TestRedrawRate(t *testing.T) {
	var out syncBuffer
	d := NewDisplay(&out, Options{Tick: time.Millisecond})
	start := time.Now()
	for i := 0; time.Since(start) < 500*time.Millisecond; i++ {
		d.Event(Event{Phase: Running, ID: uint64(i%5 + 1), Kind: KindTask, Name: fmt.Sprint("t", i)}) // every event changes the frame
		time.Sleep(time.Millisecond)
	}
	d.Close()
	d.mu.Lock()
	n := d.redraws
	d.mu.Unlock()
	if n < 2 || n > 7 {
		t.Fatalf("%d redraws in 0.5 s; want between 2 and 7 (at most 10 a second)", n)
	}
}

func TestCut(t *testing.T) {
	if got := cut("abcdef", 4); got != "abc…" {
		t.Fatalf("cut = %q", got)
	}
	if got := cut("a\tb\x1b[2Jc", 20); got != "a bc" {
		t.Fatalf("control characters: cut = %q", got)
	}
	// An agent's colours, a window title (OSC, ended by BEL or ST), a
	// two-byte escape: none reaches the frame, and the rest is measured
	// without them.
	for in, want := range map[string]string{
		"\x1b[1;32mEditing\x1b[0m retry.go":        "Editing retry.go",
		"\x1b]0;claude\x07done":                    "done",
		"\x1b]8;;http://x\x1b\\link\x1b]8;;\x1b\\": "link",
		"a\x1bMb\x1b":                              "ab",
		"\x1b[38;5;208m0123456789abcdefghij":       "0123456789abcdef…",
	} {
		if got := cut(in, 17); got != want {
			t.Errorf("cut(%q) = %q, want %q", in, got, want)
		}
	}
	if got := thousands(1234567); got != "1,234,567" {
		t.Fatalf("thousands = %q", got)
	}
}

// TestCostUnknownCountsCallsThatUsedAModel: the header's "cost unknown
// for N" counts the calls the usage line counts — those that used a model
// and have no known cost — not a call refused by the budget or cancelled
// while it waited, which cost nothing.
func TestCostUnknownCountsCallsThatUsedAModel(t *testing.T) {
	m := NewModel(t0)
	for id := uint64(1); id <= 4; id++ {
		m.Apply(Event{Time: at(0), Phase: Waiting, ID: id, Kind: KindTask, Name: "t", Executor: "fake:m1"})
	}
	m.Apply(Event{Time: at(1), Phase: Running, ID: 1})
	m.Apply(Event{Time: at(2), Phase: Ended, ID: 1, Status: "completed", InputTokens: 10, OutputTokens: 5, Turns: 1})
	m.Apply(Event{Time: at(2), Phase: Running, ID: 2})
	m.Apply(Event{Time: at(2), Phase: Ended, ID: 2, Status: "failed"}) // refused: budget spent
	m.Apply(Event{Time: at(3), Phase: Ended, ID: 3, Status: "cancelled"})
	m.Apply(Event{Time: at(3), Phase: Ended, ID: 4, Status: "cancelled"})
	h := Frame(m, Size{Width: 120, Height: 10}, at(3), false)[0]
	want := "4 done (3 failed) · 0 running · 0 waiting · 15 tokens · cost unknown for 1 · 3s"
	if h != want {
		t.Fatalf("header = %q, want %q", h, want)
	}
}

// TestWideCharacters: a line holding wide characters (CJK, emoji) is cut
// by the columns it takes on the terminal, not by its code points, so that
// no line of the frame wraps: a wrapped line would leave a line of the
// frame behind on every redraw.
func TestWideCharacters(t *testing.T) {
	if got := cut("日本語テキスト", 6); got != "日本…" {
		t.Fatalf("cut = %q, want %q", got, "日本…")
	}
	if got := cut("e\u0301t\u00e9", 3); got != "e\u0301t\u00e9" {
		t.Fatalf("a combining mark takes no column: cut = %q", got)
	}
	if got := cut("a\u009b2Jb", 10); got != "a 2Jb" {
		t.Fatalf("a C1 control character (CSI) must not reach the terminal: cut = %q", got)
	}
	m := NewModel(t0)
	m.Apply(Event{Time: t0, Phase: Running, ID: 1, Kind: KindStep, Name: "要約する長い名前のステップ要約する長い名前のステップ"})
	m.Apply(Event{Time: t0, Phase: Running, ID: 2, Parent: 1, Kind: KindAgent, Name: "review", Executor: "agent:claude"})
	m.Apply(Event{Time: t0, Phase: Progress, ID: 2, Line: "⏺ 読み込み中 🚀 ファイルを確認しています ファイルを確認しています"})
	for _, size := range []Size{{Width: 40, Height: 10}, {Width: 41, Height: 10}, {Width: 80, Height: 10}} {
		lines := Frame(m, size, at(1), false)
		if len(lines) != 3 {
			t.Fatalf("%d lines, want 3: %q", len(lines), lines)
		}
		for _, l := range lines {
			if w := stringWidth(l); w > size.Width-1 {
				t.Errorf("width %d: line %q takes %d columns, more than %d", size.Width, l, w, size.Width-1)
			}
		}
		if !strings.HasSuffix(lines[2], "…") {
			t.Errorf("width %d: the agent's line %q is not cut", size.Width, lines[2])
		}
	}
}

// TestUnchangedFrameNotRedrawn: a frame that is the same as the one on the
// screen (nothing moved since the last tick) is not written again.
func TestUnchangedFrameNotRedrawn(t *testing.T) {
	var out syncBuffer
	now := t0
	var mu sync.Mutex
	clock := func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
	advance := func(d time.Duration) { mu.Lock(); now = now.Add(d); mu.Unlock() }
	d := NewDisplay(&out, Options{Now: clock, Tick: time.Hour})
	defer d.Close()
	d.Event(Event{Phase: Running, ID: 1, Kind: KindTask, Name: "summarize"})
	redraw := func() string {
		d.mu.Lock()
		defer d.mu.Unlock()
		before := len(out.String())
		d.redraw()
		return out.String()[before:]
	}
	if first := redraw(); !strings.Contains(first, "▸ task summarize  0s") {
		t.Fatalf("first frame: %q", first)
	}
	advance(200 * time.Millisecond)
	if again := redraw(); again != "" {
		t.Fatalf("an unchanged frame was written again: %q", again)
	}
	advance(time.Second)
	if moved := redraw(); !strings.Contains(moved, "▸ task summarize  1s") {
		t.Fatalf("the frame of a second later was not drawn: %q", moved)
	}
}

// TestSuspendResume: Suspend (Ctrl-Z) takes the frame off the screen and
// draws none while lines pass through; Resume draws it again below
// whatever is on the screen then, without moving over it.
func TestSuspendResume(t *testing.T) {
	var out syncBuffer
	d := NewDisplay(&out, Options{Tick: time.Hour})
	defer d.Close()
	d.Event(Event{Phase: Running, ID: 1, Kind: KindTask, Name: "summarize"})
	d.mu.Lock()
	d.redraw()
	d.mu.Unlock()
	fmt.Fprintln(d, "log: one")
	d.Suspend()
	s := &screen{}
	s.feed(t, out.String())
	if s.text() != "log: one" {
		t.Fatalf("screen of a suspended display:\n%q", s.text())
	}
	suspended := len(out.String())
	fmt.Fprintln(d, "log: two")
	d.Cancelling()
	if meanwhile := out.String()[suspended:]; meanwhile != "log: two\n" {
		t.Fatalf("a suspended display wrote %q; want only the line passed through", meanwhile)
	}
	// What the shell writes while evalrun is stopped.
	out.Write([]byte("[1]+  Stopped\n$ fg\n"))
	before := len(out.String())
	d.Resume()
	resumed := out.String()[before:]
	if strings.Contains(resumed, "\x1b[") && strings.Contains(resumed, "A") || !strings.Contains(resumed, "▸ task summarize") {
		t.Fatalf("Resume moved over the screen or drew no frame: %q", resumed)
	}
	s = &screen{}
	s.feed(t, out.String())
	if want := "log: one\nlog: two\n[1]+  Stopped\n$ fg\ncancelling 1 running and 0 waiting calls · 0s\n  ▸ task summarize  0s"; s.text() != want {
		t.Fatalf("screen after Resume:\n%s\nwant:\n%s", s.text(), want)
	}
}

// TestHeaderAmounts: the header writes amounts as the usage line does,
// four decimals below one dollar and two from one dollar up.
func TestHeaderAmounts(t *testing.T) {
	m := NewModel(t0)
	m.Apply(Event{Time: t0, Phase: Running, ID: 1, Kind: KindAgent, Name: "a"})
	m.Apply(Event{Time: t0, Phase: Ended, ID: 1, Status: "completed", InputTokens: 10, Turns: 1, Cost: 1.256, CostKnown: true})
	if h := Frame(m, Size{Width: 120, Height: 10}, at(1), false)[0]; h != "1 done · 0 running · 0 waiting · 10 tokens · $1.26 · 1s" {
		t.Fatalf("header = %q", h)
	}
	m.Apply(Event{Time: t0, Phase: Running, ID: 2, Kind: KindAgent, Name: "b"})
	m.Apply(Event{Time: t0, Phase: Ended, ID: 2, Status: "completed", InputTokens: 10, Turns: 1, Cost: 0.05, CostKnown: true, Replayed: true})
	if h := Frame(m, Size{Width: 120, Height: 10}, at(1), false)[0]; h != "2 done · 0 running · 0 waiting · 20 tokens · $1.26 spent + $0.0500 replayed · 1s" {
		t.Fatalf("header = %q", h)
	}
}
