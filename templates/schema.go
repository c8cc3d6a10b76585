package templates

import (
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"sync"

	"github.com/evalrun/evalrun/sexp"
	"github.com/evalrun/evalrun/templates/jsonschema"
	"github.com/evalrun/evalrun/value"
)

// Schema is a compiled JSON Schema for the structured output of a template
// (SPEC §9.5, §14.8). A Schema is immutable and safe for concurrent use.
type Schema struct {
	// Name is the schema's name: the file or built-in name (ReviewResult,
	// DevelopmentPlan), the shorthand (string[]), or "" for an inline schema.
	Name string
	// Origin says where the schema came from: "inline", "builtin",
	// "shorthand", or the path of its NAME.schema.json file.
	Origin string
	// Text is the schema's JSON text.
	Text string

	compiled *jsonschema.Schema
}

// The origins of a Schema that does not come from a file.
const (
	SchemaInline    = "inline"
	SchemaBuiltin   = "builtin"
	SchemaShorthand = "shorthand"
)

// SchemaSuffix ends the names of the schema files found in template
// directories: NAME.schema.json (SPEC §9.1).
const SchemaSuffix = ".schema.json"

// CompileSchema compiles the JSON Schema 2020-12 text under name and origin
// with the package jsonschema. A JSON syntax error is a *JSONError
// (wrapped), whose Offset locates it in text; problems of the schema are
// "invalid JSON Schema: POINTER: message; ..." with pointers into the
// schema. References ($ref) may only point inside the schema.
func CompileSchema(name, origin, text string) (*Schema, error) {
	doc, err := value.ParseJSON(text)
	if err != nil {
		if je := jsonSyntaxError(text); je != nil {
			return nil, fmt.Errorf("invalid JSON: %w", je)
		}
		return nil, fmt.Errorf("invalid JSON: %w", err)
	}
	compiled, err := jsonschema.Compile(doc)
	if err != nil {
		return nil, errors.New("invalid JSON Schema: " + err.Error())
	}
	return &Schema{Name: name, Origin: origin, Text: text, compiled: compiled}, nil
}

// JSONError is a JSON syntax error at a byte offset of the text.
type JSONError struct {
	// Offset is the byte offset of the offending character (the length of
	// the text when it ended too early).
	Offset int
	// Msg is the message of encoding/json.
	Msg string
}

// Error implements error.
func (e *JSONError) Error() string { return e.Msg }

// jsonSyntaxError locates the syntax error of text, which value.ParseJSON
// refused; nil when encoding/json finds none (a number out of range).
func jsonSyntaxError(text string) *JSONError {
	dec := json.NewDecoder(strings.NewReader(text))
	var raw json.RawMessage
	if err := dec.Decode(&raw); err != nil {
		var se *json.SyntaxError
		switch {
		case err == io.EOF || err == io.ErrUnexpectedEOF:
			return &JSONError{Offset: len(text), Msg: "unexpected end of JSON input"}
		case errors.As(err, &se):
			return &JSONError{Offset: max(int(se.Offset)-1, 0), Msg: se.Error()}
		}
		return &JSONError{Msg: err.Error()}
	}
	off := int(dec.InputOffset())
	if _, err := dec.Token(); err != io.EOF {
		rest := text[off:]
		off += len(rest) - len(strings.TrimLeft(rest, " \t\r\n"))
		return &JSONError{Offset: off, Msg: "invalid character after top-level value"}
	}
	return nil
}

// Validate checks v against the schema and returns every violation as a
// "JSON-POINTER: message" string (SPEC §14.8), sorted by pointer and then
// message; nil means v is valid. The pointer of the whole value is "/". v
// is read with the JSON mapping of SPEC §5.6 (symbols are strings).
func (s *Schema) Validate(v value.Value) []string {
	vs := s.compiled.Validate(v)
	if len(vs) == 0 {
		return nil
	}
	out := make([]string, len(vs))
	for i, x := range vs {
		out[i] = x.String()
	}
	return out
}

//go:embed builtin/schemas/*.schema.json
var builtinSchemaFS embed.FS

// builtinSchemaNames are the built-in schemas of SPEC §9.5, in the order of
// its table.
var builtinSchemaNames = []string{
	"AssociativeMatchResult", "DevelopmentPlan", "FeedbackResult",
	"CombinedAnalysisResult", "StructuredAnalysisResult", "ControllerAnalysisResult",
}

