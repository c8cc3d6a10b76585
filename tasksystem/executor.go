package tasksystem

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"time"

	"github.com/evalrun/evalrun/handler"
	"github.com/evalrun/evalrun/handler/tokens"
	"github.com/evalrun/evalrun/memory"
	"github.com/evalrun/evalrun/templates"
	"github.com/evalrun/evalrun/trace"
	"github.com/evalrun/evalrun/value"
)

// The failure reasons of SPEC §11.5 that the executor produces.
const (
	ReasonInputValidation  = "input_validation_failure"
	ReasonTemplateNotFound = "template_not_found"
	ReasonXMLValidation    = "xml_validation_failure"
	ReasonLLMError         = "llm_error"
	ReasonExecutionHalted  = "execution_halted"
	ReasonConfiguration    = "configuration_error"
	ReasonContextRetrieval = "context_retrieval_failure"
	ReasonToolExecution    = "tool_execution_error"
	ReasonExecutionTimeout = "execution_timeout"
)

// Defaults of SPEC §12.3, §14.1 and §14.5.
const (
	// DefaultModel is the model when neither the run, the template nor the
	// provider names one.
	DefaultModel = "gpt-4o-mini"
	// DefaultBasePrompt starts every system prompt unless a role replaces it.
	DefaultBasePrompt = "You are a helpful assistant."
	// NoInstructions is the value of {{instructions}} when the run was not
	// given a task text.
	NoInstructions = "None"
	// DateLayout formats {{date}}: ISO 8601 with seconds and a numeric
	// offset, never Z.
	DateLayout = "2006-01-02T15:04:05-07:00"
)

// Request is one task call as the evaluator hands it to the executor.
type Request struct {
	// Name is the name the call used: template name, alias or type:subtype.
	// It appears in messages; "" means Template.Name.
	Name string
	// Template is the resolved template; nil fails with template_not_found.
	Template *templates.Template
	// Named are the named arguments in call order, reserved keys excluded.
	Named []NamedArg
	// Positional are the values of a template applied to values (SPEC §6.4).
	Positional []value.Value
	// Files is the call's files argument, and FilesGiven whether there was
	// one. A non-empty list makes the task's own files (SPEC §13.4,
	// context_source explicit_request); relative paths are resolved against
	// Options.WorkDir, every path must exist inside Options.Root.
	Files      []string
	FilesGiven bool
	// Context holds the fields of the call's context argument
	// (ParseContextArg).
	Context templates.ContextSettings
	// History holds the call's history_config argument (ParseHistoryArg);
	// its fields override the template's (SPEC §13.6).
	History templates.HistoryConfig
	// Ambient holds the with-context items in force, outermost first
	// (SPEC §13.3): match dicts {"id", "content", "relevance_score",
	// "content_type", "source_path"}, whose paths are relative to the project
	// root, and path strings, relative to the working directory. Options.RunFiles
	// come before them; an id already present is not added again.
	Ambient []value.Value
	// AmbientSummary is the summary of the innermost with-context whose
	// context was a get-context result, "" when there is none. It becomes
	// the <summary> of the context block when the task inherits items and
	// no memory lookup chose its own files (SPEC §13.5).
	AmbientSummary string
	// Seq is the call's journal sequence number, used in accumulated
	// outputs as NAME#SEQ (SPEC §13.4); 0 means the executor numbers calls
	// itself, from 1, in the order Execute is called.
	Seq int
	// Agent, when set, chooses the executor of this call over --agent,
	// the template's <agent> and default_agent: an agent name, or "none"
	// for a provider. A plan run sets it after its own selection (SPEC
	// §23.3: [plan.agents], meta.tool, --agent, default_agent).
	Agent string
	// ReadOnly appends the agent's read_only_args for this call (SPEC
	// §23.7 `--mode analysis`), as AgentSettings.ReadOnly does for a run.
	ReadOnly bool
	// Dir, when set, is the directory the agent process runs in instead
	// of the project root (`ccw cli --cd DIR`).
	Dir string
}

