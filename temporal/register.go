package temporal

import (
	"github.com/evalrun/evalrun/evaluator"
	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/workflow"
)

// WorkflowRegistrar registers workflows: a worker, a test environment or
// a worker.WorkflowReplayer.
type WorkflowRegistrar interface {
	RegisterWorkflowWithOptions(w any, options workflow.RegisterOptions)
}

// ActivityRegistrar registers activities: a worker or a test environment.
type ActivityRegistrar interface {
	RegisterActivityWithOptions(a any, options activity.RegisterOptions)
}

// Registrar is what Register needs of a worker (worker.Worker and the test
// environments of go.temporal.io/sdk/testsuite implement it).
type Registrar interface {
	WorkflowRegistrar
	ActivityRegistrar
}

// Register registers the evalrun.Run workflow and the call activities on r,
// both answered by tasks.
func Register(r Registrar, tasks evaluator.Tasks) {
	RegisterWorkflow(r, tasks)
	RegisterActivities(r, &Activities{Tasks: tasks})
}

// RegisterWorker registers what a worker runs: the workflow (unless
// activitiesOnly) and the call activities. tasks answers the workflow's
// lookups; forRun, when not nil, makes each run's own task system for its
// calls (Activities.ForRun).
func RegisterWorker(r Registrar, tasks evaluator.Tasks, forRun func(RunKey) evaluator.Tasks, activitiesOnly bool) {
	if !activitiesOnly {
		RegisterWorkflow(r, tasks)
	}
	RegisterActivities(r, &Activities{Tasks: tasks, ForRun: forRun})
}

// RegisterWorkflow registers only the workflow, whose registry is tasks.
func RegisterWorkflow(r WorkflowRegistrar, tasks evaluator.Tasks) {
	w := &Workflow{Registry: tasks}
	r.RegisterWorkflowWithOptions(w.Run, workflow.RegisterOptions{Name: WorkflowName})
}

// RegisterActivities registers only the call activities (a worker started
// with --activities-only).
func RegisterActivities(r ActivityRegistrar, a *Activities) {
	r.RegisterActivityWithOptions(a.Task, activity.RegisterOptions{Name: TaskActivityName})
	r.RegisterActivityWithOptions(a.Tool, activity.RegisterOptions{Name: ToolActivityName})
	r.RegisterActivityWithOptions(a.GetContext, activity.RegisterOptions{Name: ContextActivityName})
	// The plan activities (plan.go).
	r.RegisterActivityWithOptions(a.PlanLoad, activity.RegisterOptions{Name: PlanLoadActivityName})
	r.RegisterActivityWithOptions(a.PlanPrepare, activity.RegisterOptions{Name: PlanPrepareActivityName})
	r.RegisterActivityWithOptions(a.PlanStep, activity.RegisterOptions{Name: PlanStepActivityName})
}