// shorthandSchemas are the shorthand schema names of SPEC §9.5.
var shorthandSchemas = map[string]string{
	"object":   `{"type": "object"}`,
	"array":    `{"type": "array"}`,
	"string[]": `{"type": "array", "items": {"type": "string"}}`,
	"number":   `{"type": "number"}`,
	"boolean":  `{"type": "boolean"}`,
}

// builtinSchemas compiles the built-in and shorthand schemas once.
var builtinSchemas = sync.OnceValue(func() map[string]*Schema {
	m := map[string]*Schema{}
	for _, name := range builtinSchemaNames {
		data, err := builtinSchemaFS.ReadFile("builtin/schemas/" + name + SchemaSuffix)
		if err != nil {
			panic("templates: missing built-in schema " + name)
		}
		s, err := CompileSchema(name, SchemaBuiltin, string(data))
		if err != nil {
			panic("templates: built-in schema " + name + ": " + err.Error())
		}
		m[name] = s
	}
	for name, text := range shorthandSchemas {
		s, err := CompileSchema(name, SchemaShorthand, text)
		if err != nil {
			panic("templates: shorthand schema " + name + ": " + err.Error())
		}
		m[name] = s
	}
	return m
})

// BuiltinSchemaNames returns the names of the built-in schemas of SPEC §9.5,
// in the order of its table.
func BuiltinSchemaNames() []string { return slices.Clone(builtinSchemaNames) }

// ShorthandSchemaNames returns the shorthand schema names of SPEC §9.5:
// array, boolean, number, object, string[].
func ShorthandSchemaNames() []string {
	names := make([]string, 0, len(shorthandSchemas))
	for n := range shorthandSchemas {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}

// Schemas resolves schema names (SPEC §9.5): NAME.schema.json files found in
// template directories (a later Add wins), then the built-in schemas, then
// the shorthands. The zero value and nil both resolve only built-ins and
// shorthands. A Schemas must not be changed while it is used concurrently.
type Schemas struct {
	files map[string]*Schema
}

// NewSchemas returns a Schemas that knows only the built-in and shorthand
// schemas.
func NewSchemas() *Schemas { return &Schemas{} }

// Add registers a schema file's schema under its Name, replacing one of the
// same name.
func (s *Schemas) Add(sch *Schema) {
	if s.files == nil {
		s.files = map[string]*Schema{}
	}
	s.files[sch.Name] = sch
}

// Files returns the schemas added with Add, sorted by name.
func (s *Schemas) Files() []*Schema {
	if s == nil {
		return nil
	}
	out := make([]*Schema, 0, len(s.files))
	for _, sch := range s.files {
		out = append(out, sch)
	}
	slices.SortFunc(out, func(a, b *Schema) int { return strings.Compare(a.Name, b.Name) })
	return out
}

// ErrUnknownSchema is returned (wrapped) by Resolve for a name that is no
// schema file, built-in schema or shorthand.
var ErrUnknownSchema = errors.New("unknown schema")

// SchemaBaseName returns the name a schema name is looked up by: the last
// dot-separated segment (pkg.models.DevelopmentPlan → DevelopmentPlan).
func SchemaBaseName(name string) string {
	if i := strings.LastIndexByte(name, '.'); i >= 0 {
		return name[i+1:]
	}
	return name
}

// Resolve returns the schema called name (SPEC §9.5): a dotted name uses its
// last segment; a schema file wins over a built-in schema, which wins over a
// shorthand.
func (s *Schemas) Resolve(name string) (*Schema, error) {
	base := SchemaBaseName(name)
	if s != nil {
		if sch, ok := s.files[base]; ok {
			return sch, nil
		}
	}
	if sch, ok := builtinSchemas()[base]; ok {
		return sch, nil
	}
	return nil, fmt.Errorf("%w '%s': no %s%s in a template directory, built-in schema or shorthand",
		ErrUnknownSchema, name, base, SchemaSuffix)
}

// ParseSchemaFile compiles the text of a NAME.schema.json file found at
// path; the schema's name is the file name without the suffix. A JSON syntax
// error is positioned at the offending character, any other problem at 1:1.
func ParseSchemaFile(path string, data []byte) (*Schema, []Diagnostic) {
	base := path[strings.LastIndexAny(path, `/\`)+1:]
	name := strings.TrimSuffix(base, SchemaSuffix)
	src := sexp.NewSource(path, string(data))
	sch, err := CompileSchema(name, path, src.Text)
	if err != nil {
		off := 0
		var je *JSONError
		if errors.As(err, &je) {
			off = je.Offset
		}
		return nil, []Diagnostic{{Pos: sexp.Pos{Src: src, Off: off}, Severity: SeverityError, Msg: err.Error()}}
	}
	return sch, nil
}
