package tasksystem

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"sync"

	"github.com/evalrun/evalrun/agent"
	"github.com/evalrun/evalrun/handler"
	"github.com/evalrun/evalrun/handler/tokens"
	"github.com/evalrun/evalrun/internal/suggest"
	"github.com/evalrun/evalrun/templates"
	"github.com/evalrun/evalrun/trace"
	"github.com/evalrun/evalrun/value"
)

// AgentSettings are the run-level settings of agents, roles and contexts
// (SPEC §22), embedded in Options. Their zero value sends every call to a
// provider with the roles of Options.Roles.
type AgentSettings struct {
	// Agent is --agent: an agent name, "none" to force providers, "" to
	// let the template and DefaultAgent choose.
	Agent string
	// DefaultAgent is default_agent.
	DefaultAgent string
	// LookupAgent returns the configured or built-in agent of a name; nil
	// knows the built-in agents only.
	LookupAgent func(name string) (agent.Definition, bool)
	// AgentNames lists the known agent names, for suggestions.
	AgentNames func() []string
	// Runner starts agents; nil means a new agent.Runner.
	Runner *agent.Runner
	// ReadOnly appends each agent's read_only_args.
	ReadOnly bool
	// AgentDryRun, when set, replaces starting the agent (--dry-run): it
	// receives the call's displayed argv (the prompt as {prompt}) and its
	// request, and the answer is the echo of the user prompt.
	AgentDryRun func(ctx context.Context, t *templates.Template, def agent.Definition, argv []string, req *handler.Request) error
	// AgentReplay, when set, answers agent calls from a cassette instead of
	// starting them (the run's provider is replay).
	AgentReplay func(hash string) (*handler.Response, *float64, error)
	// AgentRecord, when set, records every agent answer (--record).
	AgentRecord func(hash, model string, resp *handler.Response, costUSD *float64) error
	// AnnounceAgent, when set, is called once per agent defined in the
	// local configuration, before its first start (SPEC §22.3, §19).
	AnnounceAgent func(def agent.Definition, argv []string)

	// Role is --role; DefaultRole is default_role.
	Role, DefaultRole string
	// RoleText resolves a role with UTD fields (SPEC §22.4); ok is false
	// for a name it does not know, which Options.Roles then answers. nil
	// uses Options.Roles only.
	RoleText func(ctx context.Context, name, model string) (text string, ok bool, err error)
	// Contexts is the rendered text of the required and --context contexts
	// (SPEC §22.5), placed before the user prompt of every task call.
	Contexts string
	// LoadContexts, when set, renders that text instead, once, before the
	// first task call that needs it, so that a run that calls no task
	// reads no context file and runs no context command; its error fails
	// the call with configuration_error.
	LoadContexts func(ctx context.Context) (string, error)
}

// agentState is the executor's run-wide agent state.
type agentState struct {
	announced  sync.Map // agent names already echoed
	runnerOnce sync.Once
	runner     *agent.Runner

	contextsOnce sync.Once
	contexts     string
	contextsErr  error
}

// contexts returns the text of the run's contexts: Contexts, or what
// LoadContexts renders on first use.
func (e *Executor) contexts(ctx context.Context) (string, error) {
	load := e.opts.LoadContexts
	if load == nil {
		return e.opts.Contexts, nil
	}
	e.agents.contextsOnce.Do(func() {
		e.agents.contexts, e.agents.contextsErr = load(ctx)
	})
	return e.agents.contexts, e.agents.contextsErr
}

// agentRunner returns the run's agent runner, making one on first use.
func (e *Executor) agentRunner() *agent.Runner {
	e.agents.runnerOnce.Do(func() {
		e.agents.runner = e.opts.Runner
		if e.agents.runner == nil {
			e.agents.runner = agent.NewRunner()
		}
	})
	return e.agents.runner
}

// selectAgent chooses the agent of a call (SPEC §22.2): the request's
// own choice (a plan's), else --agent, else the template's <agent>, else
// default_agent. ok is false when the call goes to a provider. An unknown
// name is a configuration_error failure.
func (e *Executor) selectAgent(t *templates.Template, chosen string) (def agent.Definition, ok bool, err error) {
	s := &e.opts.AgentSettings
	name := chosen
	if name == "" {
		name = s.Agent
	}
	if name == "" {
		name = t.Agent
	}
	if name == "" {
		name = s.DefaultAgent
	}
	if name == "" || name == "none" {
		return agent.Definition{}, false, nil
	}
	lookup := s.LookupAgent
	if lookup == nil {
		lookup = agent.Builtin
	}
	def, found := lookup(name)
	if !found {
		names := agent.BuiltinNames()
		if s.AgentNames != nil {
			names = s.AgentNames()
		}
		msg := fmt.Sprintf("unknown agent '%s'", name)
		if hint := suggest.Near(name, names); hint != "" {
			msg += fmt.Sprintf(" (did you mean '%s'?)", hint)
		}
		return agent.Definition{}, false, fail(ReasonConfiguration, msg)
	}
	return def, true, nil
}

