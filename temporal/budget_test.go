package temporal_test

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/evalrun/evalrun/evaluator"
	"github.com/evalrun/evalrun/plan"
	"github.com/evalrun/evalrun/progress"
	"github.com/evalrun/evalrun/tasksystem"
	"github.com/evalrun/evalrun/temporal"
	"github.com/evalrun/evalrun/trace"
	"github.com/evalrun/evalrun/value"
	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/converter"
	"go.temporal.io/sdk/testsuite"
)

// costTasks is fakeTasks whose calls report what they used, as the
// engine's task system does on a worker: every task call is a task span
// with one model request, 100 input and 10 output tokens and cost; a
// plan step is a plan-task span holding one such agent call. It records
// the greet arguments and plan steps it ran, in order.
type costTasks struct {
	*fakeTasks
	cost float64

	mu  sync.Mutex
	ran []string
}

func newCostTasks(cost float64) *costTasks { return &costTasks{fakeTasks: newFake(), cost: cost} }

// used is what one call reports.
func (c *costTasks) used() trace.Usage {
	return trace.Usage{InputTokens: 100, OutputTokens: 10, Turns: 1, CostUSD: c.cost, CostKnown: true}
}

func (c *costTasks) record(s string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.ran = append(c.ran, s)
}

func (c *costTasks) calls() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return strings.Join(c.ran, " ")
}

func (c *costTasks) Execute(ctx context.Context, call *evaluator.TaskCall) *value.TaskResult {
	ctx, span := trace.Start(ctx, trace.Task, call.Template.Name, nil, trace.Executor("fake:m"))
	_, model := trace.Start(ctx, trace.Model, "fake", nil)
	for _, a := range call.Named {
		c.record(asText(a.Value))
	}
	r := c.fakeTasks.Execute(ctx, call)
	model.End(trace.Result{Status: trace.Completed}, trace.Usage{})
	span.End(trace.ResultOf(r, false), c.used())
	return r
}

func (c *costTasks) RunPlanStep(ctx context.Context, dir string, o evaluator.PlanRunOptions, id string, sums []string, run string) (plan.StepResult, error) {
	c.record(id)
	ctx, task := trace.Start(ctx, trace.PlanTask, id, nil, trace.Executor("claude"))
	actx, call := trace.Start(ctx, trace.Task, "agent:claude", nil, trace.Executor("agent:claude"))
	_, model := trace.Start(actx, trace.Model, "claude", nil)
	model.End(trace.Result{Status: trace.Completed}, trace.Usage{})
	call.End(trace.Result{Status: trace.Completed}, c.used())
	r, err := c.fakeTasks.RunPlanStep(ctx, dir, o, id, sums, run)
	task.End(trace.Result{Status: trace.Completed}, trace.Usage{})
	return r, err
}

func costEnv(t *testing.T, c *costTasks) *testsuite.TestWorkflowEnvironment {
	t.Helper()
	var s testsuite.WorkflowTestSuite
	s.SetLogger(quietLogger())
	env := s.NewTestWorkflowEnvironment()
	env.SetTestTimeout(30 * time.Second)
	env.SetStartTime(time.Date(2025, 1, 6, 14, 3, 0, 0, time.UTC))
	temporal.Register(env, c)
	return env
}

// countActivities counts the activities env starts, by name.
func countActivities(env *testsuite.TestWorkflowEnvironment) func(name string) int {
	var mu sync.Mutex
	n := map[string]int{}
	env.SetOnActivityStartedListener(func(info *activity.Info, _ context.Context, _ converter.EncodedValues) {
		mu.Lock()
		defer mu.Unlock()
		n[info.ActivityType.Name]++
	})
	return func(name string) int {
		mu.Lock()
		defer mu.Unlock()
		return n[name]
	}
}

// runOutput runs in and returns the run's printed value and its output.
func runOutput(t *testing.T, env *testsuite.TestWorkflowEnvironment, in temporal.RunInput) (string, temporal.RunOutput) {
	t.Helper()
	env.ExecuteWorkflow(temporal.WorkflowName, in)
	if !env.IsWorkflowCompleted() {
		t.Fatal("workflow did not complete")
	}
	if err := env.GetWorkflowError(); err != nil {
		t.Fatal(err)
	}
	var out temporal.RunOutput
	if err := env.GetWorkflowResult(&out); err != nil {
		t.Fatal(err)
	}
	v, err := temporal.Decode(out.Value)
	if err != nil {
		t.Fatal(err)
	}
	return v.String(), out
}

// fiveGreets calls greet five times, one after the other, and returns per
// call "ok" or "failed REASON: MESSAGE".
const fiveGreets = `(map
  (lambda (n)
    (let ((r (greet (name n))))
      (if (task-ok? r)
          "ok"
          (string-append "failed " (get (get (get-field r "notes") "error") "reason") ": " (get-field r "content")))))
  (list "a" "b" "c" "d" "e"))`

