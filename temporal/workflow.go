package temporal

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/evalrun/evalrun/evaluator"
	"github.com/evalrun/evalrun/progress"
	"github.com/evalrun/evalrun/sexp"
	"github.com/evalrun/evalrun/tasksystem"
	"github.com/evalrun/evalrun/templates"
	"github.com/evalrun/evalrun/trace"
	"github.com/evalrun/evalrun/value"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"
)

// Source is one workflow file: its name (used in error positions) and text.
type Source struct {
	Name string
	Text string
}

// RunInput is the input of the evalrun.Run workflow: the workflow files,
// the --set inputs and the resolved options.
type RunInput struct {
	// Sources are evaluated in order in one global environment; the value
	// of the run is the value of the last form of the last file.
	Sources []Source
	// Inputs are bound as global variables before the first form.
	Inputs []NamedInput
	// Limits are the run's limits (SPEC §6.7); Limits.Concurrency holds
	// across all workers, since the semaphore lives in the workflow.
	Limits evaluator.Limits
	// Calls are the activity options of the calls.
	Calls CallOptions
	// Budget is the run's budget (SPEC §14.9), kept by the workflow for
	// every worker: once what the finished calls reported spends it, no
	// task call or plan step starts (budget.go). Zero is none, as in a
	// history recorded before budgets travelled with the run.
	Budget tasksystem.Budget
}

// CallOptions are the activity options of a run's task, tool and
// get-context calls.
type CallOptions struct {
	// Attempts is the number of times a call is started in total when its
	// worker fails (limits.llm_attempts; 0 means 3). Model requests are
	// retried inside the call by the handler (SPEC §14.7); a FAILED
	// result is a value and is never retried.
	Attempts int
	// Timeout bounds one attempt of a call (start to close); 0 means 2h.
	Timeout time.Duration
	// Heartbeat is the heartbeat timeout: a call whose worker has not
	// heartbeated for this long is started again elsewhere; 0 means 1m.
	Heartbeat time.Duration
}

// RetryPolicy maps the options to the calls' activity retry policy: the
// backoff of SPEC §14.7 (1 s, doubling, at most 30 s) and Attempts
// attempts in total; an input that cannot be decoded is not retried.
func (o CallOptions) RetryPolicy() *temporal.RetryPolicy {
	n := o.Attempts
	if n <= 0 {
		n = 3
	}
	return &temporal.RetryPolicy{
		InitialInterval:        time.Second,
		BackoffCoefficient:     2,
		MaximumInterval:        30 * time.Second,
		MaximumAttempts:        int32(n),
		NonRetryableErrorTypes: []string{errBadInput},
	}
}

func (o CallOptions) activityOptions() workflow.ActivityOptions {
	ao := workflow.ActivityOptions{
		StartToCloseTimeout: o.Timeout,
		HeartbeatTimeout:    o.Heartbeat,
		RetryPolicy:         o.RetryPolicy(),
		WaitForCancellation: true,
	}
	if ao.StartToCloseTimeout <= 0 {
		ao.StartToCloseTimeout = 2 * time.Hour
	}
	if ao.HeartbeatTimeout <= 0 {
		ao.HeartbeatTimeout = time.Minute
	}
	return ao
}

// RunOutput is the result of a run that evaluated to a value.
type RunOutput struct {
	Value Value
	// Usage is what the run used of models (the usage line).
	Usage tasksystem.RunUsage
	// Budget, when set, is the error of the first call the run's budget
	// refused: the run evaluated to Value, and ends as a local run whose
	// budget was spent does (the value, then the message, exit 1).
	Budget *tasksystem.BudgetError `json:",omitempty"`
}

// EvaluationErrorType is the type of the workflow's ApplicationError when
// the program raised an evaluation error; its details are an
// EvaluationError.
const EvaluationErrorType = "evalrun.EvaluationError"

// EvaluationError is an evaluation error as it leaves the workflow: the
// kind, the message with its position, and the display with the source
// line and caret (what evalrun prints locally).
type EvaluationError struct {
	Kind    string
	Message string
	Display string
	// Usage is what the run used of models until the error.
	Usage tasksystem.RunUsage
}

// Workflow is the evalrun.Run workflow. Registry answers the workflow's
// questions about names (templates, tools, matching); it must be the same
// on every worker, since a replay asks it again. Calls run as activities.
type Workflow struct {
	Registry evaluator.Tasks
}

