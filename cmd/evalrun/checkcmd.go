package main

import (
	"fmt"
	"io"

	"github.com/evalrun/evalrun/evaluator"
	"github.com/evalrun/evalrun/sexp"
)

// check implements "evalrun check FILE..." (SPEC §17.4): the configuration
// is read and the templates of every scope are loaded and validated, then
// the files are checked in order as one program, as run would evaluate
// them, so a file of defatoms or definitions may precede the workflow that
// uses them. Problems go to stderr as "FILE:LINE:COL: error: MSG" (or
// "warning:") with the source line and a caret: template validation
// problems, templates hidden by a special form, primitive or tool, and the
// problems of the program, calls of templates with unknown or missing
// inputs included. Each file without errors prints "FILE: ok" on stdout,
// unless a template (or an agent of a template) has errors: then no file
// is ok.
// The exit code is 3 when there is any error, 2 when a file cannot be read,
// the configuration is invalid or a --set option is malformed.
func (a *app) check(files, setOpts, dirs []string) int {
	sets, err := parseSets(setOpts)
	if err != nil {
		a.errorf("%v", err)
		return exitUsage
	}
	srcs, ok := a.readSources(files)
	if !ok {
		return exitUsage
	}
	ws, code := a.loadWorkspace(dirs, diagCheck)
	if code == exitUsage {
		return code
	}
	for _, d := range ws.HiddenTemplates() {
		io.WriteString(a.stderr, d.DisplaySeverity())
	}
	for _, d := range ws.AgentDiagnostics() {
		io.WriteString(a.stderr, d.DisplaySeverity())
		if d.IsError() {
			code = exitSyntax
		}
	}
	// With template (or agent) errors the check fails as a whole: no file
	// is "ok" when the command exits 3.
	templateErrors := code == exitSyntax
	tasks := evaluator.NewTaskSystem(ws.Registry(), nil)
	tasks.Tools = ws.Tools()

	// Read every file; a file with a syntax error is reported and left out.
	var forms []*sexp.Node
	errs := map[*sexp.Source]int{}
	syntax := map[*sexp.Source]bool{}
	for _, src := range srcs {
		fs, err := sexp.Parse(src)
		if err != nil {
			if se, ok := err.(*sexp.Error); ok {
				io.WriteString(a.stderr, sexp.FormatDiagnostic(se.Pos, evaluator.SeverityError, se.Msg))
			} else {
				a.errorf("%s: %v", src.Name, err)
			}
			syntax[src] = true
			continue
		}
		forms = append(forms, fs...)
	}
	diags := evaluator.Check(forms, evaluator.CheckOptions{Tasks: tasks, Globals: setNames(sets)})
	for _, d := range diags {
		io.WriteString(a.stderr, d.DisplaySeverity())
		if d.Severity == evaluator.SeverityError {
			errs[d.Pos.Src]++
		}
	}
	for _, src := range srcs {
		if syntax[src] || errs[src] > 0 {
			code = exitSyntax
			continue
		}
		if templateErrors {
			continue
		}
		fmt.Fprintf(a.stdout, "%s: ok\n", src.Name)
	}
	return code
}