// basePrompt is the role text of a call (SPEC §22.4, §14.1): --role, else
// the template's role, else default_role, else [roles.default], else
// DefaultBasePrompt. A template's role that is not configured falls back
// to the default as before; an unknown --role or default_role is a
// configuration_error; a failing role command a tool_execution_error.
func (e *Executor) basePrompt(ctx context.Context, t *templates.Template, model string) (string, error) {
	s := &e.opts.AgentSettings
	type choice struct {
		name   string
		strict bool
	}
	var order []choice
	if s.Role != "" {
		order = append(order, choice{s.Role, true})
	} else {
		if t.Role != "" {
			order = append(order, choice{t.Role, false})
		}
		if s.DefaultRole != "" {
			order = append(order, choice{s.DefaultRole, true})
		}
	}
	order = append(order, choice{"default", false})
	for _, c := range order {
		if s.RoleText != nil {
			text, ok, err := s.RoleText(ctx, c.name, model)
			if err != nil {
				var f *failure
				if errors.As(err, &f) {
					return "", err
				}
				return "", fail(ReasonToolExecution, fmt.Sprintf("role '%s': %v", c.name, err))
			}
			if ok {
				return text, nil
			}
		}
		if text, ok := e.opts.Roles[c.name]; ok {
			return text, nil
		}
		if c.strict {
			return "", fail(ReasonConfiguration, fmt.Sprintf("unknown role '%s'", c.name))
		}
	}
	return DefaultBasePrompt, nil
}

// joinPrompt joins the non-empty parts with blank lines.
func joinPrompt(parts ...string) string {
	kept := make([]string, 0, len(parts))
	for _, p := range parts {
		if p != "" {
			kept = append(kept, p)
		}
	}
	return strings.Join(kept, "\n\n")
}

// AgentRequestHash is the request hash of an agent call (SPEC §22.3): the
// hash of §14.6 with "agent": NAME added to the hashed object.
func AgentRequestHash(name string, req *handler.Request) string {
	return AgentCallHash(name, req, false, "")
}

// AgentCallHash is AgentRequestHash of a call made under conditions of
// its own (Request.ReadOnly, Request.Dir: a plan's `ccw cli --mode
// analysis --cd DIR`): "read_only": true and "dir": DIR (relative to the
// project root, "/" separated) join the hashed object when set, so that
// the journal (--resume) and a cassette never answer such a call with an
// answer recorded under other conditions. Without them it is
// AgentRequestHash, so the keys of every other call stay as they were.
func AgentCallHash(name string, req *handler.Request, readOnly bool, dir string) string {
	canon := handler.CanonicalRequest(req)
	var b strings.Builder
	b.WriteString(`{"agent":`)
	value.WriteJSONString(&b, name)
	b.WriteByte(',')
	if dir != "" {
		b.WriteString(`"dir":`)
		value.WriteJSONString(&b, dir)
		b.WriteByte(',')
	}
	if readOnly {
		b.WriteString(`"read_only":true,`)
	}
	b.WriteString(canon[1:])
	sum := sha256.Sum256([]byte(b.String()))
	return hex.EncodeToString(sum[:])
}

// callDir is the directory of a call for its hash: "" for the project
// root (or none), else the directory relative to the root.
func (e *Executor) callDir(dir string) string {
	if dir == "" {
		return ""
	}
	rel, err := filepath.Rel(e.roots.root, dir)
	if err != nil {
		return filepath.ToSlash(dir)
	}
	if rel == "." {
		return ""
	}
	return filepath.ToSlash(rel)
}

// agentCall is the agent side of one Execute.
type agentCall struct {
	def    agent.Definition
	model  string // the model name after the models map
	system string
	// fallbackRole is DefaultBasePrompt when it starts system (no role
	// was chosen), else "".
	fallbackRole string
	user         string // the prompt sent: contexts, context block and instructions
	instr        string // the rendered instructions, for accumulation
	seq          int
	record       bool
	inputs       value.Value
	notes        *value.Dict
	finish       func() *value.Dict
	journal      *taskSpan
	// readOnly and dir are the request's (Request.ReadOnly, Request.Dir).
	readOnly bool
	dir      string
}

