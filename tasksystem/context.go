package tasksystem

import (
	"errors"
	"fmt"

	"github.com/evalrun/evalrun/templates"
	"github.com/evalrun/evalrun/value"
)

// The values of the context settings (SPEC §13.1).
const (
	InheritFull      = "full"
	InheritSubset    = "subset"
	InheritNone      = "none"
	FormatFullOutput = "full_output"
	FormatNotesOnly  = "notes_only"
	FreshEnabled     = "enabled"
	FreshDisabled    = "disabled"
)

// ErrContextInvalid is the context validation failure of SPEC §13.2; its
// message is the exact text of the FAILED TaskResult.
var ErrContextInvalid = errors.New("Context validation failed after merging: freshContext='enabled' cannot be combined with inheritContext='full' or 'subset'")

// SubtypeDefaults returns the context settings of a template subtype (SPEC
// §13.1); an unlisted subtype (and "") gets the standard row.
func SubtypeDefaults(subtype string) templates.ContextSettings {
	row := func(inherit, accumulate, fresh string) templates.ContextSettings {
		return templates.ContextSettings{InheritContext: inherit, AccumulateData: accumulate,
			AccumulationFormat: FormatNotesOnly, FreshContext: fresh}
	}
	switch subtype {
	case "subtask", "aider_automatic":
		return row(InheritNone, "false", FreshEnabled)
	case "aider_interactive":
		return row(InheritNone, "true", FreshEnabled)
	case "associative_matching":
		return row(InheritNone, "false", FreshDisabled)
	}
	return row(InheritFull, "false", FreshDisabled)
}

// MergeContext overlays the layers left to right: a field set (non-empty) in
// a later layer replaces the earlier value; unset fields never override.
func MergeContext(layers ...templates.ContextSettings) templates.ContextSettings {
	var s templates.ContextSettings
	for _, l := range layers {
		if l.InheritContext != "" {
			s.InheritContext = l.InheritContext
		}
		if l.AccumulateData != "" {
			s.AccumulateData = l.AccumulateData
		}
		if l.AccumulationFormat != "" {
			s.AccumulationFormat = l.AccumulationFormat
		}
		if l.FreshContext != "" {
			s.FreshContext = l.FreshContext
		}
	}
	return s
}

// ValidateContext checks merged settings (SPEC §13.2): fresh_context enabled
// requires inherit_context none, else ErrContextInvalid.
func ValidateContext(s templates.ContextSettings) error {
	if s.FreshContext == FreshEnabled && s.InheritContext != InheritNone {
		return ErrContextInvalid
	}
	return nil
}

// EffectiveContext merges subtype defaults < template < call and validates
// the result (SPEC §13.2).
func EffectiveContext(subtype string, tmpl, call templates.ContextSettings) (templates.ContextSettings, error) {
	s := MergeContext(SubtypeDefaults(subtype), tmpl, call)
	return s, ValidateContext(s)
}

// pair is one key and value of a dict or association list.
type pair struct {
	key string
	val value.Value
}

// pairs reads a dict or an association list (a list of two-element lists
// headed by a symbol or string); ok is false for any other value.
func pairs(v value.Value) ([]pair, bool) {
	switch v := v.(type) {
	case *value.Dict:
		ps := make([]pair, 0, v.Len())
		for k, x := range v.All() {
			ps = append(ps, pair{k, x})
		}
		return ps, true
	case value.List:
		ps := make([]pair, 0, len(v))
		for _, e := range v {
			l, ok := e.(value.List)
			if !ok || len(l) != 2 {
				return nil, false
			}
			switch k := l[0].(type) {
			case value.Symbol:
				ps = append(ps, pair{string(k), l[1]})
			case value.String:
				ps = append(ps, pair{string(k), l[1]})
			default:
				return nil, false
			}
		}
		return ps, true
	}
	return nil, false
}

// contextKeys maps the camelCase and snake_case keys of a call's context
// argument to the snake_case field name.
var contextKeys = map[string]string{
	"inherit_context": "inherit_context", "inheritContext": "inherit_context",
	"accumulate_data": "accumulate_data", "accumulateData": "accumulate_data",
	"accumulation_format": "accumulation_format", "accumulationFormat": "accumulation_format",
	"fresh_context": "fresh_context", "freshContext": "fresh_context",
}

