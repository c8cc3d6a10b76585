package engine

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/evalrun/evalrun/templates"
	"github.com/evalrun/evalrun/value"
)

// TemplateItem is one template as `evalrun templates list` shows it (SPEC
// §10.4); its JSON form is the --json element
// {name, alias, type, subtype, description, scope, path, line, shadowed_by}.
type TemplateItem struct {
	Name        string  `json:"name"`
	Alias       *string `json:"alias"`
	Type        string  `json:"type"`
	Subtype     string  `json:"subtype"`
	Description string  `json:"description"`
	Scope       string  `json:"scope"`
	// Path is the file relative to its group's directory, "<builtin>" for
	// built-in templates.
	Path string `json:"path"`
	Line int    `json:"line"`
	// ShadowedBy is the scope of the template that replaced this one.
	ShadowedBy *string `json:"shadowed_by"`
	// Source is the provenance "SCOPE PATH:LINE" (SPEC §11.5); not part of
	// the JSON form.
	Source string `json:"-"`
}

// TemplateGroup is the templates of one directory, in the order of the
// text listing.
type TemplateGroup struct {
	// Scope is builtin, global, local or dir.
	Scope string
	// Display is the directory as shown, "" for the built-in templates.
	Display string
	Items   []TemplateItem
}

func itemOf(it templates.ListItem, source string) TemplateItem {
	return TemplateItem{Name: it.Name, Alias: it.Alias, Type: it.Type, Subtype: it.Subtype, Description: it.Description,
		Scope: it.Scope, Path: it.Path, Line: it.Line, ShadowedBy: it.ShadowedBy, Source: source}
}

// TemplateList returns every template loaded, shadowed ones included, in
// load order: the --json form of `templates list` (never nil).
func (w *Workspace) TemplateList() []TemplateItem {
	list := w.Templates.List()
	out := make([]TemplateItem, len(list))
	for i, it := range list {
		out[i] = itemOf(it, w.Templates.Entries[i].Template.Source())
	}
	return out
}

// AssetItems returns the templates of the asset library (SPEC §22.7) as
// `templates list --json` shows them after the active ones: scope
// "asset", path "<asset>/NAME.xml"; they are not active until `templates
// add` copies them.
func AssetItems() []TemplateItem {
	var out []TemplateItem
	for _, a := range templates.Assets() {
		out = append(out, TemplateItem{Name: a.Name, Type: a.Type, Subtype: a.Subtype, Description: a.Description,
			Scope: "asset", Path: "<asset>/" + a.Name + ".xml", Line: 1, Source: "asset <asset>/" + a.Name + ".xml:1"})
	}
	return out
}

// TemplateGroups returns the templates grouped by directory in scope
// order, leaving out missing directories and an empty built-in group: the
// text form of `templates list`.
func (w *Workspace) TemplateGroups() []TemplateGroup {
	list := w.TemplateList()
	byDir := map[*templates.Dir][]TemplateItem{}
	for i, e := range w.Templates.Entries {
		byDir[e.Dir] = append(byDir[e.Dir], list[i])
	}
	var out []TemplateGroup
	for _, d := range w.Templates.Dirs {
		items := byDir[d]
		if !d.Exists || (len(items) == 0 && d.Scope == templates.ScopeBuiltin) {
			continue
		}
		out = append(out, TemplateGroup{Scope: d.Scope.String(), Display: d.Display, Items: items})
	}
	return out
}

// TemplateInput is one declared input in TemplateDetail.
type TemplateInput struct {
	Name     string `json:"name"`
	Type     string `json:"type"`
	Required bool   `json:"required"`
	// Default is the default as JSON, nil when there is none.
	Default     any    `json:"default"`
	Description string `json:"description"`
}

// TemplateDetail is a template as `evalrun templates show` shows it; its
// JSON form is the --json output.
type TemplateDetail struct {
	TemplateItem
	Source string          `json:"source"`
	Inputs []TemplateInput `json:"inputs"`
	// XML is the template's element as written, re-indented to the left
	// margin, ending with a newline.
	XML string `json:"xml"`
}

