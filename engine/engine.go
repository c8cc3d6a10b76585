package engine

import (
	"context"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/evalrun/evalrun/evaluator"
	"github.com/evalrun/evalrun/handler"
	"github.com/evalrun/evalrun/handler/tools"
	"github.com/evalrun/evalrun/journal"
	"github.com/evalrun/evalrun/sexp"
	"github.com/evalrun/evalrun/tasksystem"
	"github.com/evalrun/evalrun/templates"
	"github.com/evalrun/evalrun/trace"
	"github.com/evalrun/evalrun/value"
)

// Options configures one run: where it starts from, which templates it
// adds, how it picks its providers, and where its diagnostics go. The zero
// value runs in the working directory with the configured providers and
// discards diagnostics.
type Options struct {
	// WorkDir is the working directory: the project root is the nearest
	// ancestor holding .evalrun/ or .git, and relative paths (Templates,
	// Files, Record, a task's files) resolve against it. "" means
	// os.Getwd.
	WorkDir string
	// Templates are directories loaded after the global and local
	// template directories (scope dir; --templates).
	Templates []string
	// Provider is the provider of every call (--provider): openai, echo,
	// replay or a configured name. "" leaves the choice to the templates,
	// default_provider and OPENAI_API_KEY, else the echo provider with a
	// notice (SPEC §14.5).
	Provider string
	// Model is the model of every call (--model); "" keeps the templates'
	// and the providers' models.
	Model string
	// Files are added to the ambient context of every task of the run
	// (--files, SPEC §13.3); each must exist and may lie outside the
	// project.
	Files []string
	// DryRun makes the echo provider answer every call, never runs the
	// shell tool, and writes every prompt to .evalrun/dry-run/RUN-ID/
	// (SPEC §17.7).
	DryRun bool
	// Record, when not "", is a cassette file to which every model answer
	// of every provider of the run is appended, for the replay provider
	// (--record, SPEC §14.6). With DryRun the echo answers are recorded.
	Record string
	// Timeout ends each Run, Task and Context call with an error after
	// this long; 0 means [limits] timeout. It must not be negative.
	Timeout time.Duration
	// Instructions is the text of {{instructions}} (evalrun task NAME
	// "text").
	Instructions string
	// Stdin serves the request_user_input tool, which is offered to a
	// model only when Stdin and Stderr are terminals; nil means os.Stdin.
	Stdin io.Reader
	// Stderr receives template diagnostics, warnings, the echo notice,
	// provenance lines, log-message lines, retry lines and the dry-run
	// summary, one whole line at a time; nil discards them.
	Stderr io.Writer
	// Journal, when set (and DryRun is not), records the run in the
	// project's journal .evalrun/journal.db (SPEC §16); Finish records its
	// outcome.
	Journal *JournalInfo
	// Resume, when set, makes the journaled run resume that run (--resume,
	// SPEC §16.4; FindResume finds it): the completed task calls and
	// workflow-level tool calls of it and of the runs it resumed from are
	// replayed with notes.replayed true, {{date}} is the first run's
	// start time, and its inputs are bound when Inputs is nil. It needs
	// Journal.
	Resume *Resume
	// Inputs are the run's inputs (--set NAME=VALUE): bound as global
	// variables before the first Run and again after Reset, and recorded
	// as the journaled run's arguments.
	Inputs []Input
	// Getenv reads the environment (API keys, EVALRUN_HOME, HOME,
	// EVALRUN_CASSETTE); nil means os.Getenv.
	Getenv func(string) string
	// Progress, when its display is on, observes the run's calls and
	// draws them on stderr (--progress, SPEC §17.3.1); nil or off draws
	// nothing. Stderr should be the same Progress, so that the run's
	// lines pass through above the display.
	Progress *Progress
	// AgentOptions are --agent, --role, --context and the agents' log
	// (SPEC §22).
	AgentOptions
	// MaxCostUSD and MaxTokens are the run's budgets (--max-cost,
	// --max-tokens, SPEC §14.9): US dollars, and input plus output
	// tokens; 0 means [limits] max_cost_usd and max_tokens. They must not
	// be negative. A resumed run counts what the runs it resumes spent,
	// and keeps the budgets given for the run it resumes unless given
	// new ones.
	MaxCostUSD float64
	MaxTokens  int64
}