// ParseContextArg reads the value of a call's context argument (SPEC §11.1):
// a dict or association list with camelCase or snake_case keys and string,
// symbol or bool values; null means "not set". Only the keys given are set.
// The error messages are those of SPEC §11.1; the evaluator adds the
// position.
func ParseContextArg(task string, v value.Value) (templates.ContextSettings, error) {
	var s templates.ContextSettings
	ps, ok := pairs(v)
	if !ok {
		return s, fmt.Errorf("'context' argument for task '%s' must evaluate to a dictionary or a list of pairs, got %s.", task, typeName(v))
	}
	invalid := func(format string, args ...any) error {
		return fmt.Errorf("Invalid 'context' settings for task '%s': %s", task, fmt.Sprintf(format, args...))
	}
	seen := map[string]bool{}
	for _, p := range ps {
		field, ok := contextKeys[p.key]
		if !ok {
			return s, invalid("unknown key '%s'", p.key)
		}
		if seen[field] {
			return s, invalid("duplicate key '%s'", p.key)
		}
		seen[field] = true
		if isUnset(p.val) {
			continue
		}
		text, isText := settingText(p.val)
		b, isBool := p.val.(value.Bool)
		bad := func(expected string) error {
			return invalid("invalid value %s for '%s' (expected %s)", quoteValue(p.val), p.key, expected)
		}
		switch field {
		case "inherit_context":
			if !isText || (text != InheritFull && text != InheritSubset && text != InheritNone) {
				return s, bad("full, subset or none")
			}
			s.InheritContext = text
		case "accumulate_data":
			switch {
			case isBool:
				s.AccumulateData = b.String()
			case isText && (text == "true" || text == "false"):
				s.AccumulateData = text
			default:
				return s, bad("true or false")
			}
		case "accumulation_format":
			if !isText || (text != FormatFullOutput && text != FormatNotesOnly) {
				return s, bad("full_output or notes_only")
			}
			s.AccumulationFormat = text
		case "fresh_context":
			switch {
			case isBool && bool(b):
				s.FreshContext = FreshEnabled
			case isBool:
				s.FreshContext = FreshDisabled
			case isText && (text == FreshEnabled || text == FreshDisabled):
				s.FreshContext = text
			default:
				return s, bad("enabled or disabled")
			}
		}
	}
	return s, nil
}

// historyKeys maps the keys of a call's history_config argument to the
// snake_case field name.
var historyKeys = map[string]string{
	"use_session_history": "use_session_history", "useSessionHistory": "use_session_history",
	"history_turns_to_include": "history_turns_to_include", "historyTurnsToInclude": "history_turns_to_include",
	"record_in_session_history": "record_in_session_history", "recordInSessionHistory": "record_in_session_history",
}

// ParseHistoryArg reads the value of a call's history_config argument (SPEC
// §11.1, §13.6): a dict or association list with the keys
// use_session_history and record_in_session_history (bools, or the strings
// or symbols true and false) and history_turns_to_include (an int >= 1);
// camelCase keys are accepted too and null means "not set".
func ParseHistoryArg(task string, v value.Value) (templates.HistoryConfig, error) {
	var h templates.HistoryConfig
	ps, ok := pairs(v)
	if !ok {
		return h, fmt.Errorf("'history_config' argument for task '%s' must evaluate to a dictionary or a list of pairs, got %s.", task, typeName(v))
	}
	invalid := func(format string, args ...any) error {
		return fmt.Errorf("Invalid 'history_config' settings for task '%s': %s", task, fmt.Sprintf(format, args...))
	}
	seen := map[string]bool{}
	for _, p := range ps {
		field, ok := historyKeys[p.key]
		if !ok {
			return h, invalid("unknown key '%s'", p.key)
		}
		if seen[field] {
			return h, invalid("duplicate key '%s'", p.key)
		}
		seen[field] = true
		if isUnset(p.val) {
			continue
		}
		if field == "history_turns_to_include" {
			n, ok := p.val.(value.Int)
			if !ok || n < 1 {
				return h, invalid("invalid value %s for '%s' (expected an integer >= 1)", quoteValue(p.val), p.key)
			}
			turns := int(n)
			h.HistoryTurnsToInclude = &turns
			continue
		}
		var b bool
		switch x := p.val.(type) {
		case value.Bool:
			b = bool(x)
		default:
			text, isText := settingText(p.val)
			if !isText || (text != "true" && text != "false") {
				return h, invalid("invalid value %s for '%s' (expected true or false)", quoteValue(p.val), p.key)
			}
			b = text == "true"
		}
		if field == "use_session_history" {
			h.UseSessionHistory = &b
		} else {
			h.RecordInSessionHistory = &b
		}
	}
	return h, nil
}

// isUnset reports whether a setting value means "not set": null or nil.
func isUnset(v value.Value) bool {
	switch v := v.(type) {
	case nil, value.Null:
		return true
	case value.List:
		return len(v) == 0
	}
	return false
}

// settingText returns the text of a string or symbol setting value.
func settingText(v value.Value) (string, bool) {
	switch v := v.(type) {
	case value.String:
		return string(v), true
	case value.Symbol:
		return string(v), true
	}
	return "", false
}

// quoteValue shows a setting value in a message: text in single quotes,
// anything else in its printed form.
func quoteValue(v value.Value) string {
	if s, ok := settingText(v); ok {
		return "'" + s + "'"
	}
	return v.String()
}

// typeName returns the type name of v for messages; a Go nil is null.
func typeName(v value.Value) string {
	if v == nil {
		return "null"
	}
	return v.Type()
}
