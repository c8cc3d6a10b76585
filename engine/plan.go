package engine

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/evalrun/evalrun/handler/tools"
	"github.com/evalrun/evalrun/journal"
	"github.com/evalrun/evalrun/plan"
	"github.com/evalrun/evalrun/progress"
	"github.com/evalrun/evalrun/tasksystem"
	"github.com/evalrun/evalrun/templates"
	"github.com/evalrun/evalrun/trace"
	"github.com/evalrun/evalrun/value"
)

// AgentRunner starts the agents of SPEC §22 for plan runs: the executor of
// a task whose meta.agent, meta.tool, --agent or default_agent names an
// agent, and NAME(…) and `ccw cli` steps. Without one, such a call fails
// with configuration_error naming the agent.
type AgentRunner interface {
	// RunAgent runs the agent name on prompt in dir; readOnly asks for its
	// read_only_args.
	RunAgent(ctx context.Context, name, prompt, dir string, readOnly bool) (plan.Answer, error)
	// Agents lists the agent names it knows.
	Agents() []string
}

// PlanRun configures Engine.RunPlan.
type PlanRun struct {
	// Parallel, Tasks, Agent, DryRun and Resume are the flags of
	// `evalrun plan run` (SPEC §23.3).
	Parallel int
	Tasks    []string
	Agent    string
	// DefaultAgent is default_agent of the configuration (SPEC §22.2),
	// the executor after --agent; "" for none.
	DefaultAgent string
	DryRun       bool
	Resume       bool
	// Agents runs the agents of §22; nil fails agent calls with
	// configuration_error.
	Agents AgentRunner
	// Stdout receives the waves of a dry run.
	Stdout interface{ Write([]byte) (int, error) }
}

