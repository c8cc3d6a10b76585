// Package engine wires the packages of evalrun into one run, for the
// evalrun command and for any Go program that embeds evalrun: Open reads
// the configuration (package config) and loads the templates of every
// scope (package templates), registers them (tasksystem.Registry), builds
// the providers (handler.NewProvider, with the choice of SPEC §14.5 and
// cassette recording), the tools (package handler/tools), the link to the
// memory index (package memory), the executor (tasksystem.NewExecutor with
// the configured limits and roles), an interpreter over them
// (evaluator.New, evaluator.NewTaskSystem) and the trace sinks that
// observe the run (the echo notice, provenance, the dry run, the journal).
//
//	e, err := engine.Open(engine.Options{Provider: "echo", Stderr: os.Stderr})
//	if err != nil {
//		return err // an *engine.Error; its Kind says usage, config or template
//	}
//	defer e.Close()
//	v, err := e.Eval(ctx, "<main>", `(greet (name "Ada"))`)
//
// Run and Eval evaluate programs (Compile, CompileForms) in the
// interpreter's global environment, first writing the provenance line
// (SPEC §10.3) of every global, local or dir template the program names;
// Evaluate does the same for an interactive session, without those lines;
// Task runs one template by name with its inputs; Context is the
// get-context lookup; Index builds the memory index. Diagnostics —
// template warnings, the echo notice, provenance, log-message and retry
// lines, the dry-run summary — go to Options.Stderr, whole lines at a
// time; results are returned, never printed. LoadWorkspace gives the
// configuration and templates alone, for tools that list, show, match or
// validate them without running anything.
//
// The API speaks its own types: inputs are []Input, names with values of
// package value (InputsOf converts plain Go values; a list keeps their
// order), usage is Usage, memory lookups ContextQuery and ContextResult,
// templates TemplateItem and TemplateDetail. Errors of Open, Task and the
// journal commands are *Error with a Kind; evaluation errors are shown
// with ErrorDisplay, an interruption recognised with IsInterrupted.
//
// # The journal: runs, status and resume
//
// OpenHistory reads the project's journal: WriteRuns and WriteStatus write
// what `evalrun runs` and `evalrun status` print (text, --markdown, and
// the JSON shapes of --json). FindResume finds a run to resume (a full id,
// a unique prefix or "last"): its workflow files and its inputs, and
// Resume.Changed tells whether the workflow changed since; a run opened
// with Options.Resume (and Options.Journal) replays that run's completed
// calls.
//
// # One engine per run
//
// An Engine is one run, and a process that runs several workflows opens
// one Engine for each. The executor's run-wide state belongs to it: the
// sequence numbers of task calls, the outputs of completed calls that
// later calls accumulate, the session history, and the model usage that
// Usage reports.
// So does the memory: the project's index is opened and refreshed by the
// first lookup of the run only, and later lookups see that snapshot; a new
// run refreshes it again. The run's start time (the {{date}} of
// templates), its dry-run directory and its cassette belong to it too.
// Within a run, Run, Eval and Task may be called many times (the REPL does
// that, and Reset starts a new global environment, with Options.Inputs
// bound again, without starting a new run). Run and Eval are for one
// goroutine at a time, as
// the interpreter is; the parallel forms of a program run concurrently
// under its control. Close ends the run: it closes the memory index and the cassette
// and writes the dry-run summary line.
//
// # Observing the run: the trace sinks
//
// Every call of a run is a span of package trace: the evaluator opens the
// steps (and marks a task or tool call that waits for its concurrency slot),
// the task system the task calls, the handler the model requests and tool
// calls, the engine the memory lookups. Open builds the run's sinks and
// every entry point (Run, Evaluate, Eval, Task, Context) installs them in
// its context; nothing else observes calls. In order:
//
//   - the echo notice of SPEC §14.5, before the first request the implicitly
//     chosen echo provider answers;
//   - the provenance lines of SPEC §10.3 for templates reached through a
//     computed name, before their first model request;
//   - under DryRun, the prompt files of SPEC §17.7 (a trace.Gate on model
//     requests: a prompt that cannot be written fails its task);
//   - with Options.Journal (and without DryRun), the journal's sink
//     (journal.Sink): a node per step, task and tool call with its parent,
//     notes.task_id, pending while a call waits for its slot, and replay
//     for Options.Resume. Run creates the statically known steps
//     as pending before the first evaluation; Finish records the outcome
//     and Close finishes a run nobody finished as failed;
//   - when Options.Progress is on (NewProgress: --progress, a terminal,
//     TERM, NO_COLOR), the live progress display's sink (progress.Sink,
//     SPEC §17.3.1); RunPlan announces the plan's task tree to it.
//   - with a budget (Options.MaxCostUSD, MaxTokens, or [limits]
//     max_cost_usd, max_tokens; SPEC §14.9), the budget gate: it adds the
//     tokens and cost of every task span that ends without being replayed,
//     on top of what the resumed runs spent, and refuses a task span's
//     Before once a budget is spent (a *BudgetError, reason
//     resource_exhaustion). BudgetError reports the first refusal, with
//     which the evalrun command exits 1.
//
// The evalrun command (cmd/evalrun) is a thin layer over this package: it
// parses flags, reads files, prints values and errors, maps the Kind of an
// *Error to an exit code and turns signals into cancellation (Interrupted);
// of the project's packages it imports only engine, value and sexp. No
// package of the module other than cmd/evalrun imports engine.
//
// # Runs on Temporal
//
// With the build tag temporal the engine also serves Temporal workers and
// starts, follows, cancels and describes runs on Temporal (Serve, Start,
// Await, Cancel, Describe in temporal.go; docs/temporal.md), and shows
// them as the journal shows a local run (WriteTemporalStatus,
// WriteTemporalRuns in temporal_status.go). Without the tag
// nothing of the Temporal SDK is linked, so programs that embed the engine
// and the evalrun command stay small and start fast.
package engine