// runAgent executes a call with an agent (SPEC §22.3).
func (e *Executor) runAgent(ctx context.Context, t *templates.Template, a agentCall) *value.TaskResult {
	s := &e.opts.AgentSettings
	a.notes.Set("executor", value.String("agent:"+a.def.Name))
	a.notes.Set("provider", value.String("agent:"+a.def.Name))
	a.notes.Set("model", value.String(a.model))
	fail := func(reason, msg string) *value.TaskResult { return value.Failed(reason, msg, a.finish()) }
	req := &handler.Request{Model: a.model, System: a.system, Messages: []handler.Message{{Role: handler.RoleUser, Content: a.user}}}
	hash := AgentCallHash(a.def.Name, req, a.readOnly, e.callDir(a.dir))
	j := a.journal
	if j != nil {
		ctx, j.span = trace.Start(ctx, trace.Task, t.Name, a.inputs,
			trace.Key(hash), trace.Executor("agent:"+a.def.Name), trace.Detail(t), trace.Prompt(a.system, a.user))
		if ref := j.span.Ref(); ref != "" {
			a.notes.Set("task_id", value.String(ref))
		}
		j.span.Running()
		if ans, ok := j.span.Before(); ok {
			if ans.Err != nil {
				return e.failure(ctx, ans.Err, a.finish())
			}
			if r, isResult := ans.Value.(*value.TaskResult); isResult {
				return e.replayed(j, r, ans.Usage, a.seq, a.instr, t.Name, a.record)
			}
		}
	}
	// The context limit of §14.2, on the system and user prompts, before
	// the process starts; an agent has the default context window.
	if limit := e.agentContextLimit(t); limit > 0 {
		count := e.opts.Counter
		if count == nil {
			count = tokens.O200k()
		}
		used := count.Count(a.system) + count.Count(a.user) + 2*tokens.PerMessage + tokens.ReplyPriming
		if used > limit {
			return resourceExhausted(&handler.LimitError{Resource: handler.ResourceContext, Used: used, Limit: limit}, a.finish())
		}
	}
	call := agent.Call{Prompt: a.user, System: a.system, FallbackRole: a.fallbackRole, Model: a.model, Date: string(e.date),
		Instructions: string(e.instructions), Task: t.Name, Root: e.roots.root, Dir: a.dir, ReadOnly: s.ReadOnly || a.readOnly}
	if j != nil && j.span != nil {
		call.Lines = j.span.Progress // the agent's last line, for the live display
	}
	// The model is already mapped: the definition must not map it again.
	def := a.def
	def.Models, def.DefaultModel = nil, ""
	argv, err := def.Display(call)
	if err != nil {
		return fail(ReasonConfiguration, err.Error())
	}
	a.notes.Set("agent", value.DictOf("name", value.String(def.Name), "argv", stringList(argv)))

	var res *agent.Result
	switch {
	case s.AgentDryRun != nil:
		if err := s.AgentDryRun(ctx, t, def, argv, req); err != nil {
			return fail(ReasonConfiguration, "dry run: "+err.Error())
		}
		count := e.opts.Counter
		if count == nil {
			count = tokens.O200k()
		}
		n := count.Count
		res = &agent.Result{Content: a.user, Turns: 1, UsageEstimated: true,
			Usage: agent.Usage{InputTokens: n(joinPrompt(a.system, a.user)), OutputTokens: n(a.user)}}
	case s.AgentReplay != nil:
		resp, cost, err := s.AgentReplay(hash)
		if err != nil {
			return fail(handler.ReasonOf(err, ReasonLLMError), err.Error())
		}
		res = &agent.Result{Content: resp.Content, Turns: 1,
			Usage: agent.Usage{InputTokens: resp.Usage.InputTokens, OutputTokens: resp.Usage.OutputTokens}}
		if cost != nil {
			res.CostUSD, res.HasCost = *cost, true
		}
	default:
		if s.AnnounceAgent != nil && def.Scope == agent.ScopeLocal {
			if _, done := e.agents.announced.LoadOrStore(def.Name, true); !done {
				s.AnnounceAgent(def, argv)
			}
		}
		res, err = e.agentRunner().Run(ctx, def, call)
		if err != nil {
			var ae *agent.Error
			if errors.As(err, &ae) && ae.Result != nil {
				cost := e.agentCost(def.Name, a.model, ae.Result)
				e.addAgentUsage(ae.Result, j, cost)
				a.notes.Set("agent", agentNote(def.Name, ae.Result))
				// What the failed agent reported: its session can be
				// resumed, its cost was paid.
				if ae.Result.HasCost {
					a.notes.Set("cost_usd", value.Float(cost.USD))
				}
				if ae.Result.SessionID != "" {
					a.notes.Set("session_id", value.String(ae.Result.SessionID))
				}
			}
			if ctx.Err() != nil {
				return fail(ReasonExecutionHalted, haltMessage(ctx))
			}
			if errors.As(err, &ae) && ae.Kind == agent.ReasonAgent && ae.ExitCode != 0 {
				a.notes.Set("exit_code", value.Int(ae.ExitCode))
				a.notes.Set("stderr", value.String(ae.Stderr))
			}
			return fail(agent.ReasonOf(err), err.Error())
		}
		a.notes.Set("agent", agentNote(def.Name, res))
	}
	if s.AgentRecord != nil && s.AgentDryRun == nil {
		var cost *float64
		if res.HasCost {
			c := res.CostUSD
			cost = &c
		}
		resp := &handler.Response{Content: res.Content, Usage: handler.Usage{InputTokens: res.Usage.InputTokens, OutputTokens: res.Usage.OutputTokens}}
		if err := s.AgentRecord(hash, a.model, resp, cost); err != nil {
			e.printf("warning: %v\n", err)
		}
	}
	cost := e.agentCost(a.def.Name, a.model, res)
	if !res.HasCost && (s.AgentDryRun != nil || s.AgentReplay != nil) {
		// No agent ran: a dry run, or a replayed answer recorded without
		// a cost, is free (as echo and replay answers are).
		cost = handler.Cost{}
	}
	e.addAgentUsage(res, j, cost)
	if cost.Known() && (res.HasCost || cost.USD > 0) {
		a.notes.Set("cost_usd", value.Float(cost.USD))
	}
	a.notes.Set("usage", handler.UsageNote(handler.Usage{InputTokens: res.Usage.InputTokens, OutputTokens: res.Usage.OutputTokens}, res.Turns))
	a.notes.Set("turns", value.Int(res.Turns))
	if res.UsageEstimated {
		a.notes.Set("usage_estimated", value.Bool(true))
	}
	if res.SessionID != "" {
		a.notes.Set("session_id", value.String(res.SessionID))
	}
	result := &value.TaskResult{Status: value.StatusComplete, Content: res.Content, Notes: a.finish()}
	if of := t.OutputFormat; of != nil && of.Type == "json" {
		var validate handler.SchemaValidator
		if of.Compiled != nil {
			validate = of.Compiled.Validate
		}
		handler.ParseOutput(res.Content, validate).Apply(result)
	}
	e.state.complete(completedCall{name: t.Name, seq: a.seq, user: a.instr, content: res.Content, record: a.record})
	return result
}

