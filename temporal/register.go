package temporal

import (
	"github.com/evalrun/evalrun/evaluator"
	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/workflow"
)

// Registrar is what Register needs of a worker (worker.Worker and the test
// environments of go.temporal.io/sdk/testsuite implement it).
type Registrar interface {
	RegisterWorkflowWithOptions(w any, options workflow.RegisterOptions)
	RegisterActivityWithOptions(a any, options activity.RegisterOptions)
}

// Register registers the evalrun.Run workflow and the call activities on r,
// both answered by tasks.
func Register(r Registrar, tasks evaluator.Tasks) {
	RegisterWorkflow(r, tasks)
	RegisterActivities(r, &Activities{Tasks: tasks})
}

// RegisterWorkflow registers only the workflow, whose registry is tasks.
func RegisterWorkflow(r Registrar, tasks evaluator.Tasks) {
	w := &Workflow{Registry: tasks}
	r.RegisterWorkflowWithOptions(w.Run, workflow.RegisterOptions{Name: WorkflowName})
}

// RegisterActivities registers only the call activities (a worker started
// with --activities-only).
func RegisterActivities(r Registrar, a *Activities) {
	r.RegisterActivityWithOptions(a.Task, activity.RegisterOptions{Name: TaskActivityName})
	r.RegisterActivityWithOptions(a.Tool, activity.RegisterOptions{Name: ToolActivityName})
	r.RegisterActivityWithOptions(a.GetContext, activity.RegisterOptions{Name: ContextActivityName})
}
