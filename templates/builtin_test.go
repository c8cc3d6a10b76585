package templates

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/evalrun/evalrun/value"
)

// TestBuiltinTemplates checks the built-in templates of SPEC §10.6: they
// pass validation and have the declared shape.
func TestBuiltinTemplates(t *testing.T) {
	for name, text := range BuiltinXML() {
		ts, diags := ParseFile(name, []byte(text), ScopeBuiltin,
			WithKnownTools(func(string) bool { return false }), WithKnownRoles(func(string) bool { return false }))
		if len(diags) > 0 {
			for _, d := range diags {
				t.Error(d.Display())
			}
		}
		if len(ts) != 2 {
			t.Fatalf("%s: %d templates", name, len(ts))
		}
	}
	ts := Builtin()
	type shape struct {
		Name, Subtype, Output, Schema string
		Inputs                        []string
		Path                          string
		Scope                         Scope
	}
	var got []shape
	for _, tm := range ts {
		s := shape{Name: tm.Name, Subtype: tm.Subtype, Output: tm.OutputFormat.Type, Schema: tm.OutputFormat.Schema, Path: tm.Path, Scope: tm.Scope}
		if tm.OutputFormat.Compiled == nil || tm.OutputFormat.Compiled.Origin != SchemaBuiltin {
			t.Errorf("%s: schema not resolved to the built-in", tm.Name)
		}
		for _, in := range tm.Inputs {
			s.Inputs = append(s.Inputs, in.Name+":"+in.Type)
		}
		got = append(got, s)
		if tm.Source() != "builtin" {
			t.Errorf("%s: Source() = %q", tm.Name, tm.Source())
		}
	}
	want := []shape{
		{"internal:associative_matching_content", "associative_matching", "json", "AssociativeMatchResult",
			[]string{"context_input:dict", "file_contents:string"}, "", ScopeBuiltin},
		{"internal:associative_matching_metadata", "associative_matching", "json", "AssociativeMatchResult",
			[]string{"context_input:dict", "metadata_snippet:string"}, "", ScopeBuiltin},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("built-in templates (-want +got):\n%s", diff)
	}

	// Rendering the content template with a query and file blocks.
	files := "<file path=\"internal/http/retry.go\">\npackage http\n</file>"
	inputs := value.DictOf("context_input", value.DictOf("query", value.String("retry policy")), "file_contents", value.String(files))
	parts, err := ts[0].Parts()
	if err != nil {
		t.Fatal(err)
	}
	text, missing := parts.Instructions.Render(func(root string) (value.Value, bool) { return inputs.Get(root) })
	if missing != nil {
		t.Errorf("missing %v", missing)
	}
	for _, want := range []string{"Query: retry policy", `<file path="…">`, "relevance_score", "one sentence", files} {
		if !strings.Contains(text, want) {
			t.Errorf("rendered prompt lacks %q:\n%s", want, text)
		}
	}
	if strings.HasPrefix(text, " ") || strings.Contains(text, "\n      ") {
		t.Errorf("prompt not dedented:\n%s", text)
	}
	// The example answer in the prompt satisfies the schema.
	answer := `{"context_summary": "one", "matches": [{"id": "path/to/file", "relevance_score": 0.9, "content": "x"}]}`
	if v := ts[0].OutputFormat.Compiled.Validate(mustJSON(t, answer)); v != nil {
		t.Errorf("example answer: %v", v)
	}
}
