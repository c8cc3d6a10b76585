package main

import (
	"fmt"
	"strings"

	"github.com/evalrun/evalrun/engine"
	"github.com/evalrun/evalrun/sexp"
	"github.com/evalrun/evalrun/value"
)

// setting is one parsed --set KEY=VALUE option: a global variable, or
// for evalrun task an input of the template.
type setting = engine.Input

// parseSets reads --set options (SPEC §17.2): the text is split at the first
// '='; the key must read as one symbol that is not a keyword; the value is
// JSON when the whole text (surrounding white space allowed) is valid JSON,
// else the text as a string.
func parseSets(opts []string) ([]setting, error) {
	out := make([]setting, 0, len(opts))
	for _, opt := range opts {
		key, text, ok := strings.Cut(opt, "=")
		if !ok {
			return nil, fmt.Errorf("invalid --set %q: expected KEY=VALUE", opt)
		}
		if err := checkSetKey(key); err != nil {
			return nil, fmt.Errorf("invalid --set %q: %v", opt, err)
		}
		v, err := value.ParseJSON(text)
		if err != nil {
			v = value.String(text)
		}
		out = append(out, setting{Name: key, Value: v})
	}
	return out, nil
}

// checkSetKey reports why key cannot name a variable: it must read as exactly
// one symbol, written without escapes, that is not a keyword.
func checkSetKey(key string) error {
	if key == "" {
		return fmt.Errorf("the key is empty")
	}
	forms, err := sexp.ParseString("--set", key)
	if err != nil || len(forms) != 1 {
		return fmt.Errorf("the key %q is not a symbol", key)
	}
	n := forms[0]
	if n.Kind != sexp.Symbol || n.Str != key || n.Raw() != key {
		return fmt.Errorf("the key %q is not a symbol", key)
	}
	if strings.HasPrefix(key, ":") {
		return fmt.Errorf("the key %q is a keyword; keywords cannot be bound", key)
	}
	return nil
}

// setNames returns the names bound by settings.
func setNames(sets []setting) []string {
	names := make([]string, len(sets))
	for i, s := range sets {
		names[i] = s.Name
	}
	return names
}
