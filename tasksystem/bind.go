package tasksystem

import (
	"fmt"
	"strings"

	"github.com/evalrun/evalrun/templates"
	"github.com/evalrun/evalrun/value"
)

// NamedArg is one named argument of a task call, (name expr) or :name expr.
type NamedArg struct {
	Name  string
	Value value.Value
}

// MaxPositional returns how many positional values a call of t may pass:
// one per input, declared or inferred (SPEC §11.2 rule 1).
func MaxPositional(t *templates.Template) int { return len(t.Inputs) }

// CheckPositional returns the evaluation error of SPEC §11.2 rule 1 when n
// positional values are too many for t, else nil. task is the name as
// called; the evaluator adds the position.
func CheckPositional(task string, t *templates.Template, n int) error {
	if max := MaxPositional(t); n > max {
		return fmt.Errorf("Task '%s' expects at most %d positional arguments, got %d", task, max, n)
	}
	return nil
}

// Bind binds a call's arguments to the inputs of t (SPEC §11.2) and returns
// the input values by name, defaults and nulls included. Positional values
// bind to the inputs in order; when inputs are declared, unknown names fail;
// absent inputs take their default, or null when optional (an input
// referenced only through a default filter counts as optional); values are
// checked against their types (symbols convert to strings, ints to floats);
// and finally every placeholder reference of the template must resolve
// among the inputs and the built-ins, and every required input must have a
// value. task is the name as called; parts are t's compiled texts. The
// error's message is the FAILED content (reason input_validation_failure).
func Bind(task string, t *templates.Template, parts *templates.Parts, named []NamedArg, positional []value.Value) (map[string]value.Value, error) {
	if err := CheckPositional(task, t, len(positional)); err != nil {
		return nil, err
	}
	values := make(map[string]value.Value, len(t.Inputs)+len(named))
	for i, v := range positional {
		values[t.Inputs[i].Name] = v
	}
	var unknown []string
	for _, a := range named {
		if _, dup := values[a.Name]; dup {
			return nil, fmt.Errorf("Duplicate argument '%s' for task '%s'", a.Name, task)
		}
		if t.InputsDeclared {
			if _, ok := t.InputNamed(a.Name); !ok {
				unknown = append(unknown, a.Name)
			}
		}
		values[a.Name] = a.Value
	}
	if len(unknown) > 0 {
		return nil, fmt.Errorf("Unknown parameter(s) for task '%s': %s", task, strings.Join(unknown, ", "))
	}

	onlyDefault := map[string]bool{}
	for _, r := range parts.Roots() {
		if r.OnlyDefault {
			onlyDefault[r.Name] = true
		}
	}
	var absent []string // required inputs without a value, in declaration order
	for _, in := range t.Inputs {
		optional := !in.Required || in.Default != nil || onlyDefault[in.Name]
		v, given := values[in.Name]
		if !given {
			switch {
			case in.Default != nil:
				values[in.Name] = in.Default
			case optional:
				values[in.Name] = value.Null{}
			default:
				absent = append(absent, in.Name)
			}
			continue
		}
		conv, ok := checkType(in.Type, v, optional)
		if !ok {
			return nil, fmt.Errorf("Parameter '%s' of task '%s' expects %s, got %s", in.Name, task, typeOrAny(in.Type), typeName(v))
		}
		values[in.Name] = conv
	}

	// Built-ins are strings whatever their value, so an empty string stands
	// in for them when checking references.
	missing := parts.Missing(func(root string) (value.Value, bool) {
		if v, ok := values[root]; ok {
			return v, true
		}
		if templates.IsBuiltin(root) {
			return value.String(""), true
		}
		return nil, false
	})
	for _, name := range absent {
		if !coveredBy(name, missing) {
			missing = append(missing, name)
		}
	}
	if len(missing) > 0 {
		return nil, fmt.Errorf("Missing parameter(s) or access error for substitution: %s", strings.Join(missing, ", "))
	}
	return values, nil
}

// coveredBy reports whether a listed missing reference has root name.
func coveredBy(name string, refs []string) bool {
	for _, r := range refs {
		if i := strings.IndexAny(r, ". "); i >= 0 {
			r = r[:i]
		}
		if r == name {
			return true
		}
	}
	return false
}

func typeOrAny(typ string) string {
	if typ == "" {
		return templates.TypeAny
	}
	return typ
}

// checkType checks v against an input type (SPEC §11.2 rule 4) and returns
// it converted: a symbol given for a string becomes a string, an int given
// for a float becomes a float. null passes only for any or optional inputs.
func checkType(typ string, v value.Value, optional bool) (value.Value, bool) {
	switch v.(type) {
	case nil, value.Null:
		return value.Null{}, optional || typ == templates.TypeAny || typ == ""
	}
	switch typ {
	case templates.TypeAny, "":
		return v, true
	case templates.TypeString:
		switch x := v.(type) {
		case value.String:
			return x, true
		case value.Symbol:
			return value.String(x), true
		}
	case templates.TypeInt:
		if _, ok := v.(value.Int); ok {
			return v, true
		}
	case templates.TypeFloat:
		switch x := v.(type) {
		case value.Float:
			return x, true
		case value.Int:
			return value.Float(x), true
		}
	case templates.TypeNumber:
		switch v.(type) {
		case value.Int, value.Float:
			return v, true
		}
	case templates.TypeBool:
		if _, ok := v.(value.Bool); ok {
			return v, true
		}
	case templates.TypeList:
		if _, ok := v.(value.List); ok {
			return v, true
		}
	case templates.TypeDict:
		if _, ok := v.(*value.Dict); ok {
			return v, true
		}
	}
	return nil, false
}