// Engine is one run of evalrun, wired together: the workspace
// (configuration and templates), the template registry, the providers, the
// tools, the memory index, the executor and an interpreter over them. Open
// makes one; Close ends it.
//
// TASK SYSTEM WIRING POINT: Open is the one place where the task system is
// constructed. The memory index and the journal plug in here.
type Engine struct {
	opts   Options
	ws     *Workspace
	stderr *lockedWriter
	reg    *tasksystem.Registry
	tasks  *evaluator.TaskSystem
	tools  *tools.Tools
	exec   *tasksystem.Executor
	interp *evaluator.Interpreter
	prov   *provenance
	dry    *dryRun
	mem    *memoryLink
	// cassette records every answer of every provider of the run
	// (Options.Record); nil without it.
	cassette *handler.Cassette
	limits   evaluator.Limits
	start    time.Time
	// runID is the id of a run that is not journaled (its dry-run
	// directory's); RunID gives a journaled run's.
	runID string
	// journal records the run; nil without Options.Journal or with DryRun.
	journal *runJournal
	// budget keeps the run within max_cost_usd and max_tokens; nil
	// without budgets.
	budget *budget
	// sinks observe the run's calls (package trace): the echo notice, the
	// provenance lines, the dry run, the journal and the budget, in that
	// order. Every
	// entry point installs them in its context (traced).
	sinks []trace.Sink

	// execOpts are the options exec was made with; a Temporal worker makes
	// one executor per run from them (runTasks).
	execOpts tasksystem.Options

	closeOnce sync.Once
	closeErr  error
}

