package evaluator

import (
	"github.com/evalrun/evalrun/value"
)

func init() {
	register(
		&primitive{name: "map", min: 2, max: 2, applies: true, fn: primMap},
		&primitive{name: "filter", min: 2, max: 2, applies: true, fn: primFilter},
		&primitive{name: "reduce", min: 3, max: 3, applies: true, fn: primReduce},
		&primitive{name: "apply", min: 2, max: 2, applies: true, fn: primApply},
	)
}

func primMap(t *thread, c *call, args []value.Value) (value.Value, error) {
	l, err := argList("map", c, args, 1)
	if err != nil {
		return nil, err
	}
	if len(l) == 0 {
		return value.List(nil), nil
	}
	out := make(value.List, len(l))
	for i, e := range l {
		if out[i], err = t.apply(args[0], []value.Value{e}, c.at()); err != nil {
			return nil, err
		}
	}
	return out, nil
}

func primFilter(t *thread, c *call, args []value.Value) (value.Value, error) {
	l, err := argList("filter", c, args, 1)
	if err != nil {
		return nil, err
	}
	var out value.List
	for _, e := range l {
		keep, err := t.apply(args[0], []value.Value{e}, c.at())
		if err != nil {
			return nil, err
		}
		if value.Truthy(keep) {
			out = append(out, e)
		}
	}
	return out, nil
}

func primReduce(t *thread, c *call, args []value.Value) (value.Value, error) {
	l, err := argList("reduce", c, args, 2)
	if err != nil {
		return nil, err
	}
	acc := args[1]
	for _, e := range l {
		if acc, err = t.apply(args[0], []value.Value{acc, e}, c.at()); err != nil {
			return nil, err
		}
	}
	return acc, nil
}

func primApply(t *thread, c *call, args []value.Value) (value.Value, error) {
	l, err := argList("apply", c, args, 1)
	if err != nil {
		return nil, err
	}
	return t.apply(args[0], append([]value.Value(nil), l...), c.at())
}
