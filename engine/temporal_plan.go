//go:build temporal

package engine

import (
	"context"

	"github.com/evalrun/evalrun/evaluator"
	"github.com/evalrun/evalrun/plan"
	"github.com/evalrun/evalrun/templates"
	"github.com/evalrun/evalrun/temporal"
	"github.com/evalrun/evalrun/value"
)

// A worker's task system runs the plan activities (temporal.PlanWorker)
// through workflowPlans, the code path of (plan-load) and (plan-run) in a
// local run, and tells the workflow which agent a task call runs and how
// many of its processes may run at once (temporal.AgentPolicy), from the
// configuration the worker loaded.
var (
	_ temporal.PlanWorker  = workerTasks{}
	_ temporal.AgentPolicy = workerTasks{}
)

// LoadPlan implements temporal.PlanWorker.
func (w workerTasks) LoadPlan(ctx context.Context, dir string) (*value.Dict, error) {
	return workflowPlans{w.e}.LoadPlan(ctx, dir)
}

// PreparePlan implements temporal.PlanWorker: it checks a run of the
// plan in dir as (plan-run) would start it and returns its schedule
// (plan.Prepare), the first half of a (plan-run) whose scheduling happens
// in the workflow, with the name and directory of the plan run's step
// and the tasks the display announces below it, as a local run's. The
// agents of a task are dropped when its calls go to a provider.
func (w workerTasks) PreparePlan(ctx context.Context, dir string, o evaluator.PlanRunOptions) (*temporal.PreparedPlan, error) {
	wp := workflowPlans{w.e}
	p, err := wp.load(dir)
	if err != nil {
		return nil, err
	}
	_, x, ro := w.e.planRun(ctx, p, wp.planRunOf(o))
	s, err := plan.Prepare(p, ro)
	if err != nil {
		return nil, err
	}
	if x.forceProvider {
		for i := range s.Tasks {
			s.Tasks[i].Agents = nil
		}
	}
	return &temporal.PreparedPlan{Schedule: *s, Step: planRunStepName(p), Dir: p.Dir, Planned: plannedTasks(p)}, nil
}

// RunPlanStep implements temporal.PlanWorker.
func (w workerTasks) RunPlanStep(ctx context.Context, dir string, o evaluator.PlanRunOptions, id string, sums []string, run string) (plan.StepResult, error) {
	return workflowPlans{w.e}.RunPlanStep(ctx, dir, o, id, sums, run)
}

// CallAgent implements temporal.AgentPolicy as the executor chooses the
// agent of a call without a plan's choice (SPEC §22.2): --agent, else the
// template's <agent>, else default_agent; "none" or nothing is a
// provider.
func (w workerTasks) CallAgent(t *templates.Template) string {
	s := w.e.execOpts.AgentSettings
	name := s.Agent
	if name == "" && t != nil {
		name = t.Agent
	}
	if name == "" {
		name = s.DefaultAgent
	}
	if name == "none" {
		return ""
	}
	return name
}

// MaxParallel implements temporal.AgentPolicy: the agent's max_parallel,
// else [limits] concurrency (agent.Runner's DefaultParallel).
func (w workerTasks) MaxParallel(name string) int {
	if s := w.e.execOpts.AgentSettings; s.LookupAgent != nil {
		if def, ok := s.LookupAgent(name); ok && def.MaxParallel > 0 {
			return def.MaxParallel
		}
	}
	if r := w.e.execOpts.Runner; r != nil {
		return r.DefaultParallel
	}
	return 0
}
