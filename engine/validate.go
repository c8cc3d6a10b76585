package engine

import (
	"os"
	"path/filepath"
	"strings"
	"unicode/utf8"

	"github.com/evalrun/evalrun/sexp"
	"github.com/evalrun/evalrun/templates"
)

// HiddenTemplates returns a warning for every template of the global,
// local or dir scope, not shadowed by a later scope, whose name a special
// form, primitive or tool hides (SPEC §10.1, §17.4), positioned at its
// <task> element.
func (w *Workspace) HiddenTemplates() []templates.Diagnostic {
	var out []templates.Diagnostic
	for _, e := range w.Templates.Entries {
		t := e.Template
		if t.Scope == templates.ScopeBuiltin || e.ShadowedBy != nil {
			continue
		}
		if msg := HiddenWarning(t.Name, w.tools.HasTool); msg != "" {
			out = append(out, templates.Diagnostic{Pos: templatePos(e), Severity: templates.SeverityWarning, Msg: msg})
		}
	}
	return out
}

// ValidateFile validates the template file at path (relative to WorkDir)
// as a file of the dir scope (SPEC §9.4), with the schemas of the
// workspace's template directories and those beside the file, the tools
// templates may name and the configured roles. The diagnostics, errors
// and warnings, name the file as path is written; the error is that of
// reading the file.
func (w *Workspace) ValidateFile(path string) ([]templates.Diagnostic, error) {
	data, err := os.ReadFile(absTo(w.WorkDir, path))
	if err != nil {
		return nil, err
	}
	schemas := templates.NewSchemas()
	for _, s := range w.Templates.Schemas.Files() {
		schemas.Add(s)
	}
	var diags []templates.Diagnostic
	dir := filepath.Dir(path)
	siblings, _ := filepath.Glob(filepath.Join(absTo(w.WorkDir, dir), "*"+templates.SchemaSuffix))
	for _, abs := range siblings {
		sd, err := os.ReadFile(abs)
		if err != nil {
			continue
		}
		s, ds := templates.ParseSchemaFile(filepath.Join(dir, filepath.Base(abs)), sd)
		diags = append(diags, ds...)
		if s != nil {
			schemas.Add(s)
		}
	}
	_, ds := templates.ParseFile(path, data, templates.ScopeDir,
		templates.WithSchemas(schemas),
		templates.WithKnownTools(w.tools.HasTool),
		templates.WithKnownRoles(w.Config.HasRole))
	return append(diags, ds...), nil
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