// Open reads the configuration, loads the templates of every scope, and
// builds the run's providers, tools, memory link, executor and
// interpreter. Template diagnostics (errors, shadowing and other warnings)
// and the warnings for templates a special form or primitive hides are
// written to opts.Stderr. Every error is an *Error whose Kind says what
// went wrong: KindUsage or KindConfig (exit 2 for the evalrun command),
// KindTemplate (exit 3).
func Open(opts Options) (*Engine, error) {
	if opts.Getenv == nil {
		opts.Getenv = os.Getenv
	}
	if opts.Timeout < 0 {
		return nil, errorf(KindUsage, "invalid timeout %s: the duration must not be negative", opts.Timeout)
	}
	if opts.MaxCostUSD < 0 || math.IsNaN(opts.MaxCostUSD) || math.IsInf(opts.MaxCostUSD, 0) {
		return nil, errorf(KindUsage, "invalid --max-cost %v: expected a number of US dollars, at least 0", opts.MaxCostUSD)
	}
	if opts.MaxTokens < 0 {
		return nil, errorf(KindUsage, "invalid --max-tokens %d: expected a number of tokens, at least 0", opts.MaxTokens)
	}
	if opts.Resume != nil {
		if opts.DryRun {
			return nil, errorf(KindUsage, "--resume cannot be used with --dry-run: dry runs are not journaled")
		}
		if opts.Journal == nil {
			return nil, errorf(KindUsage, "resuming run %s needs Options.Journal", opts.Resume.ID)
		}
		opts.Resume.apply(&opts)
	}
	out := opts.Stderr
	if out == nil {
		out = io.Discard
	}
	stdin := opts.Stdin
	if stdin == nil {
		stdin = os.Stdin
	}
	stderr := &lockedWriter{w: out}
	ws, err := LoadWorkspace(opts)
	if err != nil {
		return nil, err
	}
	for _, d := range ws.Diagnostics {
		io.WriteString(stderr, d.Display())
	}
	if err := ws.Err(); err != nil {
		return nil, err
	}
	cfg := ws.Config
	e := &Engine{
		opts:   opts,
		ws:     ws,
		stderr: stderr,
		start:  time.Now(),
	}
	e.runID = newRunID(e.start)
	e.prov = newProvenance(stderr)
	if opts.DryRun {
		e.dry = newDryRun(ws.Root, e.runID, ws.Display)
	}
	// The journal is opened last, once nothing else can fail (below).

	// Files: every path must exist; relative paths are resolved against
	// the working directory by the executor (SPEC §12.4).
	for _, f := range opts.Files {
		if _, err := os.Stat(absTo(ws.WorkDir, f)); err != nil {
			return nil, errorf(KindUsage, "cannot read %s: %v", f, reason(err))
		}
	}

	// The registry: every template of every scope in load order (SPEC §10.2).
	e.reg = ws.registry()
	// Record: one cassette for the whole run, wrapping every provider —
	// the run's, the default and those templates name (decided here: with
	// DryRun it records the echo answers).
	if opts.Record != "" {
		e.cassette = handler.NewCassette(e.path(opts.Record))
	}
	var hide []string
	for _, p := range cfg.Providers {
		if p.APIKeyEnv != "" {
			hide = append(hide, p.APIKeyEnv)
		}
	}
	// The memory's llm strategies run the built-in associative-matching
	// templates through the executor, which is made below.
	e.mem = newMemoryLink(ws.Root, cfg.Limits.Concurrency, e.runTemplate)
	e.tools = tools.NewTools(tools.ToolsConfig{
		Root:       ws.Root,
		WorkDir:    ws.WorkDir,
		ShellAllow: cfg.Tools.ShellAllow,
		HideEnv:    hide,
		DryRun:     opts.DryRun,
		Context:    retriever{e.mem},
		Stdin:      stdin,
		Stderr:     questionWriter{stderr, opts.Progress},
		Interactive: func() bool {
			return tools.IsTerminal(stdin) && tools.IsTerminal(opts.Progress.terminal(out))
		},
	})
	ps := &providers{
		cfg: cfg,
		opts: handler.RunOptions{
			Root:     ws.Root,
			Attempts: cfg.Limits.LLMAttempts,
			Getenv:   opts.Getenv,
			Notify:   func(msg string) { stderr.printf("%s\n", msg) },
		},
		cassette: e.cassette,
		built:    map[string]handler.Provider{},
		errs:     map[string]error{},
	}
	runProvider, defaultProvider, implicitEcho, err := e.chooseProviders(ps)
	if err != nil {
		e.mem.close()
		return nil, err
	}
	agents, err := e.agentSettings(context.Background(), cfg)
	if err != nil {
		e.mem.close()
		return nil, err
	}
	if implicitEcho != nil {
		e.sinks = append(e.sinks, &echoNoticeSink{stderr: stderr, provider: implicitEcho})
	}
	e.sinks = append(e.sinks, e.prov)
	if e.dry != nil {
		e.sinks = append(e.sinks, e.dry)
	}
	if opts.Journal != nil && !opts.DryRun {
		info := *opts.Journal
		if info.Args == nil {
			files := info.Files
			if files == nil && info.WorkflowPath != "<eval>" && !strings.HasPrefix(info.WorkflowPath, "task ") {
				files = []string{info.WorkflowPath}
			}
			info.Args = runArgs(&opts, files)
		}
		resumed := ""
		if opts.Resume != nil {
			resumed = opts.Resume.ID
		}
		j, err := openJournal(ws.Root, &info, resumed, e.start, stderr, opts.MaxCostUSD, opts.MaxTokens)
		if err != nil {
			e.mem.close()
			return nil, err
		}
		e.journal = j
		e.start = j.start
		e.sinks = append(e.sinks, j.sink)
	}
	if opts.Progress.On() {
		e.sinks = append(e.sinks, opts.Progress.sink)
	}
	// The budget gate comes after the journal's: a replayed call passes
	// before it and costs nothing.
	maxCost, maxTokens := cfg.Limits.MaxCostUSD, cfg.Limits.MaxTokens
	if opts.MaxCostUSD > 0 {
		maxCost = opts.MaxCostUSD
	}
	if opts.MaxTokens > 0 {
		maxTokens = opts.MaxTokens
	}
	var prior journal.Spent
	if e.journal != nil {
		prior = e.journal.prior
	}
	if e.budget = newBudget(maxCost, maxTokens, prior); e.budget != nil {
		e.budget.warn = func(msg string) { stderr.printf("%s\n", msg) }
		e.budget.costFlag = "[limits] max_cost_usd"
		if opts.MaxCostUSD > 0 {
			e.budget.costFlag = "--max-cost"
		}
		e.sinks = append(e.sinks, e.budget)
	}
	e.execOpts = tasksystem.Options{
		Start:           e.start,
		Provider:        runProvider,
		DefaultProvider: defaultProvider,
		Providers:       ps.lookup,
		Model:           opts.Model,
		MaxTurns:        cfg.Limits.MaxTurns,
		ContextFraction: cfg.Limits.ContextFraction,
		Roles:           cfg.Roles,
		Instructions:    opts.Instructions,
		Root:            ws.Root,
		WorkDir:         ws.WorkDir,
		RunFiles:        opts.Files,
		Stderr:          stderr,
		SubsetK:         cfg.Context.SubsetK,
		FreshTopK:       cfg.Context.FreshTopK,
		Tools:           e.tools,
		Memory:          e.mem,
		AgentSettings:   agents,
		Prices:          cfg.PricesOf,
	}
	e.exec = tasksystem.NewExecutor(e.execOpts)

	ts := evaluator.NewTaskSystem(e.reg, e.exec)
	ts.Tools = e.tools
	ts.Context = e.mem.getContext
	ts.Plans = workflowPlans{e}
	ts.OnDefine = func(t *templates.Template, res tasksystem.AddResult) {
		if old := res.Replaced; old != nil && old.Scope != templates.ScopeDefatom {
			stderr.printf("warning: template '%s' from %s shadows %s\n", t.Name, originText(t), originText(old))
		}
		if msg := HiddenWarning(t.Name, e.tools.HasTool); msg != "" {
			stderr.printf("warning: %s\n", msg)
		}
	}
	e.tasks = ts
	for _, t := range e.reg.All() {
		if t.Scope == templates.ScopeBuiltin {
			continue
		}
		if msg := HiddenWarning(t.Name, e.tools.HasTool); msg != "" {
			stderr.printf("warning: %s\n", msg)
		}
	}

	timeout := cfg.Limits.Timeout
	if opts.Timeout > 0 {
		timeout = opts.Timeout
	}
	e.limits = evaluator.Limits{
		RecursionDepth: cfg.Limits.RecursionDepth,
		MaxSteps:       cfg.Limits.MaxSteps,
		Timeout:        timeout,
		Concurrency:    cfg.Limits.Concurrency,
		MaxStringBytes: cfg.Limits.MaxStringBytes,
	}
	e.interp = evaluator.New(evaluator.Options{
		Tasks:  e.tasks,
		Limits: e.limits,
		Stderr: stderr,
		Start:  e.start,
	})
	e.defineInputs()
	return e, nil
}

