package evaluator

import (
	"strings"

	"github.com/evalrun/evalrun/value"
)

func init() {
	register(
		&primitive{name: "list", min: 0, max: -1, retains: true, fn: primList},
		&primitive{name: "get-field", min: 2, max: 2, arityMsg: "get-field: Expected 2 arguments, got %d", fn: primGetField},
		&primitive{name: "string=?", min: 2, max: 2, arityMsg: "'string=?' requires exactly two string arguments.", fn: primStringEq},
		&primitive{name: "eq?", min: 2, max: 2, arityMsg: "'eq?' requires exactly two arguments.", fn: primEq},
		&primitive{name: "equal?", min: 2, max: 2, arityMsg: "'equal?' requires exactly two arguments.", fn: primEq},
		&primitive{name: "null?", min: 1, max: 1, arityMsg: "'null?' requires exactly one argument.", fn: primNullP},
		&primitive{name: "nil?", min: 1, max: 1, arityMsg: "'nil?' requires exactly one argument.", fn: primNullP},
		&primitive{name: "not", min: 1, max: 1, arityMsg: "'not' requires exactly one argument.", fn: primNot},
		&primitive{name: "log-message", min: 0, max: -1, fn: primLogMessage},
	)
}

func primList(t *thread, c *call, args []value.Value) (value.Value, error) {
	if len(args) == 0 {
		return value.List(nil), nil
	}
	return value.List(args), nil
}

func primGetField(t *thread, c *call, args []value.Value) (value.Value, error) {
	var field string
	switch f := args[1].(type) {
	case value.String:
		field = string(f)
	case value.Symbol:
		field, _ = keyText(f)
	default:
		return nil, errorf(c.argPos(1), KindType, "get-field: Field name must evaluate to a string or symbol, got %s", f.Type())
	}
	if v, ok := fieldOf(args[0], field); ok {
		return v, nil
	}
	return value.Null{}, nil
}

// fieldOf reads a named field of a dict, TaskResult or association list.
// A name that is not a TaskResult field is looked up in the result's
// parsedContent when that is a dict, as hoidn/llm's get-field did, so
// (get-field plan "instructions") reads the parsed plan.
func fieldOf(obj value.Value, field string) (value.Value, bool) {
	switch o := obj.(type) {
	case *value.Dict:
		return o.Get(field)
	case *value.TaskResult:
		if v, ok := o.Field(field); ok {
			return v, true
		}
		if d, ok := o.ParsedOrNull().(*value.Dict); ok {
			return d.Get(field)
		}
		return nil, false
	case value.List:
		return assocGet(o, field)
	}
	return nil, false
}

// assocGet reads an association list: the second element of the first
// two-element entry whose key (a symbol or string) has that name.
func assocGet(l value.List, key string) (value.Value, bool) {
	for _, e := range l {
		pair, ok := e.(value.List)
		if !ok || len(pair) != 2 {
			return nil, false
		}
		var k string
		switch kv := pair[0].(type) {
		case value.Symbol:
			k = string(kv)
		case value.String:
			k = string(kv)
		default:
			return nil, false
		}
		if k == key {
			return pair[1], true
		}
	}
	return nil, false
}

func primStringEq(t *thread, c *call, args []value.Value) (value.Value, error) {
	a, okA := textOf(args[0])
	b, okB := textOf(args[1])
	if !okA || !okB {
		bad := 0
		if okA {
			bad = 1
		}
		return nil, errorf(c.argPos(bad), KindType, "'string=?' arguments must be strings. Got: %s, %s", args[0].Type(), args[1].Type())
	}
	return value.Bool(a == b), nil
}

// keyText returns the key a string or symbol names: a keyword names the key
// without its colon, as in dict.
func keyText(v value.Value) (string, bool) {
	if s, ok := v.(value.Symbol); ok {
		return strings.TrimPrefix(string(s), ":"), true
	}
	return textOf(v)
}

// textOf returns the text of a string or the name of a symbol.
func textOf(v value.Value) (string, bool) {
	switch v := v.(type) {
	case value.String:
		return string(v), true
	case value.Symbol:
		return string(v), true
	}
	return "", false
}

func primEq(t *thread, c *call, args []value.Value) (value.Value, error) {
	return value.Bool(value.Equal(args[0], args[1])), nil
}

func primNullP(t *thread, c *call, args []value.Value) (value.Value, error) {
	switch v := args[0].(type) {
	case value.Null:
		return value.Bool(true), nil
	case value.List:
		return value.Bool(len(v) == 0), nil
	}
	return value.Bool(false), nil
}

func primNot(t *thread, c *call, args []value.Value) (value.Value, error) {
	return value.Bool(!value.Truthy(args[0])), nil
}

func primLogMessage(t *thread, c *call, args []value.Value) (value.Value, error) {
	n := len(args)
	for _, a := range args {
		n += value.TextSize(a, t.in.limits.MaxStringBytes-n)
		if err := t.checkString(c, n); err != nil {
			return nil, err
		}
	}
	var b strings.Builder
	for i, a := range args {
		if i > 0 {
			b.WriteByte(' ')
		}
		value.WriteText(&b, a)
	}
	text := b.String()
	if len(args) > 0 {
		t.in.logf("log: %s\n", text)
	}
	return value.String(text), nil
}
