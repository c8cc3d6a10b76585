//go:build temporal

package engine

import (
	"context"
	"errors"
	"time"

	"github.com/evalrun/evalrun/evaluator"
	"github.com/evalrun/evalrun/memory"
	"github.com/evalrun/evalrun/sexp"
	"github.com/evalrun/evalrun/tasksystem"
	"github.com/evalrun/evalrun/templates"
	"github.com/evalrun/evalrun/temporal"
	"github.com/evalrun/evalrun/trace"
	"github.com/evalrun/evalrun/value"
)

// Temporal says where runs on Temporal go (evalrun worker, evalrun run
// --temporal; docs/temporal.md).
type Temporal struct {
	// HostPort is the server's frontend address, e.g. localhost:7233.
	HostPort string
	// Namespace is the namespace; "" means default.
	Namespace string
	// TaskQueue is the task queue; "" means evalrun.
	TaskQueue string
	// CallTimeout bounds one attempt of a call; 0 means 2h.
	CallTimeout time.Duration
	// HeartbeatTimeout is how long a call's worker may stay silent before
	// the call is started again elsewhere; 0 means 1m.
	HeartbeatTimeout time.Duration
	// Verbose writes the Temporal SDK's debug and info lines on stderr
	// (a worker's -v); without it only its warnings and errors.
	Verbose bool
}

func (t Temporal) conn() temporal.Connection {
	return temporal.Connection{HostPort: t.HostPort, Namespace: t.Namespace, TaskQueue: t.TaskQueue, Verbose: t.Verbose}
}

// Serve runs a Temporal worker for the engine's project until ctx is
// done: it evaluates evalrun.Run workflows and executes their calls with
// the engine's providers, tools, agents and memory; with activitiesOnly it
// only executes calls.
//
// A worker keeps no budget of its own: the budget of a run is the one its
// client gave it (Start), kept by the workflow across all workers, so the
// worker's [limits] max_cost_usd and max_tokens, which would count the
// calls of every run it serves together, are not applied.
func (e *Engine) Serve(ctx context.Context, t Temporal, activitiesOnly bool) error {
	e.dropBudget()
	return temporal.Serve(ctx, t.conn(), workerTasks{e, e.tasks}, e.runTasks, activitiesOnly)
}

// dropBudget removes the engine's budget gate from its sinks: a worker's
// calls belong to runs whose budgets their workflows keep.
func (e *Engine) dropBudget() {
	if e.budget == nil {
		return
	}
	sinks := make([]trace.Sink, 0, len(e.sinks))
	for _, s := range e.sinks {
		if s != trace.Sink(e.budget) {
			sinks = append(sinks, s)
		}
	}
	e.sinks, e.budget = sinks, nil
}

// runTasks makes the task system of one run a worker executes calls of:
// its own executor (call numbers, accumulated outputs, session history,
// usage, {{date}} = the run's start) over the engine's registry, providers,
// tools and memory.
func (e *Engine) runTasks(k temporal.RunKey) evaluator.Tasks {
	opts := e.execOpts
	if !k.Start.IsZero() {
		opts.Start = k.Start
	}
	ts := evaluator.NewTaskSystem(e.reg, tasksystem.NewExecutor(opts))
	ts.Tools = e.tools
	ts.Context = e.mem.getContext
	return workerTasks{e, ts}
}

// Start starts the program of srcs (every file, in order) as a run on
// Temporal with the engine's inputs and limits, and returns the workflow
// id. A syntax error is reported here, before anything starts. The run's
// budget (SPEC §14.9) is this engine's, as a local run of it would have:
// Options.MaxCostUSD and MaxTokens, else [limits] max_cost_usd and
// max_tokens of the configuration it loaded; the workflow keeps it.
func (e *Engine) Start(ctx context.Context, t Temporal, srcs []*sexp.Source) (string, error) {
	in := temporal.RunInput{
		Budget: e.budget.budgetLimits(),
		Limits: e.limits,
		Calls: temporal.CallOptions{
			Attempts:  e.ws.Config.Limits.LLMAttempts,
			Timeout:   t.CallTimeout,
			Heartbeat: t.HeartbeatTimeout,
		},
	}
	for _, s := range srcs {
		if _, err := sexp.Parse(s); err != nil {
			return "", err
		}
		in.Sources = append(in.Sources, temporal.Source{Name: s.Name, Text: s.Text})
	}
	for _, i := range e.opts.Inputs {
		x, err := temporal.Encode(i.Value)
		if err != nil {
			return "", err
		}
		in.Inputs = append(in.Inputs, temporal.NamedInput{Name: i.Name, Value: x})
	}
	return temporal.Start(ctx, t.conn(), "evalrun-"+newRunID(time.Now()), in)
}

