package tasksystem

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/evalrun/evalrun/templates"
	"github.com/evalrun/evalrun/value"
)

func declared(instr string, inputs ...templates.Input) *templates.Template {
	t := &templates.Template{Name: "task", Type: "atomic", Instructions: instr, Inputs: inputs, InputsDeclared: true}
	if err := templates.Infer(t); err != nil {
		panic(err)
	}
	return t
}

func inferred(instr, system string) *templates.Template {
	t := &templates.Template{Name: "task", Type: "atomic", Instructions: instr, System: system}
	if err := templates.Infer(t); err != nil {
		panic(err)
	}
	return t
}

func TestBind(t *testing.T) {
	typed := declared("{{s}} {{i}} {{f}} {{n}} {{b}} {{l}} {{d}} {{a}}",
		templates.Input{Name: "s", Type: "string", Required: true},
		templates.Input{Name: "i", Type: "int", Required: true},
		templates.Input{Name: "f", Type: "float", Required: true},
		templates.Input{Name: "n", Type: "number", Required: true},
		templates.Input{Name: "b", Type: "bool", Required: true},
		templates.Input{Name: "l", Type: "list", Required: true},
		templates.Input{Name: "d", Type: "dict", Required: true},
		templates.Input{Name: "a", Type: "any", Required: true},
	)
	goodTyped := []NamedArg{
		{"s", value.Symbol("sym")}, {"i", value.Int(1)}, {"f", value.Int(2)}, {"n", value.Float(1.5)},
		{"b", value.Bool(false)}, {"l", value.List(nil)}, {"d", value.NewDict(0)}, {"a", value.Null{}},
	}
	with := func(args []NamedArg, name string, v value.Value) []NamedArg {
		out := append([]NamedArg(nil), args...)
		for i := range out {
			if out[i].Name == name {
				out[i].Value = v
			}
		}
		return out
	}
	defaults := declared("{{x}} {{y}} {{z}} {{w | default(\"-\")}}",
		templates.Input{Name: "x", Type: "string", Required: true, Default: value.String("dx")},
		templates.Input{Name: "y", Type: "int", Required: false},
		templates.Input{Name: "z", Type: "string", Required: true},
		templates.Input{Name: "w", Type: "string", Required: true},
	)
	plan := declared("{{plan.files}} {{name}}",
		templates.Input{Name: "plan", Type: "dict", Required: true},
		templates.Input{Name: "name", Type: "string", Required: true},
		templates.Input{Name: "extra", Type: "string", Required: true},
		templates.Input{Name: "more", Type: "string", Required: true},
	)
	shadow := declared("{{instructions}}", templates.Input{Name: "instructions", Type: "string", Required: true})

	tests := []struct {
		name       string
		tmpl       *templates.Template
		named      []NamedArg
		positional []value.Value
		want       map[string]value.Value
		err        string
	}{
		{"types convert", typed, goodTyped, nil, map[string]value.Value{
			"s": value.String("sym"), "i": value.Int(1), "f": value.Float(2), "n": value.Float(1.5),
			"b": value.Bool(false), "l": value.List(nil), "d": value.NewDict(0), "a": value.Null{},
		}, ""},
		{"string rejects int", typed, with(goodTyped, "s", value.Int(1)), nil, nil, "Parameter 's' of task 'greet' expects string, got int"},
		{"int rejects float", typed, with(goodTyped, "i", value.Float(1)), nil, nil, "Parameter 'i' of task 'greet' expects int, got float"},
		{"int rejects string", typed, with(goodTyped, "i", value.String("1")), nil, nil, "Parameter 'i' of task 'greet' expects int, got string"},
		{"float rejects bool", typed, with(goodTyped, "f", value.Bool(true)), nil, nil, "Parameter 'f' of task 'greet' expects float, got bool"},
		{"number rejects string", typed, with(goodTyped, "n", value.String("1")), nil, nil, "Parameter 'n' of task 'greet' expects number, got string"},
		{"bool rejects int", typed, with(goodTyped, "b", value.Int(0)), nil, nil, "Parameter 'b' of task 'greet' expects bool, got int"},
		{"list rejects dict", typed, with(goodTyped, "l", value.NewDict(0)), nil, nil, "Parameter 'l' of task 'greet' expects list, got dict"},
		{"dict rejects alist", typed, with(goodTyped, "d", value.List{value.List{value.Symbol("a"), value.Int(1)}}), nil, nil,
			"Parameter 'd' of task 'greet' expects dict, got list"},
		{"required string rejects null", typed, with(goodTyped, "s", value.Null{}), nil, nil, "Parameter 's' of task 'greet' expects string, got null"},
		{"task result is not a string", typed, with(goodTyped, "s", &value.TaskResult{Status: "COMPLETE"}), nil, nil,
			"Parameter 's' of task 'greet' expects string, got task-result"},

		{"unknown names in call order", typed, append(goodTyped, NamedArg{"zz", value.Int(1)}, NamedArg{"aa", value.Int(2)}), nil, nil,
			"Unknown parameter(s) for task 'greet': zz, aa"},
		{"unknown names beat type errors", typed, append(with(goodTyped, "i", value.Null{}), NamedArg{"zz", value.Int(1)}), nil, nil,
			"Unknown parameter(s) for task 'greet': zz"},
		{"duplicate", typed, append(goodTyped, NamedArg{"s", value.String("again")}), nil, nil, "Duplicate argument 's' for task 'greet'"},

		{"defaults and optional", defaults, []NamedArg{{"z", value.String("zz")}}, nil, map[string]value.Value{
			"x": value.String("dx"), "y": value.Null{}, "z": value.String("zz"), "w": value.Null{},
		}, ""},
		{"optional accepts null", defaults, []NamedArg{{"z", value.String("zz")}, {"y", value.Null{}}, {"w", value.Null{}}}, nil,
			map[string]value.Value{"x": value.String("dx"), "y": value.Null{}, "z": value.String("zz"), "w": value.Null{}}, ""},
		{"required without default is missing", defaults, nil, nil, nil, "Missing parameter(s) or access error for substitution: z"},

		{"missing refs then remaining inputs", plan, []NamedArg{{"plan", value.DictOf("steps", value.List(nil))}}, nil, nil,
			"Missing parameter(s) or access error for substitution: plan.files, name, extra, more"},
		{"missing root listed once", plan, []NamedArg{{"name", value.String("n")}, {"extra", value.String("e")}, {"more", value.String("m")}}, nil, nil,
			"Missing parameter(s) or access error for substitution: plan.files"},
		{"filter type failure", declared("{{x | join(\",\")}}", templates.Input{Name: "x", Type: "any", Required: true}),
			[]NamedArg{{"x", value.String("s")}}, nil, nil, "Missing parameter(s) or access error for substitution: x | join"},
		{"input shadowing a built-in must be given", shadow, nil, nil, nil,
			"Missing parameter(s) or access error for substitution: instructions"},

		{"positional in declaration order", defaults, nil, []value.Value{value.Symbol("a"), value.Int(2), value.String("c")},
			map[string]value.Value{"x": value.String("a"), "y": value.Int(2), "z": value.String("c"), "w": value.Null{}}, ""},
		{"positional type error", defaults, nil, []value.Value{value.String("a"), value.String("b")}, nil,
			"Parameter 'y' of task 'greet' expects int, got string"},
		{"positional and named clash", defaults, []NamedArg{{"x", value.String("again")}}, []value.Value{value.String("a")}, nil,
			"Duplicate argument 'x' for task 'greet'"},
		{"too many positional", defaults, nil, []value.Value{value.Int(1), value.Int(2), value.Int(3), value.Int(4), value.Int(5)}, nil,
			"Task 'greet' expects at most 4 positional arguments, got 5"},

		{"inferred: unknown names are allowed", inferred("{{a}}", "{{b}}"), []NamedArg{{"a", value.Int(1)}, {"b", value.Int(2)}, {"c", value.Int(3)}}, nil,
			map[string]value.Value{"a": value.Int(1), "b": value.Int(2), "c": value.Int(3)}, ""},
		{"inferred: missing in order instructions then system", inferred("{{b}} {{a.x}}", "{{c}} {{b}}"), []NamedArg{{"a", value.Int(1)}}, nil, nil,
			"Missing parameter(s) or access error for substitution: b, a.x, c"},
		{"inferred: default-only is optional", inferred("{{a | default(\"none\")}}", ""), nil, nil,
			map[string]value.Value{"a": value.Null{}}, ""},
		{"inferred: positional", inferred("{{b}} {{a}}", ""), nil, []value.Value{value.Int(1), value.Int(2)},
			map[string]value.Value{"b": value.Int(1), "a": value.Int(2)}, ""},
		{"built-ins resolve", inferred("{{date}} {{model}} {{command_output | length}}", ""), nil, nil, map[string]value.Value{}, ""},
		{"segment into a built-in is missing", inferred("{{date.year}}", ""), nil, nil, nil,
			"Missing parameter(s) or access error for substitution: date.year"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			parts, err := tt.tmpl.Parts()
			if err != nil {
				t.Fatal(err)
			}
			got, err := Bind("greet", tt.tmpl, parts, tt.named, tt.positional)
			if tt.err != "" {
				if err == nil || err.Error() != tt.err {
					t.Fatalf("err = %v, want %q", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, got, strictValues); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

func TestCheckPositional(t *testing.T) {
	tm := inferred("{{a}} {{b}}", "")
	if MaxPositional(tm) != 2 {
		t.Errorf("MaxPositional = %d", MaxPositional(tm))
	}
	if err := CheckPositional("greet", tm, 2); err != nil {
		t.Error(err)
	}
	if err := CheckPositional("greet", tm, 3); err == nil || err.Error() != "Task 'greet' expects at most 2 positional arguments, got 3" {
		t.Errorf("err = %v", err)
	}
}

// strictValues compares values by type and structural equality, so that an
// int is not taken for the float it should have been converted to.
var strictValues = cmp.Comparer(func(a, b value.Value) bool {
	if a == nil || b == nil {
		return a == nil && b == nil
	}
	return a.Type() == b.Type() && value.Equal(a, b)
})
