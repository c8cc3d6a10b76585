package temporal_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/evalrun/evalrun/evaluator"
	"github.com/evalrun/evalrun/progress"
	"github.com/evalrun/evalrun/tasksystem"
	"github.com/evalrun/evalrun/temporal"
	"github.com/evalrun/evalrun/trace"
	"github.com/evalrun/evalrun/value"
	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/converter"
	"go.temporal.io/sdk/testsuite"
)

// usageTasks is fakeTasks whose task calls trace what they use, as the
// engine's task system does on a worker: a task span with its executor
// and usage, and a model span for each request. greet uses 10+len(name)
// input and 5 output tokens in one turn at $0.001; fail makes one model
// request that fails (no turns, cost unknown); a name "b" answers after
// delay.
type usageTasks struct {
	*fakeTasks
}

func (u usageTasks) Execute(ctx context.Context, call *evaluator.TaskCall) *value.TaskResult {
	name := call.Template.Name
	ctx, span := trace.Start(ctx, trace.Task, name, nil, trace.Executor("fake:m"))
	_, model := trace.Start(ctx, trace.Model, "fake", nil)
	var arg string
	for _, a := range call.Named {
		arg = asText(a.Value)
	}
	if arg == "b" && u.delay > 0 {
		time.Sleep(u.delay)
	}
	r := u.fakeTasks.Execute(ctx, call)
	model.End(trace.Result{Status: trace.Completed}, trace.Usage{})
	us := trace.Usage{InputTokens: 10 + len(arg), OutputTokens: 5, Turns: 1, CostUSD: 0.001, CostKnown: true}
	if name == "fail" {
		us = trace.Usage{}
	}
	span.End(trace.ResultOf(r, false), us)
	return r
}

func usageEnv(t *testing.T, delay time.Duration) *testsuite.TestWorkflowEnvironment {
	t.Helper()
	var s testsuite.WorkflowTestSuite
	s.SetLogger(quietLogger())
	env := s.NewTestWorkflowEnvironment()
	env.SetTestTimeout(30 * time.Second)
	env.SetStartTime(time.Date(2025, 1, 6, 14, 3, 0, 0, time.UTC))
	f := newFake()
	f.delay = delay
	temporal.Register(env, usageTasks{f})
	return env
}

// queryProgress asks the workflow for its events after after.
func queryProgress(t *testing.T, env *testsuite.TestWorkflowEnvironment, after int) temporal.ProgressPage {
	t.Helper()
	v, err := env.QueryWorkflow(temporal.ProgressQuery, after)
	if err != nil {
		t.Fatalf("progress query: %v", err)
	}
	var p temporal.ProgressPage
	if err := v.Get(&p); err != nil {
		t.Fatal(err)
	}
	return p
}

// eventLines prints events one a line without their times (all at the
// workflow's start in the test environment, checked apart).
func eventLines(evs []temporal.ProgressEvent) string {
	phases := map[progress.Phase]string{progress.Planned: "planned", progress.Waiting: "waiting", progress.Running: "running", progress.Progress: "progress", progress.Ended: "ended"}
	var b strings.Builder
	for _, e := range evs {
		fmt.Fprintf(&b, "%d %s #%d", e.Seq, phases[e.Phase], e.ID)
		if e.Parent != 0 {
			fmt.Fprintf(&b, " in #%d", e.Parent)
		}
		if e.Kind != "" {
			fmt.Fprintf(&b, " %s %s", e.Kind, e.Name)
		}
		if e.Executor != "" {
			fmt.Fprintf(&b, " [%s]", e.Executor)
		}
		if e.Total > 0 {
			fmt.Fprintf(&b, " total=%d", e.Total)
		}
		if e.Done > 0 {
			fmt.Fprintf(&b, " done=%d", e.Done)
		}
		if e.Phase == progress.Ended {
			fmt.Fprintf(&b, " %s %d+%d", e.Status, e.InputTokens, e.OutputTokens)
			if e.CostKnown {
				fmt.Fprintf(&b, " $%g", e.Cost)
			} else {
				b.WriteString(" cost?")
			}
		}
		b.WriteString("\n")
	}
	return b.String()
}

