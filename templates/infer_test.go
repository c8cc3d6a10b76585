package templates

import (
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/evalrun/evalrun/value"
)

func TestInferInputs(t *testing.T) {
	tests := []struct {
		name string
		tmpl Template
		want []Input
	}{
		{
			name: "order of first appearance over all texts",
			tmpl: Template{
				Instructions: "{{b}} {{a.x}} {{date}} {{b}}",
				System:       "{{c}} {{a}}",
				Command:      &Command{Text: "git {{d}}"},
				File:         "{{e}}.txt",
				FilePaths:    &FilePaths{Paths: []string{"{{f}}", "{{g}}/x"}, ContextQuery: "{{h}}"},
			},
			want: []Input{
				{Name: "b", Type: "any", Required: true},
				{Name: "a", Type: "any", Required: true},
				{Name: "c", Type: "any", Required: true},
				{Name: "d", Type: "any", Required: true},
				{Name: "e", Type: "any", Required: true},
				{Name: "f", Type: "any", Required: true},
				{Name: "g", Type: "any", Required: true},
				{Name: "h", Type: "any", Required: true},
			},
		},
		{
			name: "built-ins are not inputs",
			tmpl: Template{Instructions: "{{instructions}} {{date}} {{model}} {{file}} {{file_contents}} {{command}} {{command_output}}"},
			want: nil,
		},
		{
			name: "only referenced through default is optional",
			tmpl: Template{
				Instructions: `{{notes | default("none")}} {{x | default("")}}`,
				System:       "{{x}}",
			},
			want: []Input{
				{Name: "notes", Type: "any", Required: false},
				{Name: "x", Type: "any", Required: true},
			},
		},
		{
			name: "no placeholders",
			tmpl: Template{Instructions: "Say hi"},
			want: nil,
		},
		{
			name: "replaces stale inferred inputs",
			tmpl: Template{Instructions: "{{new}}", Inputs: []Input{{Name: "old"}}},
			want: []Input{{Name: "new", Type: "any", Required: true}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tmpl := tt.tmpl
			if err := Infer(&tmpl); err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, tmpl.Inputs); diff != "" {
				t.Errorf("Inputs (-want +got):\n%s", diff)
			}
			p, err := tmpl.Parts()
			if err != nil || p != tmpl.parts {
				t.Errorf("Parts() = %p, %v; want the cached parts", p, err)
			}
		})
	}
}

func TestInferDeclared(t *testing.T) {
	tmpl := &Template{
		Instructions:   "{{name}} {{instructions}} {{extra.x}}",
		System:         "{{other | upper}}",
		FilePaths:      &FilePaths{Paths: []string{"ok", "{{p}}"}},
		Inputs:         []Input{{Name: "name", Type: "string", Required: true}},
		InputsDeclared: true,
	}
	err := Infer(tmpl)
	type e struct {
		Field          string
		Line, Col, Off int
		Msg            string
	}
	var got []e
	var list ErrorList
	if !errors.As(err, &list) {
		t.Fatalf("Infer error = %v, want an ErrorList", err)
	}
	for _, pe := range list {
		got = append(got, e{pe.Field, pe.Line, pe.Column, pe.Offset, pe.Msg})
	}
	want := []e{
		{"instructions", 1, 27, 26, "unknown placeholder {{extra.x}}: not a declared input or built-in"},
		{"system", 1, 1, 0, "unknown placeholder {{other | upper}}: not a declared input or built-in"},
		{"path", 1, 1, 0, "unknown placeholder {{p}}: not a declared input or built-in"},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("errors (-want +got):\n%s", diff)
	}
	if tmpl.parts != nil {
		t.Error("Infer cached parts of an invalid template")
	}
	if len(tmpl.Inputs) != 1 {
		t.Errorf("declared inputs changed: %v", tmpl.Inputs)
	}

	ok := &Template{Instructions: "{{name}} {{date}}", Inputs: []Input{{Name: "name"}}, InputsDeclared: true}
	if err := Infer(ok); err != nil {
		t.Errorf("Infer(valid declared) = %v", err)
	}
}

func TestInferMalformed(t *testing.T) {
	tmpl := &Template{Instructions: "ok {{ a | uper }}", Command: &Command{Text: "x {{ }}"}}
	err := Infer(tmpl)
	var list ErrorList
	if !errors.As(err, &list) || len(list) != 2 {
		t.Fatalf("Infer = %v, want two errors", err)
	}
	got := []string{list[0].Field + ": " + list[0].Msg, list[1].Field + ": " + list[1].Msg}
	want := []string{
		"instructions: invalid placeholder {{ a | uper }}: unknown filter 'uper' (did you mean 'upper'?)",
		"command: invalid placeholder {{ }}: expected a reference",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("errors (-want +got):\n%s", diff)
	}
	if _, err := tmpl.Parts(); err == nil {
		t.Error("Parts() of a malformed template succeeded")
	}
}

func TestPartsMissing(t *testing.T) {
	tmpl := &Template{
		Instructions: "{{a}} {{b.x}}",
		System:       "{{c}} {{a}}",
		Command:      &Command{Text: "{{d}}"},
		FilePaths:    &FilePaths{ContextQuery: "{{e | default(1)}} {{f}}"},
	}
	// Parts without Infer compiles on the fly.
	p, err := tmpl.Parts()
	if err != nil {
		t.Fatal(err)
	}
	env := value.DictOf("b", value.DictOf("y", value.Int(1)), "f", value.Int(1))
	got := p.Missing(lookupIn(env))
	if diff := cmp.Diff([]string{"a", "b.x", "c", "d"}, got); diff != "" {
		t.Errorf("Missing (-want +got):\n%s", diff)
	}
	wantRoots := []Root{{"a", false}, {"b", false}, {"c", false}, {"d", false}, {"e", true}, {"f", false}}
	if diff := cmp.Diff(wantRoots, p.Roots()); diff != "" {
		t.Errorf("Roots (-want +got):\n%s", diff)
	}
}

