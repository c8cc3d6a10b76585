package main

import (
	"time"

	"github.com/alecthomas/kong"
)

// cli is the kong grammar of the command line (SPEC §17.1).
type cli struct {
	Version kong.VersionFlag `help:"Print the version and exit."`

	Run       runCmd       `cmd:"" help:"Evaluate workflow files in order in one global environment and print the value of the last form."`
	Eval      evalCmd      `cmd:"" help:"Evaluate the forms in EXPR and print the value of the last one."`
	Task      taskCmd      `cmd:"" help:"Run one template by name, alias or type:subtype; --set gives its inputs."`
	Check     checkCmd     `cmd:"" help:"Check workflow files and templates without running them."`
	Fmt       fmtCmd       `cmd:"" help:"Format workflow files (to stdout, or in place with -w)."`
	Repl      replCmd      `cmd:"" help:"Start an interactive session."`
	Templates templatesCmd `cmd:"" help:"List, show, match and validate templates."`
	Index     indexCmd     `cmd:"" help:"Build or update the memory index .evalrun/index.db of PATH (default: the project root)."`
	Context   contextCmd   `cmd:"" help:"Look up the files of the memory index that match QUERY."`
	Runs      runsCmd      `cmd:"" help:"List the recent runs of the journal .evalrun/journal.db, newest first; with --temporal or --remote, the newest 50 runs on Temporal."`
	Status    statusCmd    `cmd:"" help:"Show a run of the journal (with --temporal or --remote, a run on Temporal) as a tree of its steps, tasks and tools, with the current position."`
	Plan      planCmd      `cmd:"" help:"Check, run and show Claude-Code-Workflow plans (.workflow/active/WFS-*/)."`
	Init      initCmd      `cmd:"" help:"Create .evalrun/ with a commented config.toml and a first template; never overwrites."`
	Agents    agentsCmd    `cmd:"" help:"List the coding agents that can execute task calls."`
	Roles     rolesCmd     `cmd:"" help:"List the configured roles."`
	Contexts  contextsCmd  `cmd:"" help:"List the configured contexts."`
	Doctor    doctorCmd    `cmd:"" help:"Check the configuration, providers, agents, roles, contexts, templates and databases."`
	Serve     serveCmd     `cmd:"" help:"Serve a local, read-only web page over the runs, plans and templates (default 127.0.0.1:7700)."`
	Worker    workerCmd    `cmd:"" help:"Run a Temporal worker for this project: it evaluates evalrun workflows and executes their calls (an evalrun built with -tags temporal)."`
}

// evalFlags are the flags shared by run, eval, task and repl.
type evalFlags struct {
	Set         []string      `name:"set" sep:"none" placeholder:"KEY=VALUE" help:"Bind the global variable KEY (for task: the input KEY); VALUE is read as JSON when it is valid JSON, else taken as a string. Repeatable."`
	JSON        bool          `name:"json" help:"Print the value as JSON indented by two spaces."`
	Timeout     time.Duration `name:"timeout" placeholder:"D" help:"End the run with an error after the duration D (Go syntax: 90s, 5m); default [limits] timeout."`
	Templates   []string      `name:"templates" sep:"none" placeholder:"DIR" help:"Load templates from DIR after the global and local ones (scope dir). Repeatable."`
	Provider    string        `name:"provider" placeholder:"P" help:"Use the provider P (openai, echo, replay or a configured name) for every call."`
	Model       string        `name:"model" placeholder:"M" help:"Use the model M for every call."`
	RunFiles    []string      `name:"files" sep:"none" placeholder:"F" help:"Add the file F to the ambient context of the whole run. Repeatable."`
	DryRun      bool          `name:"dry-run" help:"Use the echo provider, never run the shell tool, and write every prompt to .evalrun/dry-run/RUN-ID/."`
	Record      string        `name:"record" placeholder:"FILE" help:"Append every model answer to the cassette FILE (JSON Lines) for the replay provider; with --dry-run the echo answers are recorded."`
	budgetFlags `embed:""`
	agentFlags  `embed:""`
	// listContexts prints the contexts: list (run, task and plan run).
	listContexts bool `kong:"-"`
}