// TestProgressSequential: the progress query returns the display events of
// a run's sequential task and tool calls — the same a local run's display
// gets — and the usage the calls returned; run-usage reports it too.
func TestProgressSequential(t *testing.T) {
	env := usageEnv(t, 0)
	src := `(step "greetings" (list (get-field (greet (name "a")) "content") (get-field (greet (name "bb")) "content")))
(fail)
(upper (text "x"))
(run-usage)`
	got, err := runWorkflow(t, env, temporal.RunInput{Sources: source(src)})
	if err != nil {
		t.Fatal(err)
	}
	if want := `(dict "calls" 3 "input_tokens" 23 "output_tokens" 10 "cost_usd" 0.002 "cost_unknown_calls" 1)`; got != want {
		t.Fatalf("run-usage = %s\nwant       %s", got, want)
	}
	p := queryProgress(t, env, 0)
	want := `1 running #1 step greetings
2 waiting #2 in #1 task greet
3 running #2 in #1 task greet
4 ended #2 in #1 task greet completed 11+5 $0.001
5 waiting #3 in #1 task greet
6 running #3 in #1 task greet [fake:m]
7 ended #3 in #1 task greet completed 12+5 $0.001
8 ended #1 step greetings completed 0+0 cost?
9 waiting #4 task fail
10 running #4 task fail
11 ended #4 task fail failed 0+0 cost?
12 waiting #5 tool upper
13 running #5 tool upper
14 ended #5 tool upper completed 0+0 cost?
`
	if g := eventLines(p.Events); g != want {
		t.Fatalf("events:\n%s\nwant:\n%s", g, want)
	}
	start := time.Date(2025, 1, 6, 14, 3, 0, 0, time.UTC)
	for _, e := range p.Events {
		if !e.Time.Equal(start) {
			t.Fatalf("event %d at %s, want the workflow clock %s", e.Seq, e.Time, start)
		}
	}
	wantUsage := tasksystem.RunUsage{Calls: 3, InputTokens: 23, OutputTokens: 10, Turns: 2, CostUSD: 0.002, CostUnknown: 1}
	if p.Next != 14 || p.More || p.Usage != wantUsage {
		t.Fatalf("page next=%d more=%v usage=%+v, want 14 false %+v", p.Next, p.More, p.Usage, wantUsage)
	}
	// A caller that has the first 12 events gets the last two.
	if p := queryProgress(t, env, 12); eventLines(p.Events) != "13 running #5 tool upper\n14 ended #5 tool upper completed 0+0 cost?\n" || p.Next != 14 {
		t.Fatalf("after 12: %+v", p)
	}
	if p := queryProgress(t, env, 14); len(p.Events) != 0 || p.Next != 14 || p.Usage != wantUsage {
		t.Fatalf("after 14: %+v", p)
	}
	var out temporal.RunOutput
	if err := env.GetWorkflowResult(&out); err != nil || out.Usage != wantUsage {
		t.Fatalf("result usage %+v (%v), want %+v", out.Usage, err, wantUsage)
	}
}

