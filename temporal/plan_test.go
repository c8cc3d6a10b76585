package temporal_test

import (
	"context"
	"errors"
	"fmt"
	"path"
	"sync"
	"testing"
	"time"

	"github.com/evalrun/evalrun/evaluator"
	"github.com/evalrun/evalrun/plan"
	"github.com/evalrun/evalrun/progress"
	"github.com/evalrun/evalrun/temporal"
	"github.com/evalrun/evalrun/value"
	commonpb "go.temporal.io/api/common/v1"
	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/converter"
)

// The fake task system runs the plans of fakePlanDirs: IMPL-1, then
// IMPL-2 (focus b), IMPL-3 (focus b/x, overlapping IMPL-2) and IMPL-4
// (focus c), all three waiting for IMPL-1. In plans/fail IMPL-1 fails; in
// plans/manual it stops for a person. A step takes 50 ms.
// plans/old is plans/a as a worker prepared it before the plan-prepare
// result carried the display's part (PreparedPlan.Step, Dir, Planned).
var fakePlanDirs = map[string]bool{"plans/a": true, "plans/fail": true, "plans/manual": true, "plans/old": true}

var _ temporal.PlanWorker = (*fakeTasks)(nil)

// planSteps counts the plan steps of a fake and the most that ran at
// once.
type planSteps struct {
	mu        sync.Mutex
	active    int
	maxActive int
	order     []string
}

var fakeSteps sync.Map // *fakeTasks → *planSteps

func (f *fakeTasks) steps() *planSteps {
	s, _ := fakeSteps.LoadOrStore(f, &planSteps{})
	return s.(*planSteps)
}

func (f *fakeTasks) LoadPlan(ctx context.Context, dir string) (*value.Dict, error) {
	if !fakePlanDirs[dir] {
		return nil, fmt.Errorf("%s: no such plan", dir)
	}
	return value.DictOf("order", value.List{value.List{value.String("IMPL-1")}, value.List{value.String("IMPL-2"), value.String("IMPL-4")}, value.List{value.String("IMPL-3")}}), nil
}

func (f *fakeTasks) PreparePlan(ctx context.Context, dir string, o evaluator.PlanRunOptions) (*temporal.PreparedPlan, error) {
	if !fakePlanDirs[dir] {
		return nil, fmt.Errorf("%s: no such plan", dir)
	}
	s := &temporal.PreparedPlan{
		Schedule: plan.Schedule{Parallel: o.Parallel},
		Step:     "plan-run WFS-" + path.Base(dir),
		Dir:      "/work/" + dir,
		Planned: []progress.PlannedTask{
			{ID: "IMPL-1", Title: "Design the model", Agent: "@action-planning-agent"},
			{ID: "IMPL-2", Title: "Write the code", Agent: "@code-developer"},
			{ID: "IMPL-3", Title: "Test the code", Agent: "@test-fix-agent"},
			{ID: "IMPL-4", Title: "Document it", Agent: "@doc-generator"},
		},
	}
	if dir == "plans/old" {
		s = &temporal.PreparedPlan{Schedule: plan.Schedule{Parallel: o.Parallel}}
	}
	for _, t := range []plan.ScheduledTask{
		{ID: "IMPL-1", Key: "IMPL-1", Focus: []string{"a"}},
		{ID: "IMPL-2", Key: "IMPL-2", Focus: []string{"b"}, Deps: []string{"IMPL-1"}},
		{ID: "IMPL-3", Key: "IMPL-3", Focus: []string{"b/x"}, Deps: []string{"IMPL-1"}},
		{ID: "IMPL-4", Key: "IMPL-4", Focus: []string{"c"}, Deps: []string{"IMPL-1"}},
	} {
		t.Status, t.Selected, t.Sums = plan.StatusPending, true, []string{dir}
		s.Tasks = append(s.Tasks, t)
	}
	return s, nil
}

