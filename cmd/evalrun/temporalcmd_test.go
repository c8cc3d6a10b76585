//go:build temporal

package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/evalrun/evalrun/config"
	"github.com/evalrun/evalrun/engine"
	"github.com/evalrun/evalrun/progress"
	"github.com/evalrun/evalrun/temporal"
	"github.com/evalrun/evalrun/value"
)

// TestTemporalFlagsResolve: each flag given wins over its [temporal] key;
// a flag left out takes the key (or the default config.Default holds).
func TestTemporalFlagsResolve(t *testing.T) {
	cfg := config.Temporal{Address: "temporal.example:7233", Namespace: "team", TaskQueue: "evals"}
	for _, tc := range []struct {
		name  string
		flags temporalFlags
		want  temporalFlags
	}{
		{"no flags", temporalFlags{}, temporalFlags{Temporal: "temporal.example:7233", Namespace: "team", TaskQueue: "evals"}},
		{"address flag", temporalFlags{Temporal: "127.0.0.1:7233"}, temporalFlags{Temporal: "127.0.0.1:7233", Namespace: "team", TaskQueue: "evals"}},
		{"all flags", temporalFlags{Temporal: "h:1", Namespace: "n", TaskQueue: "q"}, temporalFlags{Temporal: "h:1", Namespace: "n", TaskQueue: "q"}},
	} {
		if got := tc.flags.resolve(cfg); got != tc.want {
			t.Errorf("%s: resolve = %+v, want %+v", tc.name, got, tc.want)
		}
	}
	def := config.Default().Temporal
	want := temporalFlags{Namespace: "default", TaskQueue: "evalrun"}
	if got := (temporalFlags{}).resolve(def); got != want {
		t.Errorf("defaults: resolve = %+v, want %+v", got, want)
	}
}

// followCase runs followWith with a stand-in for the followed run: it
// draws two pages of progress events (a task running, then ended, and a
// log-message line) and returns v, u and err.
func followCase(t *testing.T, mode string, v value.Value, u engine.Usage, err error) (stdout, stderr string, code int) {
	t.Helper()
	var out, errb syncBuffer
	a := &app{stdin: strings.NewReader(""), stdout: &out, stderr: &errb, getenv: func(k string) string {
		if k == "NO_COLOR" {
			return "1"
		}
		return ""
	}, progressMode: mode}
	stop, c := a.startProgress()
	if c != exitOK {
		t.Fatalf("startProgress: %d", c)
	}
	start := time.Now()
	run := func(ctx context.Context, p *engine.Progress) (value.Value, engine.Usage, error) {
		p.Replay([]temporal.ProgressEvent{
			{Seq: 1, Event: progress.Event{Time: start, Phase: progress.Waiting, ID: 1, Kind: progress.KindTask, Name: "greet"}},
			{Seq: 2, Event: progress.Event{Time: start, Phase: progress.Running, ID: 1, Kind: progress.KindTask, Name: "greet"}},
		})
		time.Sleep(3 * progress.MinRedraw)
		p.Replay([]temporal.ProgressEvent{
			{Seq: 3, Event: progress.Event{Time: start, Phase: progress.Ended, ID: 1, Status: "completed", InputTokens: 20, OutputTokens: 6}},
			{Seq: 4, Print: "log: greeted\n"},
		})
		time.Sleep(3 * progress.MinRedraw)
		return v, u, err
	}
	code = a.followWith(engine.Temporal{HostPort: "127.0.0.1:1"}, "evalrun-x", false, stop, run)
	return out.String(), errb.String(), code
}