// TestProgressParallelMap: a parallel-map is one group whose calls wait
// for the run's concurrency slots; the query during the run returns the
// events so far, and after the run the rest.
func TestProgressParallelMap(t *testing.T) {
	env := usageEnv(t, 500*time.Millisecond)
	var during temporal.ProgressPage
	env.SetOnActivityCompletedListener(func(info *activity.Info, result converter.EncodedValue, err error) {
		if info.ActivityID == "1" {
			during = queryProgress(t, env, 0)
		}
	})
	src := `(parallel-map (lambda (n) (get-field (greet (name n)) "content")) (list "a" "b" "c"))`
	got, err := runWorkflow(t, env, temporal.RunInput{Sources: source(src), Limits: evaluator.Limits{Concurrency: 2}})
	if err != nil {
		t.Fatal(err)
	}
	if got != `("Hello a" "Hello b" "Hello c")` {
		t.Fatalf("got %s", got)
	}
	wantDuring := `1 running #1 parallel-map parallel-map total=3
2 waiting #2 in #1 task greet
3 running #2 in #1 task greet
4 waiting #3 in #1 task greet
5 running #3 in #1 task greet
6 waiting #4 in #1 task greet
`
	if g := eventLines(during.Events); g != wantDuring || during.Next != 6 || during.Usage != (tasksystem.RunUsage{}) {
		t.Fatalf("during the first call: next %d, usage %+v, events:\n%s\nwant:\n%s", during.Next, during.Usage, g, wantDuring)
	}
	// The display a follower draws from these events.
	start := time.Date(2025, 1, 6, 14, 3, 0, 0, time.UTC)
	frame := func(evs []temporal.ProgressEvent, m *progress.Model) string {
		for _, e := range evs {
			m.Apply(e.Event)
		}
		return strings.Join(progress.Frame(m, progress.Size{Width: 60, Height: 10}, start.Add(2*time.Second), false), "\n")
	}
	m := progress.NewModel(start)
	wantFrame := `0 done · 2 running · 1 waiting · 2s
  parallel-map 0/3  2s
    ▸ task greet  2s
    ▸ task greet  2s
    … 1 waiting`
	if g := frame(during.Events, m); g != wantFrame {
		t.Fatalf("frame during the run:\n%s\nwant:\n%s", g, wantFrame)
	}
	p := queryProgress(t, env, during.Next)
	wantFrame = `3 done · 0 running · 0 waiting · 48 tokens · $0.0030 · 2s`
	if g := frame(p.Events, m); g != wantFrame {
		t.Fatalf("frame after the run:\n%s\nwant:\n%s", g, wantFrame)
	}
	wantAfter := `7 ended #2 in #1 task greet completed 11+5 $0.001
8 progress #1 parallel-map parallel-map done=1
9 running #4 in #1 task greet [fake:m]
10 ended #4 in #1 task greet completed 11+5 $0.001
11 progress #1 parallel-map parallel-map done=2
12 ended #3 in #1 task greet completed 11+5 $0.001
13 progress #1 parallel-map parallel-map done=3
14 ended #1 parallel-map parallel-map completed 0+0 cost?
`
	wantUsage := tasksystem.RunUsage{Calls: 3, InputTokens: 33, OutputTokens: 15, Turns: 3, CostUSD: 0.003}
	if g := eventLines(p.Events); g != wantAfter || p.Next != 14 || p.Usage != wantUsage {
		t.Fatalf("after the run: next %d, usage %+v, events:\n%s\nwant:\n%s", p.Next, p.Usage, g, wantAfter)
	}
}

// TestProgressPrints: what the program prints on stderr (log-message) is
// in the progress events, in order with the calls, for the follower's
// stderr.
func TestProgressPrints(t *testing.T) {
	env := usageEnv(t, 0)
	src := `(log-message "before" 1) (greet (name "a")) (log-message "after")`
	if _, err := runWorkflow(t, env, temporal.RunInput{Sources: source(src)}); err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	for _, e := range queryProgress(t, env, 0).Events {
		if e.Print != "" {
			fmt.Fprintf(&b, "%d print %q\n", e.Seq, e.Print)
		} else {
			b.WriteString(eventLines([]temporal.ProgressEvent{e}))
		}
	}
	want := `1 print "log: before 1\n"
2 waiting #1 task greet
3 running #1 task greet
4 ended #1 task greet completed 11+5 $0.001
5 print "log: after\n"
`
	if b.String() != want {
		t.Fatalf("events:\n%s\nwant:\n%s", b.String(), want)
	}
}