// Options are the run-level settings of an Executor.
type Options struct {
	// Start is the run's start time, the value of {{date}}; zero means the
	// time NewExecutor is called.
	Start time.Time
	// Provider is the provider chosen for the whole run (--provider); it
	// wins over a template's <provider>. nil when not given.
	Provider handler.Provider
	// DefaultProvider answers calls that neither the run nor the template
	// assigns to a provider (default_provider, or the implicit choice of
	// SPEC §14.5); nil means the echo provider.
	DefaultProvider handler.Provider
	// Providers returns the configured provider of a name, for a template's
	// <provider> or provider:model <model>; nil knows no names. The name
	// "echo" always resolves.
	Providers func(name string) (handler.Provider, bool)
	// Model is the run's model override (--model); "" when not given.
	Model string
	// MaxTurns is the configured turn limit (limits.max_turns); 0 means
	// handler.DefaultMaxTurns.
	MaxTurns int
	// Roles maps a role name to its system prompt ([roles.NAME]); the role
	// "default" replaces DefaultBasePrompt for templates without a role.
	Roles map[string]string
	// Instructions is the text given to `evalrun task NAME "text"`, the value
	// of {{instructions}}; "" means NoInstructions.
	Instructions string

	// Root is the project root: every file read for a task must lie inside
	// it once symbolic links are resolved (SPEC §19). "" means WorkDir.
	Root string
	// WorkDir is the working directory: relative paths of files arguments,
	// <file>, <path>, --files and with-context paths are resolved against
	// it, and template commands run in it (SPEC §12.4). "" means the current
	// directory when NewExecutor is called.
	WorkDir string
	// RunFiles are the --files paths, ambient for the whole run before any
	// with-context item (SPEC §13.3); they may lie outside Root.
	RunFiles []string
	// Memory is the memory index for fresh lookups and description sources
	// (SPEC §13.4, §15); nil means there is none, and such lookups find no
	// files and add the warning WarnNoMemory.
	Memory Memory
	// Stderr receives the echo line of a local or dir template's command
	// (SPEC §19) and the executor's warnings; nil discards them.
	Stderr io.Writer
	// SubsetK is context.subset_k, FreshTopK context.fresh_top_k; 0 means
	// memory.DefaultSubsetK and memory.DefaultFreshTopK.
	SubsetK   int
	FreshTopK int

	// Tools are the run's tools, offered to templates that allow them
	// (SPEC §14.3); nil offers none.
	Tools handler.Toolbox
	// ContextFraction is limits.context_fraction; 0 means the handler's
	// default. A template's <limits max_context_fraction> wins.
	ContextFraction float64
	// Counter counts tokens; nil means the o200k_base tokenizer.
	Counter tokens.Counter
	// Prices returns the prices of a model served by a provider (SPEC
	// §14.9): the provider is a provider's name, or "agent:NAME" for an
	// agent that reports no cost; nil, or a nil answer, leaves the cost
	// of calls the server (or agent) does not report unknown.
	Prices func(provider, model string) *handler.Prices
	// AgentSettings choose and run coding agents, roles and contexts
	// (SPEC §22).
	AgentSettings
}

// Executor runs atomic tasks (SPEC §11.3). It is safe for concurrent use:
// the run-wide state (call numbers, accumulated outputs, session history) is
// guarded. One Executor serves one run.
type Executor struct {
	opts         Options
	date         value.String
	instructions value.String
	roots        fileRoots
	subsetK      int
	freshTopK    int
	state        runState
	stderrMu     sync.Mutex

	usageMu sync.Mutex
	usage   RunUsage

	agents agentState
}

