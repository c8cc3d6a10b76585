package temporal

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"time"

	"github.com/evalrun/evalrun/evaluator"
	"github.com/evalrun/evalrun/tasksystem"
	"github.com/evalrun/evalrun/value"
	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/sdk/client"
	sdklog "go.temporal.io/sdk/log"
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
	// Verbose writes the SDK's debug and info lines (each activity a
	// worker starts, each log-message of a workflow) on stderr; without
	// it only its warnings and errors are written.
	Verbose bool
}

// logger is the SDK's logger of the connection: text lines on w, from the
// debug level when Verbose, else from warnings.
func (c Connection) logger(w io.Writer) sdklog.Logger {
	level := slog.LevelWarn
	if c.Verbose {
		level = slog.LevelDebug
	}
	return sdklog.NewStructuredLogger(slog.New(slog.NewTextHandler(w, &slog.HandlerOptions{Level: level})))
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
	cl, err := client.DialContext(ctx, client.Options{HostPort: c.HostPort, Namespace: ns, Logger: c.logger(os.Stderr)})
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
// cancelled. A run whose budget refused calls (SPEC §14.9) returns its
// value and a *tasksystem.BudgetError, the first refusal.
func Await(ctx context.Context, conn Connection, id string) (value.Value, error) {
	v, _, err := Follow(ctx, conn, id, nil)
	return v, err
}

// FollowEvery is how often Follow asks a run for its progress.
const FollowEvery = 200 * time.Millisecond

// finalQueryTimeout bounds Follow's last progress query, made once the run
// has ended: a closed workflow's query is answered by a worker that
// replays its history, and without a worker it would wait.
const finalQueryTimeout = 2 * time.Second

// Follow waits until the run id ends, as Await does, and returns its value
// and what it used of models (RunOutput.Usage, or the usage an evaluation
// error carries; for a workflow cancelled, terminated or timed out, the
// usage of the last progress query). When onEvents is not nil it also
// asks the run for its events (ProgressQuery: display events and printed
// lines) every FollowEvery while it runs, and once more when it has ended,
// and hands each batch of new events to onEvents, in order, from one
// goroutine. A progress query that fails is not an error: the next one
// asks again from the same event. As with Await, a run whose budget
// refused calls returns its value with a *tasksystem.BudgetError.
func Follow(ctx context.Context, conn Connection, id string, onEvents func([]ProgressEvent)) (value.Value, tasksystem.RunUsage, error) {
	cl, err := conn.dial(ctx)
	if err != nil {
		return nil, tasksystem.RunUsage{}, err
	}
	defer cl.Close()
	return follow(ctx, clientRun{cl, id}, FollowEvery, onEvents)
}

// followedRun is what follow needs of a run: its end and its progress.
type followedRun interface {
	await(ctx context.Context) (RunOutput, error)
	progress(ctx context.Context, after int) (ProgressPage, error)
}

// clientRun is a run on a Temporal server.
type clientRun struct {
	cl client.Client
	id string
}

func (r clientRun) await(ctx context.Context) (RunOutput, error) {
	var out RunOutput
	err := r.cl.GetWorkflow(ctx, r.id, "").Get(ctx, &out)
	return out, err
}

func (r clientRun) progress(ctx context.Context, after int) (ProgressPage, error) {
	var p ProgressPage
	v, err := r.cl.QueryWorkflow(ctx, r.id, "", ProgressQuery, after)
	if err != nil {
		return p, err
	}
	err = v.Get(&p)
	return p, err
}

// follow is Follow over r, polling every period.
func follow(ctx context.Context, r followedRun, every time.Duration, onEvents func([]ProgressEvent)) (value.Value, tasksystem.RunUsage, error) {
	type result struct {
		out RunOutput
		err error
	}
	done := make(chan result, 1)
	// The queries made while the run goes on end when it ends: a query
	// that waits for a busy worker does not hold the result back.
	pctx, endPolls := context.WithCancel(ctx)
	defer endPolls()
	go func() {
		out, err := r.await(ctx)
		endPolls()
		done <- result{out, err}
	}()
	var (
		res   result
		after int
		page  *ProgressPage
	)
	// poll asks for the events after the last one seen until a page says
	// there are no more.
	poll := func(ctx context.Context) {
		for {
			p, err := r.progress(ctx, after)
			if err != nil || p.Next < after {
				return
			}
			page = &p
			if len(p.Events) > 0 {
				after = p.Next
				onEvents(p.Events)
			}
			if !p.More {
				return
			}
		}
	}
	if onEvents == nil {
		res = <-done
	} else {
		tick := time.NewTicker(every)
	wait:
		for {
			select {
			case res = <-done:
				tick.Stop()
				break wait
			case <-tick.C:
				poll(pctx)
			}
		}
		if ctx.Err() == nil {
			fctx, cancel := context.WithTimeout(ctx, finalQueryTimeout)
			poll(fctx)
			cancel()
		}
	}
	if res.err != nil {
		err := runError(res.err)
		var re *RunError
		var usage tasksystem.RunUsage
		if errors.As(err, &re) {
			usage = re.Usage
		}
		if usage == (tasksystem.RunUsage{}) && page != nil {
			// A cancelled, terminated or timed-out workflow returns no
			// usage: the last progress query has it.
			usage = page.Usage
		}
		return nil, usage, err
	}
	v, err := Decode(res.out.Value)
	if err == nil && res.out.Budget != nil {
		// The run has a value, and its budget refused calls: both.
		return v, res.out.Usage, res.out.Budget
	}
	return v, res.out.Usage, err
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
	return describe(ctx, cl, id)
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