// TestProgressPlanRun: a (plan-run) is the step "plan-run WFS-…" of a
// local run, below which the plan's tasks are announced with their titles
// and agents before any runs; each plan step takes over its announced
// task. The frame a follower draws from the queried events is a local
// run's (progress/testdata/workflow-plan.golden).
func TestProgressPlanRun(t *testing.T) {
	env := usageEnv(t, 0)
	var during temporal.ProgressPage
	env.SetOnActivityCompletedListener(func(info *activity.Info, result converter.EncodedValue, err error) {
		if info.ActivityID == "2" {
			during = queryProgress(t, env, 0)
		}
	})
	if _, err := runWorkflow(t, env, temporal.RunInput{Sources: source(`(plan-run "plans/a" (parallel 2))`)}); err != nil {
		t.Fatal(err)
	}
	wantDuring := `1 running #1 step plan-run WFS-a
2 planned #2 in #1 plan task IMPL-1 [@action-planning-agent]
3 planned #3 in #1 plan task IMPL-2 [@code-developer]
4 planned #4 in #1 plan task IMPL-3 [@test-fix-agent]
5 planned #5 in #1 plan task IMPL-4 [@doc-generator]
6 running #2 in #1 plan task IMPL-1 [@action-planning-agent]
`
	if g := eventLines(during.Events); g != wantDuring {
		t.Fatalf("during IMPL-1:\n%s\nwant:\n%s", g, wantDuring)
	}
	titles := map[string]string{}
	for _, e := range during.Events {
		if e.Kind == progress.KindPlanTask {
			titles[fmt.Sprintf("%d %s", e.Seq, e.Name)] = e.Title
		}
	}
	wantTitles := map[string]string{"2 IMPL-1": "Design the model", "3 IMPL-2": "Write the code", "4 IMPL-3": "Test the code", "5 IMPL-4": "Document it", "6 IMPL-1": "Design the model"}
	if fmt.Sprint(titles) != fmt.Sprint(wantTitles) {
		t.Fatalf("titles %v, want %v", titles, wantTitles)
	}
	start := time.Date(2025, 1, 6, 14, 3, 0, 0, time.UTC)
	frame := func(evs []temporal.ProgressEvent, m *progress.Model) string {
		for _, e := range evs {
			m.Apply(e.Event)
		}
		return strings.Join(progress.Frame(m, progress.Size{Width: 80, Height: 10}, start.Add(time.Second), false), "\n")
	}
	m := progress.NewModel(start)
	wantFrame := `0 done · 0 running · 0 waiting · 1s
  ▸ step plan-run WFS-a  0/4 tasks  1s
    [ ] IMPL-1 Design the model (@action-planning-agent, active)  <-- current
    [ ] IMPL-2 Write the code (@code-developer, pending)
    [ ] IMPL-3 Test the code (@test-fix-agent, pending)
    [ ] IMPL-4 Document it (@doc-generator, pending)`
	if g := frame(during.Events, m); g != wantFrame {
		t.Fatalf("frame during IMPL-1:\n%s\nwant:\n%s", g, wantFrame)
	}
	p := queryProgress(t, env, during.Next)
	var ends []string
	for _, e := range p.Events {
		if e.Phase == progress.Ended {
			ends = append(ends, fmt.Sprintf("#%d %s %s %s", e.ID, e.Kind, e.Name, e.Status))
		}
	}
	if g, w := strings.Join(ends, ", "), "#2 plan task IMPL-1 completed, "; !strings.HasPrefix(g, w) || !strings.HasSuffix(g, "#4 plan task IMPL-3 completed, #1 step plan-run WFS-a completed") || len(ends) != 5 {
		t.Fatalf("ends after IMPL-1: %s", g)
	}
	if g := frame(p.Events, m); g != "0 done · 0 running · 0 waiting · 1s" {
		t.Fatalf("frame after the run:\n%s", g)
	}
}

// TestProgressPlanRunFailed: a plan run whose task failed ends its step
// failed, as a local run's, and the dict is still the form's value.
func TestProgressPlanRunFailed(t *testing.T) {
	env := usageEnv(t, 0)
	got, err := runWorkflow(t, env, temporal.RunInput{Sources: source(`(get (get (plan-run "plans/fail") "IMPL-1") "status")`)})
	if err != nil || got != `"failed"` {
		t.Fatalf("got %s %v", got, err)
	}
	var last progress.Event
	for _, e := range queryProgress(t, env, 0).Events {
		if e.Kind == progress.KindStep {
			last = e.Event
		}
	}
	if last.Name != "plan-run WFS-fail" || last.Phase != progress.Ended || last.Status != "failed" {
		t.Fatalf("the plan run's step ended %+v", last)
	}
}

// TestProgressPlanRunRecordedBefore: a plan-prepare result recorded
// before it carried the display's part (a schedule alone) still runs the
// plan: the step is named after the directory as written, and the tasks
// show as they start, without titles.
func TestProgressPlanRunRecordedBefore(t *testing.T) {
	env := usageEnv(t, 0)
	if _, err := runWorkflow(t, env, temporal.RunInput{Sources: source(`(plan-run "plans/old")`)}); err != nil {
		t.Fatal(err)
	}
	p := queryProgress(t, env, 0)
	if len(p.Events) < 2 {
		t.Fatalf("events %+v", p.Events)
	}
	want := "1 running #1 step plan-run old\n2 running #2 in #1 plan task IMPL-1\n"
	if g := eventLines(p.Events[:2]); g != want || p.Events[1].Title != "" {
		t.Fatalf("events:\n%s\nwant:\n%s", g, want)
	}
}