// RunUsage sums the model use of a run (SPEC §17.3): the task calls that
// reached a model, the tokens of every session (failed ones included) and
// their turns. Calls replayed from a journal count among Calls, and in
// Replayed.
type RunUsage struct {
	// Calls counts the task calls that made at least one model request,
	// memory's internal associative-matching calls included, plus the
	// replayed ones.
	Calls int
	// Replayed counts the calls whose answer came from the journal.
	Replayed int
	// InputTokens and OutputTokens sum the usage of every session.
	InputTokens, OutputTokens int
	// Turns sums the assistant messages of every session.
	Turns int
	// CostUSD sums the known costs of the calls (SPEC §14.9); a call with
	// some requests of unknown price adds what is known.
	CostUSD float64
	// CostUnknown counts the calls whose cost is not (wholly) known.
	CostUnknown int
	// ReplayedCostUSD is the part of CostUSD that replayed calls
	// recorded: money spent by an earlier run, not again by this one.
	ReplayedCostUSD float64
}

// addCost counts the cost of one call; the caller holds usageMu.
func (u *RunUsage) addCost(c handler.Cost) {
	u.CostUSD += c.USD
	if !c.Known() {
		u.CostUnknown++
	}
}

// Usage returns the run's model use so far. It is safe to call while tasks
// run.
func (e *Executor) Usage() RunUsage {
	e.usageMu.Lock()
	defer e.usageMu.Unlock()
	return e.usage
}

// AddReplayed counts a task call whose recorded answer was replayed
// instead of asking the model (the journal's resume, SPEC §16.4), with the
// usage, turns and cost recorded for it.
func (e *Executor) AddReplayed(u handler.Usage, turns int, cost handler.Cost) {
	e.usageMu.Lock()
	defer e.usageMu.Unlock()
	e.usage.addCost(cost)
	e.usage.ReplayedCostUSD += cost.USD
	e.usage.Calls++
	e.usage.Replayed++
	e.usage.InputTokens += u.InputTokens
	e.usage.OutputTokens += u.OutputTokens
	e.usage.Turns += turns
}

// addSession counts a finished session, whatever its outcome, when it made
// a model request: it has turns, or it failed with an error of the
// provider (not a limit checked before the first request, not
// cancellation).
func (e *Executor) addSession(ctx context.Context, s *handler.Session, err error) {
	made := s.Turns() > 0
	if !made && err != nil {
		var limit *handler.LimitError
		made = !errors.As(err, &limit) && ctx.Err() == nil
	}
	if !made {
		return
	}
	u := s.Usage()
	e.usageMu.Lock()
	defer e.usageMu.Unlock()
	e.usage.addCost(s.Cost())
	e.usage.Calls++
	e.usage.InputTokens += u.InputTokens
	e.usage.OutputTokens += u.OutputTokens
	e.usage.Turns += s.Turns()
}

// NewExecutor returns an Executor with the run-level options opts.
func NewExecutor(opts Options) *Executor {
	if opts.Start.IsZero() {
		opts.Start = time.Now()
	}
	if opts.DefaultProvider == nil {
		opts.DefaultProvider = handler.Echo{}
	}
	instr := opts.Instructions
	if instr == "" {
		instr = NoInstructions
	}
	root := opts.Root
	if root == "" {
		root = opts.WorkDir
	}
	e := &Executor{
		opts:         opts,
		date:         value.String(opts.Start.Local().Format(DateLayout)),
		instructions: value.String(instr),
		roots:        newFileRoots(root, opts.WorkDir),
		subsetK:      opts.SubsetK,
		freshTopK:    opts.FreshTopK,
	}
	if e.subsetK <= 0 {
		e.subsetK = memory.DefaultSubsetK
	}
	if e.freshTopK <= 0 {
		e.freshTopK = memory.DefaultFreshTopK
	}
	return e
}

// printf writes one message to Options.Stderr, whole.
func (e *Executor) printf(format string, args ...any) {
	if e.opts.Stderr == nil {
		return
	}
	e.stderrMu.Lock()
	defer e.stderrMu.Unlock()
	fmt.Fprintf(e.opts.Stderr, format, args...)
}

