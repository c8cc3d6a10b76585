package engine

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/evalrun/evalrun/config"
	"github.com/evalrun/evalrun/evaluator"
	"github.com/evalrun/evalrun/plan"
	"github.com/evalrun/evalrun/progress"
	"github.com/evalrun/evalrun/tasksystem"
	"github.com/evalrun/evalrun/templates"
	"github.com/evalrun/evalrun/trace"
	"github.com/evalrun/evalrun/value"
)

// PlanRun configures Engine.RunPlan.
type PlanRun struct {
	// Parallel, Tasks, Agent, DryRun and Resume are the flags of
	// `evalrun plan run` (SPEC §23.3).
	Parallel int
	Tasks    []string
	Agent    string
	// DefaultAgent is the executor after --agent (SPEC §22.2); "" takes
	// default_agent of the configuration, "none" ignores it.
	DefaultAgent string
	DryRun       bool
	Resume       bool
	// Stdout receives the waves of a dry run.
	Stdout interface{ Write([]byte) (int, error) }
}

// PlanOptions returns what reading and checking a plan needs from the
// workspace: [plan] max_tasks, [plan.agents], the agents known (built in
// and configured, so that NAME(…) of a configured agent is a command)
// and the templates (for plan/NAME of a role).
func (w *Workspace) PlanOptions() plan.Options {
	return plan.Options{
		MaxTasks: w.Config.Plan.MaxTasks,
		Agents:   w.Config.AgentNames(),
		AgentMap: w.Config.Plan.Agents,
		HasTemplate: func(name string) bool {
			_, ok := w.registry().Lookup(name)
			return ok
		},
	}
}

// RunPlan executes a checked plan (SPEC §23.3) in this run: the built-in
// role templates plan/ROLE are registered under every template of the
// same name, each task is a step node of the run's journal (named by its
// id) with its steps, its commands (BeginCommand) and its calls below it,
// and task prompts go to the agents of §22 or to the run's provider. Every call, to an agent or a
// provider, is a task call of the run's executor, the same as a
// workflow's: traced, journaled, recorded with --record, answered by a
// replay provider, written by --dry-run, and replayed on --resume
// (Options.Resume). Errors are those of plan.Run.
func (e *Engine) RunPlan(ctx context.Context, p *plan.Plan, r PlanRun) (*plan.Outcome, error) {
	ctx, x, ro := e.planRun(ctx, p, r)
	return plan.Run(ctx, p, x, ro)
}

// planRun prepares a run of p: the role templates, the run options, the
// traced context and the executor; RunPlan and the plan steps a Temporal
// worker runs (planStep) share it.
func (e *Engine) planRun(ctx context.Context, p *plan.Plan, r PlanRun) (context.Context, *planExecutor, plan.RunOptions) {
	for _, t := range templates.PlanRoles() {
		if _, ok := e.reg.Lookup(t.Name); !ok {
			e.reg.Add(t)
		}
	}
	opts := e.ws.PlanOptions()
	ro := plan.RunOptions{
		Options:      opts,
		Parallel:     r.Parallel,
		Tasks:        r.Tasks,
		Agent:        r.Agent,
		DefaultAgent: r.DefaultAgent,
		DryRun:       r.DryRun,
		Resume:       r.Resume,
		RunID:        e.RunID(),
		Stderr:       e.stderr,
	}
	switch ro.DefaultAgent {
	case "":
		ro.DefaultAgent = e.ws.Config.DefaultAgent
	case "none":
		ro.DefaultAgent = ""
	}
	if r.Stdout != nil {
		ro.Stdout = r.Stdout
	}
	if ro.Agent == "" {
		// --agent of the run's options (a resumed run's, SPEC §16.4).
		ro.Agent = e.opts.Agent
	}
	if e.opts.Provider != "" && ro.Agent == "" && !e.replaying() {
		// --provider names the executor of every task: no agent. A
		// replay provider is the exception: it answers the agent calls
		// from the cassette (SPEC §22.3), so the agents stay chosen.
		ro.Agent = "none"
	}
	// evalrun plan run starts the trace; (plan-run) of a workflow is
	// traced already: its tasks go under the workflow's current span.
	ctx = e.traced(ctx)
	x := &planExecutor{e: e, forceProvider: ro.Agent == "none", tasks: map[string]*plan.Task{}}
	for _, t := range p.Tasks {
		x.tasks[t.ID] = t
	}
	// The tasks of a (plan-run) go below its step; those of `evalrun plan
	// run` at the top of the display.
	under, _ := ctx.Value(planRunSpanKey{}).(*trace.Span)
	e.opts.Progress.planTasks(under, plannedTasks(p))
	return ctx, x, ro
}

