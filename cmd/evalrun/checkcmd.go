package main

import (
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/evalrun/evalrun/engine"
)

// check implements "evalrun check FILE..." (SPEC §17.4): the configuration
// is read and the templates of every scope are loaded and validated, then
// the files are checked in order as one program, as run would evaluate
// them, so a file of defatoms or definitions may precede the workflow that
// uses them. Problems go to stderr as "FILE:LINE:COL: error: MSG" (or
// "warning:") with the source line and a caret: template validation
// problems, templates hidden by a special form, primitive or tool, and the
// problems of the program, calls of templates with unknown or missing
// inputs included; after ten errors in a file, "too many errors" ends its
// report. With a cost budget ([limits] max_cost_usd) each provider without
// prices gets a warning (SPEC §14.9). Each file without errors prints
// "FILE: ok" on stdout, unless a template (or an agent of a template) has
// errors: then no file is ok.
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
	for _, w := range ws.BudgetWarnings() {
		fmt.Fprintln(a.stderr, w)
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
	res := engine.Check(ws, srcs, engine.CheckOptions{Globals: setNames(sets)})
	var unbound []string // variables without a "did you mean": inputs, perhaps
	for _, d := range res.Diagnostics {
		io.WriteString(a.stderr, d.DisplaySeverity())
		if name, ok := engine.UnboundVariableName(d.Msg); ok && d.Hint == "" && !slices.Contains(unbound, name) {
			unbound = append(unbound, name)
		}
	}
	if len(unbound) > 0 {
		what := unbound[0] + " is an input"
		if len(unbound) > 1 {
			what = strings.Join(unbound, ", ") + " are inputs"
		}
		cmd := "evalrun check " + strings.Join(files, " ")
		for _, n := range unbound {
			cmd += " --set " + n + "=x"
		}
		fmt.Fprintf(a.stderr, "hint: if %s of the workflow, given with --set when it runs, check it so: %s\n", what, cmd)
	}
	for _, src := range srcs {
		if res.Failed[src] {
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