// Execute runs one task call and returns its TaskResult; it never returns
// nil. The pipeline of SPEC §11.3:
//
//  1. bind the inputs (§11.2);
//  2. merge and validate the context settings (§13.2);
//  3. read the template's <file> when {{file}} or {{file_contents}} is used,
//     and run its <command> when {{command_output}} is used in system or
//     instructions (§12.4; the command text has every substituted value
//     shell-quoted, and a local or dir template's command is echoed on
//     Options.Stderr first, §19);
//  4. select the task's own files: the call's files, the template's
//     <file_paths>, or a fresh memory lookup (§13.4);
//  5. render system and instructions (§12);
//  6. assemble the system prompt (§14.1) with the context block (§13.5):
//     own files, inherited ambient items (full, or the SubsetK best by BM25
//     against the instructions, or none), and the earlier COMPLETE calls'
//     outputs when accumulate_data is true;
//  7. compute the request hash of the first model request and start the
//     call's task span (trace.Task) with it as key, when ctx carries trace
//     sinks: the journal's sink names the call (notes.task_id) and may
//     answer it from a resumed run (Span.Before);
//  8. run a handler session with the selected provider and model (§14.5),
//     after the session-history pairs when use_session_history is true
//     (§13.6);
//  9. (structured output is parsed by the handler's caller, not yet here);
//  10. fill the notes (context_source, file_count, and warnings and
//     skipped_files when not empty) and record a COMPLETE call for
//     accumulation and, when record_in_session_history, the history.
//
// Failures are FAILED TaskResults: input_validation_failure (binding,
// context settings, missing or outside files), configuration_error for an
// unknown provider, tool_execution_error and execution_timeout from the
// <command>, context_retrieval_failure from <file_paths> and memory
// lookups, llm_error for a provider error, execution_halted when ctx is
// cancelled, and a turns RESOURCE_EXHAUSTION from the handler.
func (e *Executor) Execute(ctx context.Context, req Request) *value.TaskResult {
	if !trace.Enabled(ctx) {
		return e.execute(ctx, req, nil)
	}
	j := &taskSpan{}
	r := e.execute(ctx, req, j)
	if j.span == nil {
		// The call failed before its request was known.
		name := req.Name
		if req.Template != nil {
			name = req.Template.Name
		}
		_, j.span = trace.Start(ctx, trace.Task, name, requestInputs(req), trace.Detail(req.Template))
	}
	if ref := j.span.Ref(); ref != "" {
		if r.Notes == nil {
			r.Notes = value.NewDict(1)
		}
		r.Notes.Set("task_id", value.String(ref))
	}
	usage, turns, cost := j.usage, j.turns, j.cost
	if j.session != nil && !j.replayed {
		usage, turns, cost = j.session.Usage(), j.session.Turns(), j.session.Cost()
	}
	known := cost.Known() && (turns > 0 || j.replayed || j.agent)
	j.span.End(trace.ResultOf(r, j.replayed), trace.Usage{InputTokens: usage.InputTokens, OutputTokens: usage.OutputTokens,
		Turns: turns, CostUSD: cost.USD, CostKnown: known})
	return r
}