func (f *fakeTasks) RunPlanStep(ctx context.Context, dir string, o evaluator.PlanRunOptions, id string, sums []string, run string) (plan.StepResult, error) {
	s := f.steps()
	s.mu.Lock()
	s.active++
	s.maxActive = max(s.maxActive, s.active)
	s.order = append(s.order, id)
	s.mu.Unlock()
	defer func() { s.mu.Lock(); s.active--; s.mu.Unlock() }()
	select {
	case <-time.After(50 * time.Millisecond):
	case <-ctx.Done():
		return plan.StepResult{Err: ctx.Err()}, nil
	}
	if len(sums) != 1 || sums[0] != dir {
		return plan.StepResult{Err: &plan.ChangedError{Path: dir + "/" + id}}, nil
	}
	switch {
	case dir == "plans/fail" && id == "IMPL-1":
		err := errors.New("pre_analysis step \"build\": exit status 3")
		return plan.StepResult{Failed: true, Reason: err.Error(), Err: err}, nil
	case dir == "plans/manual" && id == "IMPL-1":
		return plan.StepResult{Err: &plan.ManualError{TaskID: id, Step: "build", Err: errors.New("exit status 3")}}, nil
	}
	return plan.StepResult{Completed: true, Answer: "did " + id, Tokens: int64(len(id)), CostUSD: 0.5}, nil
}

// noPlans is a task system without plans.
type noPlans struct{ evaluator.Tasks }

// TestPlanRunInWorkflow: the workflow schedules the plan's steps as a
// local run would — IMPL-1 first, then IMPL-2 and IMPL-4 side by side,
// IMPL-3 (overlapping IMPL-2) after — each one PlanStep activity, and
// returns the local result dict.
func TestPlanRunInWorkflow(t *testing.T) {
	f := newFake()
	env := newEnv(t, f)
	var mu sync.Mutex
	var acts []string
	env.SetOnActivityStartedListener(func(info *activity.Info, _ context.Context, args converter.EncodedValues) {
		mu.Lock()
		defer mu.Unlock()
		name := info.ActivityType.Name
		if name == temporal.PlanStepActivityName {
			var in temporal.PlanStepInput
			_ = args.Get(&in)
			name += " " + in.TaskID
		}
		acts = append(acts, name)
	})
	got, err := runWorkflow(t, env, temporal.RunInput{Sources: source(`(plan-run "plans/a" (parallel 3))`)})
	if err != nil {
		t.Fatal(err)
	}
	want := `(dict "IMPL-1" (dict "status" "completed" "answer" "did IMPL-1" "tokens" 6 "cost_usd" 0.5) ` +
		`"IMPL-2" (dict "status" "completed" "answer" "did IMPL-2" "tokens" 6 "cost_usd" 0.5) ` +
		`"IMPL-4" (dict "status" "completed" "answer" "did IMPL-4" "tokens" 6 "cost_usd" 0.5) ` +
		`"IMPL-3" (dict "status" "completed" "answer" "did IMPL-3" "tokens" 6 "cost_usd" 0.5))`
	if got != want && got != swapped(want) {
		t.Errorf("got  %s\nwant %s", got, want)
	}
	s := f.steps()
	if s.maxActive != 2 {
		t.Errorf("at most %d steps ran at once, want 2", s.maxActive)
	}
	if len(acts) != 5 || acts[0] != temporal.PlanPrepareActivityName || acts[1] != temporal.PlanStepActivityName+" IMPL-1" || acts[4] != temporal.PlanStepActivityName+" IMPL-3" {
		t.Errorf("activities %q", acts)
	}
	// With (parallel 1) one at a time, in id order.
	f = newFake()
	got, err = runWorkflow(t, newEnv(t, f), temporal.RunInput{Sources: source(`(keys (plan-run "plans/a"))`)})
	if err != nil || got != `("IMPL-1" "IMPL-2" "IMPL-3" "IMPL-4")` || f.steps().maxActive != 1 {
		t.Errorf("parallel 1: %s %v, %d at once", got, err, f.steps().maxActive)
	}
}

// swapped is want with IMPL-4 and IMPL-2 finishing the other way
// round (they run side by side).
func swapped(want string) string {
	a := `"IMPL-2" (dict "status" "completed" "answer" "did IMPL-2" "tokens" 6 "cost_usd" 0.5) `
	b := `"IMPL-4" (dict "status" "completed" "answer" "did IMPL-4" "tokens" 6 "cost_usd" 0.5) `
	i := len(`(dict "IMPL-1" (dict "status" "completed" "answer" "did IMPL-1" "tokens" 6 "cost_usd" 0.5) `)
	return want[:i] + b + a + want[i+len(a)+len(b):]
}