// budgetFlags are the run's budgets (SPEC §14.9), for run, eval, task,
// repl and plan run.
type budgetFlags struct {
	MaxCost   float64 `name:"max-cost" placeholder:"USD" help:"Start no model or agent call once the run (resumed runs included) has cost USD US dollars; the calls running finish and evalrun exits 1. Default [limits] max_cost_usd."`
	MaxTokens int64   `name:"max-tokens" placeholder:"N" help:"Start no model or agent call once the run (resumed runs included) has used N input + output tokens; the calls running finish and evalrun exits 1. Default [limits] max_tokens."`
}

// progressFlag is --progress of run, eval, task and plan run (SPEC
// §17.3.1).
type progressFlag struct {
	Progress string `name:"progress" enum:"auto,always,never" default:"auto" placeholder:"WHEN" help:"Show the live progress display on stderr: auto (when stderr is a terminal and TERM is not dumb), always or never."`
}

// runCmd is "evalrun run FILE...".
type runCmd struct {
	evalFlags    `embed:""`
	progressFlag `embed:""`
	remote       `embed:""`
	Resume       string   `name:"resume" placeholder:"RUN" help:"Start a new run that resumes RUN (an id, a unique prefix or last) of the journal: its workflow (unless FILE is given), --set values and --provider, --model, --agent, --role and --context (unless new ones are given) are used again, and its completed task and tool calls are replayed instead of run."`
	Files        []string `arg:"" optional:"" name:"file" sep:"none" help:"Workflow files, evaluated in order; - reads standard input. Optional with --resume."`
}

// evalCmd is "evalrun eval EXPR".
type evalCmd struct {
	evalFlags    `embed:""`
	progressFlag `embed:""`
	Expr         string `arg:"" name:"expr" help:"The program text."`
}

// taskCmd is "evalrun task NAME [INSTRUCTIONS]".
type taskCmd struct {
	evalFlags    `embed:""`
	progressFlag `embed:""`
	Name         string `arg:"" name:"name" help:"Template name, alias or type:subtype."`
	Instructions string `arg:"" optional:"" name:"instructions" help:"The text of {{instructions}}."`
}

// checkCmd is "evalrun check FILE...".
type checkCmd struct {
	Set       []string `name:"set" sep:"none" placeholder:"KEY=VALUE" help:"Count KEY as a bound global variable (the value is ignored). Repeatable."`
	Templates []string `name:"templates" sep:"none" placeholder:"DIR" help:"Load templates from DIR after the global and local ones. Repeatable."`
	Files     []string `arg:"" name:"file" sep:"none" help:"Workflow files, checked in order as one program; - reads standard input."`
}

// fmtCmd is "evalrun fmt [-w] FILE...".
type fmtCmd struct {
	Write bool     `short:"w" help:"Rewrite files in place (only those whose formatting changes)."`
	Files []string `arg:"" name:"file" sep:"none" help:"Workflow files; - reads standard input."`
}

// replCmd is "evalrun repl".
type replCmd struct {
	evalFlags `embed:""`
}

// templatesCmd is "evalrun templates list|show|match|validate".
type templatesCmd struct {
	Templates []string `name:"templates" sep:"none" placeholder:"DIR" help:"Load templates from DIR after the global and local ones. Repeatable."`

	List     templatesListCmd     `cmd:"" help:"List the templates of every scope, shadowed ones included."`
	Show     templatesShowCmd     `cmd:"" help:"Print a template's XML with its provenance."`
	Match    templatesMatchCmd    `cmd:"" help:"Match a request against the template descriptions."`
	Validate templatesValidateCmd `cmd:"" help:"Validate template files."`
	Add      templatesAddCmd      `cmd:"" help:"Copy an asset template into the local (or global) template directory."`
}