// plannedTasks are the tasks of p as the live display announces them.
func plannedTasks(p *plan.Plan) []progress.PlannedTask {
	planned := make([]progress.PlannedTask, 0, len(p.Tasks))
	for _, t := range p.Tasks {
		pt := progress.PlannedTask{ID: t.ID, Title: t.Title, Agent: t.Agent, Completed: t.Status == plan.StatusCompleted}
		if t.Parent != nil {
			pt.Parent = t.Parent.ID
		}
		planned = append(planned, pt)
	}
	return planned
}

// replaying reports whether the run's --provider is a replay provider,
// which answers agent calls from its cassette.
func (e *Engine) replaying() bool {
	pc, ok := e.ws.Config.Provider(e.opts.Provider)
	return ok && pc.EffectiveType(e.opts.Provider) == config.TypeReplay
}

// planExecutor implements plan.Executor with the engine's task path.
type planExecutor struct {
	e             *Engine
	forceProvider bool
	// tasks are the plan's tasks by id, for the title and agent of their
	// spans.
	tasks map[string]*plan.Task
}

// executor is the Request.Agent of a call the plan gave to agent ("" for
// the provider).
func (x *planExecutor) executor(agent string) string {
	if agent == "" || x.forceProvider {
		return "none"
	}
	return agent
}

// RunTask runs the role template of a task with the agent the plan chose
// or with the provider.
func (x *planExecutor) RunTask(ctx context.Context, call plan.TaskCall) (plan.Answer, error) {
	inputs := make([]Input, 0, len(call.Inputs))
	t, _ := x.e.reg.Lookup(call.Template)
	for _, kv := range call.Inputs {
		if slices.Contains(call.Optional, kv.Key) && t != nil && !declaresInput(t, kv.Key) {
			continue
		}
		v, err := toValue(kv.Value)
		if err != nil {
			return plan.Answer{}, err
		}
		inputs = append(inputs, Input{Name: kv.Key, Value: v})
	}
	res, err := x.e.task(ctx, call.Template, inputs, func(r *tasksystem.Request) { r.Agent = x.executor(call.Agent) })
	if err != nil {
		return plan.Answer{}, err
	}
	return answerOf(res)
}

// declaresInput reports whether template t has an input called name.
func declaresInput(t *templates.Template, name string) bool {
	for _, in := range t.Inputs {
		if in.Name == name {
			return true
		}
	}
	return false
}

// RunAgent runs an agent step (NAME(…), ccw cli) as a call of the
// template plan/agent-step, whose instructions are the prompt, with the
// agent named, in the step's directory, read-only for --mode analysis;
// under --agent none (or --provider) the prompt goes to the provider.
func (x *planExecutor) RunAgent(ctx context.Context, call plan.AgentCall) (plan.Answer, error) {
	res, err := x.e.task(ctx, "plan/agent-step", []Input{{Name: "prompt", Value: value.String(call.Prompt)}}, func(r *tasksystem.Request) {
		r.Agent, r.ReadOnly = x.executor(call.Agent), call.ReadOnly
		if call.Dir != "" && call.Dir != x.e.ws.Root {
			r.Dir = call.Dir
		}
	})
	if err != nil {
		return plan.Answer{}, err
	}
	return answerOf(res)
}

// Begin opens a step node of the journal for a task (a trace.PlanTask
// span with the task's title and agent) or a step.
func (x *planExecutor) Begin(ctx context.Context, kind, name string) (context.Context, func(string, error)) {
	var sp *trace.Span
	if t := x.tasks[name]; kind == "task" && t != nil {
		ctx, sp = trace.Start(ctx, trace.PlanTask, name, nil, trace.Title(t.Title), trace.Executor(t.Agent))
	} else {
		ctx, sp = trace.Start(ctx, trace.Step, name, nil)
	}
	sp.Running()
	return ctx, func(out string, err error) {
		if err != nil {
			sp.End(trace.Result{Status: trace.Failed, Error: err.Error(), Attempts: 1}, trace.Usage{})
			return
		}
		sp.End(trace.Result{Status: trace.Completed, Value: value.String(out), Attempts: 1}, trace.Usage{})
	}
}

