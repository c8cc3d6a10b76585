package progress

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/evalrun/evalrun/trace"
	"github.com/evalrun/evalrun/value"
)

// recorder keeps the events a Sink makes.
type recorder struct {
	mu  sync.Mutex
	evs []Event
}

func (r *recorder) Event(e Event) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.evs = append(r.evs, e)
}

// String lists the events without their times, one a line.
func (r *recorder) String() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	var b strings.Builder
	for _, e := range r.evs {
		fmt.Fprintf(&b, "%d id=%d parent=%d %s %q", e.Phase, e.ID, e.Parent, e.Kind, e.Name)
		if e.Executor != "" {
			fmt.Fprintf(&b, " exec=%s", e.Executor)
		}
		if e.Title != "" {
			fmt.Fprintf(&b, " title=%q", e.Title)
		}
		if e.Total != 0 || e.Done != 0 {
			fmt.Fprintf(&b, " %d/%d", e.Done, e.Total)
		}
		if e.Line != "" {
			fmt.Fprintf(&b, " line=%q", e.Line)
		}
		if e.Status != "" {
			fmt.Fprintf(&b, " %s %d+%d", e.Status, e.InputTokens, e.OutputTokens)
		}
		b.WriteByte('\n')
	}
	return b.String()
}

// TestSinkEvents traces a step holding a parallel-map of two task calls
// (one waits for its slot; one runs on an agent that prints lines and
// calls a tool through a model request), and checks the display events.
func TestSinkEvents(t *testing.T) {
	rec := &recorder{}
	ctx := trace.WithSinks(context.Background(), NewSink(rec))
	sctx, step := trace.Start(ctx, trace.Step, "review", nil)
	step.Running()
	gctx, group := trace.Start(sctx, trace.ParallelMap, "parallel-map", nil, trace.Total(2))
	group.Running()

	wctx := trace.Wait(gctx, trace.Task, "summarize")
	_, task := trace.Start(wctx, trace.Task, "summarize", value.NewDict(0), trace.Executor("openai:gpt-4.1"))
	task.Running()
	task.End(trace.Result{Status: trace.Completed}, trace.Usage{InputTokens: 100, OutputTokens: 20})
	group.Advance()

	actx, ag := trace.Start(gctx, trace.Task, "code/implement", nil, trace.Executor("agent:claude"))
	ag.Running()
	ag.Progress("reading files\n")
	ag.Progress("  Editing retry.go  \n\n")
	mctx, model := trace.Start(actx, trace.Model, "openai", nil)
	_, tool := trace.Start(mctx, trace.Tool, "read_files", nil)
	tool.End(trace.Result{Status: trace.Failed, Error: "no"}, trace.Usage{})
	model.End(trace.Result{Status: trace.Completed}, trace.Usage{})
	ag.End(trace.Result{Status: trace.Completed}, trace.Usage{InputTokens: 7, OutputTokens: 3})
	group.Advance()
	group.End(trace.Result{Status: trace.Completed}, trace.Usage{})
	step.End(trace.Result{Status: trace.Completed}, trace.Usage{})

	want := `2 id=1 parent=0 step "review"
2 id=2 parent=1 parallel-map "parallel-map" 0/2
1 id=3 parent=2 task "summarize"
2 id=3 parent=2 task "summarize" exec=openai:gpt-4.1
4 id=3 parent=2 task "summarize" completed 100+20
3 id=2 parent=1 parallel-map "parallel-map" 1/0
2 id=4 parent=2 agent "code/implement" exec=agent:claude
3 id=4 parent=2 agent "code/implement" line="reading files"
3 id=4 parent=2 agent "code/implement" line="Editing retry.go"
2 id=5 parent=4 tool "read_files"
4 id=5 parent=4 tool "read_files" failed 0+0
4 id=4 parent=2 agent "code/implement" completed 7+3
3 id=2 parent=1 parallel-map "parallel-map" 2/0
4 id=2 parent=1 parallel-map "parallel-map" completed 0+0
4 id=1 parent=0 step "review" completed 0+0
`
	if got := rec.String(); got != want {
		t.Fatalf("events:\n%s\nwant:\n%s", got, want)
	}
	// Folded into a model, the run has two calls done.
	m := NewModel(t0)
	for _, e := range rec.evs {
		e.Time = t0
		m.Apply(e)
	}
	if done, running, waiting := m.Counts(); done != 3 || running != 0 || waiting != 0 {
		t.Fatalf("counts = %d, %d, %d; want 3 done (two tasks and the tool)", done, running, waiting)
	}
}