// ShowTemplate returns the template found by name, alias or type:subtype.
// An unknown name is an *Error of KindUsage holding an
// *UnknownTemplateError with up to three suggestions.
func (w *Workspace) ShowTemplate(name string) (*TemplateDetail, error) {
	reg := w.registry()
	t, ok := reg.Lookup(name)
	if !ok {
		return nil, &Error{Kind: KindUsage, Err: &UnknownTemplateError{Name: name, Suggestions: Suggest(reg, name)}}
	}
	out := &TemplateDetail{Source: t.Source(), Inputs: []TemplateInput{}, XML: t.XML}
	for i, e := range w.Templates.Entries {
		if e.Template == t {
			out.XML = dedentElement(e, out.XML)
			out.TemplateItem = itemOf(w.Templates.List()[i], t.Source())
			break
		}
	}
	if !strings.HasSuffix(out.XML, "\n") {
		out.XML += "\n"
	}
	if out.Name == "" { // a template of no loaded file, such as a defatom
		out.TemplateItem = TemplateItem{Name: t.Name, Type: t.Type, Subtype: t.Subtype, Description: t.Description, Scope: t.Scope.String(), Source: t.Source()}
	}
	for _, in := range t.Inputs {
		var def any
		if in.Default != nil {
			def = json.RawMessage(value.JSON(in.Default))
		}
		out.Inputs = append(out.Inputs, TemplateInput{Name: in.Name, Type: in.Type, Required: in.Required, Default: def, Description: in.Description})
	}
	return out, nil
}

// dedentElement removes from the continuation lines of a template's
// element the indentation of its first line, when the element starts on a
// line of its own (a <task> indented inside <templates>).
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

// TemplateMatch is one template matching a request (SPEC §10.5).
type TemplateMatch struct {
	Name  string
	Score float64
	Scope string
}

// MatchTemplates returns the templates matching text, best first (SPEC
// §10.5).
func (w *Workspace) MatchTemplates(text string) []TemplateMatch {
	var out []TemplateMatch
	for _, m := range w.registry().Match(text) {
		out = append(out, TemplateMatch{Name: m.Name, Score: m.Score, Scope: m.Scope})
	}
	return out
}

// TemplateDiagnostic is one problem found in a template file, as the
// --json output of `templates validate` gives it.
type TemplateDiagnostic struct {
	Position string `json:"position"`
	Severity string `json:"severity"`
	Message  string `json:"message"`
}

// Validation is the outcome of validating one template file.
type Validation struct {
	// OK is false when any diagnostic is an error.
	OK          bool
	Diagnostics []TemplateDiagnostic
	// Display is every diagnostic in the §4.7 format, one after another.
	Display string
}

// Validate validates the template file at path as ValidateFile does. The
// error is that of reading the file.
func (w *Workspace) Validate(path string) (Validation, error) {
	diags, err := w.ValidateFile(path)
	if err != nil {
		return Validation{}, err
	}
	v := Validation{OK: !templates.HasErrors(diags), Diagnostics: []TemplateDiagnostic{}}
	var b strings.Builder
	for _, d := range diags {
		v.Diagnostics = append(v.Diagnostics, TemplateDiagnostic{Position: d.Pos.String(), Severity: d.Severity, Message: d.Msg})
		b.WriteString(d.Display())
	}
	v.Display = b.String()
	return v, nil
}

// DiagnosticsText is the display of the diagnostics of loading the
// templates, errors and warnings, one after another; withSeverity writes
// "error:" or "warning:" after each position, as `evalrun check` does.
func (w *Workspace) DiagnosticsText(withSeverity bool) string {
	var b strings.Builder
	for _, d := range w.Diagnostics {
		if withSeverity {
			b.WriteString(d.DisplaySeverity())
		} else {
			b.WriteString(d.Display())
		}
	}
	return b.String()
}

// Templates returns the templates the run knows — every scope's and those
// defatom added — sorted by name.
func (e *Engine) Templates() []TemplateItem {
	ts := slices.Clone(e.reg.All())
	slices.SortFunc(ts, func(x, y *templates.Template) int { return strings.Compare(x.Name, y.Name) })
	out := make([]TemplateItem, len(ts))
	for i, t := range ts {
		var alias *string
		if t.Alias != "" {
			a := t.Alias
			alias = &a
		}
		out[i] = TemplateItem{Name: t.Name, Alias: alias, Type: t.Type, Subtype: t.Subtype, Description: t.Description,
			Scope: t.Scope.String(), Line: t.Line, Source: t.Source()}
	}
	return out
}