// execute is Execute; j, when not nil, receives the call's task span once
// the request hash is known, and its session.
func (e *Executor) execute(ctx context.Context, req Request, j *taskSpan) *value.TaskResult {
	seq := req.Seq
	if seq <= 0 {
		seq = e.state.nextSeq()
	}
	t := req.Template
	task := req.Name
	if t == nil {
		return value.Failed(ReasonTemplateNotFound, "Template not found: '"+task+"'", nil)
	}
	if task == "" {
		task = t.Name
	}
	provider, model, providerErr := e.selectProvider(t)
	notes := value.NewDict(8)
	notes.Set("template_used", value.String(t.Name))
	notes.Set("template_source", value.String(t.Source()))
	notes.Set("model", value.String(model))
	providerName := t.Provider
	if provider != nil {
		providerName = provider.Name()
	}
	notes.Set("provider", value.String(providerName))
	notes.Set("context_source", value.String(SourceNone))
	notes.Set("file_count", value.Int(0))
	c := &call{e: e, ctx: ctx, t: t, task: task, seen: map[string]bool{}}
	finish := func() *value.Dict {
		if len(c.warnings) > 0 {
			notes.Set("warnings", stringList(c.warnings))
		}
		if len(c.skipped) > 0 {
			notes.Set("skipped_files", stringList(c.skipped))
		}
		return notes
	}
	fail := func(reason, msg string) *value.TaskResult { return value.Failed(reason, msg, finish()) }
	failWith := func(err error) *value.TaskResult {
		var f *failure
		if errors.As(err, &f) {
			return fail(f.reason, f.msg)
		}
		return fail(ReasonInputValidation, err.Error())
	}

	if ctx.Err() != nil {
		return fail(ReasonExecutionHalted, haltMessage(ctx))
	}
	parts, err := t.Parts()
	if err != nil {
		return fail(ReasonXMLValidation, err.Error())
	}
	// (1) Bind inputs.
	inputs, err := Bind(task, t, parts, req.Named, req.Positional)
	if err != nil {
		return fail(ReasonInputValidation, err.Error())
	}
	// (2) Merge and validate the context settings.
	if c.settings, err = EffectiveContext(t.Subtype, t.Context, req.Context); err != nil {
		return fail(ReasonInputValidation, err.Error())
	}
	agentDef, useAgent, err := e.selectAgent(t, req.Agent)
	if err != nil {
		return failWith(err)
	}
	if providerErr != nil && !useAgent {
		return fail(ReasonConfiguration, providerErr.Error())
	}
	if useAgent {
		// The agent's model: --model, else the template's, else the
		// agent's default, through its models map.
		name := e.opts.Model
		if name == "" {
			name = t.Model
		}
		model = agentDef.Model(name)
	}
	hist := effectiveHistory(t.History, req.History)

	// Inputs win over built-ins.
	b := builtins{instructions: e.instructions, date: e.date, model: value.String(model)}
	lookup := func(root string) (value.Value, bool) {
		if v, ok := inputs[root]; ok {
			return v, true
		}
		return b.lookup(root)
	}
	// (3) The template's <file> and <command>.
	if err := c.templateFile(parts, lookup, &b); err != nil {
		return failWith(err)
	}
	if err := c.templateCommand(parts, lookup, &b); err != nil {
		return failWith(err)
	}
	// (4) Own files.
	source, own, summary, err := c.ownFiles(&req, parts, lookup, inputs)
	notes.Set("context_source", value.String(source))
	if err != nil {
		return failWith(err)
	}
	var block contextBlock
	for _, ref := range own {
		f, ok, err := c.load(ref)
		if err != nil {
			return failWith(err)
		}
		if ok {
			block.files = append(block.files, f)
		}
	}
	// (5) Render system and instructions.
	user, _ := parts.Instructions.Render(lookup)
	system, _ := parts.System.Render(lookup)

	// (6) The context block and the system prompt.
	if inh := c.inherited(&req, user); len(inh) > 0 {
		block.files = append(block.files, inh...)
		if summary == "" {
			summary = req.AmbientSummary
		}
	}
	block.summary = summary
	if c.settings.AccumulateData == "true" {
		block.prevFormat = c.settings.AccumulationFormat
		block.prev = accumulated(e.state.completed(), block.prevFormat)
	}
	notes.Set("file_count", value.Int(len(block.files)))

	base, err := e.basePrompt(ctx, t, model)
	if err != nil {
		return failWith(err)
	}
	contexts, err := e.contexts(ctx)
	if err != nil {
		return fail(ReasonConfiguration, err.Error())
	}
	if useAgent {
		fallback := ""
		if base == DefaultBasePrompt {
			fallback = base
		}
		return e.runAgent(ctx, t, agentCall{
			def: agentDef, model: model, system: joinPrompt(base, system), fallbackRole: fallback,
			user: joinPrompt(contexts, block.String(), user), instr: user, seq: seq, record: hist.record,
			inputs: inputsDict(inputs), notes: notes, finish: finish, journal: j,
			readOnly: req.ReadOnly, dir: req.Dir,
		})
	}
	// (8) Run the handler.
	maxTurns := t.Limits.MaxTurns
	if maxTurns == 0 {
		maxTurns = e.opts.MaxTurns
	}
	fraction := t.Limits.MaxContextFraction
	if fraction == 0 {
		fraction = e.opts.ContextFraction
	}
	session := handler.NewSession(handler.SessionConfig{
		Provider:        provider,
		Model:           model,
		System:          joinPrompt(base, system, block.String()),
		Temperature:     t.Temperature,
		MaxTurns:        maxTurns,
		Task:            task,
		ContextFraction: fraction,
		Tools:           e.opts.Tools,
		AllowedTools:    t.AllowedTools,
		ResponseFormat:  responseFormat(t),
		OnWarning:       func(msg string) { e.printf("%s\n", msg) },
		Counter:         e.opts.Counter,
		Prices:          e.prices(providerName, model),
	})
	if hist.use {
		session.AddMessages(e.state.historyMessages(hist.turns)...)
	}
	session.AddUser(joinPrompt(contexts, user))
	// (7) The request hash: the task span's key, under which the journal
	// records the call and may replay it.
	if j != nil {
		j.session = session
		first := session.NextRequest()
		hash := handler.RequestHash(first)
		ctx, j.span = trace.Start(ctx, trace.Task, t.Name, inputsDict(inputs),
			trace.Key(hash), trace.Executor(providerName+":"+model), trace.Detail(t), trace.Prompt(first.System, user))
		if ref := j.span.Ref(); ref != "" {
			notes.Set("task_id", value.String(ref))
		}
		j.span.Running()
		if a, ok := j.span.Before(); ok {
			if a.Err != nil {
				return e.failure(ctx, a.Err, finish())
			}
			if r, isResult := a.Value.(*value.TaskResult); isResult {
				return e.replayed(j, r, a.Usage, seq, user, t.Name, hist.record)
			}
		}
	}
	answer, err := session.Run(ctx)
	e.addSession(ctx, session, err)
	notes.Set("usage", session.UsageNote())
	// notes.cost_usd: the cost when known; free calls (echo, dry runs,
	// replayed cassette answers recorded without a cost) have none.
	if c := session.Cost(); c.Known() && c.USD > 0 {
		notes.Set("cost_usd", value.Float(c.USD))
	}
	c.warnings = append(c.warnings, session.Warnings()...)
	if err != nil {
		return e.failure(ctx, err, finish())
	}
	result := &value.TaskResult{Status: value.StatusComplete, Content: answer.Content, Notes: finish()}
	// (9) Structured output.
	if of := t.OutputFormat; of != nil && of.Type == "json" {
		var validate handler.SchemaValidator
		if of.Compiled != nil {
			validate = of.Compiled.Validate
		}
		handler.ParseOutput(answer.Content, validate).Apply(result)
	}
	// (10) Record the call.
	e.state.complete(completedCall{name: t.Name, seq: seq, user: user, content: answer.Content, record: hist.record})
	return result
}

