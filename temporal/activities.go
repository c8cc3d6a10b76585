package temporal

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/evalrun/evalrun/evaluator"
	"github.com/evalrun/evalrun/tasksystem"
	"github.com/evalrun/evalrun/templates"
	"github.com/evalrun/evalrun/trace"
	"github.com/evalrun/evalrun/value"
	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/temporal"
)

// The registered names of the workflow and the activities.
const (
	WorkflowName        = "evalrun.Run"
	TaskActivityName    = "evalrun.Task"
	ToolActivityName    = "evalrun.Tool"
	ContextActivityName = "evalrun.GetContext"
)

// PayloadLimit is the largest encoded activity input or result evalrun
// sends, in bytes: the Temporal server's default blob size limit
// (limit.blobSize.error, 2 MiB). A larger task or tool result becomes a
// FAILED result naming the limit; a larger input is never scheduled.
const PayloadLimit = 2 << 20

// errBadInput is the type of the non-retryable error of an activity whose
// input cannot be decoded: running it again cannot help.
const errBadInput = "evalrun.BadInput"

// NamedInput is one named argument of a task call.
type NamedInput struct {
	Name  string
	Value Value
}

// TaskInput is one task call as the workflow hands it to the task
// activity: evaluator.TaskCall with its values encoded and the template
// by name (the worker resolves it in its own registry).
type TaskInput struct {
	// Template is the resolved template's name; Name the name the call
	// used.
	Template       string
	Name           string
	Named          []NamedInput
	Positional     []Value
	Files          []string
	FilesGiven     bool
	Context        templates.ContextSettings
	History        templates.HistoryConfig
	Ambient        []Value
	AmbientSummary string
	// Seq numbers the workflow's task calls from 1 in evaluation order.
	Seq int
	// Defatom, when set, is the form that made the template in the run.
	Defatom *DefatomSource `json:",omitempty"`
	// RunStart is the run's start time ({{date}}).
	RunStart time.Time
}

// ToolInput is one tool call.
type ToolInput struct {
	Name   string
	Params Value
	// RunStart is the run's start time.
	RunStart time.Time
}

// ContextInput is one get-context lookup.
type ContextInput struct {
	Query               string
	TemplateDescription string
	Inputs              *Value
	Strategy            string
	TopK                int
	// RunStart is the run's start time.
	RunStart time.Time
}

// Activities executes the calls of a workflow on a worker through the
// engine's execution paths (an evaluator.Tasks: engine's task system, with
// its providers, tools, agents and memory). Each call heartbeats while it
// runs, so that a long agent call stays alive and a cancellation of the
// workflow reaches it (its context is cancelled, which kills an agent's
// process group).
type Activities struct {
	// Tasks executes the calls.
	Tasks evaluator.Tasks
	// ForRun, when set, makes the task system of one run: the run-wide
	// state of a task system (call numbers, accumulated outputs, session
	// history, usage, {{date}}) then belongs to the run, not to the worker
	// process. Tasks still answers lookups.
	ForRun func(RunKey) evaluator.Tasks
	// HeartbeatEvery is how often a running call heartbeats; 0 means a
	// third of the activity's heartbeat timeout, or 10s without one.
	HeartbeatEvery time.Duration

	runs runCache
}

// Task runs one task call and returns its TaskResult and what it used. A
// FAILED result is a result, not an activity error.
func (a *Activities) Task(ctx context.Context, in TaskInput) (CallResult, error) {
	call, err := in.call(a.Tasks)
	if err != nil {
		return CallResult{}, temporal.NewNonRetryableApplicationError(err.Error(), errBadInput, err)
	}
	stop := a.heartbeat(ctx)
	tasks := a.tasksFor(ctx, in.RunStart)
	us := newUsageSink(trace.Task)
	r := tasks.Execute(traced(ctx, tasks, us), call)
	stop()
	if err := interrupted(ctx); err != nil {
		return CallResult{}, err
	}
	x, err := resultPayload(r, "task '"+call.Name+"'")
	return CallResult{Value: x, Usage: us.usage()}, err
}

// Tool runs one tool call and returns its TaskResult and what it used.
func (a *Activities) Tool(ctx context.Context, in ToolInput) (CallResult, error) {
	p, err := Decode(in.Params)
	if err != nil {
		return CallResult{}, temporal.NewNonRetryableApplicationError(err.Error(), errBadInput, err)
	}
	params, ok := p.(*value.Dict)
	if !ok {
		return CallResult{}, temporal.NewNonRetryableApplicationError("tool parameters are a "+p.Type()+", not a dict", errBadInput, nil)
	}
	stop := a.heartbeat(ctx)
	tasks := a.tasksFor(ctx, in.RunStart)
	us := newUsageSink(trace.Tool)
	r := tasks.CallTool(traced(ctx, tasks, us), in.Name, params)
	stop()
	if err := interrupted(ctx); err != nil {
		return CallResult{}, err
	}
	x, err := resultPayload(r, "tool '"+in.Name+"'")
	return CallResult{Value: x, Usage: us.usage()}, err
}