// TestFollowDisplayAndUsage: a followed run draws its events on the live
// display (--progress always) with the lines the run printed above it,
// erases it, prints the value, and ends stderr with the usage line a
// local run prints; with --progress never stderr gets only those lines.
func TestFollowDisplayAndUsage(t *testing.T) {
	u := engine.Usage{Calls: 1, InputTokens: 20, OutputTokens: 6, Turns: 1}
	stdout, stderr, code := followCase(t, engine.ProgressAlways, value.String("Hello a"), u, nil)
	if code != exitOK || stdout != "\"Hello a\"\n" {
		t.Fatalf("exit %d, stdout %q", code, stdout)
	}
	if !strings.Contains(stderr, "0 done · 1 running · 0 waiting · 0s\n  ▸ task greet  0s") ||
		!strings.Contains(stderr, "1 done · 0 running · 0 waiting · 26 tokens · cost unknown for 1 · 0s") {
		t.Fatalf("no frame of the run's events on stderr:\n%q", stderr)
	}
	// The log line passes above the display; after the last erase only
	// the usage line follows.
	frames := strings.Split(stderr, "\x1b[J")
	if last := frames[len(frames)-1]; last != "usage: 1 model call, 20 input + 6 output tokens, 1 turn\n" || !strings.Contains(stderr, "\x1b[Jlog: greeted\n") {
		t.Fatalf("stderr %q ends with %q", stderr, last)
	}

	stdout, stderr, code = followCase(t, engine.ProgressNever, value.String("Hello a"), u, nil)
	if code != exitOK || stdout != "\"Hello a\"\n" || stderr != "log: greeted\nusage: 1 model call, 20 input + 6 output tokens, 1 turn\n" {
		t.Fatalf("--progress never: exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}

	// A FAILED final value: its message, then the usage line, exit 1, as
	// a local run.
	failed := &value.TaskResult{Status: "FAILED", Content: "HTTP 400", Notes: value.DictOf("error", value.DictOf("message", value.String("HTTP 400")))}
	_, stderr, code = followCase(t, engine.ProgressNever, failed, u, nil)
	if code != exitEval || stderr != "log: greeted\nevalrun: final value is a FAILED TaskResult: HTTP 400\nusage: 1 model call, 20 input + 6 output tokens, 1 turn\n" {
		t.Fatalf("FAILED value: exit %d, stderr %q", code, stderr)
	}

	// An evaluation error: its display, then the usage line, exit 1.
	_, stderr, code = followCase(t, engine.ProgressNever, nil, u, &temporal.RunError{EvaluationError: temporal.EvaluationError{Kind: "type", Message: "wf.sexp:1:1: boom", Display: "wf.sexp:1:1: boom\n"}})
	if code != exitEval || stderr != "log: greeted\nwf.sexp:1:1: boom\nusage: 1 model call, 20 input + 6 output tokens, 1 turn\n" {
		t.Fatalf("evaluation error: exit %d, stderr %q", code, stderr)
	}

	// A run whose budget refused calls (SPEC §14.9): its value, then the
	// budget's message and the usage line, exit 1, as a local run.
	spent := &engine.BudgetError{Resource: "cost", UsedUSD: 0.03, LimitUSD: 0.03}
	cu := engine.Usage{Calls: 3, InputTokens: 300, OutputTokens: 30, Turns: 3, CostUSD: 0.03}
	stdout, stderr, code = followCase(t, engine.ProgressNever, value.List{value.String("ok"), value.String("failed")}, cu, spent)
	if code != exitEval || stdout != "(\"ok\" \"failed\")\n" ||
		stderr != "log: greeted\nevalrun: budget spent: $0.0300 of $0.0300\nusage: 3 model calls, 300 input + 30 output tokens, 3 turns, $0.0300\n" {
		t.Fatalf("spent budget: exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}

	// No model call: no usage line.
	_, stderr, _ = followCase(t, engine.ProgressNever, value.Int(3), engine.Usage{}, nil)
	if stderr != "log: greeted\n" {
		t.Fatalf("no calls: stderr %q", stderr)
	}
}

// syncBuffer is a strings.Builder safe for the display's goroutine.
type syncBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// TestStatusAndRunsOnTemporalErrors: runs --remote without [temporal]
// address is a usage error; status --temporal needs a workflow id; both
// say they cannot connect to a server that is not there, exit 1.
func TestStatusAndRunsOnTemporalErrors(t *testing.T) {
	dir := t.TempDir()
	if err := os.Mkdir(filepath.Join(dir, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	env := map[string]string{"HOME": t.TempDir(), "EVALRUN_HOME": t.TempDir()}
	for _, c := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"runs", "--remote"}, exitUsage, "evalrun runs --remote needs --temporal HOST:PORT or [temporal] address in the configuration"},
		{[]string{"status", "--temporal", "127.0.0.1:1"}, exitUsage, "evalrun status --temporal needs a workflow id"},
		{[]string{"status", "--temporal", "127.0.0.1:1", "evalrun-x", "--json"}, exitEval, "cannot connect to Temporal at 127.0.0.1:1"},
		{[]string{"runs", "--temporal", "127.0.0.1:1"}, exitEval, "cannot connect to Temporal at 127.0.0.1:1"},
	} {
		code, stdout, stderr := runIn(t, dir, env, c.args...)
		if code != c.code || stdout != "" || !strings.Contains(stderr, c.want) {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want exit %d and %q", c.args, code, stdout, stderr, c.code, c.want)
		}
	}
}