// defineInputs binds Options.Inputs in the global environment.
func (e *Engine) defineInputs() {
	for _, in := range e.opts.Inputs {
		e.interp.Define(in.Name, in.Value)
	}
}

// Reset starts a new global environment in the same run (the REPL's
// :reset), with Options.Inputs bound again.
func (e *Engine) Reset() {
	e.interp.Reset()
	e.defineInputs()
}

// Define binds name to v in the global environment.
func (e *Engine) Define(name string, v value.Value) { e.interp.Define(name, v) }

// runTemplate runs a built-in template for the memory's llm strategies,
// outside the run's concurrency semaphore.
func (e *Engine) runTemplate(ctx context.Context, name string, inputs *value.Dict) *value.TaskResult {
	t, ok := e.reg.Lookup(name)
	if !ok {
		return value.Failed(tasksystem.ReasonTemplateNotFound, "Template not found: '"+name+"'", nil)
	}
	var named []tasksystem.NamedArg
	if inputs != nil {
		for k, v := range inputs.All() {
			named = append(named, tasksystem.NamedArg{Name: k, Value: v})
		}
	}
	return e.exec.Execute(ctx, tasksystem.Request{Name: name, Template: t, Named: named})
}

// path resolves a path given in Options against Options.WorkDir; with the
// process's working directory it is left as given.
func (e *Engine) path(p string) string {
	if e.opts.WorkDir == "" {
		return p
	}
	return absTo(e.ws.WorkDir, p)
}