// Await follows the run id until it ends and returns its value; an
// evaluation error is reported by ErrorDisplay and IsInterrupted as a
// local one is.
func Await(ctx context.Context, t Temporal, id string) (value.Value, error) {
	return temporal.Await(ctx, t.conn(), id)
}

// Follow waits for the run id as Await does and returns its value and
// what it used (the usage line's figures). While the run goes on, it asks
// the workflow for its events (the progress query, every
// temporal.FollowEvery and once at the end) and replays them on p: the
// lines the evaluation printed (log-message, warnings) go to p's stderr,
// and, when the display is shown, the call events to the display, as a
// local run's display gets them from the trace seam. With p nil nothing
// is queried.
func Follow(ctx context.Context, t Temporal, id string, p *Progress) (value.Value, Usage, error) {
	var onEvents func([]temporal.ProgressEvent)
	if p != nil {
		onEvents = p.Replay
	}
	v, u, err := temporal.Follow(ctx, t.conn(), id, onEvents)
	return v, usageOf(u), err
}

// Replay shows events a run on Temporal recorded (its progress query's
// answer): printed lines pass through to stderr above the display, call
// events go to the display when it is shown.
func (p *Progress) Replay(evs []temporal.ProgressEvent) {
	for _, e := range evs {
		switch {
		case e.Print != "":
			p.Write([]byte(e.Print))
		case p.On():
			p.disp.Event(e.Event)
		}
	}
}

// Cancel cancels the run id: it ends as an interrupted run does.
func Cancel(ctx context.Context, t Temporal, id string) error {
	return temporal.Cancel(ctx, t.conn(), id)
}

// TemporalStatus is the state of a run on Temporal.
type TemporalStatus = temporal.Status

// Describe reports the state of the run id.
func Describe(ctx context.Context, t Temporal, id string) (TemporalStatus, error) {
	return temporal.Describe(ctx, t.conn(), id)
}

// remoteError returns the kind and the display of the evaluation error of
// a run on Temporal held by err, and whether err holds one.
func remoteError(err error) (kind, display string, ok bool) {
	var re *temporal.RunError
	if !errors.As(err, &re) {
		return "", "", false
	}
	return re.Kind, re.Display, true
}

// workerTasks is a task system as a worker uses it: every call is traced
// with the engine's sinks, as the calls of a local run are.
type workerTasks struct {
	e  *Engine
	ts *evaluator.TaskSystem
}

// TraceSinks are the sinks the worker's calls are observed by: the
// engine's, as for a local run's calls (temporal.TraceSinker).
func (w workerTasks) TraceSinks() []trace.Sink { return w.e.sinks }

func (w workerTasks) Lookup(name string) (*templates.Template, bool) { return w.ts.Lookup(name) }
func (w workerTasks) HasTool(name string) bool                       { return w.ts.HasTool(name) }
func (w workerTasks) Define(t *templates.Template) error             { return w.ts.Define(t) }
func (w workerTasks) Match(text string) value.List                   { return w.ts.Match(text) }
func (w workerTasks) Execute(ctx context.Context, c *evaluator.TaskCall) *value.TaskResult {
	return w.ts.Execute(w.e.traced(ctx), c)
}
func (w workerTasks) CallTool(ctx context.Context, name string, p *value.Dict) *value.TaskResult {
	return w.ts.CallTool(w.e.traced(ctx), name, p)
}
func (w workerTasks) GetContext(ctx context.Context, q memory.Query) *value.Dict {
	return w.ts.GetContext(w.e.traced(ctx), q)
}

// budgetLimits are the run's budgets (--max-cost and --max-tokens, else
// [limits] max_cost_usd and max_tokens), zero when none is set: what a
// run on Temporal hands its workflow.
func (b *budget) budgetLimits() tasksystem.Budget {
	if b == nil {
		return tasksystem.Budget{}
	}
	return b.limits
}