// replayed returns the journaled result r of a resumed run's task call
// (SPEC §16.4) without calling the model: it counts the call as replayed
// and records it for accumulation and the session history as a completed
// call would be, so that the later calls' requests are the same as in the
// original run.
func (e *Executor) replayed(j *taskSpan, r *value.TaskResult, tu trace.Usage, seq int, user, name string, record bool) *value.TaskResult {
	u := handler.Usage{InputTokens: tu.InputTokens, OutputTokens: tu.OutputTokens}
	cost := handler.Cost{USD: tu.CostUSD}
	if !tu.CostKnown {
		cost.Unknown = 1
	}
	j.replayed, j.usage, j.turns, j.cost = true, u, tu.Turns, cost
	e.AddReplayed(u, tu.Turns, cost)
	if r.Status == value.StatusComplete {
		e.state.complete(completedCall{name: name, seq: seq, user: user, content: r.Content, record: record})
	}
	return r
}

// responseFormat is the JSON output request of a template (SPEC §14.5):
// json_schema when a schema is known, else json_object; nil for text.
func responseFormat(t *templates.Template) *handler.ResponseFormat {
	of := t.OutputFormat
	if of == nil || of.Type != "json" {
		return nil
	}
	if of.Compiled == nil {
		return handler.JSONOutput("", nil)
	}
	return handler.JSONOutput(of.Compiled.Name, json.RawMessage(of.Compiled.Text))
}

