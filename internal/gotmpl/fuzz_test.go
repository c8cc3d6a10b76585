package gotmpl

import (
	"strings"
	"testing"
)

// FuzzAction checks the reading of a template action at the start of any
// text: the length is within the text, a placeholder is a whole {{…}}
// action naming a valid name, and an action that is no placeholder is an
// error with a message.
func FuzzAction(f *testing.F) {
	for _, s := range []string{"{{.prompt}} x", "{{ .model }}", "{{.Bin}}", "{{if .model}}-m{{end}}", "{{.prompt}", "{{}}", `{{"a":1}}`, "{{- .x -}}", "{{/* c */}}", "{{$x}}", "{{ }}", "{{.a}}}}", "{x}", "{{"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		n, name, err, ok := Action(s)
		if !ok {
			if n != 0 || name != "" || err != nil {
				t.Fatalf("%q: no action but %d %q %v", s, n, name, err)
			}
			if strings.HasPrefix(s, "{{.") {
				t.Fatalf("%q: {{. read as no action", s)
			}
			return
		}
		if n < 2 || n > len(s) || !strings.HasPrefix(s, "{{") {
			t.Fatalf("%q: action of length %d", s, n)
		}
		if err != nil {
			if name != "" || strings.TrimSpace(err.Error()) == "" {
				t.Fatalf("%q: error %v with name %q", s, err, name)
			}
			return
		}
		if !IsName(name) || !strings.HasSuffix(s[:n], "}}") || !strings.Contains(s[:n], name) {
			t.Fatalf("%q: placeholder %q of %q", s, name, s[:n])
		}
		// The action is the first "}}": the name holds no brace.
		if strings.Count(s[:n], "}}") != 1 {
			t.Fatalf("%q: action %q spans more than one }}", s, s[:n])
		}
	})
}
