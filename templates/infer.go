package templates

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/evalrun/evalrun/internal/suggest"
)

// builtinNames are the built-in placeholders of SPEC §12.3.
var builtinNames = []string{"instructions", "date", "model", "file", "file_contents", "command", "command_output"}

// IsBuiltin reports whether name is a built-in placeholder (SPEC §12.3).
func IsBuiltin(name string) bool { return slices.Contains(builtinNames, name) }

// BuiltinNames returns the names of the built-in placeholders.
func BuiltinNames() []string { return append([]string(nil), builtinNames...) }

// Parts holds the compiled placeholder texts of a template. Absent texts are
// empty Texts, never nil. A Parts is immutable and safe for concurrent use.
type Parts struct {
	Instructions *Text
	System       *Text
	Command      *Text   // the <command> text
	File         *Text   // the <file> path
	Paths        []*Text // the <path> elements of <file_paths>
	PathsCommand *Text   // the <command> of <file_paths source="command">
	ContextQuery *Text   // the <context_query> of <file_paths>
	roots        []Root
}

// texts returns the texts in the order in which references are listed:
// instructions, system, then the other template texts (SPEC §11.2).
func (p *Parts) texts() []*Text {
	ts := make([]*Text, 0, 6+len(p.Paths))
	ts = append(ts, p.Instructions, p.System, p.Command, p.File)
	ts = append(ts, p.Paths...)
	return append(ts, p.PathsCommand, p.ContextQuery)
}

// Roots returns the root names referenced by all texts of the template, in
// order of first appearance in instructions, system, command, file and
// file_paths. OnlyDefault is true when every reference in every text has a
// default filter.
func (p *Parts) Roots() []Root { return append([]Root(nil), p.roots...) }

// Missing returns the references of all texts that lookup cannot resolve
// (SPEC §11.2 rule 5), in order of first appearance in instructions, system
// and then the other texts, without duplicates.
func (p *Parts) Missing(lookup Lookup) []string {
	var missing []string
	for _, t := range p.texts() {
		for _, m := range t.Missing(lookup) {
			missing = addMissing(missing, m)
		}
	}
	return missing
}

// Parts returns the template's compiled texts: those cached by Infer, or,
// for a template Infer has not seen, freshly compiled ones (an ErrorList
// when a placeholder is malformed).
func (t *Template) Parts() (*Parts, error) {
	if t.parts != nil {
		return t.parts, nil
	}
	p, errs := compile(t)
	if len(errs) > 0 {
		return nil, errs
	}
	return p, nil
}

// compile parses every text of t that may hold placeholders.
func compile(t *Template) (*Parts, ErrorList) {
	var errs ErrorList
	parse := func(field string, index int, src string) *Text {
		txt, err := Parse(src)
		if err != nil {
			var list ErrorList
			if errors.As(err, &list) {
				for _, e := range list {
					e.Field = field
					e.Index = index
				}
			}
			errs = append(errs, list...)
		}
		return txt
	}
	p := &Parts{
		Instructions: parse("instructions", 0, t.Instructions),
		System:       parse("system", 0, t.System),
		File:         parse("file", 0, t.File),
		Command:      &Text{},
		PathsCommand: &Text{},
		ContextQuery: &Text{},
	}
	if t.Command != nil {
		p.Command = parse("command", 0, t.Command.Text)
	}
	if t.FilePaths != nil {
		for i, path := range t.FilePaths.Paths {
			p.Paths = append(p.Paths, parse("path", i, path))
		}
		p.PathsCommand = parse("paths_command", 0, t.FilePaths.Command)
		p.ContextQuery = parse("context_query", 0, t.FilePaths.ContextQuery)
	}
	for _, txt := range p.texts() {
		for _, r := range txt.roots {
			p.roots = addRoot(p.roots, r.Name, r.OnlyDefault)
		}
	}
	return p, errs
}

// inputNames returns the names of t's inputs in declaration order.
func inputNames(t *Template) []string {
	names := make([]string, len(t.Inputs))
	for i, in := range t.Inputs {
		names[i] = in.Name
	}
	return names
}

