package main

import (
	"errors"
	"fmt"
	"io"

	"github.com/evalrun/evalrun/engine"
)

// diagStyle says how template diagnostics are printed.
type diagStyle int

const (
	// diagRun prints them as run, eval, task and templates do (SPEC §4.7).
	diagRun diagStyle = iota
	// diagCheck writes the severity after every position (SPEC §17.4).
	diagCheck
	// diagQuiet prints none (templates validate reports its own files).
	diagQuiet
)

// loadWorkspace loads the configuration and the templates of every scope
// for a command that does not run anything (check, templates, context).
// Template diagnostics are printed in the given style. It returns exitUsage
// for a configuration or flag error, exitSyntax (with the workspace) when a
// template does not validate.
func (a *app) loadWorkspace(dirs []string, style diagStyle) (*engine.Workspace, int) {
	ws, err := engine.LoadWorkspace(engine.Options{Templates: dirs, Getenv: a.getenv})
	if err != nil {
		return nil, a.openFailed(err)
	}
	switch style {
	case diagCheck:
		io.WriteString(a.stderr, ws.DiagnosticsText(true))
	case diagRun:
		io.WriteString(a.stderr, ws.DiagnosticsText(false))
	}
	if ws.Err() != nil {
		return ws, exitSyntax
	}
	return ws, exitOK
}

func (a *app) open(flags evalFlags, instructions string, jn *engine.JournalInfo, inputs []setting, resume *engine.Resume) (*engine.Engine, int) {
	e, err := engine.Open(engine.Options{
		Journal:      jn,
		Resume:       resume,
		Inputs:       inputs,
		Templates:    flags.Templates,
		Provider:     flags.Provider,
		Model:        flags.Model,
		Files:        flags.RunFiles,
		DryRun:       flags.DryRun,
		Record:       flags.Record,
		Timeout:      flags.Timeout,
		MaxCostUSD:   flags.MaxCost,
		MaxTokens:    flags.MaxTokens,
		Instructions: instructions,
		Stdin:        a.stdin,
		Stderr:       a.stderr,
		Getenv:       a.getenv,
		Progress:     a.progress,
		AgentOptions: flags.agentOptions(flags.listContexts),
	})
	if err != nil {
		return nil, a.openFailed(err)
	}
	return e, exitOK
}

// openFailed prints an error of engine.Open or engine.LoadWorkspace and
// returns its exit code: exitSyntax for a template validation error (whose
// diagnostics are already printed), exitUsage for the others. A
// configuration error prints each problem with its source line and caret.
func (a *app) openFailed(err error) int {
	var ee *engine.Error
	if errors.As(err, &ee) && ee.Kind == engine.KindTemplate {
		return exitSyntax
	}
	if text, ok := engine.ConfigErrorsDisplay(err); ok {
		io.WriteString(a.stderr, text)
		return exitUsage
	}
	a.errorf("%v", err)
	return exitUsage
}

// finish ends a run: with usage, the usage line of SPEC §17.3 when a model
// call was made; then the engine closes the memory index and the cassette
// and (dry run) prints its summary line.
func (a *app) finish(e *engine.Engine, usage bool) {
	if usage {
		if line := e.Usage().Line(); line != "" {
			fmt.Fprintf(a.stderr, "%s\n", line)
		}
	}
	if err := e.Close(); err != nil {
		a.errorf("%v", err)
	}
}

// journalInfo is the journal record of a run of the workflow path (the
// files as given, "<eval>" or "task NAME") with the text whose SHA-256 is
// recorded; the engine records the inputs as its arguments.
func journalInfo(path, text string) *engine.JournalInfo {
	return &engine.JournalInfo{WorkflowPath: path, WorkflowText: text}
}

// startProgress starts the live display of --progress (SPEC §17.3.1) over
// stderr: until stop, everything the command writes to stderr passes
// through above it. stop erases it (what stays is what a run without a
// terminal prints) and may be called more than once; call it when the run
// has ended, before the value is printed on stdout.
func (a *app) startProgress() (stop func(), code int) {
	mode := a.progressMode
	if mode == "" {
		mode = engine.ProgressNever
	}
	p, err := engine.NewProgress(mode, a.stderr, a.getenv)
	if err != nil {
		a.errorf("%v", err)
		return func() {}, exitUsage
	}
	stderr := a.stderr
	a.stderr, a.progress = p, p
	stopJobs := func() {}
	if p.On() {
		stopJobs = watchJobControl(p)
	}
	return func() {
		if a.progress != p {
			return
		}
		stopJobs()
		p.Close()
		a.stderr, a.progress = stderr, nil
	}, exitOK
}

// notifyRunSignals starts catching SIGINT and SIGTERM for a run that may
// show the live display (startProgress first): the first signal shows
// on it which calls are being cancelled, the second one erases it before
// evalrun exits. SIGHUP is caught too: it ends the run at once, like a
// second signal.
func (a *app) notifyRunSignals() *signals {
	s := notifySignals(a.stderr)
	s.hangup()
	if p := a.progress; p != nil {
		s.onCancel = p.Cancelling
		s.onExit = func() { p.Close() }
	}
	return s
}