// agentNote is notes.agent: what the journal keeps of an agent process
// (SPEC §22.3): name, argv (prompt elided), exit status, duration and the
// stderr tail.
func agentNote(name string, r *agent.Result) *value.Dict {
	return value.DictOf(
		"name", value.String(name),
		"argv", stringList(r.Argv),
		"exit_code", value.Int(r.ExitCode),
		"duration_ms", value.Int(r.Duration.Milliseconds()),
		"stderr", value.String(r.Stderr),
	)
}

// addAgentUsage counts an agent call in the run's usage and its journal
// record.
func (e *Executor) addAgentUsage(r *agent.Result, j *taskSpan, cost handler.Cost) {
	u := handler.Usage{InputTokens: r.Usage.InputTokens, OutputTokens: r.Usage.OutputTokens}
	turns := max(r.Turns, 1)
	if j != nil {
		j.usage, j.turns, j.cost, j.agent = u, turns, cost, true
	}
	e.usageMu.Lock()
	defer e.usageMu.Unlock()
	e.usage.addCost(cost)
	e.usage.Calls++
	e.usage.InputTokens += u.InputTokens
	e.usage.OutputTokens += u.OutputTokens
	e.usage.Turns += turns
}

// agentContextLimit is floor(window × fraction) for an agent call: the
// default context window, the template's max_context_fraction, else
// limits.context_fraction, else the handler's default.
func (e *Executor) agentContextLimit(t *templates.Template) int {
	fraction := t.Limits.MaxContextFraction
	if fraction == 0 {
		fraction = e.opts.ContextFraction
	}
	if fraction == 0 {
		fraction = handler.DefaultContextFraction
	}
	return int(float64(handler.DefaultContextWindow) * fraction)
}

// agentCost is the cost of an agent call (SPEC §14.9, §22.3): the cost
// the agent reported, else its tokens at the prices configured for
// "agent:NAME" and the model, else unknown.
func (e *Executor) agentCost(name, model string, r *agent.Result) handler.Cost {
	if r.HasCost {
		return handler.Cost{USD: r.CostUSD}
	}
	if p := e.prices("agent:"+name, model); p != nil {
		return handler.Cost{USD: p.Cost(handler.Usage{InputTokens: r.Usage.InputTokens, OutputTokens: r.Usage.OutputTokens}, 0)}
	}
	return handler.Cost{Unknown: 1}
}
