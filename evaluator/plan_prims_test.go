package evaluator_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/evalrun/evalrun/evaluator"
	"github.com/evalrun/evalrun/trace"
	"github.com/evalrun/evalrun/value"
)

// planTasks is checkTasks with a Planner that records its calls and the
// name of the trace span each call was made under.
type planTasks struct {
	checkTasks
	calls []string
	err   error
}

func (p *planTasks) LoadPlan(ctx context.Context, dir string) (*value.Dict, error) {
	p.calls = append(p.calls, "load "+dir)
	if p.err != nil {
		return nil, p.err
	}
	return value.DictOf("session", value.DictOf("session_id", value.String("WFS-x")), "order", value.List{value.List{value.String("IMPL-1")}}), nil
}

func (p *planTasks) RunPlan(ctx context.Context, dir string, o evaluator.PlanRunOptions) (*value.Dict, error) {
	p.calls = append(p.calls, fmt.Sprintf("run %s tasks=%q parallel=%d agent=%q", dir, o.Tasks, o.Parallel, o.Agent))
	if p.err != nil {
		return nil, p.err
	}
	return value.DictOf("IMPL-1", value.DictOf("status", value.String("completed"))), nil
}

func evalPlan(t *testing.T, p *planTasks, src string) (string, error) {
	t.Helper()
	in := evaluator.New(evaluator.Options{Tasks: p})
	v, err := in.EvalString(context.Background(), "wf.sexp", src)
	if err != nil {
		return "", err
	}
	return v.String(), nil
}

func TestPlanFormsReachThePlanner(t *testing.T) {
	for _, tc := range []struct{ src, want, call string }{
		{`(get (plan-load "plans/WFS-x") "order")`, `(("IMPL-1"))`, `load plans/WFS-x`},
		{`(plan-run "d")`, `(dict "IMPL-1" (dict "status" "completed"))`, `run d tasks=[] parallel=1 agent=""`},
		{`(plan-run "d" (task "IMPL-1 IMPL-2.*") (parallel (+ 1 1)) (agent "claude"))`, `(dict "IMPL-1" (dict "status" "completed"))`, `run d tasks=["IMPL-1" "IMPL-2.*"] parallel=2 agent="claude"`},
		{`(plan-run "d" :task (list "IMPL-3") :parallel 3)`, `(dict "IMPL-1" (dict "status" "completed"))`, `run d tasks=["IMPL-3"] parallel=3 agent=""`},
		{`(apply plan-run (list "d" (dict "task" "IMPL-4" "agent" "none")))`, `(dict "IMPL-1" (dict "status" "completed"))`, `run d tasks=["IMPL-4"] parallel=1 agent="none"`},
		{`(map plan-load (list "a"))`, `((dict "session" (dict "session_id" "WFS-x") "order" (("IMPL-1"))))`, `load a`},
	} {
		p := &planTasks{}
		got, err := evalPlan(t, p, tc.src)
		if err != nil {
			t.Errorf("%s: %v", tc.src, err)
			continue
		}
		if got != tc.want {
			t.Errorf("%s = %s, want %s", tc.src, got, tc.want)
		}
		if want := []string{tc.call}; !slices.Equal(p.calls, want) {
			t.Errorf("%s: calls %q, want %q", tc.src, p.calls, want)
		}
	}
}

