package temporal

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/evalrun/evalrun/evaluator"
	"github.com/evalrun/evalrun/value"
	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/worker"
)

// The defaults of a Connection.
const (
	DefaultNamespace = "default"
	DefaultTaskQueue = "evalrun"
)

// Connection says which Temporal server, namespace and task queue a
// worker or a client uses.
type Connection struct {
	// HostPort is the server's frontend address, e.g. localhost:7233.
	HostPort string
	// Namespace is the namespace; "" means DefaultNamespace.
	Namespace string
	// TaskQueue is the task queue of workflows and calls; "" means
	// DefaultTaskQueue.
	TaskQueue string
}

func (c Connection) queue() string {
	if c.TaskQueue == "" {
		return DefaultTaskQueue
	}
	return c.TaskQueue
}

func (c Connection) dial(ctx context.Context) (client.Client, error) {
	ns := c.Namespace
	if ns == "" {
		ns = DefaultNamespace
	}
	cl, err := client.DialContext(ctx, client.Options{HostPort: c.HostPort, Namespace: ns})
	if err != nil {
		return nil, fmt.Errorf("cannot connect to Temporal at %s: %w", c.HostPort, err)
	}
	return cl, nil
}

// Serve runs a worker on conn's task queue until ctx is done: the
// workflow and the call activities, or only the activities. tasks is the
// engine's task system of the worker's project; forRun (may be nil) makes
// one per run for the calls (Activities.ForRun).
func Serve(ctx context.Context, conn Connection, tasks evaluator.Tasks, forRun func(RunKey) evaluator.Tasks, activitiesOnly bool) error {
	cl, err := conn.dial(ctx)
	if err != nil {
		return err
	}
	defer cl.Close()
	w := worker.New(cl, conn.queue(), worker.Options{})
	RegisterWorker(w, tasks, forRun, activitiesOnly)
	stop := make(chan any)
	go func() {
		<-ctx.Done()
		close(stop)
	}()
	if err := w.Run(stop); err != nil {
		return fmt.Errorf("temporal worker: %w", err)
	}
	return nil
}

// Start starts a run as the workflow id (a new id when "") and returns
// its id.
func Start(ctx context.Context, conn Connection, id string, in RunInput) (string, error) {
	cl, err := conn.dial(ctx)
	if err != nil {
		return "", err
	}
	defer cl.Close()
	run, err := cl.ExecuteWorkflow(ctx, client.StartWorkflowOptions{ID: id, TaskQueue: conn.queue()}, WorkflowName, in)
	if err != nil {
		return "", fmt.Errorf("cannot start the workflow: %w", err)
	}
	return run.GetID(), nil
}

// RunError is the evaluation error that ended a run on Temporal.
type RunError struct{ EvaluationError }

// Error returns the message with its position.
func (e *RunError) Error() string { return e.Message }

// Await waits until the run id ends and returns its value. An evaluation
// error is a *RunError; a cancelled workflow is a *RunError of kind
// cancelled.
func Await(ctx context.Context, conn Connection, id string) (value.Value, error) {
	cl, err := conn.dial(ctx)
	if err != nil {
		return nil, err
	}
	defer cl.Close()
	var out RunOutput
	if err := cl.GetWorkflow(ctx, id, "").Get(ctx, &out); err != nil {
		return nil, runError(err)
	}
	return Decode(out.Value)
}

// runError maps a workflow's failure to a *RunError where it is one.
func runError(err error) error {
	var app *temporal.ApplicationError
	if errors.As(err, &app) && app.Type() == EvaluationErrorType {
		var ee EvaluationError
		if app.Details(&ee) == nil {
			return &RunError{ee}
		}
	}
	if temporal.IsCanceledError(err) {
		return &RunError{EvaluationError{Kind: "cancelled", Message: "cancelled", Display: "cancelled\n"}}
	}
	return err
}

// Cancel asks the run id to stop: its evaluation ends as an interrupted
// run does, and its running calls are cancelled.
func Cancel(ctx context.Context, conn Connection, id string) error {
	cl, err := conn.dial(ctx)
	if err != nil {
		return err
	}
	defer cl.Close()
	if err := cl.CancelWorkflow(ctx, id, ""); err != nil {
		return fmt.Errorf("cannot cancel %s: %w", id, err)
	}
	return nil
}

// Status is what Describe reports of a run.
type Status struct {
	// ID is the workflow id, RunID the id of its current run.
	ID, RunID string
	// State is running, completed, failed, canceled, terminated,
	// continued-as-new or timed-out.
	State string
	// Start is when the run started; Closed when it ended (zero while
	// it runs).
	Start, Closed time.Time
	// HistoryLength is the number of events of the run's history.
	HistoryLength int64
	// PendingCalls is the number of calls running or waiting for a retry.
	PendingCalls int
}

// Describe reports the state of the run id.
func Describe(ctx context.Context, conn Connection, id string) (Status, error) {
	cl, err := conn.dial(ctx)
	if err != nil {
		return Status{}, err
	}
	defer cl.Close()
	desc, err := cl.DescribeWorkflow(ctx, id, "")
	if err != nil {
		return Status{}, fmt.Errorf("cannot describe %s: %w", id, err)
	}
	d := desc.RawResponse
	info := d.GetWorkflowExecutionInfo()
	st := Status{
		ID: id, RunID: info.GetExecution().GetRunId(), State: stateName(info.GetStatus()),
		Start: info.GetStartTime().AsTime(), HistoryLength: info.GetHistoryLength(),
		PendingCalls: len(d.GetPendingActivities()),
	}
	if c := info.GetCloseTime(); c != nil {
		st.Closed = c.AsTime()
	}
	return st, nil
}

func stateName(s enumspb.WorkflowExecutionStatus) string {
	switch s {
	case enumspb.WORKFLOW_EXECUTION_STATUS_RUNNING:
		return "running"
	case enumspb.WORKFLOW_EXECUTION_STATUS_COMPLETED:
		return "completed"
	case enumspb.WORKFLOW_EXECUTION_STATUS_FAILED:
		return "failed"
	case enumspb.WORKFLOW_EXECUTION_STATUS_CANCELED:
		return "canceled"
	case enumspb.WORKFLOW_EXECUTION_STATUS_TERMINATED:
		return "terminated"
	case enumspb.WORKFLOW_EXECUTION_STATUS_CONTINUED_AS_NEW:
		return "continued-as-new"
	case enumspb.WORKFLOW_EXECUTION_STATUS_TIMED_OUT:
		return "timed-out"
	}
	return "unknown"
}