// refusedCost is the value fiveGreets has for a call refused by a budget
// of $0.03 spent by three calls of $0.01.
const refusedCost = `"failed resource_exhaustion: budget spent: $0.0300 of $0.0300"`

// TestBudgetMaxCost: with a budget of $0.03 and calls of $0.01, the
// first three calls run and spend it (in nanodollars: three float64
// cents sum to 0.030000000000000002, ten to less than 0.10); the workflow
// starts no activity for the other two, which fail as a local run's
// refused calls do, and the run's output carries the first refusal.
func TestBudgetMaxCost(t *testing.T) {
	c := newCostTasks(0.01)
	env := costEnv(t, c)
	started := countActivities(env)
	got, out := runOutput(t, env, temporal.RunInput{Sources: source(fiveGreets), Budget: tasksystem.Budget{MaxCostUSD: 0.03}})
	if want := `("ok" "ok" "ok" ` + refusedCost + ` ` + refusedCost + `)`; got != want {
		t.Errorf("value %s\nwant  %s", got, want)
	}
	if out.Budget == nil || out.Budget.Error() != "budget spent: $0.0300 of $0.0300" || out.Budget.Reason() != "resource_exhaustion" {
		t.Errorf("the run's budget error is %v, want budget spent: $0.0300 of $0.0300", out.Budget)
	}
	if u := out.Usage; u.Calls != 3 || u.InputTokens != 300 || u.OutputTokens != 10*3 || u.Turns != 3 || fmt.Sprintf("%.6f", u.CostUSD) != "0.030000" {
		t.Errorf("usage %+v, want 3 calls, 300+30 tokens, $0.03", u)
	}
	if n := started(temporal.TaskActivityName); n != 3 || c.calls() != "a b c" {
		t.Errorf("%d task activities started, calls %q; want 3, \"a b c\"", n, c.calls())
	}

	// Ten calls of $0.01 spend a budget of $0.10 exactly.
	c = newCostTasks(0.01)
	src := `(length (filter (lambda (n) (task-ok? (greet (name n)))) (range 12)))`
	got, out = runOutput(t, costEnv(t, c), temporal.RunInput{Sources: source(src), Budget: tasksystem.Budget{MaxCostUSD: 0.10}})
	if got != "10" || out.Budget == nil || out.Budget.Error() != "budget spent: $0.1000 of $0.1000" {
		t.Errorf("$0.10: %s calls ran, budget error %v", got, out.Budget)
	}

	// Without a budget every call runs and the output has no refusal.
	c = newCostTasks(0.01)
	got, out = runOutput(t, costEnv(t, c), temporal.RunInput{Sources: source(fiveGreets)})
	if got != `("ok" "ok" "ok" "ok" "ok")` || out.Budget != nil || c.calls() != "a b c d e" {
		t.Errorf("no budget: %s, %v, calls %q", got, out.Budget, c.calls())
	}
}

// TestBudgetMaxTokens: max_tokens counts input + output tokens: calls of
// 110 tokens spend 250 after three; the others fail with the tokens
// message, and calls that cost nothing are refused all the same.
func TestBudgetMaxTokens(t *testing.T) {
	c := newCostTasks(0)
	env := costEnv(t, c)
	started := countActivities(env)
	got, out := runOutput(t, env, temporal.RunInput{Sources: source(fiveGreets), Budget: tasksystem.Budget{MaxTokens: 250}})
	refused := `"failed resource_exhaustion: budget spent: 330 of 250 tokens"`
	if want := `("ok" "ok" "ok" ` + refused + ` ` + refused + `)`; got != want {
		t.Errorf("value %s\nwant  %s", got, want)
	}
	if out.Budget == nil || out.Budget.Error() != "budget spent: 330 of 250 tokens" {
		t.Errorf("the run's budget error is %v", out.Budget)
	}
	if n := started(temporal.TaskActivityName); n != 3 || c.calls() != "a b c" {
		t.Errorf("%d task activities started, calls %q; want 3, \"a b c\"", n, c.calls())
	}
}

