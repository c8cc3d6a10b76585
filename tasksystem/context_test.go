package tasksystem

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/evalrun/evalrun/templates"
	"github.com/evalrun/evalrun/value"
)

type cs = templates.ContextSettings

// row builds complete settings: inherit, accumulate, format, fresh.
func row(inherit, accumulate, format, fresh string) cs {
	return cs{InheritContext: inherit, AccumulateData: accumulate, AccumulationFormat: format, FreshContext: fresh}
}

func TestSubtypeDefaults(t *testing.T) {
	tests := []struct {
		subtype string
		want    cs
	}{
		{"standard", row("full", "false", "notes_only", "disabled")},
		{"", row("full", "false", "notes_only", "disabled")},
		{"whatever", row("full", "false", "notes_only", "disabled")},
		{"subtask", row("none", "false", "notes_only", "enabled")},
		{"director", row("full", "false", "notes_only", "disabled")},
		{"evaluator", row("full", "false", "notes_only", "disabled")},
		{"aider_interactive", row("none", "true", "notes_only", "enabled")},
		{"aider_automatic", row("none", "false", "notes_only", "enabled")},
		{"associative_matching", row("none", "false", "notes_only", "disabled")},
	}
	for _, tt := range tests {
		if diff := cmp.Diff(tt.want, SubtypeDefaults(tt.subtype)); diff != "" {
			t.Errorf("SubtypeDefaults(%q) (-want +got):\n%s", tt.subtype, diff)
		}
	}
}

func TestEffectiveContext(t *testing.T) {
	tests := []struct {
		name    string
		subtype string
		tmpl    cs
		call    cs
		want    cs
		wantErr bool
	}{
		{"standard defaults", "standard", cs{}, cs{}, row("full", "false", "notes_only", "disabled"), false},
		{"subtask defaults", "subtask", cs{}, cs{}, row("none", "false", "notes_only", "enabled"), false},
		{"subtask + call inherit full", "subtask", cs{}, cs{InheritContext: "full"}, row("full", "false", "notes_only", "enabled"), true},
		{"subtask + call inherit full + fresh disabled", "subtask", cs{}, cs{InheritContext: "full", FreshContext: "disabled"},
			row("full", "false", "notes_only", "disabled"), false},
		{"subtask + call inherit subset", "subtask", cs{}, cs{InheritContext: "subset"}, row("subset", "false", "notes_only", "enabled"), true},
		{"template overrides default", "subtask", cs{FreshContext: "disabled"}, cs{InheritContext: "full"},
			row("full", "false", "notes_only", "disabled"), false},
		{"call overrides template", "standard", cs{AccumulateData: "true", AccumulationFormat: "full_output"},
			cs{AccumulateData: "false"}, row("full", "false", "full_output", "disabled"), false},
		{"standard + fresh enabled", "standard", cs{}, cs{FreshContext: "enabled"}, row("full", "false", "notes_only", "enabled"), true},
		{"standard + fresh enabled + inherit none", "standard", cs{InheritContext: "none"}, cs{FreshContext: "enabled"},
			row("none", "false", "notes_only", "enabled"), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := EffectiveContext(tt.subtype, tt.tmpl, tt.call)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("settings (-want +got):\n%s", diff)
			}
			if (err != nil) != tt.wantErr {
				t.Fatalf("err = %v, wantErr %v", err, tt.wantErr)
			}
			if err != nil && err.Error() != "Context validation failed after merging: freshContext='enabled' cannot be combined with inheritContext='full' or 'subset'" {
				t.Errorf("message = %q", err)
			}
		})
	}
}

func pairList(kv ...any) value.List {
	var l value.List
	for i := 0; i < len(kv); i += 2 {
		l = append(l, value.List{kv[i].(value.Value), kv[i+1].(value.Value)})
	}
	return l
}