// builtins holds the values of the built-in placeholders of one call (SPEC
// §12.3); file, file_contents, command and command_output are "" until set.
type builtins struct {
	instructions, date, model value.String
	file, fileContents        value.String
	command, commandOutput    value.String
}

func (b *builtins) lookup(root string) (value.Value, bool) {
	switch root {
	case "instructions":
		return b.instructions, true
	case "date":
		return b.date, true
	case "model":
		return b.model, true
	case "file":
		return b.file, true
	case "file_contents":
		return b.fileContents, true
	case "command":
		return b.command, true
	case "command_output":
		return b.commandOutput, true
	}
	return nil, false
}

// uses reports whether system or instructions use one of the built-ins.
func uses(parts *templates.Parts, names ...string) bool {
	for _, n := range names {
		if parts.System.Uses(n) || parts.Instructions.Uses(n) {
			return true
		}
	}
	return false
}

// templateFile resolves the template's <file> when {{file}} or
// {{file_contents}} is used in system, instructions or the command (SPEC
// §12.4, §19): it must exist inside the project root, and when its contents
// are used it may be at most MaxTemplateFileBytes.
func (c *call) templateFile(parts *templates.Parts, lookup templates.Lookup, b *builtins) error {
	if c.t.File == "" {
		return nil
	}
	usesContents := uses(parts, "file_contents") || parts.Command.Uses("file_contents")
	if !usesContents && !uses(parts, "file") && !parts.Command.Uses("file") {
		return nil
	}
	given, _ := parts.File.Render(lookup)
	p, err := c.e.roots.resolve(given, c.e.roots.workDir, false)
	if err != nil {
		return fail(ReasonInputValidation, err.Error())
	}
	b.file = value.String(p.abs)
	if usesContents {
		text, err := readTemplateFile(p)
		if err != nil {
			return fail(ReasonInputValidation, err.Error())
		}
		b.fileContents = value.String(text)
	}
	return nil
}

// templateCommand renders the template's <command> with shell-quoted values
// and, when {{command_output}} is used in system or instructions, runs it
// (SPEC §12.4).
func (c *call) templateCommand(parts *templates.Parts, lookup templates.Lookup, b *builtins) error {
	cmd := c.t.Command
	if cmd == nil {
		return nil
	}
	text, err := renderCommand(parts.Command, lookup)
	if err != nil {
		return fail(ReasonInputValidation, err.Error())
	}
	b.command = value.String(text)
	if !uses(parts, "command_output") {
		return nil
	}
	if echoesCommands(c.t) {
		c.e.printf("running command of %s (%s): %s\n", c.t.Name, c.t.Scope, text)
	}
	res, err := shellCommand{shell: cmd.Shell, text: text, dir: c.e.roots.workDir, timeout: cmd.Timeout}.run(c.ctx)
	switch {
	case errors.Is(err, errCommandTimeout):
		return fail(ReasonExecutionTimeout, commandTimeoutMessage(cmd.Timeout))
	case err != nil && c.ctx.Err() != nil:
		return fail(ReasonExecutionHalted, haltMessage(c.ctx))
	case err != nil:
		return fail(ReasonToolExecution, "cannot run command: "+err.Error())
	case res.status != 0 && cmd.FailOnError:
		return fail(ReasonToolExecution, commandExitMessage(res))
	}
	b.commandOutput = value.String(res.output)
	return nil
}

