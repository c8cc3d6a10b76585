package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"slices"
	"strings"
	"unicode"

	"github.com/evalrun/evalrun/engine"
	"github.com/evalrun/evalrun/sexp"
	"github.com/evalrun/evalrun/value"
)

// stdinName is the source name of "-" (SPEC §4.7).
const stdinName = "<stdin>"

// readSources reads every file named in files ("-" is standard input, named
// <stdin>). An unreadable file is reported as "evalrun: cannot read FILE:
// REASON", an XML template given as a workflow as such; ok is false when any
// file could not be read or is a template.
func (a *app) readSources(files []string) (srcs []*sexp.Source, ok bool) {
	ok = true
	for _, name := range files {
		text, err := a.readFile(name)
		if err != nil {
			a.errorf("cannot read %s: %v", name, reason(err))
			ok = false
			continue
		}
		if name == "-" {
			name = stdinName
		}
		if looksLikeXML(text) {
			a.errorf("%s is an XML template, not a workflow: check it with evalrun templates validate %s; run a template with evalrun task NAME, or call it from a workflow", name, name)
			ok = false
			continue
		}
		srcs = append(srcs, sexp.NewSource(name, text))
	}
	return srcs, ok
}

// looksLikeXML reports whether a source text is an XML template rather than
// a workflow: after leading white space it starts with an XML declaration,
// a comment, <task or <tasks, which no workflow does.
func looksLikeXML(text string) bool {
	t := strings.TrimLeft(text, " \t\r\n\ufeff")
	for _, p := range []string{"<?xml", "<!--", "<task>", "<task ", "<tasks>", "<tasks ", "<task\n", "<tasks\n"} {
		if strings.HasPrefix(t, p) {
			return true
		}
	}
	return false
}

// readFile reads a named file, or standard input for "-".
func (a *app) readFile(name string) (string, error) {
	if name == "-" {
		data, err := io.ReadAll(a.stdin)
		return string(data), err
	}
	// Read straight into the string's memory, sized from the file, so a
	// large workflow is held once rather than as bytes and then a copy.
	f, err := os.Open(name)
	if err != nil {
		return "", err
	}
	defer f.Close()
	var b strings.Builder
	if fi, err := f.Stat(); err == nil && fi.Mode().IsRegular() {
		b.Grow(int(fi.Size()) + 1) // +1: no regrowth to see the end of file
	}
	if _, err := io.Copy(&b, f); err != nil {
		return "", err
	}
	return b.String(), nil
}