func TestParseContextArg(t *testing.T) {
	tests := []struct {
		name string
		in   value.Value
		want cs
		err  string
	}{
		{"dict snake", value.DictOf("inherit_context", value.String("full"), "fresh_context", value.String("disabled")),
			cs{InheritContext: "full", FreshContext: "disabled"}, ""},
		{"dict camel", value.DictOf("inheritContext", value.Symbol("subset"), "accumulateData", value.Bool(true),
			"accumulationFormat", value.String("full_output"), "freshContext", value.Bool(false)),
			row("subset", "true", "full_output", "disabled"), ""},
		{"alist with symbols", pairList(value.Symbol("fresh_context"), value.Symbol("enabled"), value.String("accumulate_data"), value.String("false")),
			cs{AccumulateData: "false", FreshContext: "enabled"}, ""},
		{"fresh true", value.DictOf("fresh_context", value.Bool(true)), cs{FreshContext: "enabled"}, ""},
		{"null means unset", value.DictOf("inherit_context", value.Null{}, "fresh_context", value.List(nil)), cs{}, ""},
		{"empty dict", value.NewDict(0), cs{}, ""},
		{"nil", value.List(nil), cs{}, ""},

		{"string", value.String("full"), cs{}, "'context' argument for task 'greet' must evaluate to a dictionary or a list of pairs, got string."},
		{"int", value.Int(3), cs{}, "'context' argument for task 'greet' must evaluate to a dictionary or a list of pairs, got int."},
		{"null", value.Null{}, cs{}, "'context' argument for task 'greet' must evaluate to a dictionary or a list of pairs, got null."},
		{"flat list", value.List{value.Symbol("inherit_context"), value.String("full")}, cs{},
			"'context' argument for task 'greet' must evaluate to a dictionary or a list of pairs, got list."},
		{"pair with int key", value.List{value.List{value.Int(1), value.String("full")}}, cs{},
			"'context' argument for task 'greet' must evaluate to a dictionary or a list of pairs, got list."},
		{"unknown key", value.DictOf("foo", value.String("x")), cs{}, "Invalid 'context' settings for task 'greet': unknown key 'foo'"},
		{"unknown value", value.DictOf("inherit_context", value.String("maybe")), cs{},
			"Invalid 'context' settings for task 'greet': invalid value 'maybe' for 'inherit_context' (expected full, subset or none)"},
		{"bool for inherit", value.DictOf("inheritContext", value.Bool(true)), cs{},
			"Invalid 'context' settings for task 'greet': invalid value true for 'inheritContext' (expected full, subset or none)"},
		{"bad accumulate", value.DictOf("accumulate_data", value.String("yes")), cs{},
			"Invalid 'context' settings for task 'greet': invalid value 'yes' for 'accumulate_data' (expected true or false)"},
		{"bad format", value.DictOf("accumulation_format", value.Int(2)), cs{},
			"Invalid 'context' settings for task 'greet': invalid value 2 for 'accumulation_format' (expected full_output or notes_only)"},
		{"bad fresh", value.DictOf("fresh_context", value.String("on")), cs{},
			"Invalid 'context' settings for task 'greet': invalid value 'on' for 'fresh_context' (expected enabled or disabled)"},
		{"duplicate", value.DictOf("fresh_context", value.String("enabled"), "freshContext", value.String("enabled")), cs{},
			"Invalid 'context' settings for task 'greet': duplicate key 'freshContext'"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParseContextArg("greet", tt.in)
			if tt.err != "" {
				if err == nil || err.Error() != tt.err {
					t.Fatalf("err = %v, want %q", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

func TestParseHistoryArg(t *testing.T) {
	yes, no, three := true, false, 3
	tests := []struct {
		name string
		in   value.Value
		want templates.HistoryConfig
		err  string
	}{
		{"dict", value.DictOf("use_session_history", value.Bool(true), "history_turns_to_include", value.Int(3),
			"record_in_session_history", value.String("false")),
			templates.HistoryConfig{UseSessionHistory: &yes, HistoryTurnsToInclude: &three, RecordInSessionHistory: &no}, ""},
		{"alist camel", pairList(value.Symbol("useSessionHistory"), value.Symbol("false")),
			templates.HistoryConfig{UseSessionHistory: &no}, ""},
		{"null unset", value.DictOf("history_turns_to_include", value.Null{}), templates.HistoryConfig{}, ""},
		{"string", value.String("x"), templates.HistoryConfig{},
			"'history_config' argument for task 'greet' must evaluate to a dictionary or a list of pairs, got string."},
		{"unknown key", value.DictOf("turns", value.Int(1)), templates.HistoryConfig{},
			"Invalid 'history_config' settings for task 'greet': unknown key 'turns'"},
		{"zero turns", value.DictOf("history_turns_to_include", value.Int(0)), templates.HistoryConfig{},
			"Invalid 'history_config' settings for task 'greet': invalid value 0 for 'history_turns_to_include' (expected an integer >= 1)"},
		{"bad bool", value.DictOf("use_session_history", value.Int(1)), templates.HistoryConfig{},
			"Invalid 'history_config' settings for task 'greet': invalid value 1 for 'use_session_history' (expected true or false)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParseHistoryArg("greet", tt.in)
			if tt.err != "" {
				if err == nil || err.Error() != tt.err {
					t.Fatalf("err = %v, want %q", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}