// TestPlanStepUsage: a plan step's activity returns what its calls used;
// the workflow adds it to (run-usage) and the run's usage, and shows each
// step as a plan task that ends with it.
func TestPlanStepUsage(t *testing.T) {
	c := newCostTasks(0.25)
	env := costEnv(t, c)
	src := `(plan-run "plans/a")
(greet (name "z"))
(run-usage)`
	got, out := runOutput(t, env, temporal.RunInput{Sources: source(src)})
	if want := `(dict "calls" 5 "input_tokens" 500 "output_tokens" 50 "cost_usd" 1.25 "cost_unknown_calls" 0)`; got != want {
		t.Errorf("run-usage = %s\nwant       %s", got, want)
	}
	want := tasksystem.RunUsage{Calls: 5, InputTokens: 500, OutputTokens: 50, Turns: 5, CostUSD: 1.25}
	if out.Usage != want {
		t.Errorf("the run's usage %+v, want %+v", out.Usage, want)
	}
	p := queryProgress(t, env, 0)
	var steps []string
	for _, e := range p.Events {
		if e.Kind == progress.KindPlanTask && e.Phase == progress.Ended {
			steps = append(steps, fmt.Sprintf("%s %s %d+%d $%g", e.Name, e.Status, e.InputTokens, e.OutputTokens, e.Cost))
		}
	}
	if g := strings.Join(steps, ", "); g != "IMPL-1 completed 100+10 $0.25, IMPL-2 completed 100+10 $0.25, IMPL-3 completed 100+10 $0.25, IMPL-4 completed 100+10 $0.25" {
		t.Errorf("plan tasks in the progress events: %s", g)
	}
	if p.Usage != want {
		t.Errorf("the progress page's usage %+v, want %+v", p.Usage, want)
	}
}

// TestBudgetPlanSteps: the budget counts what plan steps used and refuses
// a step that would start once it is spent: with $0.25 steps and a
// budget of $0.25, IMPL-1 runs and the others fail as a task whose call
// the budget refused does locally, with no activity started for them.
func TestBudgetPlanSteps(t *testing.T) {
	c := newCostTasks(0.25)
	env := costEnv(t, c)
	started := countActivities(env)
	got, out := runOutput(t, env, temporal.RunInput{Sources: source(`(plan-run "plans/a" (parallel 3))`), Budget: tasksystem.Budget{MaxCostUSD: 0.25}})
	reason := `(dict "status" "failed" "reason" "resource_exhaustion: budget spent: $0.2500 of $0.2500")`
	want := `(dict "IMPL-1" (dict "status" "completed" "answer" "did IMPL-1" "tokens" 6 "cost_usd" 0.5) "IMPL-2" ` + reason + ` "IMPL-3" ` + reason + ` "IMPL-4" ` + reason + `)`
	want2 := strings.Replace(strings.Replace(want, `"IMPL-2" `+reason+` "IMPL-3" `, `"IMPL-2" `+reason+` "IMPL-4" `, 1), `"IMPL-4" `+reason+`)`, `"IMPL-3" `+reason+`)`, 1)
	if got != want && got != want2 {
		t.Errorf("value %s\nwant  %s", got, want)
	}
	if out.Budget == nil || out.Budget.Error() != "budget spent: $0.2500 of $0.2500" {
		t.Errorf("the run's budget error is %v", out.Budget)
	}
	if n := started(temporal.PlanStepActivityName); n != 1 || c.calls() != "IMPL-1" {
		t.Errorf("%d plan steps started, ran %q; want 1, IMPL-1", n, c.calls())
	}
}

// TestBudgetParallelMap: under a parallel-map the calls already running
// when the budget is spent finish and count, as locally; no call starts
// after that. With concurrency 2, calls of $0.01 and a budget of $0.03,
// three or four calls run (the fourth may have started before the third
// finished), the other six are refused, and the usage counts exactly the
// calls that ran.
func TestBudgetParallelMap(t *testing.T) {
	c := newCostTasks(0.01)
	env := costEnv(t, c)
	started := countActivities(env)
	src := `(parallel-map (lambda (n) (let ((r (greet (name n)))) (if (task-ok? r) "ok" (get-field r "content")))) (list "0" "1" "2" "3" "4" "5" "6" "7" "8" "9"))`
	got, out := runOutput(t, env, temporal.RunInput{Sources: source(src), Budget: tasksystem.Budget{MaxCostUSD: 0.03}, Limits: evaluator.Limits{Concurrency: 2}})
	ran := started(temporal.TaskActivityName)
	if ran < 3 || ran > 4 {
		t.Fatalf("%d calls ran, want 3 or 4", ran)
	}
	// A call refused while the fourth ran names $0.03, later ones $0.04.
	refused := strings.Count(got, `"budget spent: $0.0300 of $0.0300"`) + strings.Count(got, `"budget spent: $0.0400 of $0.0300"`)
	if strings.Count(got, `"ok"`) != ran || refused != 10-ran {
		t.Errorf("value %s: want %d \"ok\" and %d refused", got, ran, 10-ran)
	}
	if out.Usage.Calls != ran || out.Usage.InputTokens != 100*ran {
		t.Errorf("usage %+v, want %d calls", out.Usage, ran)
	}
}