// Run evaluates the input's sources inside the workflow. Pure evaluation
// happens here; every task, tool and get-context call is an activity.
//
// The evaluator's trace events feed a progress.Sink whose display events
// are kept in the workflow and answered by the ProgressQuery handler,
// with the usage the calls returned.
func (w *Workflow) Run(ctx workflow.Context, in RunInput) (RunOutput, error) {
	rt := workflowRuntime{root: ctx}
	start := workflow.GetInfo(ctx).WorkflowStartTime
	tasks := &workflowTasks{registry: w.Registry, opts: in.Calls.activityOptions(), start: start, budget: in.Budget}
	plog := &progressLog{root: ctx}
	if err := workflow.SetQueryHandler(ctx, ProgressQuery, func(after int) (ProgressPage, error) {
		return plog.page(after, tasks.usage), nil
	}); err != nil {
		return RunOutput{}, err
	}
	tasks.display = progress.NewSink(plog)
	traced := trace.WithSinks(withWorkflow(context.Background(), ctx), tasks.display)
	gctx, gcancel := context.WithCancelCause(traced)
	defer gcancel(nil)
	// A cancellation of the workflow cancels the evaluation as SIGINT does
	// a local run.
	workflow.Go(ctx, func(c workflow.Context) {
		ctx.Done().Receive(c, nil)
		gcancel(evaluator.Interrupted())
	})
	interp := evaluator.New(evaluator.Options{
		Tasks:   tasks,
		Limits:  in.Limits,
		Runtime: rt,
		Start:   start,
		Stderr:  logWriter{ctx, plog},
	})
	for _, n := range in.Inputs {
		v, err := Decode(n.Value)
		if err != nil {
			return RunOutput{}, temporal.NewNonRetryableApplicationError(fmt.Sprintf("input '%s': %v", n.Name, err), errBadInput, err)
		}
		interp.Define(n.Name, v)
	}
	// Every file is compiled before anything runs, as locally: a syntax
	// error anywhere means no call is made.
	progs := make([]*evaluator.Program, len(in.Sources))
	tasks.sources = make(map[string]*sexp.Source, len(in.Sources))
	for i, s := range in.Sources {
		src := sexp.NewSource(s.Name, s.Text)
		tasks.sources[s.Name] = src
		prog, err := evaluator.Compile(src)
		if err != nil {
			return RunOutput{}, evaluationFailure(err, tasks.usage)
		}
		progs[i] = prog
	}
	var result value.Value = value.List(nil)
	for _, prog := range progs {
		v, err := interp.Run(gctx, prog)
		if err != nil {
			return RunOutput{}, evaluationFailure(err, tasks.usage)
		}
		result = v
	}
	x, err := Encode(result)
	if err != nil {
		return RunOutput{}, temporal.NewNonRetryableApplicationError("the run's value: "+err.Error(), errBadInput, err)
	}
	if n := payloadSize(x); n > PayloadLimit {
		msg := fmt.Sprintf("the run's value is %d bytes encoded, over Temporal's payload limit of %d bytes", n, PayloadLimit)
		return RunOutput{}, temporal.NewNonRetryableApplicationError(msg, EvaluationErrorType, nil, EvaluationError{Kind: "limit", Message: msg, Display: msg, Usage: tasks.usage})
	}
	return RunOutput{Value: x, Usage: tasks.usage, Budget: tasks.refused}, nil
}

// evaluationFailure is the workflow error for an evaluation or syntax
// error: non-retryable, with an EvaluationError as its details.
func evaluationFailure(err error, usage tasksystem.RunUsage) error {
	ee := EvaluationError{Message: err.Error(), Display: err.Error(), Usage: usage}
	var e *evaluator.Error
	var se *sexp.Error
	switch {
	case errors.As(err, &e):
		ee.Kind, ee.Display = string(e.Kind), e.Display()
	case errors.As(err, &se):
		ee.Kind = "syntax"
	}
	return temporal.NewNonRetryableApplicationError(ee.Message, EvaluationErrorType, nil, ee)
}

// logWriter sends the evaluator's log lines (log-message, warnings) to the
// workflow's logger, which does not repeat them on replay, and to the
// progress log, from which a follower prints them on its stderr as a
// local run does.
type logWriter struct {
	ctx workflow.Context
	log *progressLog
}

func (l logWriter) Write(p []byte) (int, error) {
	workflow.GetLogger(l.ctx).Info(strings.TrimRight(string(p), "\n"))
	l.log.print(string(p))
	return len(p), nil
}