// BeginCommand implements plan.CommandExecutor: the command of an
// implementation step is a step node (SPEC §16.2: steps are evaluated
// again on --resume, never replayed, as a plan's task that starts again
// runs its commands again) with the command as written as its input and,
// as its value, a dict: {"exit_code": N, "output": STDOUT, "stderr":
// STDERR} for a shell command, {"agent": NAME, "output": ANSWER} for an
// agent command, whose call is a task node below it.
func (x *planExecutor) BeginCommand(ctx context.Context, name, command string) (context.Context, func(plan.CommandResult, error)) {
	ctx, sp := trace.Start(ctx, trace.Step, name, value.DictOf("command", value.String(command)))
	sp.Running()
	return ctx, func(res plan.CommandResult, err error) {
		var v *value.Dict
		if res.Agent != "" {
			v = value.DictOf("agent", value.String(res.Agent), "output", value.String(res.Output))
		} else {
			v = value.DictOf("exit_code", value.Int(res.ExitCode), "output", value.String(res.Output), "stderr", value.String(res.Stderr))
		}
		r := trace.Result{Status: trace.Completed, Value: v, Attempts: 1}
		if err != nil {
			r.Status, r.Error = trace.Failed, err.Error()
		}
		sp.End(r, trace.Usage{})
	}
}

// answerOf turns a TaskResult into an answer, a FAILED one into an error
// "REASON: MESSAGE".
func answerOf(res *value.TaskResult) (plan.Answer, error) {
	if !res.OK() {
		reason := ""
		if d, ok := res.NotesOrEmpty().Get("error"); ok {
			if d, ok := d.(*value.Dict); ok {
				if v, ok := d.Get("reason"); ok {
					reason = value.Text(v)
				}
			}
		}
		if reason != "" {
			return plan.Answer{}, errors.New(reason + ": " + res.Content)
		}
		return plan.Answer{}, errors.New(res.Content)
	}
	ans := plan.Answer{Text: res.Content}
	notes := res.NotesOrEmpty()
	if u, ok := notes.Get("usage"); ok {
		if d, ok := u.(*value.Dict); ok {
			for _, k := range []string{"input_tokens", "output_tokens"} {
				if v, ok := d.Get(k); ok {
					n, _ := strconv.ParseInt(value.Text(v), 10, 64)
					ans.Tokens += n
				}
			}
		}
	}
	if v, ok := notes.Get("cost_usd"); ok {
		ans.CostUSD, _ = strconv.ParseFloat(value.Text(v), 64)
	}
	return ans, nil
}

// toValue converts the Go values of plan inputs (strings, numbers, bools,
// []any, []plan.KV objects in order) to values through JSON, which keeps
// the order of object members.
func toValue(v any) (value.Value, error) {
	var b strings.Builder
	writeJSON(&b, v)
	return value.ParseJSON(b.String())
}

func writeJSON(b *strings.Builder, v any) {
	switch x := v.(type) {
	case []plan.KV:
		b.WriteByte('{')
		for i, kv := range x {
			if i > 0 {
				b.WriteByte(',')
			}
			k, _ := json.Marshal(kv.Key)
			b.Write(k)
			b.WriteByte(':')
			writeJSON(b, kv.Value)
		}
		b.WriteByte('}')
	case []any:
		b.WriteByte('[')
		for i, it := range x {
			if i > 0 {
				b.WriteByte(',')
			}
			writeJSON(b, it)
		}
		b.WriteByte(']')
	default:
		data, err := json.Marshal(x)
		if err != nil {
			data = []byte("null")
		}
		b.Write(data)
	}
}

// The workflow side of plans (SPEC §23.6) is the evaluator's forms
// (plan-load DIR) and (plan-run DIR (task …) (parallel N) (agent A)),
// which reach the engine through evaluator.Planner, implemented by
// workflowPlans. They are not tools: a model does not run plans.

// workflowPlans implements evaluator.Planner for the run's workflows.
type workflowPlans struct{ e *Engine }

// load reads and checks the plan in dir (relative to the working
// directory); a plan with errors is an error holding the first of them.
func (w workflowPlans) load(dir string) (*plan.Plan, error) {
	p, diags, err := plan.Load(absTo(w.e.ws.WorkDir, dir), w.e.ws.PlanOptions())
	if err != nil {
		return nil, err
	}
	if diags.HasErrors() {
		for _, d := range diags {
			if d.Severity == plan.SevError {
				if n := diags.Errors(); n > 1 {
					return nil, fmt.Errorf("%s (and %d more errors; evalrun plan check lists them)", d.String(), n-1)
				}
				return nil, errors.New(d.String())
			}
		}
	}
	return p, nil
}