// Workspace returns the directories, configuration and templates the run
// was opened with.
func (e *Engine) Workspace() *Workspace { return e.ws }

// Run evaluates a program in the interpreter's global environment and
// returns the value of its last form. First it writes the provenance line
// (SPEC §10.3) of every global, local or dir template the program names
// statically; a template reached only through a computed name gets its
// line just before its first model call. Evaluation errors have a
// position (ErrorDisplay); a FAILED task is a value, not an error.
func (e *Engine) Run(ctx context.Context, prog *Program) (value.Value, error) {
	for _, t := range prog.p.Templates(e.reg.Lookup) {
		e.prov.reached(t)
	}
	if e.journal != nil {
		e.journal.plan(prog.p.PlannedSteps())
	}
	return e.interp.Run(e.traced(ctx), prog.p)
}

// Evaluate evaluates a program in the interpreter's global environment as
// an interactive session does: without the provenance lines of the
// templates it names statically and without the journal's plan of its
// steps (model calls still print their templates' provenance).
func (e *Engine) Evaluate(ctx context.Context, prog *Program) (value.Value, error) {
	return e.interp.Run(e.traced(ctx), prog.p)
}

// traced returns ctx with the run's trace sinks installed. A ctx that is
// traced already (a plan run's task, a call made inside a span of this
// run) keeps its sinks, so that the call is a child of that span.
func (e *Engine) traced(ctx context.Context) context.Context {
	if trace.Enabled(ctx) {
		return ctx
	}
	return trace.WithSinks(ctx, e.sinks...)
}

// Eval reads and compiles text as a program named name (used in
// positions) and runs it as Run does. A syntax error is a *sexp.Error.
func (e *Engine) Eval(ctx context.Context, name, text string) (value.Value, error) {
	prog, err := Compile(sexp.NewSource(name, text))
	if err != nil {
		return nil, err
	}
	return e.Run(ctx, prog)
}

// Task runs the template found by name, alias or type:subtype once, with
// inputs as its named arguments, in order (files, context and
// history_config are the reserved arguments of SPEC §11.1), under the
// run's timeout. An unknown name is an *Error of KindUsage holding an
// *UnknownTemplateError; a reserved argument of the wrong shape one
// holding an *InputError. A task that fails returns a FAILED TaskResult
// and no error.
func (e *Engine) Task(ctx context.Context, name string, inputs []Input) (*value.TaskResult, error) {
	return e.task(ctx, name, inputs, nil)
}

// task is Task; adjust, when set, changes the request before it runs
// (a plan's choice of executor).
func (e *Engine) task(ctx context.Context, name string, inputs []Input, adjust func(*tasksystem.Request)) (*value.TaskResult, error) {
	t, ok := e.reg.Lookup(name)
	if !ok {
		return nil, &Error{Kind: KindUsage, Err: &UnknownTemplateError{Name: name, Suggestions: Suggest(e.reg, name)}}
	}
	call := tasksystem.Request{Name: name, Template: t}
	for _, in := range inputs {
		var err error
		switch in.Name {
		case "files":
			call.Files, err = evaluator.FilesArgument(name, in.Value)
			call.FilesGiven = true
		case "context":
			call.Context, err = tasksystem.ParseContextArg(name, in.Value)
		case "history_config":
			call.History, err = tasksystem.ParseHistoryArg(name, in.Value)
		default:
			call.Named = append(call.Named, tasksystem.NamedArg{Name: in.Name, Value: in.Value})
		}
		if err != nil {
			return nil, &Error{Kind: KindUsage, Err: &InputError{Name: in.Name, Err: err}}
		}
	}
	if adjust != nil {
		adjust(&call)
	}
	e.prov.reached(t)
	ctx, cancel := withTimeout(e.traced(ctx), e.limits.Timeout)
	defer cancel()
	return e.exec.Execute(ctx, call), nil
}

