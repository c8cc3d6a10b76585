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
	"github.com/evalrun/evalrun/tasksystem"
	"github.com/evalrun/evalrun/templates"
	"github.com/evalrun/evalrun/value"
)

// templateRegistry loads the workspace for a templates subcommand and
// returns it with a registry of the templates in load order. A template
// validation error is printed and ends the command with exit 3, except for
// validate, which reports its own files.
func (a *app) templateRegistry(dirs []string) (*engine.Workspace, *tasksystem.Registry, int) {
	ws, code := a.loadWorkspace(dirs, diagRun)
	if code != exitOK {
		return nil, nil, code
	}
	return ws, ws.Registry(), exitOK
}

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
	ws, _, code := a.templateRegistry(dirs)
	if code != exitOK {
		return code
	}
	items := ws.Templates.List()
	if asJSON {
		if items == nil {
			items = []templates.ListItem{}
		}
		return a.printJSON(items)
	}
	type row struct{ name, desc, file, mark string }
	groups := map[*templates.Dir][]row{}
	nameW, descW, fileW := listNameMin, 0, 0
	for i, e := range ws.Templates.Entries {
		it := items[i]
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
		groups[e.Dir] = append(groups[e.Dir], r)
	}
	var b strings.Builder
	gap := strings.Repeat(" ", listColumnGap)
	for _, d := range ws.Templates.Dirs {
		rows := groups[d]
		if !d.Exists || (len(rows) == 0 && d.Scope == templates.ScopeBuiltin) {
			continue
		}
		head := d.Scope.String() + " (" + strconv.Itoa(len(rows)) + ")"
		if d.Display != "" {
			head += " " + d.Display
		}
		b.WriteString(head + "\n")
		for _, r := range rows {
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
	ws, reg, code := a.templateRegistry(dirs)
	if code != exitOK {
		return code
	}
	t, ok := reg.Lookup(name)
	if !ok {
		a.errorf("%v", &engine.UnknownTemplateError{Name: name, Suggestions: engine.Suggest(reg, name)})
		return exitUsage
	}
	text := t.XML
	for _, e := range ws.Templates.Entries {
		if e.Template == t {
			text = dedentElement(e, text)
			break
		}
	}
	if !strings.HasSuffix(text, "\n") {
		text += "\n"
	}
	if asJSON {
		return a.printJSON(showJSON(ws, t, text))
	}
	fmt.Fprintf(a.stdout, "<!-- %s -->\n%s", t.Source(), text)
	return exitOK
}

// templateJSON is the --json form of templates show: the fields of the
// listing, the provenance line, the inputs and the XML as written.
type templateJSON struct {
	templates.ListItem
	Source string      `json:"source"`
	Inputs []inputJSON `json:"inputs"`
	XML    string      `json:"xml"`
}

type inputJSON struct {
	Name        string `json:"name"`
	Type        string `json:"type"`
	Required    bool   `json:"required"`
	Default     any    `json:"default"`
	Description string `json:"description"`
}

func showJSON(ws *engine.Workspace, t *templates.Template, xml string) templateJSON {
	out := templateJSON{Source: t.Source(), Inputs: []inputJSON{}, XML: xml}
	for i, e := range ws.Templates.Entries {
		if e.Template == t {
			out.ListItem = ws.Templates.List()[i]
		}
	}
	if out.Name == "" { // a template of no loaded file, such as a defatom
		out.ListItem = templates.ListItem{Name: t.Name, Type: t.Type, Subtype: t.Subtype, Description: t.Description, Scope: t.Scope.String()}
	}
	for _, in := range t.Inputs {
		var def any
		if in.Default != nil {
			def = json.RawMessage(value.JSON(in.Default))
		}
		out.Inputs = append(out.Inputs, inputJSON{Name: in.Name, Type: in.Type, Required: in.Required, Default: def, Description: in.Description})
	}
	return out
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
	_, reg, code := a.templateRegistry(dirs)
	if code != exitOK {
		return code
	}
	ms := reg.Match(text)
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
		diags, err := ws.ValidateFile(f)
		if err != nil {
			a.errorf("cannot read %s: %v", f, reason(err))
			code = exitUsage
			continue
		}
		ok := !templates.HasErrors(diags)
		if !ok && code == exitOK {
			code = exitSyntax
		}
		if asJSON {
			r := validateJSON{File: f, OK: ok, Diagnostics: []diagnosticJSON{}}
			for _, d := range diags {
				r.Diagnostics = append(r.Diagnostics, diagnosticJSON{Position: d.Pos.String(), Severity: d.Severity, Message: d.Msg})
			}
			results = append(results, r)
			continue
		}
		for _, d := range diags {
			io.WriteString(a.stderr, d.Display())
		}
		if ok {
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
	File        string           `json:"file"`
	OK          bool             `json:"ok"`
	Diagnostics []diagnosticJSON `json:"diagnostics"`
}

// diagnosticJSON is one diagnostic; position is FILE:LINE:COL, or "-" for
// one without a place in the file.
type diagnosticJSON struct {
	Position string `json:"position"`
	Severity string `json:"severity"`
	Message  string `json:"message"`
}

// dedentElement removes the indentation a <task> element inside <tasks>
// has in its file: the white space before the element on its first line,
// and as much of the same on the following lines.
func dedentElement(e *templates.Entry, xml string) string {
	t := e.Template
	if t.Col <= 1 || e.Dir == nil || e.Dir.Path == "" {
		return xml
	}
	data, err := os.ReadFile(filepath.Join(e.Dir.Path, filepath.FromSlash(e.RelPath)))
	if err != nil {
		return xml
	}
	lines := strings.Split(string(data), "\n")
	if t.Line < 1 || t.Line > len(lines) {
		return xml
	}
	line := lines[t.Line-1]
	// The prefix is white space, one byte per column, or nothing is cut.
	prefix := line[:min(t.Col-1, len(line))]
	if strings.Trim(prefix, " \t") != "" {
		return xml
	}
	out := strings.Split(xml, "\n")
	for i := 1; i < len(out); i++ {
		out[i] = strings.TrimPrefix(out[i], prefix)
	}
	return strings.Join(out, "\n")
}
