//go:build temporal

package engine

import (
	"bytes"
	"context"
	"os"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/evalrun/evalrun/tasksystem"
	"github.com/evalrun/evalrun/temporal"
	"go.temporal.io/sdk/testsuite"
)

// TestPlanUsageOnTemporal: the calls a plan's steps make on a worker
// count in the run's usage as in a local run: (run-usage) after a
// (plan-run) counts the same calls, and the workflow's result (what a
// followed run's usage line prints) has them.
func TestPlanUsageOnTemporal(t *testing.T) {
	src := `(plan-run "` + planDir + `")
(get (run-usage) "calls")`
	e := openEchoEngine(t, planProject(t))
	local, err := e.Eval(context.Background(), "wf.sexp", src)
	if err != nil {
		t.Fatal(err)
	}
	if local.String() == "0" {
		t.Fatalf("the local run counted no calls")
	}
	w := runPlanWorkflow(t, planProject(t), src)
	if w.err != nil {
		t.Fatal(w.err)
	}
	if w.value.String() != local.String() {
		t.Errorf("(run-usage) calls on Temporal %s, locally %s", w.value, local)
	}
	u := usageOf(w.output.Usage)
	lu := e.Usage()
	if u.Calls != lu.Calls || u.Turns != lu.Turns || u.InputTokens == 0 || u.OutputTokens == 0 {
		t.Errorf("the run's usage %+v, locally %+v", u, lu)
	}
	if line := u.Line(); !strings.HasPrefix(line, "usage: "+local.String()+" model calls, ") {
		t.Errorf("usage line %q", line)
	}
}

// TestPlanBudgetOnTemporal: a run's budget (RunInput.Budget, what the
// client gives) counts the tokens of the plan steps' calls on the worker:
// with max_tokens 1 the first step spends it and no other step starts;
// they fail with the budget's message, and the result carries it. The
// worker's own engine keeps no budget.
func TestPlanBudgetOnTemporal(t *testing.T) {
	src := `(plan-run "` + planDir + `")`
	w := runPlanWorkflowWith(t, planProject(t), src, "echo", func(_ *testsuite.TestWorkflowEnvironment, in *temporal.RunInput) {
		in.Budget = tasksystem.Budget{MaxTokens: 1}
	})
	if w.err != nil {
		t.Fatal(w.err)
	}
	if len(w.steps) != 1 || w.steps[0].id != "IMPL-001" {
		t.Fatalf("steps %+v, want IMPL-001 alone", w.steps)
	}
	b := w.output.Budget
	if b == nil || !regexp.MustCompile(`^budget spent: [1-9]\d* of 1 tokens$`).MatchString(b.Error()) {
		t.Fatalf("the run's budget error %v", b)
	}
	got := w.value.String()
	if !strings.Contains(got, `"IMPL-001" (dict "status" "completed"`) {
		t.Errorf("IMPL-001 did not complete: %s", got)
	}
	// IMPL-002.1 and IMPL-003.1 wait for IMPL-001 alone and are refused;
	// the tasks that wait for them are not started.
	refused := `(dict "status" "failed" "reason" "resource_exhaustion: ` + b.Error() + `")`
	tail := `"IMPL-002.1" ` + refused + ` "IMPL-003.1" ` + refused +
		` "IMPL-002.2" (dict "status" "not_started") "IMPL-003.2" (dict "status" "not_started") "IMPL-004" (dict "status" "not_started"))`
	if !strings.HasSuffix(got, tail) {
		t.Errorf("got  %s\nwant it to end %s", got, tail)
	}
}

// TestWorkerKeepsNoBudget: the budget of a worker's own engine (its
// [limits] or options) is not applied to the calls it executes — it would
// count the calls of every run it serves together; a run's budget is its
// workflow's. With max_tokens 1 on the worker, every plan step's calls run.
func TestWorkerKeepsNoBudget(t *testing.T) {
	root := planProject(t)
	e, err := Open(Options{WorkDir: root, Provider: "echo", MaxTokens: 1, Stderr: &bytes.Buffer{}, Getenv: func(k string) string {
		if k == "HOME" || k == "EVALRUN_HOME" {
			return root
		}
		return os.Getenv(k)
	}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.Close() })
	if e.budget == nil {
		t.Fatal("the engine has no budget to drop")
	}
	e.dropBudget()
	var s testsuite.WorkflowTestSuite
	s.SetLogger(quietLog())
	env := s.NewTestWorkflowEnvironment()
	env.SetTestTimeout(time.Minute)
	temporal.RegisterWorker(env, workerTasks{e, e.tasks}, e.runTasks, false)
	env.ExecuteWorkflow(temporal.WorkflowName, temporal.RunInput{Sources: []temporal.Source{{Name: "wf.sexp", Text: `(map (lambda (s) (get s "status")) (values (plan-run "` + planDir + `")))`}}})
	if err := env.GetWorkflowError(); err != nil {
		t.Fatal(err)
	}
	var ro temporal.RunOutput
	if err := env.GetWorkflowResult(&ro); err != nil {
		t.Fatal(err)
	}
	v, err := temporal.Decode(ro.Value)
	if err != nil {
		t.Fatal(err)
	}
	if want := `("completed" "completed" "completed" "completed" "completed" "completed")`; v.String() != want || ro.Budget != nil {
		t.Errorf("statuses %s (budget %v), want %s", v, ro.Budget, want)
	}
}
