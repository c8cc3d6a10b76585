package gotmpl

import "testing"

func TestAction(t *testing.T) {
	for _, tc := range []struct {
		s    string
		n    int
		name string
		err  string
		ok   bool
	}{
		{"{{.prompt}} x", 11, "prompt", "", true},
		{"{{ .role_file }}", 16, "role_file", "", true},
		{"{{model}}", 9, "model", "", true},
		{"{{.Bin}}", 8, "", "unknown placeholder {{.Bin}} (placeholders are lower case: {{.bin}})", true},
		{"{{if .model}}x{{end}}", 13, "", "unsupported template action {{if .model}}: only placeholders {{.NAME}} are replaced (no if, range, pipes, functions or {{- trim markers)", true},
		{"{{- .prompt}}", 13, "", "unsupported template action {{- .prompt}}: only placeholders {{.NAME}} are replaced (no if, range, pipes, functions or {{- trim markers)", true},
		{"{{.prompt}", 2, "", "unclosed {{ (a placeholder is {{.NAME}} or {NAME})", true},
		{"{{}}", 0, "", "", false},
		{`{{"a":1}}`, 0, "", "", false},
		{"{x}", 0, "", "", false},
	} {
		n, name, err, ok := Action(tc.s)
		msg := ""
		if err != nil {
			msg = err.Error()
		}
		if n != tc.n || name != tc.name || msg != tc.err || ok != tc.ok {
			t.Errorf("%q: got %d %q %q %v, want %d %q %q %v", tc.s, n, name, msg, ok, tc.n, tc.name, tc.err, tc.ok)
		}
	}
}
