// Package gotmpl reads the placeholders of start's Go templates, {{.name}},
// in texts evalrun otherwise writes with single braces: agent commands and
// the prompts of roles, contexts and tasks.
//
// evalrun replaces placeholders only; any other action of the template
// language (if, range, pipes, functions, trim markers) is an error, so that
// it never reaches an agent as literal text.
package gotmpl

import (
	"fmt"
	"strings"
)

// Action reads the Go template action at the start of s. ok is false when s
// starts none: "{{" must be followed (after blanks) by '.', a letter, '$',
// '-' or "/*", so that {{}} and '{{"a":1}}' stay literal text. Otherwise n
// is the length of the action, name the placeholder it writes ({{.name}},
// {{ .name }}), and err says why it is no placeholder.
func Action(s string) (n int, name string, err error, ok bool) {
	if !strings.HasPrefix(s, "{{") || !starts(s[2:]) {
		return 0, "", nil, false
	}
	end := strings.Index(s[2:], "}}")
	if end < 0 {
		return 2, "", fmt.Errorf("unclosed {{ (a placeholder is {{.NAME}} or {NAME})"), true
	}
	whole := s[:2+end+2]
	inner := strings.TrimPrefix(strings.TrimSpace(s[2:2+end]), ".")
	switch {
	case IsName(inner):
		return len(whole), inner, nil, true
	case IsName(strings.ToLower(inner)):
		return len(whole), "", fmt.Errorf("unknown placeholder %s (placeholders are lower case: {{.%s}})", whole, strings.ToLower(inner)), true
	}
	return len(whole), "", fmt.Errorf("unsupported template action %s: only placeholders {{.NAME}} are replaced (no if, range, pipes, functions or {{- trim markers)", whole), true
}

// starts reports whether the text after "{{" starts a template action.
func starts(s string) bool {
	s = strings.TrimLeft(s, " ")
	if s == "" {
		return false
	}
	c := s[0]
	return c == '.' || c == '$' || c == '-' || strings.HasPrefix(s, "/*") || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

// IsName reports whether s is a placeholder name: a lower-case letter, then
// lower-case letters, digits and underscores.
func IsName(s string) bool {
	if s == "" || s[0] < 'a' || s[0] > 'z' {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c == '_' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9') {
			return false
		}
	}
	return true
}