// TestPlanErrorsInWorkflow: a failed task is an entry of the dict and its
// dependants are not started; a manual_intervention stop, a changed file
// and a plan that does not load are evaluation errors at the form.
func TestPlanErrorsInWorkflow(t *testing.T) {
	got, err := runWorkflow(t, newEnv(t, newFake()), temporal.RunInput{Sources: source(`(plan-run "plans/fail" (parallel 2))`)})
	want := `(dict "IMPL-1" (dict "status" "failed" "reason" "pre_analysis step \"build\": exit status 3") "IMPL-2" (dict "status" "not_started") "IMPL-3" (dict "status" "not_started") "IMPL-4" (dict "status" "not_started"))`
	if err != nil || got != want {
		t.Errorf("failed task: %s %v\nwant %s", got, err, want)
	}
	for _, c := range []struct{ src, kind, msg string }{
		{`(plan-run "plans/manual")`, "value", `wf.sexp:1:1: 'plan-run' stopped: IMPL-1: pre_analysis step "build" failed and needs a person (on_error manual_intervention): exit status 3` +
			"\nthe task stays active; fix the cause, then continue with: evalrun plan run --resume"},
		{`(plan-run "plans/missing")`, "value", "wf.sexp:1:1: 'plan-run': plans/missing: no such plan"},
		{`(plan-load "plans/missing")`, "value", "wf.sexp:1:1: 'plan-load': plans/missing: no such plan"},
		{`(plan-run "plans/a" (task "x") (parallel 0))`, "value", "wf.sexp:1:42: 'plan-run' parallel must be a positive integer, got 0"},
	} {
		_, err := runWorkflow(t, newEnv(t, newFake()), temporal.RunInput{Sources: source(c.src)})
		ee := evaluationError(t, err)
		if ee.Kind != c.kind || ee.Message != c.msg {
			t.Errorf("%s: got %+v\nwant %s", c.src, ee, c.msg)
		}
	}
	got, err = runWorkflow(t, newEnv(t, newFake()), temporal.RunInput{Sources: source(`(get (plan-load "plans/a") "order")`)})
	if err != nil || got != `(("IMPL-1") ("IMPL-2" "IMPL-4") ("IMPL-3"))` {
		t.Errorf("plan-load: %s %v", got, err)
	}
}

// planPayload re-encodes the input of a plan activity for a recorded
// history.
func planPayload(typ string, args converter.EncodedValues) (*commonpb.Payloads, error) {
	dc := converter.GetDefaultDataConverter()
	switch typ {
	case temporal.PlanLoadActivityName:
		var in temporal.PlanLoadInput
		_ = args.Get(&in)
		return dc.ToPayloads(in)
	case temporal.PlanPrepareActivityName:
		var in temporal.PlanRunInput
		_ = args.Get(&in)
		return dc.ToPayloads(in)
	case temporal.PlanStepActivityName:
		var in temporal.PlanStepInput
		_ = args.Get(&in)
		return dc.ToPayloads(in)
	}
	return nil, fmt.Errorf("unknown activity %s", typ)
}

// runPlanActivity runs one recorded plan activity directly.
func runPlanActivity(ctx context.Context, a *temporal.Activities, typ string, args *commonpb.Payloads) (any, error) {
	dc := converter.GetDefaultDataConverter()
	switch typ {
	case temporal.PlanLoadActivityName:
		var in temporal.PlanLoadInput
		if err := dc.FromPayloads(args, &in); err != nil {
			return nil, err
		}
		return a.PlanLoad(ctx, in)
	case temporal.PlanPrepareActivityName:
		var in temporal.PlanRunInput
		if err := dc.FromPayloads(args, &in); err != nil {
			return nil, err
		}
		return a.PlanPrepare(ctx, in)
	case temporal.PlanStepActivityName:
		var in temporal.PlanStepInput
		if err := dc.FromPayloads(args, &in); err != nil {
			return nil, err
		}
		return a.PlanStep(ctx, in)
	}
	return nil, fmt.Errorf("unknown activity %s", typ)
}