// Infer validates and compiles the placeholders of t and caches the result
// for execution (SPEC §9.3, §9.4). Every placeholder must be well formed.
// When t.InputsDeclared is true every placeholder root must name a declared
// input or a built-in; otherwise t.Inputs is replaced by the inferred inputs:
// the non-built-in roots in order of first appearance, of type any, required
// unless every reference has a default filter. Errors are returned as an
// ErrorList holding every problem found, each naming its field.
func Infer(t *Template) error {
	p, errs := compile(t)
	if t.InputsDeclared {
		fields := []string{"instructions", "system", "command", "file"}
		for i, txt := range p.texts() {
			field, index := "context_query", 0
			switch {
			case i < len(fields):
				field = fields[i]
			case i < len(fields)+len(p.Paths):
				field, index = "path", i-len(fields)
			case txt == p.PathsCommand:
				field = "paths_command"
			}
			for _, c := range txt.chunks {
				if c.ph == nil || IsBuiltin(c.ph.root) {
					continue
				}
				if _, ok := t.InputNamed(c.ph.root); ok {
					continue
				}
				msg := "unknown placeholder " + c.ph.src + ": not a declared input or built-in"
				if near := suggest.Near(c.ph.root, inputNames(t)); near != "" {
					msg += " (did you mean '" + near + "'?)"
				}
				e := newError(txt.src, c.ph.off, c.ph.src, msg)
				e.Field = field
				e.Index = index
				errs = append(errs, e)
			}
		}
	}
	if len(errs) > 0 {
		return errs
	}
	if !t.InputsDeclared {
		t.Inputs = t.Inputs[:0:0]
		for _, r := range p.roots {
			if IsBuiltin(r.Name) {
				continue
			}
			t.Inputs = append(t.Inputs, Input{Name: r.Name, Type: TypeAny, Required: !r.OnlyDefault})
		}
	}
	t.parts = p
	return nil
}

// The canonical input type names (SPEC §7.14).
const (
	TypeString = "string"
	TypeInt    = "int"
	TypeFloat  = "float"
	TypeNumber = "number"
	TypeBool   = "bool"
	TypeList   = "list"
	TypeDict   = "dict"
	TypeAny    = "any"
)

// ErrUnknownType is returned (wrapped) by NormalizeType for a name that is
// not a type.
var ErrUnknownType = errors.New("unknown type")

// NormalizeType maps a type name of SPEC §7.14, including the aliases str,
// integer, boolean, object and array, to its canonical name.
func NormalizeType(name string) (string, error) {
	switch name {
	case "string", "str":
		return TypeString, nil
	case "int", "integer":
		return TypeInt, nil
	case "float":
		return TypeFloat, nil
	case "number":
		return TypeNumber, nil
	case "bool", "boolean":
		return TypeBool, nil
	case "list", "array":
		return TypeList, nil
	case "dict", "object":
		return TypeDict, nil
	case "any":
		return TypeAny, nil
	}
	return "", fmt.Errorf("%w '%s'", ErrUnknownType, name)
}

// NamePattern is the pattern template names and aliases must match,
// ignoring case (SPEC §9.4).
const NamePattern = `^[a-z0-9]+([-_:/.][a-z0-9]+)*$`

// ValidName reports whether s matches NamePattern, ignoring case:
// alphanumeric runs separated by single '-', '_', ':', '/' or '.'.
func ValidName(s string) bool { return validRuns(s, "-_:/.") }

// ValidSubtype reports whether s matches ^[a-z0-9]+([-_][a-z0-9]+)*$
// (SPEC §9.2); unlike a name, a subtype must be lower case, since it selects
// the context defaults of SPEC §13.1 exactly.
func ValidSubtype(s string) bool { return s == strings.ToLower(s) && validRuns(s, "-_") }

func validRuns(s, seps string) bool {
	if s == "" {
		return false
	}
	prevSep := true // at the start a separator is not allowed
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9':
			prevSep = false
		case strings.IndexByte(seps, c) >= 0:
			if prevSep {
				return false
			}
			prevSep = true
		default:
			return false
		}
	}
	return !prevSep
}

// ValidInputName reports whether s matches ^[A-Za-z_][A-Za-z0-9_-]*$, the
// pattern of input names and placeholder roots (SPEC §9.4, §12.1).
func ValidInputName(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c == '_':
		case i > 0 && (c >= '0' && c <= '9' || c == '-'):
		default:
			return false
		}
	}
	return true
}
