package templates

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/evalrun/evalrun/value"
)

func mustJSON(t *testing.T, text string) value.Value {
	t.Helper()
	v, err := value.ParseJSON(text)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// TestBuiltinSchemas validates sample outputs against the built-in schemas
// of SPEC §9.5, including their conditional requirements.
func TestBuiltinSchemas(t *testing.T) {
	tests := []struct {
		schema, doc string
		want        []string
	}{
		{"AssociativeMatchResult", `{"context_summary": "2 files", "matches": [{"id": "a.go", "relevance_score": 0.5, "content": "x"}]}`, nil},
		{"AssociativeMatchResult", `{"context_summary": "none", "matches": [], "error": "boom"}`, nil},
		{"AssociativeMatchResult", `{"matches": [{"id": 3, "relevance_score": 1.5}, {"relevance_score": 0}]}`, []string{
			"/: missing required property 'context_summary'",
			"/matches/0/id: got number, want string",
			"/matches/0/relevance_score: 1.5 is more than the maximum 1",
			"/matches/1: missing required property 'id'",
		}},
		{"DevelopmentPlan", `{"instructions": "do it", "files": ["a.go"], "test_command": "go test"}`, nil},
		{"DevelopmentPlan", `{"instructions": "do it", "files": "a.go"}`, []string{"/files: got string, want array"}},
		{"DevelopmentPlan", `{"instructions": 1, "files": ["a.go", 2], "test_command": null, "extra": true}`, []string{
			"/files/1: got number, want string",
			"/instructions: got number, want string",
		}},
		{"DevelopmentPlan", `{}`, []string{"/: missing required property 'files'", "/: missing required property 'instructions'"}},
		{"DevelopmentPlan", `"do it"`, []string{"/: got string, want object"}},
		{"AssociativeMatchResult", `{"context_summary": "s", "matches": [{"id": "a", "relevance_score": -0.1, "content": 3}], "error": false}`, []string{
			"/error: got boolean, want string or null",
			"/matches/0/content: got number, want string or null",
			"/matches/0/relevance_score: -0.1 is less than the minimum 0",
		}},
		{"FeedbackResult", `{"status": "SUCCESS"}`, nil},
		{"FeedbackResult", `{"status": "SUCCESS", "next_prompt": null}`, nil},
		{"FeedbackResult", `{"status": "REVISE", "next_prompt": "try again"}`, nil},
		{"FeedbackResult", `{"status": "REVISE"}`, []string{"/: missing required property 'next_prompt'"}},
		{"FeedbackResult", `{"status": "REVISE", "next_prompt": null}`, []string{"/next_prompt: got null, want string"}},
		{"FeedbackResult", `{"status": "MAYBE"}`, []string{"/status: value must be one of \"SUCCESS\", \"REVISE\", \"ABORT\""}},
		{"CombinedAnalysisResult", `{"verdict": "RETRY", "message": "m", "next_prompt": "p", "next_files": ["x"]}`, nil},
		{"CombinedAnalysisResult", `{"verdict": "RETRY", "message": "m"}`, []string{"/: missing required property 'next_prompt'"}},
		{"CombinedAnalysisResult", `{"verdict": "FAILURE"}`, []string{"/: missing required property 'message'"}},
		{"StructuredAnalysisResult", `{"success": true, "analysis": "a"}`, nil},
		{"StructuredAnalysisResult", `{"success": false, "analysis": "a"}`, []string{"/: missing required property 'next_input'"}},
		{"StructuredAnalysisResult", `{"success": false, "analysis": "a", "next_input": "n", "new_files": ["f"]}`, nil},
		{"StructuredAnalysisResult", `{"success": "no", "analysis": "a", "new_files": "f"}`, []string{
			"/new_files: got string, want array or null",
			"/success: got string, want boolean",
		}},
		{"StructuredAnalysisResult", `{"success": false, "analysis": "a", "next_input": null}`, []string{"/next_input: got null, want string"}},
		{"CombinedAnalysisResult", `{"verdict": "RETRY", "message": "m", "next_prompt": "p", "next_files": [1]}`, []string{"/next_files/0: got number, want string"}},
		{"CombinedAnalysisResult", `{"verdict": "retry", "message": "m"}`, []string{`/verdict: value must be one of "SUCCESS", "RETRY", "FAILURE"`}},
		{"ControllerAnalysisResult", `{"decision": "STOP_SUCCESS", "analysis": "done"}`, nil},
		{"ControllerAnalysisResult", `{"decision": "CONTINUE", "analysis": "more"}`, []string{"/: missing required property 'next_plan'"}},
		{"ControllerAnalysisResult", `{"decision": "CONTINUE", "analysis": "more", "next_plan": {"instructions": "x", "files": []}}`, nil},
		{"ControllerAnalysisResult", `{"decision": "STOP_FAILURE", "analysis": "a", "next_plan": null}`, nil},
		{"ControllerAnalysisResult", `{"decision": "CONTINUE", "analysis": "a", "next_plan": null}`, []string{"/next_plan: got null, want object"}},
		{"ControllerAnalysisResult", `{"decision": "STOP_SUCCESS", "analysis": "a", "next_plan": "p"}`, []string{"/next_plan: got string, want object or null"}},
		{"ControllerAnalysisResult", `{"decision": "CONTINUE", "analysis": "more", "next_plan": {"files": [1]}}`, []string{
			"/next_plan: missing required property 'instructions'",
			"/next_plan/files/0: got number, want string",
		}},
	}
	for _, tt := range tests {
		t.Run(tt.schema+" "+tt.doc, func(t *testing.T) {
			sch, err := NewSchemas().Resolve(tt.schema)
			if err != nil {
				t.Fatal(err)
			}
			if sch.Origin != SchemaBuiltin || sch.Name != tt.schema {
				t.Errorf("origin %q name %q", sch.Origin, sch.Name)
			}
			got := sch.Validate(mustJSON(t, tt.doc))
			if diff := cmp.Diff(tt.want, got, cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("Validate (-want +got):\n%s", diff)
			}
		})
	}
}

// TestSpec20Schemas validates answers against the schemas of the SPEC §20
// examples: the ReviewResult file of §20.1 and the inline schema of
// plan/generate in §20.4.
func TestSpec20Schemas(t *testing.T) {
	set, diags := Load(LoadOptions{
		Sources:    Sources{Local: "testdata/spec20"},
		KnownRoles: func(role string) bool { return role == "reviewer" },
		NoBuiltin:  true,
	})
	if len(diags) > 0 {
		t.Fatal(diagLines(diags))
	}
	tests := []struct {
		template, doc string
		want          []string
	}{
		{"review/git-diff", `{"verdict": "approve", "issues": []}`, nil},
		{"review/git-diff", `{"verdict": "changes", "issues": [{"file": "a.go", "line": 3, "comment": "nil map"}]}`, nil},
		{"review/git-diff", `{"verdict": "maybe"}`, []string{
			"/: missing required property 'issues'",
			`/verdict: value must be one of "approve", "changes"`,
		}},
		{"review/git-diff", `{"verdict": "changes", "issues": [{"file": "a.go"}, "b.go", {"comment": "c"}]}`, []string{
			"/issues/0: missing required property 'comment'",
			"/issues/1: got string, want object",
			"/issues/2: missing required property 'file'",
		}},
		{"review/git-diff", `["approve"]`, []string{"/: got array, want object"}},
		{"plan/generate", `{"summary": "s", "steps": [{"title": "t"}, {"title": "u"}]}`, nil},
		{"plan/generate", `{"summary": "s", "steps": [1, 2, 3, 4, 5]}`, nil},
		{"plan/generate", `{"steps": [1, 2, 3, 4, 5, 6, 7]}`, []string{
			"/: missing required property 'summary'",
			"/steps: array has 7 items, more than the maximum 5",
		}},
		{"plan/generate", `{"summary": "s", "steps": {"1": "a"}}`, []string{"/steps: got object, want array"}},
	}
	for _, tt := range tests {
		tm, ok := set.Lookup(tt.template)
		if !ok || tm.OutputFormat == nil || tm.OutputFormat.Compiled == nil {
			t.Fatalf("%s: no compiled schema", tt.template)
		}
		got := tm.OutputFormat.Compiled.Validate(mustJSON(t, tt.doc))
		if diff := cmp.Diff(tt.want, got, cmpopts.EquateEmpty()); diff != "" {
			t.Errorf("%s %s (-want +got):\n%s", tt.template, tt.doc, diff)
		}
	}
}

func TestShorthandAndDottedSchemas(t *testing.T) {
	tests := []struct {
		name, doc string
		valid     bool
	}{
		{"object", `{}`, true},
		{"object", `[]`, false},
		{"array", `[1]`, true},
		{"string[]", `["a", "b"]`, true},
		{"string[]", `["a", 1]`, false},
		{"number", `1.5`, true},
		{"number", `"1"`, false},
		{"boolean", `false`, true},
		{"pkg.models.DevelopmentPlan", `{"instructions": "i", "files": []}`, true},
		{"pkg.models.DevelopmentPlan", `{}`, false},
	}
	for _, tt := range tests {
		sch, err := NewSchemas().Resolve(tt.name)
		if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		if got := sch.Validate(mustJSON(t, tt.doc)) == nil; got != tt.valid {
			t.Errorf("%s %s: valid = %v, want %v", tt.name, tt.doc, got, tt.valid)
		}
	}
	var nilSchemas *Schemas
	if _, err := nilSchemas.Resolve("Nope"); !errors.Is(err, ErrUnknownSchema) ||
		err.Error() != "unknown schema 'Nope': no Nope.schema.json in a template directory, built-in schema or shorthand" {
		t.Errorf("Resolve(Nope) = %v", err)
	}
}

// TestSchemaFilesWin checks the resolution order of SPEC §9.5: a schema
// file wins over a built-in schema; a later Add wins.
func TestSchemaFilesWin(t *testing.T) {
	s := NewSchemas()
	a, diags := ParseSchemaFile("a/DevelopmentPlan.schema.json", []byte(`{"type": "string"}`))
	if diags != nil {
		t.Fatal(diags)
	}
	s.Add(a)
	got, _ := s.Resolve("x.DevelopmentPlan")
	if got != a || got.Name != "DevelopmentPlan" || got.Origin != "a/DevelopmentPlan.schema.json" {
		t.Errorf("Resolve = %+v", got)
	}
	b, _ := ParseSchemaFile(`b\DevelopmentPlan.schema.json`, []byte(`{"type": "number"}`))
	s.Add(b)
	if got, _ := s.Resolve("DevelopmentPlan"); got != b {
		t.Errorf("later Add did not win")
	}
	if files := s.Files(); len(files) != 1 || files[0] != b {
		t.Errorf("Files() = %v", files)
	}
}

func TestParseSchemaFileErrors(t *testing.T) {
	tests := []struct{ text, want string }{
		{"{\n  \"type\": \"object\",\n  \"required\": [\"a\",]\n}", "S.schema.json:3:20: invalid JSON: invalid character ']' looking for beginning of value"},
		{"{\"type\": \"object\"", "S.schema.json:1:18: invalid JSON: unexpected end of JSON input"},
		{"{} {}", "S.schema.json:1:4: invalid JSON: invalid character after top-level value"},
		{`{"type": 5}`, "S.schema.json:1:1: invalid JSON Schema: /type: must be a type name or an array of type names, not a number"},
		{`{"$ref": "other.json"}`, "S.schema.json:1:1: invalid JSON Schema: /$ref: remote $ref is not supported: other.json"},
		{`{"$ref": "file:///etc/passwd"}`, "S.schema.json:1:1: invalid JSON Schema: /$ref: remote $ref is not supported: file:///etc/passwd"},
	}
	for _, tt := range tests {
		sch, diags := ParseSchemaFile("S.schema.json", []byte(tt.text))
		if sch != nil || len(diags) != 1 {
			t.Errorf("%q: got %v, %v", tt.text, sch, diags)
			continue
		}
		if got := diags[0].Error(); got != tt.want {
			t.Errorf("%q:\n got %s\nwant %s", tt.text, got, tt.want)
		}
	}
}

// TestSchemaValidatePointers checks the JSON pointers of violations and the
// conversion of values.
func TestSchemaValidatePointers(t *testing.T) {
	sch, err := CompileSchema("P", SchemaInline, `{
		"type": "object",
		"properties": {
			"a/b": {"type": "integer"},
			"t~x": {"type": "boolean"},
			"list": {"type": "array", "items": {"type": "object", "properties": {"n": {"minimum": 0}}}},
			"sym": {"const": "abc"},
			"f": {"type": "integer"},
			"r": {"type": "object", "required": ["status", "content"]}
		},
		"additionalProperties": false
	}`)
	if err != nil {
		t.Fatal(err)
	}
	ok := value.DictOf(
		"a/b", value.Int(3),
		"t~x", value.Bool(true),
		"list", value.List{value.DictOf("n", value.Float(0.5))},
		"sym", value.Symbol("abc"),
		"f", value.Float(2),
		"r", &value.TaskResult{Status: value.StatusComplete, Content: "x"},
	)
	if got := sch.Validate(ok); got != nil {
		t.Errorf("valid value: %v", got)
	}
	bad := value.DictOf(
		"a/b", value.String("3"),
		"t~x", value.Null{},
		"list", value.List{value.DictOf("n", value.Int(1)), value.DictOf("n", value.Int(-1))},
		"sym", value.Symbol("abd"),
		"f", value.Float(2.5),
		"extra", value.Int(1),
	)
	want := []string{
		"/: property 'extra' is not allowed",
		"/a~1b: got string, want integer",
		"/f: got number, want integer",
		"/list/1/n: -1 is less than the minimum 0",
		`/sym: value must be "abc"`,
		"/t~0x: got null, want boolean",
	}
	if diff := cmp.Diff(want, sch.Validate(bad)); diff != "" {
		t.Errorf("Validate (-want +got):\n%s", diff)
	}
	if got := sch.Validate(value.List{}); len(got) != 1 || got[0] != "/: got array, want object" {
		t.Errorf("Validate(list) = %v", got)
	}
}

// TestTemplateSchemas checks the schema sources of an output_format (SPEC
// §9.5): inline, file, built-in, shorthand and dotted.
func TestTemplateSchemas(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, "Review.schema.json", `{"type": "object", "required": ["verdict"]}`)
	write(t, dir, "FeedbackResult.schema.json", `{"type": "string"}`)
	write(t, dir, "t.xml", `<tasks>
  <task name="inline" type="atomic"><description>d</description><instructions>i</instructions>
    <output_format type="json"><schema>{"type": "array"}</schema></output_format></task>
  <task name="file" type="atomic"><description>d</description><instructions>i</instructions>
    <output_format type="json" schema="Review"/></task>
  <task name="dotted" type="atomic"><description>d</description><instructions>i</instructions>
    <output_format type="json" schema="app.models.Review"/></task>
  <task name="builtin" type="atomic"><description>d</description><instructions>i</instructions>
    <output_format type="json" schema="DevelopmentPlan"/></task>
  <task name="file-over-builtin" type="atomic"><description>d</description><instructions>i</instructions>
    <output_format type="json" schema="FeedbackResult"/></task>
  <task name="shorthand" type="atomic"><description>d</description><instructions>i</instructions>
    <output_format type="json" schema="string[]"/></task>
  <task name="none" type="atomic"><description>d</description><instructions>i</instructions>
    <output_format type="json"/></task>
</tasks>`)
	set, diags := Load(LoadOptions{Sources: Sources{Local: dir}, NoBuiltin: true})
	if len(diags) > 0 {
		t.Fatal(diagLines(diags))
	}
	want := map[string]string{
		"inline":            "inline",
		"file":              filepath.ToSlash(filepath.Join(dir, "Review.schema.json")),
		"dotted":            filepath.ToSlash(filepath.Join(dir, "Review.schema.json")),
		"builtin":           "builtin",
		"file-over-builtin": filepath.ToSlash(filepath.Join(dir, "FeedbackResult.schema.json")),
		"shorthand":         "shorthand",
		"none":              "",
	}
	got := map[string]string{}
	for _, tm := range set.Templates() {
		origin := ""
		if c := tm.OutputFormat.Compiled; c != nil {
			origin = c.Origin
		}
		got[tm.Name] = origin
	}
	// The temporary directory is outside the working directory: its paths
	// are shown absolute (or under ~).
	for k, v := range want {
		if strings.HasPrefix(v, "/") {
			want[k] = DisplayPath(v, mustGetwd(t), homeDir())
		}
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("schema origins (-want +got):\n%s", diff)
	}
	tm, _ := set.Lookup("file")
	if v := tm.OutputFormat.Compiled.Validate(mustJSON(t, `{}`)); len(v) != 1 {
		t.Errorf("file schema not used: %v", v)
	}
}

func write(t *testing.T, dir, rel, text string) string {
	t.Helper()
	path := filepath.Join(dir, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func mustGetwd(t *testing.T) string {
	t.Helper()
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	return wd
}

func homeDir() string {
	h, _ := os.UserHomeDir()
	return h
}
