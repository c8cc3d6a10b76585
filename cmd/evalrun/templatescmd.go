package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/evalrun/evalrun/engine"
)

// Layout of `templates list` (SPEC §10.4).
const (
	listDescMax   = 60 // code points of a description, "…" included
	listNameMin   = 24 // the name column is at least this wide
	listColumnGap = 3
)

// templatesList implements "evalrun templates list [--json]" (SPEC §10.4):
// one group per scope directory that exists, in scope order, built-in
// templates first, each line with name, alias, description, file and, for
// a template a later scope replaced, "(shadowed by SCOPE)".
func (a *app) templatesList(dirs []string, asJSON bool) int {
	ws, code := a.loadWorkspace(dirs, diagRun)
	if code != exitOK {
		return code
	}
	if asJSON {
		// The active templates, then the asset library (scope "asset").
		return a.printJSON(append(ws.TemplateList(), engine.AssetItems()...))
	}
	type row struct{ name, desc, file, mark string }
	groups := ws.TemplateGroups()
	rows := make([][]row, len(groups))
	nameW, descW, fileW := listNameMin, 0, 0
	for g, group := range groups {
		for _, it := range group.Items {
			r := row{name: it.Name, desc: cutText(it.Description, listDescMax), file: it.Path}
			if it.Alias != nil {
				r.name += " (" + *it.Alias + ")"
			}
			if it.ShadowedBy != nil {
				r.mark = "(shadowed by " + *it.ShadowedBy + ")"
			}
			nameW = max(nameW, utf8.RuneCountInString(r.name))
			descW = max(descW, utf8.RuneCountInString(r.desc))
			fileW = max(fileW, utf8.RuneCountInString(r.file))
			rows[g] = append(rows[g], r)
		}
	}
	var b strings.Builder
	gap := strings.Repeat(" ", listColumnGap)
	for g, group := range groups {
		head := group.Scope + " (" + strconv.Itoa(len(rows[g])) + ")"
		if group.Display != "" {
			head += " " + group.Display
		}
		b.WriteString(head + "\n")
		for _, r := range rows[g] {
			line := "  " + pad(r.name, nameW) + gap + pad(r.desc, descW) + gap + pad(r.file, fileW)
			if r.mark != "" {
				line += gap + r.mark
			}
			b.WriteString(strings.TrimRight(line, " ") + "\n")
		}
	}
	b.WriteString(assetsListing(nameW))
	io.WriteString(a.stdout, b.String())
	return exitOK
}

// cutText collapses white space and cuts s to n code points, the last one
// "…" when it was cut.
func cutText(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return strings.TrimRight(string(r[:n-1]), " ") + "…"
}

// pad pads s with spaces to w code points.
func pad(s string, w int) string {
	if n := utf8.RuneCountInString(s); n < w {
		return s + strings.Repeat(" ", w-n)
	}
	return s
}

// templatesShow implements "evalrun templates show NAME": the template
// found by name, alias or type:subtype, as "<!-- SCOPE PATH:LINE -->" and
// its XML exactly as written. An unknown name exits 2 with up to three
// suggestions (SPEC §10.4).
func (a *app) templatesShow(dirs []string, name string, asJSON bool) int {
	ws, code := a.loadWorkspace(dirs, diagRun)
	if code != exitOK {
		return code
	}
	t, err := ws.ShowTemplate(name)
	if err != nil {
		a.errorf("%v", err)
		return exitUsage
	}
	if asJSON {
		return a.printJSON(t)
	}
	fmt.Fprintf(a.stdout, "<!-- %s -->\n%s", t.Source, t.XML)
	return exitOK
}

// printJSON prints v indented by two spaces, without HTML escaping.
func (a *app) printJSON(v any) int {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		a.errorf("%v", err)
		return exitEval
	}
	a.stdout.Write(buf.Bytes())
	return exitOK
}

// templatesMatch implements "evalrun templates match TEXT" (SPEC §10.5):
// a table SCORE NAME SCOPE of the matching templates, best first, with the
// score to two decimals; exit 1 when nothing matches.
func (a *app) templatesMatch(dirs []string, text string) int {
	ws, code := a.loadWorkspace(dirs, diagRun)
	if code != exitOK {
		return code
	}
	ms := ws.MatchTemplates(text)
	if len(ms) == 0 {
		a.errorf("no template matches %q", text)
		return exitEval
	}
	nameW := len("NAME")
	for _, m := range ms {
		nameW = max(nameW, utf8.RuneCountInString(m.Name))
	}
	var b strings.Builder
	b.WriteString("SCORE  " + pad("NAME", nameW) + "  SCOPE\n")
	for _, m := range ms {
		fmt.Fprintf(&b, "%-5s  %s  %s\n", strconv.FormatFloat(m.Score, 'f', 2, 64), pad(m.Name, nameW), m.Scope)
	}
	io.WriteString(a.stdout, b.String())
	return exitOK
}

// templatesValidate implements "evalrun templates validate FILE..." (SPEC
// §9.4): each file is validated as a template file of the dir scope, with
// the schemas of the template directories and those beside the file; a
// valid file prints "FILE: ok", an invalid one its diagnostics. Exit 3 when
// any file has an error, 2 when a file cannot be read.
func (a *app) templatesValidate(dirs, files []string, asJSON bool) int {
	ws, code := a.loadWorkspace(dirs, diagQuiet)
	if code == exitUsage {
		return code
	}
	code = exitOK
	results := []validateJSON{}
	for _, f := range files {
		v, err := ws.Validate(f)
		if err != nil {
			if fi, serr := os.Stat(f); serr == nil && fi.IsDir() {
				a.errorf("%s is a directory: give its template files (%s), or run evalrun templates list, which loads and checks every template of the project", f, filepath.Join(f, "*.xml"))
			} else {
				a.errorf("cannot read %s: %v", f, reason(err))
			}
			code = exitUsage
			continue
		}
		if !v.OK && code == exitOK {
			code = exitSyntax
		}
		if asJSON {
			results = append(results, validateJSON{File: f, OK: v.OK, Diagnostics: v.Diagnostics})
			continue
		}
		io.WriteString(a.stderr, v.Display)
		if v.OK {
			fmt.Fprintf(a.stdout, "%s: ok\n", f)
		}
	}
	if asJSON {
		a.printJSON(results)
	}
	return code
}

// validateJSON is one file's result in templates validate --json.
type validateJSON struct {
	File        string                      `json:"file"`
	OK          bool                        `json:"ok"`
	Diagnostics []engine.TemplateDiagnostic `json:"diagnostics"`
}