type templatesListCmd struct {
	JSON bool `name:"json" help:"Print a JSON array: the templates, then the asset library (scope asset)."`
}

type templatesShowCmd struct {
	Name string `arg:"" name:"name" help:"Template name, alias or type:subtype."`
	JSON bool   `name:"json" help:"Print the template as a JSON object."`
}

type templatesMatchCmd struct {
	Text string `arg:"" name:"text" help:"The request."`
}

type templatesValidateCmd struct {
	Files []string `arg:"" name:"file" sep:"none" help:"Template files."`
	JSON  bool     `name:"json" help:"Print a JSON array with one result per file."`
}

// indexCmd is "evalrun index [PATH]".
type indexCmd struct {
	Path string `arg:"" optional:"" name:"path" help:"The directory to index; default: the project root."`
}

// contextCmd is "evalrun context QUERY".
type contextCmd struct {
	Templates []string `name:"templates" sep:"none" placeholder:"DIR" help:"Load templates from DIR after the global and local ones (the llm strategies run templates). Repeatable."`
	Strategy  string   `name:"strategy" placeholder:"S" default:"content" help:"Matching strategy: content (default), metadata, llm or llm-metadata."`
	TopK      int64    `name:"top-k" placeholder:"N" default:"10" help:"How many matches to print, from 1 to 100 (default 10)."`
	JSON      bool     `name:"json" help:"Print the get-context result dict as JSON."`
	Query     string   `arg:"" name:"query" help:"The text to match."`
}

// Run implements "evalrun run".
func (c *runCmd) Run(a *app) error {
	if c.onTemporal(c.remoteFlag) {
		return exit(a.runTemporal(c))
	}
	if c.Detach || c.CallTimeout != 0 || c.HeartbeatTimeout != 0 {
		a.errorf("--detach, --call-timeout and --heartbeat-timeout need --temporal HOST:PORT or --remote")
		return exit(exitUsage)
	}
	a.progressMode = c.Progress
	return exit(a.runFiles(c.Files, c.evalFlags, c.Resume))
}

// Run implements "evalrun eval".
func (c *evalCmd) Run(a *app) error {
	a.progressMode = c.Progress
	return exit(a.evalExpr(c.Expr, c.evalFlags))
}

// Run implements "evalrun task".
func (c *taskCmd) Run(a *app) error {
	a.progressMode = c.Progress
	return exit(a.task(c.Name, c.Instructions, c.evalFlags))
}

// Run implements "evalrun check".
func (c *checkCmd) Run(a *app) error { return exit(a.check(c.Files, c.Set, c.Templates)) }

// Run implements "evalrun fmt".
func (c *fmtCmd) Run(a *app) error { return exit(a.format(c.Files, c.Write)) }

// Run implements "evalrun repl".
func (c *replCmd) Run(a *app) error { return exit(a.repl(c.evalFlags)) }

// Run implements "evalrun index".
func (c *indexCmd) Run(a *app) error { return exit(a.index(c.Path)) }

// Run implements "evalrun context".
func (c *contextCmd) Run(a *app) error { return exit(a.contextLookup(c)) }

// Run implements "evalrun templates list".
func (c *templatesListCmd) Run(a *app, t *templatesCmd) error {
	return exit(a.templatesList(t.Templates, c.JSON))
}

// Run implements "evalrun templates show".
func (c *templatesShowCmd) Run(a *app, t *templatesCmd) error {
	return exit(a.templatesShow(t.Templates, c.Name, c.JSON))
}

// Run implements "evalrun templates match".
func (c *templatesMatchCmd) Run(a *app, t *templatesCmd) error {
	return exit(a.templatesMatch(t.Templates, c.Text))
}

// Run implements "evalrun templates validate".
func (c *templatesValidateCmd) Run(a *app, t *templatesCmd) error {
	return exit(a.templatesValidate(t.Templates, c.Files, c.JSON))
}