func TestPlanFormErrors(t *testing.T) {
	for _, tc := range []struct {
		src, want string
		err       error
	}{
		{src: "(list 1\n  (plan-load \"d\"))", err: errors.New("d/.task/IMPL-1.json:3:5: error: unknown task IMPL-9 in depends_on"),
			want: "wf.sexp:2:3: 'plan-load': d/.task/IMPL-1.json:3:5: error: unknown task IMPL-9 in depends_on"},
		{src: `(plan-run "d" (task "IMPL-1"))`, err: &evaluator.PlanStop{TaskID: "IMPL-1", Step: "s", Msg: "IMPL-1: step s needs a person"},
			want: "wf.sexp:1:1: 'plan-run' stopped: IMPL-1: step s needs a person"},
		{src: `(plan-run "d" (tasks "x"))`, want: "wf.sexp:1:15: Unknown 'plan-run' option: tasks (expected task, parallel or agent)"},
		{src: `(plan-run "d" :parallel)`, want: "wf.sexp:1:15: 'plan-run' takes (task IDS), (parallel N) and (agent NAME) after the directory, got :parallel"},
		{src: `(plan-run "d" (agent "a") (agent "b"))`, want: "wf.sexp:1:27: 'plan-run' option agent given twice"},
		{src: `(plan-run "d" (parallel "2"))`, want: `wf.sexp:1:25: 'plan-run' parallel must be a positive integer, got "2"`},
		{src: `(plan-run "d" (task 7))`, want: "wf.sexp:1:21: 'plan-run' task must be a string or a list of strings, got int"},
		{src: `(plan-run)`, want: "wf.sexp:1:1: 'plan-run' requires the plan directory: (plan-run DIR [(task IDS)] [(parallel N)] [(agent NAME)])"},
		{src: `(plan-load "a" "b")`, want: "wf.sexp:1:1: 'plan-load' requires one argument, the plan directory: (plan-load DIR)"},
		{src: `(plan-load "")`, want: "wf.sexp:1:1: 'plan-load' directory is empty"},
	} {
		p := &planTasks{err: tc.err}
		_, err := evalPlan(t, p, tc.src)
		if err == nil || err.Error() != tc.want {
			t.Errorf("%s:\n got %v\nwant %s", tc.src, err, tc.want)
		}
	}
	// A failed plan-run is catchable by try.
	p := &planTasks{err: &evaluator.PlanStop{Msg: "stop"}}
	got, err := evalPlan(t, p, `(try (plan-run "d") (catch e "caught"))`)
	if err != nil || got != `"caught"` {
		t.Errorf("try: %s %v", got, err)
	}
}

// TestPlanFormsWithoutPlanner: under a Tasks that is not a Planner the
// forms are evaluation errors, not panics.
func TestPlanFormsWithoutPlanner(t *testing.T) {
	in := evaluator.New(evaluator.Options{Tasks: checkTasks{}})
	_, err := in.EvalString(context.Background(), "wf.sexp", `(plan-load "d")`)
	if err == nil || err.Error() != "wf.sexp:1:1: 'plan-load' is not available here: no plans can be run" {
		t.Errorf("got %v", err)
	}
}

// TestPlanRunUnderTheCallingStep: the context given to RunPlan carries
// the trace frame of the step that called plan-run, so the plan's tasks
// become its children.
func TestPlanRunUnderTheCallingStep(t *testing.T) {
	sink := &parentSink{}
	p := &spanPlanner{}
	in := evaluator.New(evaluator.Options{Tasks: p})
	ctx := trace.WithSinks(context.Background(), sink)
	if _, err := in.EvalString(ctx, "wf.sexp", `(step "implement" (plan-run "d"))`); err != nil {
		t.Fatal(err)
	}
	if want := []string{"implement"}; !slices.Equal(sink.parents, want) {
		t.Errorf("parents of the plan task spans %q, want %q", sink.parents, want)
	}
}

// parentSink records the parent of each plan task span that ends.
type parentSink struct{ parents []string }

func (s *parentSink) Observe(ev trace.Event) {
	if ev.Type == trace.Ended && ev.Span.Kind() == trace.PlanTask {
		s.parents = append(s.parents, ev.Span.Parent().Name())
	}
}

type spanPlanner struct{ planTasks }

func (p *spanPlanner) RunPlan(ctx context.Context, dir string, o evaluator.PlanRunOptions) (*value.Dict, error) {
	_, sp := trace.Start(ctx, trace.PlanTask, "IMPL-1", nil)
	sp.End(trace.Result{Status: trace.Completed}, trace.Usage{})
	return value.NewDict(0), nil
}

// TestCheckKnowsPlanForms: evalrun check accepts the forms and reports a
// malformed option at its position.
func TestCheckKnowsPlanForms(t *testing.T) {
	opts := evaluator.CheckOptions{Tasks: checkTasks{}}
	clean := `(let ((p (plan-load "d"))) (plan-run "d" (task (get p "x")) :parallel 2 (agent "claude")) (map plan-load (list "d")))`
	if got := checkLines(t, clean, opts); len(got) > 0 {
		t.Errorf("Check(%q) = %q, want nothing", clean, got)
	}
	got := strings.Join(checkLines(t, "(plan-run \"d\"\n  (paralel 2))", opts), "\n")
	if want := "2:3: error: Unknown 'plan-run' option: paralel (expected task, parallel or agent)"; got != want {
		t.Errorf("Check = %q, want %q", got, want)
	}
	got = strings.Join(checkLines(t, `(plan-run "d" (task undefined-ids))`, opts), "\n")
	if want := "1:21: error: Unbound symbol: Name 'undefined-ids' is not defined."; got != want {
		t.Errorf("Check = %q, want %q", got, want)
	}
}