// reason returns the part of a file error that says what went wrong, without
// the operation and path that the caller prints itself.
func reason(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// parseSources reads the forms of every source, printing each syntax error.
// A syntax error anywhere means nothing runs (SPEC §4.6).
func (a *app) parseSources(srcs []*sexp.Source) ([]*sexp.Node, bool) {
	var forms []*sexp.Node
	ok := true
	for _, src := range srcs {
		fs, err := engine.Parse(src)
		if err != nil {
			a.reportError(err)
			ok = false
			continue
		}
		forms = append(forms, fs...)
	}
	return forms, ok
}

// runFiles implements "evalrun run FILE...": all files are read and compiled
// before anything runs, then evaluated in order in one global environment.
//
// With --resume RUN (SPEC §16.4) the run resumes RUN: without files it
// evaluates RUN's workflow, without --set RUN's --set values, without
// --provider, --model, --agent, --role or --context RUN's (engine.Open
// applies them), and a workflow that changed since gives a warning.
func (a *app) runFiles(files []string, flags evalFlags, resume string) int {
	var resumed *engine.Resume
	if resume != "" {
		var err error
		resumed, err = engine.FindResume(engine.Options{DryRun: flags.DryRun, Getenv: a.getenv}, resume)
		if err != nil {
			a.errorf("%v", err)
			return exitUsage
		}
		if w := resumed.RunningWarning(); w != "" {
			fmt.Fprintf(a.stderr, "warning: %s\n", w)
		}
		if len(files) == 0 {
			if resumed.Files == nil {
				a.errorf("--resume %s: run %s did not evaluate workflow files: give FILE", resume, resumed.ID)
				return exitUsage
			}
			files = resumed.Files
		}
	} else if len(files) == 0 {
		a.errorf(`expected "<file> ..." (or --resume RUN)`)
		fmt.Fprintln(a.stderr, "Run 'evalrun run --help' for usage.")
		return exitUsage
	}
	sets, code := a.evalSetup(flags)
	if code != exitOK {
		return code
	}
	if resumed != nil && len(flags.Set) == 0 {
		sets = nil // the resumed run's inputs
	}
	srcs, ok := a.readSources(files)
	if !ok {
		return exitUsage
	}
	text := sourceText(srcs)
	if resumed != nil && resumed.Changed(text) {
		fmt.Fprintf(a.stderr, "warning: the workflow changed since run %s\n", resumed.ID)
	}
	jn := journalInfo(strings.Join(files, " "), text)
	jn.Files = files
	flags.listContexts = true
	return a.evaluate(srcs, sets, flags, jn, resumed)
}

// unboundHint is the hint line that follows an unbound variable without a
// "did you mean": in an eval expression that holds no string, a capitalised
// name is most likely a string whose double quotes the shell removed
// (evalrun eval "(greet (name "Ada"))"); otherwise the name may be an input
// of the workflow, given with --set.
func unboundHint(name string, src *sexp.Source) string {
	if src.Name == "<eval>" && !strings.Contains(src.Text, `"`) && name != "" && unicode.IsUpper([]rune(name)[0]) {
		return "hint: if " + name + " was a string, the shell removed its double quotes: put the expression in single quotes, evalrun eval '(f \"" + name + "\")'\n"
	}
	return "hint: if " + name + " is an input of the workflow, give it with --set " + name + "=VALUE\n"
}

// sourceText is the text of the sources, concatenated: what the journal
// hashes.
func sourceText(srcs []*sexp.Source) string {
	if len(srcs) == 1 {
		return srcs[0].Text // no copy of a large file
	}
	n := 0
	for _, s := range srcs {
		n += len(s.Text)
	}
	var b strings.Builder
	b.Grow(n)
	for _, s := range srcs {
		b.WriteString(s.Text)
	}
	return b.String()
}

// errCancelled is the error of an interrupted run in the journal.
var errCancelled = errors.New("cancelled")

// evalExpr implements "evalrun eval EXPR" (source name <eval>).
func (a *app) evalExpr(text string, flags evalFlags) int {
	sets, code := a.evalSetup(flags)
	if code != exitOK {
		return code
	}
	// An expression that completes without a call is not recorded
	// (docs/runs.md): eval stays a calculator that starts in milliseconds.
	jn := journalInfo("<eval>", text)
	jn.OmitWithoutCalls = true
	return a.evaluate([]*sexp.Source{sexp.NewSource("<eval>", text)}, sets, flags, jn, nil)
}

// evalSetup checks the flags shared by run, eval, task and repl.
func (a *app) evalSetup(flags evalFlags) ([]setting, int) {
	if flags.Timeout < 0 {
		a.errorf("invalid --timeout %s: the duration must not be negative", flags.Timeout)
		return nil, exitUsage
	}
	sets, err := parseSets(flags.Set)
	if err != nil {
		a.errorf("%v", err)
		return nil, exitUsage
	}
	return sets, exitOK
}

// evaluate compiles the sources as one program and runs it, printing the
// final value or the error. Before evaluation the engine prints the
// provenance line of every global, local or dir template the program names
// statically (SPEC §10.3). After the value (or the error) stderr gets the
// usage line when a model call was made (SPEC §17.3); a dry run ends stderr
// with its summary (SPEC §17.7).
//
// The run is recorded in the journal (jn) unless it is a dry run.
func (a *app) evaluate(srcs []*sexp.Source, sets []setting, flags evalFlags, jn *engine.JournalInfo, resumed *engine.Resume) int {
	stopProgress, code := a.startProgress()
	if code != exitOK {
		return code
	}
	defer stopProgress()
	sig := a.notifyRunSignals()
	defer sig.stop()
	forms, ok := a.parseSources(srcs)
	if !ok {
		return exitSyntax
	}
	prog, err := engine.CompileForms(srcs[0], forms)
	if err != nil {
		return a.reportError(err)
	}
	e, code := a.open(flags, "", jn, sets, resumed)
	if code != exitOK {
		return code
	}
	defer a.finish(e, true)
	var v value.Value
	sig.journalAbort(e)
	interrupted := sig.guard(func(ctx context.Context) {
		v, err = e.Run(ctx, prog)
	})
	stopProgress()
	if interrupted {
		e.Finish(nil, errCancelled)
		if !flags.DryRun && jn != nil && len(jn.Files) > 0 && e.RunID() != "" {
			fmt.Fprintf(a.stderr, "hint: evalrun run --resume %s continues the run, answering its completed calls from the journal\n", e.RunID())
		}
		return exitInterrupted
	}
	budgetErr := e.BudgetError()
	if err == nil && budgetErr != nil {
		e.Finish(v, budgetErr)
	} else {
		e.Finish(v, err)
	}
	if err != nil {
		code := a.reportError(err)
		if name, ok := engine.UnboundVariable(err); ok {
			io.WriteString(a.stderr, unboundHint(name, srcs[0]))
		}
		return code
	}
	code = a.finalValue(v, flags.JSON, budgetErr)
	if code == exitEval && budgetErr == nil && engine.FailureReason(v) == "input_validation_failure" && jn != nil && len(jn.Files) > 0 && !slices.Contains(jn.Files, "-") {
		fmt.Fprintf(a.stderr, "hint: evalrun check %s shows the template calls with missing or unknown inputs, and where they are\n", strings.Join(jn.Files, " "))
	}
	return code
}

// finalValue prints the value of a run that ended without an evaluation
// error, locally or on Temporal, and returns its exit code: 1 when the
// value cannot be printed, when the budget refused calls (the value is
// printed, the message ends stderr's errors: SPEC §14.9) or when the
// value is a FAILED TaskResult.
func (a *app) finalValue(v value.Value, asJSON bool, budgetErr error) int {
	if !a.printValue(v, asJSON) {
		return exitEval
	}
	if budgetErr != nil {
		a.errorf("%v", budgetErr)
		return exitEval
	}
	if msg, failed := failedResult(v); failed {
		a.errorf("final value is a FAILED TaskResult: %s", msg)
		return exitEval
	}
	return exitOK
}
