package templates

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/evalrun/evalrun/value"
)

// FuzzLoadXML feeds arbitrary bytes to the template file parser, seeded with
// every XML file under testdata and the built-in templates. Parsing must
// never panic, every diagnostic must point into the file, and every template
// returned must be complete and renderable.
func FuzzLoadXML(f *testing.F) {
	_ = filepath.WalkDir("testdata", func(path string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(path, ".xml") {
			if data, err := os.ReadFile(path); err == nil {
				f.Add(data)
			}
		}
		return nil
	})
	for _, text := range BuiltinXML() {
		f.Add([]byte(text))
	}
	f.Add([]byte(`<task name="a" type="atomic"><description>d</description><instructions>{{x | default("<&>")}}</instructions></task>`))
	f.Add([]byte("<tasks><task name=\"a\" type=\"atomic\"><description>R&D <0-10> a<b</description><instructions><![CDATA[{{ y }}]]> &amp; {{z</instructions></task></tasks>"))
	f.Add([]byte("\uFEFF<?xml version=\"1.0\"?>\r\n<!DOCTYPE task>\r\n<task name='a' type='atomic'>\r\n<description>d</description><instructions>\r\n  {{ a.0.b | join(\", \") }}\r\n</instructions></task>"))
	schemas := NewSchemas()
	if s, diags := ParseSchemaFile("ReviewResult.schema.json", []byte(`{"type": "object"}`)); diags == nil {
		schemas.Add(s)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		ts, diags := ParseFile("f.xml", data, ScopeLocal, WithSchemas(schemas),
			WithKnownTools(func(n string) bool { return n != "bad" }),
			WithKnownRoles(func(n string) bool { return n == "reviewer" }))
		for _, d := range diags {
			if !d.Pos.IsValid() || d.Pos.Off < 0 || d.Pos.Off > len(data) {
				t.Fatalf("diagnostic outside the file: %d of %d: %s", d.Pos.Off, len(data), d.Msg)
			}
			if d.Msg == "" || (d.Severity != SeverityError && d.Severity != SeverityWarning) {
				t.Fatalf("bad diagnostic %+v", d)
			}
			_ = d.Display()
		}
		if len(ts) > 0 && !utf8.Valid(data) {
			t.Fatalf("templates from invalid UTF-8")
		}
		for _, tm := range ts {
			if !ValidName(tm.Name) || tm.Description == "" || tm.Instructions == "" || tm.Type != "atomic" {
				t.Fatalf("incomplete template %+v", tm)
			}
			if tm.Line < 1 || tm.Col < 1 || !strings.HasPrefix(tm.XML, "<") {
				t.Fatalf("bad position %d:%d or XML %q", tm.Line, tm.Col, tm.XML)
			}
			parts, err := tm.Parts()
			if err != nil {
				t.Fatalf("Parts: %v", err)
			}
			_, _ = parts.Instructions.Render(func(string) (value.Value, bool) { return nil, false })
			if of := tm.OutputFormat; of != nil && (of.Schema != "" || of.InlineSchema != "") && of.Compiled == nil {
				t.Fatalf("unresolved schema %+v", of)
			}
		}
	})
}
