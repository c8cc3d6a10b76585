package handler

import (
	"testing"

	"github.com/evalrun/evalrun/value"
)

func TestParseOutput(t *testing.T) {
	tests := []struct {
		content, parsed, parseErr string
	}{
		{`{"a": 1}`, `{"a":1}`, ""},
		{"  \n```json\n[1, 2]\n```\n ", `[1,2]`, ""},
		{"```\n\"x\"\n```", `"x"`, ""},
		{"Sure! {\"a\":1}", "", "invalid JSON: invalid character 'S' looking for beginning of value"},
		{"{\"a\":1} extra", "", "invalid JSON: invalid character 'e' after top-level value"},
		{"", "", "invalid JSON: unexpected end of JSON input"},
	}
	for _, tt := range tests {
		out := ParseOutput(tt.content, nil)
		if out.ParseError != tt.parseErr {
			t.Errorf("%q: parseError %q, want %q", tt.content, out.ParseError, tt.parseErr)
		}
		if tt.parsed != "" && (out.Parsed == nil || value.JSON(out.Parsed) != tt.parsed) {
			t.Errorf("%q: parsed %v", tt.content, out.Parsed)
		}
		r := &value.TaskResult{Status: value.StatusComplete, Content: tt.content, Notes: value.DictOf("model", value.String("m"))}
		notes := r.Notes
		out.Apply(r)
		if r.Content != tt.content || r.Status != value.StatusComplete {
			t.Errorf("the result changed: %v", r)
		}
		if pe, ok := r.Notes.Get("parseError"); (tt.parseErr != "") != ok || ok && pe != value.String(tt.parseErr) {
			t.Errorf("%q: notes %v", tt.content, r.Notes)
		}
		if notes.Has("parseError") {
			t.Error("Apply changed the caller's notes dict")
		}
	}
	// Schema violations keep parsedContent and status.
	out := ParseOutput(`{"n": "x"}`, func(v value.Value) []string { return []string{"/n: expected number"} })
	r := &value.TaskResult{Status: value.StatusComplete}
	out.Apply(r)
	if value.JSON(r.NotesOrEmpty()) != `{"schemaError":["/n: expected number"]}` || r.Parsed == nil {
		t.Errorf("schema: %v %v", r.Notes, r.Parsed)
	}
}