// PlanOptions returns what reading and checking a plan needs from the
// workspace: [plan] max_tasks, [plan.agents], the agents known and the
// templates (for plan/NAME of a role).
func (w *Workspace) PlanOptions(agents AgentRunner) plan.Options {
	names := plan.BuiltinAgents
	if agents != nil {
		names = agents.Agents()
	}
	return plan.Options{
		MaxTasks: w.Config.Plan.MaxTasks,
		Agents:   names,
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
// id) with its steps and calls below it, and task prompts go to the
// agents of §22 or to the run's provider. With Options.Journal and
// JournalInfo.ResumedFrom, completed calls of the resumed run are
// replayed. Errors are those of plan.Run.
func (e *Engine) RunPlan(ctx context.Context, p *plan.Plan, r PlanRun) (*plan.Outcome, error) {
	for _, t := range templates.PlanRoles() {
		if _, ok := e.reg.Lookup(t.Name); !ok {
			e.reg.Add(t)
		}
	}
	opts := e.ws.PlanOptions(r.Agents)
	ro := plan.RunOptions{
		Options:      opts,
		Parallel:     r.Parallel,
		Tasks:        r.Tasks,
		Agent:        r.Agent,
		DefaultAgent: r.DefaultAgent,
		DryRun:       r.DryRun,
		Resume:       r.Resume,
		RunID:        e.runID,
		Stderr:       e.stderr,
	}
	if r.Stdout != nil {
		ro.Stdout = r.Stdout
	}
	if e.opts.Provider != "" && r.Agent == "" {
		// --provider names the executor of every task: no agent.
		ro.Agent = "none"
	}
	// evalrun plan run starts the trace; the plan-run tool of a workflow
	// is traced already, under its tool call.
	ctx = e.traced(ctx)
	x := &planExecutor{e: e, agents: r.Agents, forceProvider: ro.Agent == "none", dry: r.DryRun, tasks: map[string]*plan.Task{}}
	planned := make([]progress.PlannedTask, 0, len(p.Tasks))
	for _, t := range p.Tasks {
		x.tasks[t.ID] = t
		pt := progress.PlannedTask{ID: t.ID, Title: t.Title, Agent: t.Agent, Completed: t.Status == plan.StatusCompleted}
		if t.Parent != nil {
			pt.Parent = t.Parent.ID
		}
		planned = append(planned, pt)
	}
	e.opts.Progress.planTasks(planned)
	return plan.Run(ctx, p, x, ro)
}

// planExecutor implements plan.Executor with the engine's task path.
type planExecutor struct {
	e             *Engine
	agents        AgentRunner
	forceProvider bool
	dry           bool
	// tasks are the plan's tasks by id, for the title and agent of their
	// spans.
	tasks map[string]*plan.Task
}

// RunTask runs the role template of a task with the provider, or renders
// it and hands the prompt to the agent.
func (x *planExecutor) RunTask(ctx context.Context, call plan.TaskCall) (plan.Answer, error) {
	inputs := make([]Input, 0, len(call.Inputs))
	for _, kv := range call.Inputs {
		v, err := toValue(kv.Value)
		if err != nil {
			return plan.Answer{}, err
		}
		inputs = append(inputs, Input{Name: kv.Key, Value: v})
	}
	if call.Agent != "" && !x.forceProvider && !x.dry {
		t, ok := x.e.reg.Lookup(call.Template)
		if !ok {
			return plan.Answer{}, fmt.Errorf("template_not_found: %s", call.Template)
		}
		prompt, err := renderPrompt(t, inputs)
		if err != nil {
			return plan.Answer{}, err
		}
		return x.agent(ctx, call.Agent, prompt, x.e.ws.Root, false)
	}
	res, err := x.e.Task(ctx, call.Template, inputs)
	if err != nil {
		return plan.Answer{}, err
	}
	return answerOf(res)
}

// RunAgent runs an agent step; under --agent none (or --provider) and in
// dry runs the prompt goes to the provider through plan/agent-step.
func (x *planExecutor) RunAgent(ctx context.Context, call plan.AgentCall) (plan.Answer, error) {
	if x.forceProvider || x.dry {
		res, err := x.e.Task(ctx, "plan/agent-step", []Input{{Name: "prompt", Value: value.String(call.Prompt)}})
		if err != nil {
			return plan.Answer{}, err
		}
		return answerOf(res)
	}
	return x.agent(ctx, call.Agent, call.Prompt, call.Dir, call.ReadOnly)
}

func (x *planExecutor) agent(ctx context.Context, name, prompt, dir string, readOnly bool) (plan.Answer, error) {
	if x.agents == nil {
		return plan.Answer{}, fmt.Errorf("%s: agent '%s' is not available: this build runs no agents of §22; map the role to \"none\" in [plan.agents] or use --agent none", tasksystem.ReasonConfiguration, name)
	}
	// An agent call is a task node "agent:NAME" keyed by the hash of what
	// it was asked; --resume replays a completed one instead of paying
	// for it again (SPEC §22.3).
	rel, err := filepath.Rel(x.e.ws.Root, dir)
	if err != nil {
		rel = dir
	}
	in := value.NewDict(4)
	in.Set("agent", value.String(name))
	in.Set("prompt", value.String(prompt))
	in.Set("dir", value.String(filepath.ToSlash(rel)))
	in.Set("read_only", value.Bool(readOnly))
	sum := sha256.Sum256([]byte(journal.CanonicalJSON(in)))
	hash := hex.EncodeToString(sum[:])
	call := "agent:" + name
	ctx, sp := trace.Start(ctx, trace.Task, call, in, trace.Key(hash), trace.Executor(call))
	sp.Running()
	if a, ok := sp.Before(); ok {
		if a.Err != nil {
			sp.End(trace.Result{Status: trace.Failed, Error: a.Err.Error()}, trace.Usage{})
			return plan.Answer{}, a.Err
		}
		if r, isResult := a.Value.(*value.TaskResult); isResult {
			sp.End(trace.ResultOf(r, true), a.Usage)
			return plan.Answer{Text: r.Content, Tokens: int64(a.Usage.InputTokens + a.Usage.OutputTokens), CostUSD: a.Usage.CostUSD}, nil
		}
	}
	ans, err := x.agents.RunAgent(ctx, name, prompt, dir, readOnly)
	res := &value.TaskResult{Status: value.StatusComplete, Content: ans.Text}
	if err != nil {
		res = value.Failed(tasksystem.ReasonLLMError, err.Error(), nil)
	}
	// An agent's reported cost; one that reports none counts as unknown
	// (plan.Answer has no flag, so a cost of 0 is taken as not reported).
	sp.End(trace.ResultOf(res, false), trace.Usage{OutputTokens: int(ans.Tokens), Turns: 1, CostUSD: ans.CostUSD, CostKnown: ans.CostUSD > 0})
	return ans, err
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

// answerOf turns a TaskResult into an answer, a FAILED one into an error
// "REASON: MESSAGE".
func answerOf(res *value.TaskResult) (plan.Answer, error) {
	if !res.OK() {
		reason := ""
		if v, ok := res.NotesOrEmpty().Get("reason"); ok {
			reason = value.Text(v)
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

// renderPrompt renders a template's system and instructions with inputs,
// for an agent.
func renderPrompt(t *templates.Template, inputs []Input) (string, error) {
	lookup := func(name string) (value.Value, bool) {
		for _, in := range inputs {
			if in.Name == name {
				return in.Value, true
			}
		}
		return nil, false
	}
	var parts []string
	for _, text := range []string{t.System, t.Instructions} {
		if text == "" {
			continue
		}
		parsed, err := templates.Parse(text)
		if err != nil {
			return "", fmt.Errorf("%s: %w", t.Name, err)
		}
		out, missing := parsed.Render(lookup)
		if len(missing) > 0 {
			return "", fmt.Errorf("%s: missing inputs %s", t.Name, strings.Join(missing, ", "))
		}
		parts = append(parts, out)
	}
	return strings.Join(parts, "\n\n"), nil
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

// The workflow side of plans (SPEC §23.6) is two tools, so that the
// evaluator needs no new forms: (plan-load (dir "…")) and
// (plan-run (dir "…") (task "IMPL-2") (parallel 2)). Their TaskResult's
// parsedContent is the dict; their calls are journaled under the tool
// call of the calling run.
const (
	ToolPlanLoad = "plan-load"
	ToolPlanRun  = "plan-run"
)

// registerPlanTools adds plan-load and plan-run to the run's tools.
func (e *Engine) registerPlanTools() {
	dirParam := tools.Param{Name: "dir", Kind: tools.ParamString, Required: true, Description: "The session directory .workflow/active/WFS-…, relative to the working directory."}
	e.tools.Register(tools.Tool{
		Name:        ToolPlanLoad,
		Description: "Read and check a Claude-Code-Workflow plan; returns {session, tasks, order}.",
		Params:      []tools.Param{dirParam},
		Unavailable: func() string { return "plan-load is for workflows, not models" },
		Run: func(ctx context.Context, params *value.Dict) *value.TaskResult {
			p, fail := e.loadPlanTool(params)
			if fail != nil {
				return fail
			}
			d := value.NewDict(3)
			session := value.Value(value.NewDict(0))
			if p.Session != nil {
				if v, err := value.ParseJSON(string(p.Session.Src)); err == nil {
					session = v
				}
			}
			d.Set("session", session)
			var tasks value.List
			for _, t := range p.Tasks {
				v, err := value.ParseJSON(string(t.File.Src))
				if err != nil {
					continue
				}
				tasks = append(tasks, v)
			}
			d.Set("tasks", tasks)
			waves, _ := p.Waves(len(p.Tasks), nil)
			var order value.List
			for _, w := range waves {
				var ids value.List
				for _, t := range w {
					ids = append(ids, value.String(t.ID))
				}
				order = append(order, ids)
			}
			d.Set("order", order)
			return &value.TaskResult{Status: value.StatusComplete, Content: value.JSON(d), Parsed: d}
		},
	})
	e.tools.Register(tools.Tool{
		Name:        ToolPlanRun,
		Description: "Run a Claude-Code-Workflow plan as evalrun plan run does; returns a dict of per-task results.",
		Params: []tools.Param{dirParam,
			{Name: "task", Kind: tools.ParamString, Description: "Run only these tasks, separated by spaces (IMPL-1, IMPL-1.*)."},
			{Name: "parallel", Kind: tools.ParamInt, Description: "Tasks at once (default 1)."},
			{Name: "agent", Kind: tools.ParamString, Description: "The agent of tasks nothing else assigns; none for the provider."},
		},
		Unavailable: func() string { return "plan-run is for workflows, not models" },
		Run: func(ctx context.Context, params *value.Dict) *value.TaskResult {
			p, fail := e.loadPlanTool(params)
			if fail != nil {
				return fail
			}
			r := PlanRun{Agents: e.opts.PlanAgents, DryRun: e.opts.DryRun, Parallel: 1}
			if v, ok := params.Get("task"); ok {
				r.Tasks = strings.Fields(value.Text(v))
			}
			if v, ok := params.Get("parallel"); ok {
				n, _ := strconv.Atoi(value.Text(v))
				r.Parallel = max(n, 1)
			}
			if v, ok := params.Get("agent"); ok {
				r.Agent = value.Text(v)
			}
			out, err := e.RunPlan(ctx, p, r)
			d := value.NewDict(0)
			if out != nil {
				for _, id := range out.Completed {
					td := value.NewDict(2)
					td.Set("status", value.String("completed"))
					td.Set("answer", value.String(out.Answers[id]))
					d.Set(id, td)
				}
				for _, id := range out.Failed {
					td := value.NewDict(1)
					td.Set("status", value.String("failed"))
					d.Set(id, td)
				}
				for _, id := range out.NotStarted {
					td := value.NewDict(1)
					td.Set("status", value.String("not_started"))
					d.Set(id, td)
				}
			}
			if err != nil {
				var fe *plan.FailedError
				reason := tasksystem.ReasonExecutionHalted
				if errors.As(err, &fe) {
					reason = tasksystem.ReasonToolExecution
				}
				res := value.Failed(reason, err.Error(), nil)
				res.Parsed = d
				return res
			}
			return &value.TaskResult{Status: value.StatusComplete, Content: value.JSON(d), Parsed: d}
		},
	})
}

// loadPlanTool loads the plan named by the dir parameter; a plan with
// errors is a FAILED result listing them.
func (e *Engine) loadPlanTool(params *value.Dict) (*plan.Plan, *value.TaskResult) {
	v, _ := params.Get("dir")
	dir := absTo(e.ws.WorkDir, value.Text(v))
	p, diags, err := plan.Load(dir, e.ws.PlanOptions(e.opts.PlanAgents))
	if err != nil {
		return nil, value.Failed(tasksystem.ReasonInputValidation, err.Error(), nil)
	}
	if diags.HasErrors() {
		return nil, value.Failed(tasksystem.ReasonInputValidation, strings.TrimSuffix(diags.String(), "\n"), nil)
	}
	return p, nil
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
	return plan.Load(dir, w.PlanOptions(nil))
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
