package jsonschema

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/evalrun/evalrun/value"
)

// FuzzCompileValidate compiles arbitrary schema JSON and validates arbitrary
// instance JSON with it. Nothing may panic; compile problems and violations
// must point into the schema and the instance; violations come sorted and
// agree with Valid. The seeds (run by go test) are every case of
// TestKeywords and the schemas of the built-in templates and of SPEC §20.
func FuzzCompileValidate(f *testing.F) {
	for _, cases := range keywordCases {
		for _, c := range cases {
			f.Add(c.schema, c.doc)
		}
	}
	files, _ := filepath.Glob("../builtin/schemas/*.schema.json")
	spec20, _ := filepath.Glob("../testdata/spec20/*.schema.json")
	for _, path := range append(files, spec20...) {
		data, err := os.ReadFile(path)
		if err != nil {
			f.Fatal(err)
		}
		for _, doc := range []string{`{}`, `[]`, `null`, `{"instructions": "i", "files": ["a", 1], "status": "REVISE", "verdict": "RETRY",
			"decision": "CONTINUE", "success": false, "next_plan": {"files": "x"}, "matches": [{"id": 1}], "issues": [{}]}`} {
			f.Add(string(data), doc)
		}
	}
	f.Add(`{"$defs": {"a": {"$ref": "#/$defs/b"}, "b": {"$ref": "#/$defs/a"}}, "$ref": "#/$defs/a"}`, `1`)
	f.Add(`{"$ref": "#/$defs/%zz"}`, `1`)
	f.Add(`{"patternProperties": {"(": {}}}`, `{}`)
	f.Add(`{"oneOf": [{"$ref": "#/oneOf/1"}, {"items": {"$ref": "#/oneOf/0"}}]}`, `[[[[1]]]]`)
	f.Add(`{"multipleOf": 5e-324}`, `1.7976931348623157e308`)
	f.Add(`{"multipleOf": 1e308, "minimum": -9223372036854775808}`, `-9223372036854775808`)
	f.Fuzz(func(t *testing.T, schemaText, docText string) {
		doc, err := value.ParseJSON(schemaText)
		if err != nil {
			return
		}
		s, err := Compile(doc)
		if err != nil {
			ce, ok := err.(*CompileError)
			if !ok || len(ce.Problems) == 0 {
				t.Fatalf("compile error %T %v", err, err)
			}
			for _, p := range ce.Problems {
				if _, _, e := lookup(doc, p.Pointer); e != "" || p.Message == "" {
					t.Fatalf("problem %q at a pointer not in the schema: %s", p, e)
				}
			}
			return
		}
		v, err := value.ParseJSON(docText)
		if err != nil {
			return
		}
		vs := s.Validate(v)
		if len(vs) == 1 && strings.HasPrefix(vs[0].Message, "validation stopped: ") {
			return
		}
		if !slices.IsSortedFunc(vs, func(a, b Violation) int {
			if c := comparePointers(a.Pointer, b.Pointer); c != 0 {
				return c
			}
			return strings.Compare(a.Message, b.Message)
		}) {
			t.Fatalf("violations not sorted: %v", vs)
		}
		for _, x := range vs {
			if _, _, e := lookup(v, x.Pointer); e != "" || x.Message == "" {
				t.Fatalf("violation %q at a pointer not in the value: %s", x, e)
			}
		}
		if valid := s.Valid(v); valid != (len(vs) == 0) {
			t.Fatalf("Valid = %v but Validate = %v", valid, vs)
		}
	})
}