// workflowTasks is the evaluator's task system inside the workflow: names
// are answered by the registry, calls are activities.
type workflowTasks struct {
	registry evaluator.Tasks
	opts     workflow.ActivityOptions
	start    time.Time
	seq      int
	// sources are the workflow's files by name; defined the templates
	// made by defatom, by name.
	sources map[string]*sexp.Source
	defined map[string]*definedTemplate
	// slots are the run's agent semaphores (agentslots.go).
	slots *agentSlots
	// display is the sink of the run's progress events, to which a
	// (plan-run) announces its plan's tasks (plan.go).
	display *progress.Sink
	// usage sums what the calls returned they used; executors maps a
	// template's name to the executor its last finished call reported,
	// which the display shows for its next calls while they run.
	usage     tasksystem.RunUsage
	executors map[string]string
	// budget is the run's budget, spent what the finished calls reported
	// they spent, refused the error of the first call it refused
	// (budget.go).
	budget  tasksystem.Budget
	spent   tasksystem.Spending
	refused *tasksystem.BudgetError
}

// RunUsage implements evaluator.UsageReporter: (run-usage) inside the
// workflow is what the calls that finished so far used.
func (t *workflowTasks) RunUsage() tasksystem.RunUsage { return t.usage }

func (t *workflowTasks) Lookup(name string) (*templates.Template, bool) {
	if d, ok := t.defined[name]; ok {
		return d.tmpl, true
	}
	return t.registry.Lookup(name)
}

func (t *workflowTasks) HasTool(name string) bool { return t.registry.HasTool(name) }

func (t *workflowTasks) Match(text string) value.List { return t.registry.Match(text) }

// Define registers a defatom template for this run only: later calls
// send its form along, and the worker rebuilds the template from it.
func (t *workflowTasks) Define(tmpl *templates.Template) error {
	d, err := defatomForm(t.sources, tmpl)
	if err != nil {
		return err
	}
	if t.defined == nil {
		t.defined = map[string]*definedTemplate{}
	}
	t.defined[tmpl.Name] = &definedTemplate{tmpl: tmpl, src: d}
	return nil
}

// definedTemplate is a template made by defatom in the run.
type definedTemplate struct {
	tmpl *templates.Template
	src  DefatomSource
}

// Execute runs a task call as an activity inside a task span (claiming
// the span the evaluator made while the call waited for its slot), which
// ends with the usage the activity returned.
func (t *workflowTasks) Execute(ctx context.Context, call *evaluator.TaskCall) *value.TaskResult {
	name := call.Name
	if call.Template != nil {
		name = call.Template.Name
	}
	var attrs []trace.Attr
	if x := t.executors[name]; x != "" {
		attrs = append(attrs, trace.Executor(x))
	}
	ctx, span := trace.Start(ctx, trace.Task, name, nil, attrs...)
	r, u := t.execute(ctx, call)
	t.end(span, name, r, u)
	return r
}

// end ends a call's span with its result and the usage the activity
// returned, and adds that to the run's usage.
func (t *workflowTasks) end(span *trace.Span, name string, r *value.TaskResult, u *CallUsage) {
	var su trace.Usage
	if u != nil {
		t.addUsage(u.Run)
		su = u.Call
		if u.Executor != "" && name != "" {
			if t.executors == nil {
				t.executors = map[string]string{}
			}
			t.executors[name] = u.Executor
		}
	}
	span.End(trace.ResultOf(r, false), su)
}

func (t *workflowTasks) execute(ctx context.Context, call *evaluator.TaskCall) (*value.TaskResult, *CallUsage) {
	t.seq++
	in := TaskInput{
		Name: call.Name, Files: call.Files, FilesGiven: call.FilesGiven,
		Context: call.Context, History: call.History, AmbientSummary: call.AmbientSummary, Seq: t.seq,
		RunStart: t.start,
	}
	if call.Template != nil {
		in.Template = call.Template.Name
		if d, ok := t.defined[call.Template.Name]; ok && d.tmpl == call.Template {
			src := d.src
			in.Defatom = &src
		}
	}
	what := fmt.Sprintf("task '%s'", call.Name)
	var err error
	for _, n := range call.Named {
		x, err := Encode(n.Value)
		if err != nil {
			return failed("input_validation_failure", fmt.Sprintf("Parameter '%s' of %s: %v", n.Name, what, err)), nil
		}
		in.Named = append(in.Named, NamedInput{Name: n.Name, Value: x})
	}
	if in.Positional, err = encodeAll(call.Positional); err != nil {
		return failed("input_validation_failure", fmt.Sprintf("%s: %v", what, err)), nil
	}
	if in.Ambient, err = encodeAll(call.Ambient); err != nil {
		return failed("input_validation_failure", fmt.Sprintf("%s: %v", what, err)), nil
	}
	// max_parallel of the call's agent holds across workers (agentslots.go).
	release, err := t.acquireCallAgent(ctx, call.Template)
	if err != nil {
		return failed("execution_halted", fmt.Sprintf("%s: %v", what, err)), nil
	}
	defer release()
	// A spent budget refuses the call as the local gate does, once it
	// would start: after its slots (budget.go).
	if err := t.refuse(); err != nil {
		return failed(err.Reason(), err.Error()), nil
	}
	return t.run(ctx, TaskActivityName, "input of "+what, in)
}