// Context is the get-context lookup of the run (get_relevant_context_for,
// SPEC §15.4) under the run's timeout. The first lookup of a run opens
// the project's index and refreshes it; the llm strategies run the
// built-in associative-matching templates on the run's providers.
func (e *Engine) Context(ctx context.Context, q ContextQuery) ContextResult {
	ctx, cancel := withTimeout(e.traced(ctx), e.limits.Timeout)
	defer cancel()
	return contextResult(e.mem.lookup(ctx, q.query()))
}

// withTimeout returns ctx bounded by the timeout d, if d is positive.
func withTimeout(ctx context.Context, d time.Duration) (context.Context, context.CancelFunc) {
	if d > 0 {
		return context.WithTimeoutCause(ctx, d, fmt.Errorf("timeout exceeded (%s)", d))
	}
	return ctx, func() {}
}

// Finish records the outcome of a journaled run (Options.Journal): its
// final value, and err when it failed (an interrupted run passes an error
// "cancelled"). A FAILED TaskResult as final value makes the run failed.
// Only the first call counts; Close finishes a run nobody finished as
// failed. Without a journal it does nothing.
func (e *Engine) Finish(final value.Value, err error) {
	if e.journal != nil {
		e.journal.finish(final, err)
	}
}

// Abort records the end of a run whose process is about to exit without
// waiting for its calls (a second Ctrl-C, SPEC §6.7): the run fails with
// the error msg and its calls that have not ended fail with
// execution_halted. It waits at most within for the journal and reports
// whether the end was recorded; it does nothing (and reports true) for a
// run that is not journaled or whose end is recorded already.
func (e *Engine) Abort(msg string, within time.Duration) bool {
	if e.journal == nil {
		return true
	}
	return e.journal.abort(msg, within)
}

// RunID returns the run's id: the journal's when the run is journaled
// (which takes new random digits when its row is first written if another
// process took the id in the same second), else the id of its dry-run
// directory.
func (e *Engine) RunID() string {
	if e.journal != nil {
		return e.journal.run.ID()
	}
	return e.runID
}

// Usage returns the run's model usage so far: the task calls that asked a
// model (memory's associative-matching calls and failed calls included),
// the replayed ones, their tokens and turns — the data of the usage line
// of SPEC §17.3.
func (e *Engine) Usage() Usage { return usageOf(e.exec.Usage()) }

// BudgetError returns the error of the first call the run's budget
// refused (a *BudgetError, "budget spent: $2.01 of $2.00", SPEC §14.9), or
// nil when no call was refused. The evalrun command then exits 1 with its
// message, after the calls that were running have finished.
func (e *Engine) BudgetError() error {
	if err := e.budget.firstRefusal(); err != nil {
		return err
	}
	return nil
}

// Close ends the run: it closes the memory index and the cassette, and
// under DryRun writes the summary line of SPEC §17.7 ("dry run: N prompts
// written to DIR/") to Stderr. It returns the error of closing the
// cassette. Calls after the first do nothing and return the same error.
func (e *Engine) Close() error {
	e.closeOnce.Do(func() {
		e.mem.close()
		if e.journal != nil {
			if err := e.journal.close(); err != nil {
				e.closeErr = fmt.Errorf("journal: %w", err)
			}
		}
		if e.cassette != nil {
			if err := e.cassette.Close(); err != nil {
				e.closeErr = fmt.Errorf("record: %w", err)
			}
		}
		if e.dry != nil {
			e.stderr.printf("%s\n", e.dry.summary())
		}
	})
	return e.closeErr
}

// absTo returns path made absolute against dir.
func absTo(dir, path string) string {
	if filepath.IsAbs(path) {
		return path
	}
	return filepath.Join(dir, path)
}
