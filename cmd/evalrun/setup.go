package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/evalrun/evalrun/config"
	"github.com/evalrun/evalrun/engine"
	"github.com/evalrun/evalrun/tasksystem"
	"github.com/evalrun/evalrun/value"
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
	for _, d := range ws.Diagnostics {
		switch style {
		case diagCheck:
			io.WriteString(a.stderr, d.DisplaySeverity())
		case diagRun:
			io.WriteString(a.stderr, d.Display())
		}
	}
	if ws.Err() != nil {
		return ws, exitSyntax
	}
	return ws, exitOK
}

// open starts the run of run, eval, task or repl (and of context with an
// llm strategy) with the flags of the command; instructions is the text of
// {{instructions}} (evalrun task). A problem is printed and its exit code
// returned.
func (a *app) open(flags evalFlags, instructions string, jn *engine.JournalInfo) (*engine.Engine, int) {
	e, err := engine.Open(engine.Options{
		Journal:      jn,
		Templates:    flags.Templates,
		Provider:     flags.Provider,
		Model:        flags.Model,
		Files:        flags.RunFiles,
		DryRun:       flags.DryRun,
		Record:       flags.Record,
		Timeout:      flags.Timeout,
		Instructions: instructions,
		Stdin:        a.stdin,
		Stderr:       a.stderr,
		Getenv:       a.getenv,
		AgentOptions: flags.agentOptions(),
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
	var cl config.ErrorList
	if errors.As(err, &cl) {
		for _, e := range cl {
			io.WriteString(a.stderr, e.Display())
		}
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
		if line := usageLine(e.Usage()); line != "" {
			fmt.Fprintf(a.stderr, "%s\n", line)
		}
	}
	if err := e.Close(); err != nil {
		a.errorf("%v", err)
	}
}

// usageLine is the usage line of SPEC §17.3,
// `usage: 3 model calls (1 replayed), 1234 input + 567 output tokens, 5 turns`,
// or "" when no model call was made or replayed.
func usageLine(u tasksystem.RunUsage) string {
	if u.Calls == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString("usage: ")
	b.WriteString(plural(u.Calls, "model call", "model calls"))
	if u.Replayed > 0 {
		fmt.Fprintf(&b, " (%d replayed)", u.Replayed)
	}
	fmt.Fprintf(&b, ", %d input + %d output tokens, %s", u.InputTokens, u.OutputTokens, plural(u.Turns, "turn", "turns"))
	return b.String()
}

// plural is "N one" for 1, else "N many".
func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}

// home returns the home directory: $HOME, else the system's idea of it.
func (a *app) home() string {
	if h := a.getenv("HOME"); h != "" {
		return h
	}
	h, _ := os.UserHomeDir()
	return h
}

// journalInfo describes a run for the journal (SPEC §16.1): its workflow,
// the SHA-256 of its text and the --set values as a dict.
func journalInfo(path, text string, sets []setting) *engine.JournalInfo {
	var args value.Value
	if len(sets) > 0 {
		d := value.NewDict(len(sets))
		for _, s := range sets {
			d.Set(s.Name, s.Value)
		}
		args = d
	}
	return &engine.JournalInfo{WorkflowPath: path, WorkflowText: text, Args: args}
}