// CallTool runs a tool call as an activity inside a tool span.
func (t *workflowTasks) CallTool(ctx context.Context, name string, params *value.Dict) *value.TaskResult {
	ctx, span := trace.Start(ctx, trace.Tool, name, nil)
	var r *value.TaskResult
	var u *CallUsage
	if x, err := Encode(params); err != nil {
		r = failed("input_validation_failure", fmt.Sprintf("tool '%s': %v", name, err))
	} else {
		r, u = t.run(ctx, ToolActivityName, fmt.Sprintf("input of tool '%s'", name), ToolInput{Name: name, Params: x, RunStart: t.start})
	}
	t.end(span, "", r, u)
	return r
}

func (t *workflowTasks) GetContext(ctx context.Context, q evaluator.ContextQuery) *value.Dict {
	in := ContextInput{Query: q.Query, TemplateDescription: q.TemplateDescription, Strategy: q.Strategy, TopK: q.TopK, RunStart: t.start}
	if q.Inputs != nil {
		x, err := Encode(q.Inputs)
		if err != nil {
			return contextError(err.Error())
		}
		in.Inputs = &x
	}
	var out CallResult
	wctx := workflow.WithActivityOptions(workflowOf(ctx), t.opts)
	if err := workflow.ExecuteActivity(wctx, ContextActivityName, in).Get(wctx, &out); err != nil {
		return contextError(activityMessage(err))
	}
	if out.Usage != nil {
		t.addUsage(out.Usage.Run)
	}
	v, err := Decode(out.Value)
	if err != nil {
		return contextError(err.Error())
	}
	d, ok := v.(*value.Dict)
	if !ok {
		return contextError("get-context activity returned a " + v.Type())
	}
	return d
}

// run executes one call activity and decodes its TaskResult and usage; an
// activity that fails after its retries becomes a FAILED result.
func (t *workflowTasks) run(ctx context.Context, activity, what string, in any) (*value.TaskResult, *CallUsage) {
	if n := payloadSize(in); n > PayloadLimit {
		return tooLarge(what, n), nil
	}
	var out CallResult
	wctx := workflow.WithActivityOptions(workflowOf(ctx), t.opts)
	if err := workflow.ExecuteActivity(wctx, activity, in).Get(wctx, &out); err != nil {
		reason := "unexpected_error"
		var te *temporal.TimeoutError
		switch {
		case temporal.IsCanceledError(err):
			reason = "execution_halted"
		case errors.As(err, &te):
			reason = "execution_timeout"
		}
		return failed(reason, activityMessage(err)), nil
	}
	v, err := Decode(out.Value)
	if err != nil {
		return failed("unexpected_error", err.Error()), out.Usage
	}
	r, ok := v.(*value.TaskResult)
	if !ok {
		return failed("unexpected_error", "call activity returned a "+v.Type()), out.Usage
	}
	return r, out.Usage
}

// activityMessage is the message of a failed activity: its cause's.
func activityMessage(err error) string {
	var ae *temporal.ActivityError
	if errors.As(err, &ae) {
		if u := errors.Unwrap(ae); u != nil {
			err = u
		}
	}
	var te *temporal.TimeoutError
	if errors.As(err, &te) {
		return fmt.Sprintf("call timed out (%s)", te.TimeoutType())
	}
	var app *temporal.ApplicationError
	if errors.As(err, &app) {
		return app.Message()
	}
	return err.Error()
}

// failed is a FAILED TaskResult with notes.error (SPEC §11.5).
func failed(reason, msg string) *value.TaskResult {
	notes := value.NewDict(1)
	e := value.NewDict(3)
	e.Set("type", value.String("TASK_FAILURE"))
	e.Set("reason", value.String(reason))
	e.Set("message", value.String(msg))
	notes.Set("error", e)
	return &value.TaskResult{Status: "FAILED", Content: msg, Notes: notes}
}

// contextError is a get-context result with no matches and an error.
func contextError(msg string) *value.Dict {
	d := value.NewDict(3)
	d.Set("summary", value.String(""))
	d.Set("matches", value.List(nil))
	d.Set("error", value.String(msg))
	return d
}