// GetContext runs one memory lookup and returns its result dict, with
// the usage of the task calls its llm strategies made.
func (a *Activities) GetContext(ctx context.Context, in ContextInput) (CallResult, error) {
	q := evaluator.ContextQuery{Query: in.Query, TemplateDescription: in.TemplateDescription, Strategy: in.Strategy, TopK: in.TopK}
	if in.Inputs != nil {
		v, err := Decode(*in.Inputs)
		if err != nil {
			return CallResult{}, temporal.NewNonRetryableApplicationError(err.Error(), errBadInput, err)
		}
		d, ok := v.(*value.Dict)
		if !ok {
			return CallResult{}, temporal.NewNonRetryableApplicationError("get-context inputs are a "+v.Type()+", not a dict", errBadInput, nil)
		}
		q.Inputs = d
	}
	stop := a.heartbeat(ctx)
	tasks := a.tasksFor(ctx, in.RunStart)
	us := newUsageSink(trace.GetContext)
	d := tasks.GetContext(traced(ctx, tasks, us), q)
	stop()
	if err := interrupted(ctx); err != nil {
		return CallResult{}, err
	}
	x, err := Encode(d)
	if err != nil {
		return CallResult{}, temporal.NewNonRetryableApplicationError(err.Error(), errBadInput, err)
	}
	if n := payloadSize(x); n > PayloadLimit {
		x, err = Encode(contextTooLarge(n))
	}
	return CallResult{Value: x, Usage: us.usage()}, err
}

// traced returns ctx with the trace sinks of tasks (TraceSinker) and the
// activity's usage sink installed.
func traced(ctx context.Context, tasks evaluator.Tasks, us *usageSink) context.Context {
	var sinks []trace.Sink
	if s, ok := tasks.(TraceSinker); ok {
		sinks = append(sinks, s.TraceSinks()...)
	}
	return trace.WithSinks(ctx, append(sinks, us)...)
}

// interrupted returns the error of a call whose context ended while it
// ran — the workflow was cancelled, the call timed out, or the worker is
// shutting down — so that the FAILED result the interruption produced is
// not recorded as the call's result: a cancelled call is reported as
// cancelled, and one cut off by a stopping worker is retried elsewhere.
func interrupted(ctx context.Context) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("call interrupted: %w", context.Cause(ctx))
	}
	return nil
}

// heartbeat records a heartbeat now and then until stop is called.
func (a *Activities) heartbeat(ctx context.Context) (stop func()) {
	every := a.HeartbeatEvery
	if every <= 0 {
		every = 10 * time.Second
		if activity.IsActivity(ctx) {
			if t := activity.GetInfo(ctx).HeartbeatTimeout; t > 0 {
				every = t / 3
			}
		}
	}
	if !activity.IsActivity(ctx) {
		return func() {}
	}
	done := make(chan struct{})
	ended := make(chan struct{})
	go func() {
		defer close(ended)
		tick := time.NewTicker(every)
		defer tick.Stop()
		for {
			select {
			case <-done:
				return
			case <-ctx.Done():
				return
			case <-tick.C:
				activity.RecordHeartbeat(ctx)
			}
		}
	}()
	return func() { close(done); <-ended }
}

// call rebuilds the evaluator's task call on the worker.
func (in TaskInput) call(tasks evaluator.Tasks) (*evaluator.TaskCall, error) {
	req := tasksystem.Request{
		Name: in.Name, Files: in.Files, FilesGiven: in.FilesGiven,
		Context: in.Context, History: in.History, AmbientSummary: in.AmbientSummary, Seq: in.Seq,
	}
	if in.Defatom != nil {
		t, err := in.Defatom.template()
		if err != nil {
			return nil, fmt.Errorf("template '%s': %w", in.Template, err)
		}
		req.Template = t
	} else if t, ok := tasks.Lookup(in.Template); ok {
		req.Template = t
	}
	for _, n := range in.Named {
		v, err := Decode(n.Value)
		if err != nil {
			return nil, fmt.Errorf("argument '%s': %w", n.Name, err)
		}
		req.Named = append(req.Named, tasksystem.NamedArg{Name: n.Name, Value: v})
	}
	var err error
	if req.Positional, err = decodeAll(in.Positional); err != nil {
		return nil, err
	}
	if req.Ambient, err = decodeAll(in.Ambient); err != nil {
		return nil, err
	}
	return &evaluator.TaskCall{Request: req}, nil
}

// resultPayload encodes a call's result, replacing one over PayloadLimit by
// a FAILED result that names the limit.
func resultPayload(r *value.TaskResult, what string) (Value, error) {
	x, err := Encode(r)
	if err != nil {
		return Value{}, temporal.NewNonRetryableApplicationError(err.Error(), errBadInput, err)
	}
	if n := payloadSize(x); n > PayloadLimit {
		return Encode(tooLarge(fmt.Sprintf("result of %s", what), n))
	}
	return x, nil
}

// payloadSize is the size of x as the JSON data converter encodes it.
func payloadSize(x any) int {
	b, err := json.Marshal(x)
	if err != nil {
		return 0
	}
	return len(b)
}

// tooLarge is the FAILED result of a call whose input or result exceeds
// PayloadLimit.
func tooLarge(what string, n int) *value.TaskResult {
	msg := fmt.Sprintf("%s is %d bytes encoded, over Temporal's payload limit of %d bytes", what, n, PayloadLimit)
	notes := value.NewDict(1)
	e := value.NewDict(3)
	e.Set("type", value.String("TASK_FAILURE"))
	e.Set("reason", value.String("unexpected_error"))
	e.Set("message", value.String(msg))
	notes.Set("error", e)
	return &value.TaskResult{Status: "FAILED", Content: msg, Notes: notes}
}

// contextTooLarge is the get-context result of a lookup whose result
// exceeds PayloadLimit: no matches and the error (SPEC §8.7).
func contextTooLarge(n int) *value.Dict {
	d := value.NewDict(3)
	d.Set("summary", value.String(""))
	d.Set("matches", value.List(nil))
	d.Set("error", value.String(fmt.Sprintf("get-context result is %d bytes encoded, over Temporal's payload limit of %d bytes", n, PayloadLimit)))
	return d
}