// LoadPlan implements evaluator.Planner: the dict {session, tasks, order}
// with session the parsed workflow-session.json ({} without one), tasks
// the task files as dicts in id order and order the waves of ids that
// could run side by side.
func (w workflowPlans) LoadPlan(ctx context.Context, dir string) (*value.Dict, error) {
	p, err := w.load(dir)
	if err != nil {
		return nil, err
	}
	d := value.NewDict(3)
	session := value.Value(value.NewDict(0))
	if p.Session != nil {
		v, err := value.ParseJSON(string(p.Session.Src))
		if err != nil {
			return nil, fmt.Errorf("%s: %w", p.Session.Path, err)
		}
		session = v
	}
	d.Set("session", session)
	tasks := make(value.List, 0, len(p.Tasks))
	for _, t := range p.Tasks {
		v, err := value.ParseJSON(string(t.File.Src))
		if err != nil {
			return nil, fmt.Errorf("%s: %w", t.File.Path, err)
		}
		tasks = append(tasks, v)
	}
	d.Set("tasks", tasks)
	// Every leaf may run side by side: the waves are the dependency
	// levels (focus_paths still split a level).
	waves, _ := p.Waves(len(p.Tasks), nil)
	order := make(value.List, 0, len(waves))
	for _, wave := range waves {
		ids := make(value.List, 0, len(wave))
		for _, t := range wave {
			ids = append(ids, value.String(t.ID))
		}
		order = append(order, ids)
	}
	d.Set("order", order)
	return d, nil
}

// RunPlan implements evaluator.Planner: it runs the plan as
// `evalrun plan run` does (with the run's --dry-run) in a step node of its
// own, "plan-run WFS-TOPIC" under the trace frame of ctx, whose children
// are the tasks' step nodes, and returns a dict from each task
// id the run selected, in the order they finished, to
//
//	{"status": "completed", "answer": TEXT, "tokens": N, "cost_usd": X}
//	{"status": "failed", "reason": FIRST LINE OF THE ERROR}   (the file says blocked)
//	{"status": "not_started"}   (a dependency failed or is outside the selection)
//	{"status": "dry_run", "wave": N}   (under --dry-run: the task's prompt was written, nothing ran)
//
// Failed tasks are not an error; a step that needs a person
// (manual_intervention) is an *evaluator.PlanStop.
func (w workflowPlans) RunPlan(ctx context.Context, dir string, o evaluator.PlanRunOptions) (d *value.Dict, err error) {
	p, err := w.load(dir)
	if err != nil {
		return nil, err
	}
	ctx, end := w.e.planRunStep(ctx, p, o)
	var runErr error
	defer func() { end(d, err, runErr) }()
	// A resumed run continues the plan as `evalrun plan run --resume`
	// does: a task left active (by a crash of the run it resumes) starts
	// again from its first step.
	out, runErr := w.e.RunPlan(ctx, p, PlanRun{DryRun: w.e.opts.DryRun, Parallel: max(o.Parallel, 1), Tasks: o.Tasks, Agent: o.Agent, Resume: w.e.opts.Resume != nil})
	return planRunResult(out, runErr)
}

// planRunStepName is the name of the step node of a (plan-run) in the
// journal: "plan-run WFS-TOPIC", after the plan's session directory, the
// directory `evalrun plan run` records as its run's workflow.
func planRunStepName(p *plan.Plan) string { return "plan-run " + filepath.Base(p.Dir) }

// planRunStep opens the step node of a (plan-run) of p under the trace
// frame of ctx, its inputs the plan's directory and the options given;
// the plan's task nodes go below it. end records it completed with the
// dict of results, or failed: with err (the form's error), else with
// runErr when a task failed (plan.FailedError) or the run stopped.
func (e *Engine) planRunStep(ctx context.Context, p *plan.Plan, o evaluator.PlanRunOptions) (context.Context, func(d *value.Dict, err, runErr error)) {
	in := value.DictOf("dir", value.String(p.Dir))
	if len(o.Tasks) > 0 {
		in.Set("task", stringsList(o.Tasks))
	}
	if o.Parallel > 0 {
		in.Set("parallel", value.Int(o.Parallel))
	}
	if o.Agent != "" {
		in.Set("agent", value.String(o.Agent))
	}
	ctx, sp := trace.Start(e.traced(ctx), trace.Step, planRunStepName(p), in)
	sp.Running()
	ctx = context.WithValue(ctx, planRunSpanKey{}, sp)
	return ctx, func(d *value.Dict, err, runErr error) {
		r := trace.Result{Status: trace.Completed, Attempts: 1}
		if d != nil {
			r.Value = d
		}
		if err == nil {
			err = runErr
		}
		if err != nil {
			r.Status, r.Error = trace.Failed, err.Error()
		}
		sp.End(r, trace.Usage{})
	}
}