// stringList converts strings to a list of string values.
func stringList(ss []string) value.List {
	l := make(value.List, len(ss))
	for i, s := range ss {
		l[i] = value.String(s)
	}
	return l
}

// failure turns a handler error into a FAILED TaskResult.
func (e *Executor) failure(ctx context.Context, err error, notes *value.Dict) *value.TaskResult {
	if ctx.Err() != nil {
		return value.Failed(ReasonExecutionHalted, haltMessage(ctx), notes)
	}
	var limit *handler.LimitError
	if errors.As(err, &limit) {
		return resourceExhausted(limit, notes)
	}
	reason := ReasonLLMError
	var r interface{ Reason() string }
	if errors.As(err, &r) && r.Reason() != "" {
		reason = r.Reason()
	}
	return value.Failed(reason, err.Error(), notes)
}

// resourceExhausted builds the FAILED result of SPEC §14.2.
func resourceExhausted(limit *handler.LimitError, notes *value.Dict) *value.TaskResult {
	msg := limit.Error()
	n := notes.Clone()
	n.Set("error", value.DictOf(
		"type", value.String("RESOURCE_EXHAUSTION"),
		"resource", value.String(limit.Resource),
		"message", value.String(msg),
		"metrics", value.DictOf("used", value.Int(limit.Used), "limit", value.Int(limit.Limit)),
	))
	return &value.TaskResult{Status: value.StatusFailed, Content: msg, Notes: n}
}

// haltMessage is the content of an execution_halted result: "cancelled",
// followed by the cancellation cause when one was given.
func haltMessage(ctx context.Context) string {
	cause := context.Cause(ctx)
	if cause == nil || errors.Is(cause, context.Canceled) {
		return "cancelled"
	}
	return "cancelled: " + cause.Error()
}

// selectProvider chooses the provider and model of a call (SPEC §14.5):
// the run's provider, else the template's <provider>, else the provider
// named by the prefix of a provider:model <model>, else the default
// provider; the model is the run's, else the template's (without a provider
// prefix), else the provider's default, else DefaultModel.
func (e *Executor) selectProvider(t *templates.Template) (handler.Provider, string, error) {
	tmplModel := t.Model
	var prefixed handler.Provider
	if prefix, rest, ok := strings.Cut(t.Model, ":"); ok {
		if p, found := e.provider(prefix); found {
			prefixed, tmplModel = p, rest
		}
	}
	var p handler.Provider
	var err error
	switch {
	case e.opts.Provider != nil:
		p = e.opts.Provider
	case t.Provider != "":
		var ok bool
		if p, ok = e.provider(t.Provider); !ok {
			err = errors.New("unknown provider '" + t.Provider + "' for template '" + t.Name + "'")
		}
	case prefixed != nil:
		p = prefixed
	default:
		p = e.opts.DefaultProvider
	}
	model := e.opts.Model
	if model == "" {
		model = tmplModel
	}
	if model == "" && p != nil {
		if dm, ok := p.(handler.DefaultModeler); ok {
			model = dm.DefaultModel()
		}
	}
	if model == "" {
		model = DefaultModel
	}
	return p, model, err
}

// provider returns the configured provider called name.
func (e *Executor) provider(name string) (handler.Provider, bool) {
	if e.opts.Providers != nil {
		if p, ok := e.opts.Providers(name); ok {
			return p, true
		}
	}
	if name == handler.EchoName {
		return handler.Echo{}, true
	}
	return nil, false
}

// prices are the prices of model on provider, nil when none are known.
func (e *Executor) prices(provider, model string) *handler.Prices {
	if e.opts.Prices == nil {
		return nil
	}
	return e.opts.Prices(provider, model)
}
