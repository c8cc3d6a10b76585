package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"unicode/utf8"

	"github.com/evalrun/evalrun/evaluator"
	"github.com/evalrun/evalrun/handler"
	"github.com/evalrun/evalrun/sexp"
	"github.com/evalrun/evalrun/tasksystem"
	"github.com/evalrun/evalrun/templates"
)

// check implements "evalrun check FILE..." (SPEC §17.4): the configuration
// is read and the templates of every scope are loaded and validated, then
// the files are checked in order as one program, as run would evaluate
// them, so a file of defatoms or definitions may precede the workflow that
// uses them. Problems go to stderr as "FILE:LINE:COL: error: MSG" (or
// "warning:") with the source line and a caret: template validation
// problems, templates hidden by a special form, primitive or tool, and the
// problems of the program, calls of templates with unknown or missing
// inputs included. Each file without errors prints "FILE: ok" on stdout.
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
	reg := tasksystem.NewRegistry()
	for _, t := range ws.set.Templates() {
		reg.Add(t)
	}
	tasks := evaluator.NewTaskSystem(reg, nil)
	tasks.Tools = handler.NewTools(handler.ToolsConfig{Root: ws.root, WorkDir: ws.wd})
	for _, e := range ws.set.Entries {
		t := e.Template
		if t.Scope == templates.ScopeBuiltin || e.ShadowedBy != nil {
			continue
		}
		if msg := hiddenMessage(t.Name, tasks.HasTool); msg != "" {
			d := templates.Diagnostic{Pos: templatePos(e), Severity: templates.SeverityWarning, Msg: msg}
			io.WriteString(a.stderr, d.DisplaySeverity())
		}
	}

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
		io.WriteString(a.stderr, d.Display())
		if d.Severity == evaluator.SeverityError {
			errs[d.Pos.Src]++
		}
	}
	for _, src := range srcs {
		if syntax[src] || errs[src] > 0 {
			code = exitSyntax
			continue
		}
		fmt.Fprintf(a.stdout, "%s: ok\n", src.Name)
	}
	return code
}

// templatePos returns the position of a loaded template's <task> element,
// with the file's text for the source line of a diagnostic; without the
// text (an unreadable file) the position is still valid.
func templatePos(e *templates.Entry) sexp.Pos {
	t := e.Template
	text := ""
	if e.Dir != nil && e.Dir.Path != "" {
		if data, err := os.ReadFile(filepath.Join(e.Dir.Path, filepath.FromSlash(e.RelPath))); err == nil {
			text = string(data)
		}
	}
	src := sexp.NewSource(t.Path, text)
	return sexp.Pos{Src: src, Off: offsetOf(text, t.Line, t.Col)}
}

// offsetOf returns the byte offset of LINE:COL (from 1, columns in code
// points) in text, clamped to the text.
func offsetOf(text string, line, col int) int {
	off := 0
	for l := 1; l < line; l++ {
		i := strings.IndexByte(text[off:], '\n')
		if i < 0 {
			return len(text)
		}
		off += i + 1
	}
	for c := 1; c < col && off < len(text) && text[off] != '\n'; c++ {
		_, n := utf8.DecodeRuneInString(text[off:])
		off += n
	}
	return off
}