func TestValidName(t *testing.T) {
	tests := []struct {
		s    string
		want bool
	}{
		{"greet", true}, {"user:generate-plan", true}, {"review/git-diff", true}, {"a.b_c-d:e/f", true},
		{"Review", true}, {"x1", true}, {"1", true},
		{"", false}, {"a..b", false}, {"-a", false}, {"a-", false}, {"Review Diff", false}, {"a__b", false},
		{"é", false}, {"a:", false}, {":a", false}, {"a+b", false},
	}
	for _, tt := range tests {
		if got := ValidName(tt.s); got != tt.want {
			t.Errorf("ValidName(%q) = %v, want %v", tt.s, got, tt.want)
		}
	}
	subtypes := []struct {
		s    string
		want bool
	}{{"standard", true}, {"aider_interactive", true}, {"a-b", true}, {"a:b", false}, {"", false}, {"a/b", false}}
	for _, tt := range subtypes {
		if got := ValidSubtype(tt.s); got != tt.want {
			t.Errorf("ValidSubtype(%q) = %v, want %v", tt.s, got, tt.want)
		}
	}
	inputs := []struct {
		s    string
		want bool
	}{{"name", true}, {"_x", true}, {"x-1", true}, {"A_b9", true}, {"1x", false}, {"-x", false}, {"", false}, {"a.b", false}}
	for _, tt := range inputs {
		if got := ValidInputName(tt.s); got != tt.want {
			t.Errorf("ValidInputName(%q) = %v, want %v", tt.s, got, tt.want)
		}
	}
}

func TestNormalizeType(t *testing.T) {
	tests := []struct{ in, want string }{
		{"string", "string"}, {"str", "string"}, {"int", "int"}, {"integer", "int"}, {"float", "float"},
		{"number", "number"}, {"bool", "bool"}, {"boolean", "bool"}, {"list", "list"}, {"array", "list"},
		{"dict", "dict"}, {"object", "dict"}, {"any", "any"},
	}
	for _, tt := range tests {
		got, err := NormalizeType(tt.in)
		if err != nil || got != tt.want {
			t.Errorf("NormalizeType(%q) = %q, %v; want %q", tt.in, got, err, tt.want)
		}
	}
	for _, bad := range []string{"foo", "String", "", "tuple"} {
		_, err := NormalizeType(bad)
		if !errors.Is(err, ErrUnknownType) {
			t.Errorf("NormalizeType(%q) error = %v, want ErrUnknownType", bad, err)
		}
	}
	if _, err := NormalizeType("foo"); err.Error() != "unknown type 'foo'" {
		t.Errorf("message = %q", err)
	}
}

func TestBuiltins(t *testing.T) {
	want := []string{"instructions", "date", "model", "file", "file_contents", "command", "command_output"}
	if diff := cmp.Diff(want, BuiltinNames()); diff != "" {
		t.Errorf("BuiltinNames (-want +got):\n%s", diff)
	}
	if !IsBuiltin("date") || IsBuiltin("name") {
		t.Error("IsBuiltin")
	}
}

// The <command> of <file_paths source="command"> takes part in inference and
// validation like every other template text (SPEC §9.3, §9.4).
func TestInferFilePathsCommand(t *testing.T) {
	tm := &Template{Name: "t", Instructions: "hi", FilePaths: &FilePaths{Source: "command", Command: "git ls-files {{dir}}"}}
	if err := Infer(tm); err != nil {
		t.Fatal(err)
	}
	if len(tm.Inputs) != 1 || tm.Inputs[0].Name != "dir" {
		t.Fatalf("inputs = %+v, want dir", tm.Inputs)
	}
	declared := &Template{Name: "t", Instructions: "hi", InputsDeclared: true,
		FilePaths: &FilePaths{Source: "command", Command: "git ls-files {{dir}}"}}
	err := Infer(declared)
	var list ErrorList
	if !errors.As(err, &list) || len(list) != 1 || list[0].Field != "paths_command" ||
		list[0].Msg != "unknown placeholder {{dir}}: not a declared input or built-in" {
		t.Fatalf("err = %v", err)
	}
}

func TestValidSubtypeIsLowerCase(t *testing.T) {
	for s, want := range map[string]bool{"subtask": true, "aider_interactive": true, "SubTask": false, "a--b": false, "": false} {
		if got := ValidSubtype(s); got != want {
			t.Errorf("ValidSubtype(%q) = %v, want %v", s, got, want)
		}
	}
}

// A malformed placeholder does not hide the other problems of its text.
func TestInferReportsEveryPlaceholderError(t *testing.T) {
	tm := &Template{Name: "t", Instructions: "{{foo}} {{ a | uper }} {{bar}}", InputsDeclared: true,
		Inputs: []Input{{Name: "a", Type: TypeAny, Required: true}}}
	var list ErrorList
	if err := Infer(tm); !errors.As(err, &list) {
		t.Fatalf("err = %v", err)
	}
	var msgs []string
	for _, e := range list {
		msgs = append(msgs, e.Msg)
	}
	want := []string{
		"invalid placeholder {{ a | uper }}: unknown filter 'uper' (did you mean 'upper'?)",
		"unknown placeholder {{foo}}: not a declared input or built-in",
		"unknown placeholder {{bar}}: not a declared input or built-in",
	}
	if diff := cmp.Diff(want, msgs); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}