// planRunSpanKey is the context key of the span planRunStep opens: the
// plan run's tasks are announced to the live display below it.
type planRunSpanKey struct{}

// planRunResult is the dict (plan-run) returns for the outcome of a plan
// run and its error.
func planRunResult(out *plan.Outcome, err error) (*value.Dict, error) {
	var me *plan.ManualError
	if errors.As(err, &me) {
		return nil, &evaluator.PlanStop{TaskID: me.TaskID, Step: me.Step, Msg: me.Error()}
	}
	var fe *plan.FailedError
	if err != nil && !errors.As(err, &fe) {
		return nil, err
	}
	d := value.NewDict(0)
	if out == nil {
		return d, nil
	}
	for _, id := range out.Completed {
		u := out.Usage[id]
		d.Set(id, value.DictOf(
			"status", value.String("completed"),
			"answer", value.String(out.Answers[id]),
			"tokens", value.Int(u.Tokens),
			"cost_usd", value.Float(u.CostUSD),
		))
	}
	for _, id := range out.Failed {
		d.Set(id, value.DictOf("status", value.String("failed"), "reason", value.String(out.Reasons[id])))
	}
	for _, id := range out.NotStarted {
		d.Set(id, value.DictOf("status", value.String("not_started")))
	}
	for i, wave := range out.Waves {
		for _, id := range wave {
			d.Set(id, value.DictOf("status", value.String("dry_run"), "wave", value.Int(i+1)))
		}
	}
	return d, nil
}

// RunPlanStep runs the task id of the plan in dir as one step of a
// (plan-run) scheduled elsewhere (plan.RunStep), through the same
// executor, templates and trace as RunPlan; sums are the task file's
// accepted sums from PreparePlan, and run, when set, the run recorded in
// the task's summary and run record instead of the engine's.
func (w workflowPlans) RunPlanStep(ctx context.Context, dir string, o evaluator.PlanRunOptions, id string, sums []string, run string) (plan.StepResult, error) {
	p, err := w.load(dir)
	if err != nil {
		return plan.StepResult{}, err
	}
	ctx, x, ro := w.e.planRun(ctx, p, w.planRunOf(o))
	if run != "" {
		ro.RunID = run
	}
	return plan.RunStep(ctx, p, x, ro, id, sums), nil
}

// planRunOf is the PlanRun of (plan-run)'s options.
func (w workflowPlans) planRunOf(o evaluator.PlanRunOptions) PlanRun {
	return PlanRun{Parallel: max(o.Parallel, 1), Tasks: o.Tasks, Agent: o.Agent}
}

// The plan types the evalrun command uses, so that it reaches plans
// through engine alone.
type (
	// Plan is a session directory read and checked (package plan).
	Plan = plan.Plan
	// PlanDiagnostics are the problems found in a plan.
	PlanDiagnostics = plan.Diagnostics
	// PlanOutcome is what a plan run did.
	PlanOutcome = plan.Outcome
	// PlanManualError stops a plan run at a manual_intervention step.
	PlanManualError = plan.ManualError
	// PlanUsageError is a bad request of a plan run (exit 2).
	PlanUsageError = plan.UsageError
	// PlanFailedError says that some tasks of a plan run failed.
	PlanFailedError = plan.FailedError
)

// FindPlan returns the only WFS-* session directory under
// .workflow/active of dir or its nearest ancestor that has one; none or
// several is a *plan.SessionError.
func FindPlan(dir string) (string, error) { return plan.FindSessionFrom(dir) }

// LoadPlan reads and checks the session directory dir with the
// workspace's [plan] settings and templates.
func (w *Workspace) LoadPlan(dir string) (*Plan, PlanDiagnostics, error) {
	return plan.Load(dir, w.PlanOptions())
}

// WritePlanTodo rewrites TODO_LIST.md of a plan and returns its path.
func WritePlanTodo(p *Plan) (string, error) {
	recs, err := p.ReadState()
	if err != nil {
		return "", err
	}
	path := filepath.Join(p.Dir, "TODO_LIST.md")
	return path, plan.WriteAtomic(path, []byte(p.TodoList(recs)))
}