// TestSinkPlan: the tasks Plan announces show as the tree from the start,
// and the plan-task spans of the same ids take their places.
func TestSinkPlan(t *testing.T) {
	rec := &recorder{}
	s := NewSink(rec)
	s.Plan(nil, []PlannedTask{
		{ID: "IMPL-1", Title: "Design", Agent: "@action-planning-agent", Completed: true},
		{ID: "IMPL-2", Title: "Implement"},
		{ID: "IMPL-2.1", Parent: "IMPL-2", Title: "Tokens", Agent: "@code-developer"},
		{ID: "IMPL-3", Title: "Docs"},
	})
	ctx := trace.WithSinks(context.Background(), s)
	pctx, pt := trace.Start(ctx, trace.PlanTask, "IMPL-2.1", nil, trace.Title("Tokens"), trace.Executor("@code-developer"))
	pt.Running()
	_, task := trace.Start(pctx, trace.Task, "plan/code-developer", nil, trace.Executor("echo:echo"))

	m := NewModel(t0)
	for _, e := range rec.evs {
		e.Time = t0
		m.Apply(e)
	}
	got := strings.Join(Frame(m, Size{Width: 100, Height: 20}, t0, false), "\n")
	want := `0 done · 1 running · 0 waiting · 0s
  [x] IMPL-1 Design (@action-planning-agent, completed)
  [ ] IMPL-2 Implement (active)
    [ ] IMPL-2.1 Tokens (@code-developer, active)  <-- current
      ▸ task plan/code-developer  echo:echo  0s
  [ ] IMPL-3 Docs (pending)`
	if got != want {
		t.Fatalf("frame:\n%s\nwant:\n%s", got, want)
	}
	task.End(trace.Result{Status: trace.Completed}, trace.Usage{})
	pt.End(trace.Result{Status: trace.Completed}, trace.Usage{})
}

// TestSinkPlanUnderPlanRun: tasks announced under the step of a
// workflow's (plan-run) hang below it, not at the top beside the
// workflow's other calls; a second plan-run of the same plan (same task
// ids) gets its own calls below its own step, and the tasks the first
// one never started are forgotten when it ends.
func TestSinkPlanUnderPlanRun(t *testing.T) {
	rec := &recorder{}
	s := NewSink(rec)
	ctx := trace.WithSinks(context.Background(), s)
	_, other := trace.Start(ctx, trace.Step, "watch", nil)
	run := func(name string) {
		rctx, step := trace.Start(ctx, trace.Step, name, nil)
		s.Plan(step, []PlannedTask{{ID: "IMPL-1"}, {ID: "IMPL-2"}, {ID: "IMPL-2.1", Parent: "IMPL-2"}})
		_, pt := trace.Start(rctx, trace.PlanTask, "IMPL-2.1", nil)
		pt.End(trace.Result{Status: trace.Completed}, trace.Usage{})
		step.End(trace.Result{Status: trace.Completed}, trace.Usage{})
	}
	run("plan-run A")
	run("plan-run B")
	other.End(trace.Result{Status: trace.Completed}, trace.Usage{})
	want := `2 id=1 parent=0 step "watch"
2 id=2 parent=0 step "plan-run A"
0 id=3 parent=2 plan task "IMPL-1"
0 id=4 parent=2 plan task "IMPL-2"
0 id=5 parent=4 plan task "IMPL-2.1"
2 id=5 parent=2 plan task "IMPL-2.1"
4 id=5 parent=2 plan task "IMPL-2.1" completed 0+0
4 id=2 parent=0 step "plan-run A" completed 0+0
2 id=6 parent=0 step "plan-run B"
0 id=7 parent=6 plan task "IMPL-1"
0 id=8 parent=6 plan task "IMPL-2"
0 id=9 parent=8 plan task "IMPL-2.1"
2 id=9 parent=6 plan task "IMPL-2.1"
4 id=9 parent=6 plan task "IMPL-2.1" completed 0+0
4 id=6 parent=0 step "plan-run B" completed 0+0
4 id=1 parent=0 step "watch" completed 0+0
`
	if got := rec.String(); got != want {
		t.Fatalf("events:\n%s\nwant:\n%s", got, want)
	}
	if len(s.planned) != 0 {
		t.Fatalf("%d announced tasks left after both plan runs ended", len(s.planned))
	}
}

// TestSinkReplayedCost: a resumed run's replayed call (answered from the
// journal, Result.Replayed) was paid by the run it resumes. The header
// shows its recorded cost apart from what this run spends, as the usage
// line does: "$0.0100 spent + $0.0300 replayed".
func TestSinkReplayedCost(t *testing.T) {
	rec := &recorder{}
	ctx := trace.WithSinks(context.Background(), NewSink(rec))
	_, old := trace.Start(ctx, trace.Task, "summarize", nil, trace.Executor("openai:gpt-4.1"))
	old.Running()
	old.End(trace.Result{Status: trace.Completed, Replayed: true}, trace.Usage{InputTokens: 100, OutputTokens: 20, Turns: 1, CostUSD: 0.03, CostKnown: true})
	_, paid := trace.Start(ctx, trace.Task, "summarize", nil, trace.Executor("openai:gpt-4.1"))
	paid.Running()
	paid.End(trace.Result{Status: trace.Completed}, trace.Usage{InputTokens: 10, OutputTokens: 2, Turns: 1, CostUSD: 0.01, CostKnown: true})
	_, unpriced := trace.Start(ctx, trace.Task, "summarize", nil, trace.Executor("other:m"))
	unpriced.Running()
	unpriced.End(trace.Result{Status: trace.Completed}, trace.Usage{InputTokens: 1, OutputTokens: 1, Turns: 1})
	m := NewModel(t0)
	for _, e := range rec.evs {
		e.Time = t0
		m.Apply(e)
	}
	h := Frame(m, Size{Width: 120, Height: 10}, at(2), false)[0]
	want := "3 done · 0 running · 0 waiting · 134 tokens · $0.0100 spent + $0.0300 replayed (cost unknown for 1) · 2s"
	if h != want {
		t.Fatalf("header = %q, want %q", h, want)
	}
}
