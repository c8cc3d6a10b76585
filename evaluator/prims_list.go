package evaluator

import (
	"github.com/evalrun/evalrun/value"
)

func init() {
	register(
		&primitive{name: "first", min: 1, max: 1, fn: primFirst},
		&primitive{name: "rest", min: 1, max: 1, fn: primRest},
		&primitive{name: "cons", min: 2, max: 2, fn: primCons},
		&primitive{name: "append", min: 0, max: -1, fn: primAppend},
		&primitive{name: "length", min: 1, max: 1, fn: primLength},
		&primitive{name: "nth", min: 2, max: 2, fn: primNth},
		&primitive{name: "reverse", min: 1, max: 1, fn: primReverse},
		&primitive{name: "range", min: 1, max: 3, fn: primRange},
		&primitive{name: "list?", min: 1, max: 1, fn: primListP},
		&primitive{name: "empty?", min: 1, max: 1, fn: primEmptyP},
	)
}

// checkElements enforces the element limit of SPEC §6.7.
func checkElements(c *call, n int, what string) error {
	if n > MaxElements {
		return errorf(c.at(), KindLimit, "value too large: %s of %d elements exceeds the limit of %d", what, n, MaxElements)
	}
	return nil
}

func primFirst(t *thread, c *call, args []value.Value) (value.Value, error) {
	l, err := argList("first", c, args, 0)
	if err != nil {
		return nil, err
	}
	if len(l) == 0 {
		return value.Null{}, nil
	}
	return l[0], nil
}

func primRest(t *thread, c *call, args []value.Value) (value.Value, error) {
	l, err := argList("rest", c, args, 0)
	if err != nil {
		return nil, err
	}
	if len(l) <= 1 {
		return value.List(nil), nil
	}
	return l[1:len(l):len(l)], nil
}

func primCons(t *thread, c *call, args []value.Value) (value.Value, error) {
	l, err := argList("cons", c, args, 1)
	if err != nil {
		return nil, err
	}
	if err := checkElements(c, len(l)+1, "list"); err != nil {
		return nil, err
	}
	out := make(value.List, 0, len(l)+1)
	return append(append(out, args[0]), l...), nil
}

func primAppend(t *thread, c *call, args []value.Value) (value.Value, error) {
	n := 0
	for i := range args {
		l, err := argList("append", c, args, i)
		if err != nil {
			return nil, err
		}
		n += len(l)
	}
	if n == 0 {
		return value.List(nil), nil
	}
	if err := checkElements(c, n, "list"); err != nil {
		return nil, err
	}
	out := make(value.List, 0, n)
	for _, a := range args {
		out = append(out, a.(value.List)...)
	}
	return out, nil
}

func primLength(t *thread, c *call, args []value.Value) (value.Value, error) {
	switch v := args[0].(type) {
	case value.List:
		return value.Int(len(v)), nil
	case value.String:
		return value.Int(value.RuneLen(string(v))), nil
	case *value.Dict:
		return value.Int(v.Len()), nil
	}
	return nil, errorf(c.argPos(0), KindType, "'length' argument 1 must be a list, string or dict, got %s.", args[0].Type())
}

func primNth(t *thread, c *call, args []value.Value) (value.Value, error) {
	l, err := argList("nth", c, args, 0)
	if err != nil {
		return nil, err
	}
	i, err := argInt("nth", c, args, 1)
	if err != nil {
		return nil, err
	}
	if i < 0 || i >= int64(len(l)) {
		return value.Null{}, nil
	}
	return l[i], nil
}

func primReverse(t *thread, c *call, args []value.Value) (value.Value, error) {
	l, err := argList("reverse", c, args, 0)
	if err != nil {
		return nil, err
	}
	if len(l) == 0 {
		return value.List(nil), nil
	}
	out := make(value.List, len(l))
	for i, v := range l {
		out[len(l)-1-i] = v
	}
	return out, nil
}

func primRange(t *thread, c *call, args []value.Value) (value.Value, error) {
	var ints [3]int64
	for i := range args {
		n, err := argInt("range", c, args, i)
		if err != nil {
			return nil, err
		}
		ints[i] = n
	}
	start, end, step := int64(0), ints[0], int64(1)
	if len(args) >= 2 {
		start, end = ints[0], ints[1]
	}
	if len(args) == 3 {
		step = ints[2]
	}
	if step == 0 {
		return nil, newError(c.at(), KindValue, "range: step must not be zero")
	}
	n := rangeCount(start, end, step)
	if n > MaxElements {
		return nil, newError(c.at(), KindLimit, "range: too many elements")
	}
	if n == 0 {
		return value.List(nil), nil
	}
	out := make(value.List, n)
	for k := range out {
		out[k] = value.Int(start + int64(k)*step)
	}
	return out, nil
}

// rangeCount returns how many elements (range start end step) has, computed
// in unsigned arithmetic so that extreme bounds cannot overflow.
func rangeCount(start, end, step int64) uint64 {
	var diff, ustep uint64
	switch {
	case step > 0 && end > start:
		diff, ustep = uint64(end)-uint64(start), uint64(step)
	case step < 0 && end < start:
		diff, ustep = uint64(start)-uint64(end), uint64(-(step+1))+1
	default:
		return 0
	}
	n := diff / ustep
	if diff%ustep != 0 {
		n++
	}
	return n
}

func primListP(t *thread, c *call, args []value.Value) (value.Value, error) {
	_, ok := args[0].(value.List)
	return value.Bool(ok), nil
}

func primEmptyP(t *thread, c *call, args []value.Value) (value.Value, error) {
	switch v := args[0].(type) {
	case value.List:
		return value.Bool(len(v) == 0), nil
	case value.String:
		return value.Bool(v == ""), nil
	case *value.Dict:
		return value.Bool(v.Len() == 0), nil
	case value.Null:
		return value.Bool(true), nil
	}
	return nil, errorf(c.argPos(0), KindType, "'empty?' argument 1 must be a list, string, dict or null, got %s.", args[0].Type())
}
