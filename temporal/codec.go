package temporal

import (
	"fmt"
	"strconv"

	"github.com/evalrun/evalrun/value"
)

// Value is a run-time value as it travels in a Temporal payload: a tagged
// tree that keeps the distinctions JSON loses (int and float, string and
// symbol, a dict's key order, TaskResult). Closures and other values that
// live only inside one evaluation cannot travel.
type Value struct {
	// T is the type: null, bool, int, float, string, symbol, list, dict or
	// result.
	T string `json:"t"`
	// S holds a string, symbol, float (in Go's 'g' format), bool ("true"),
	// a result's status, or an int in decimal.
	S string `json:"s,omitempty"`
	// C is a result's content.
	C string `json:"c,omitempty"`
	// K are a dict's keys, in order; L its values, or a list's elements.
	K []string `json:"k,omitempty"`
	L []Value  `json:"l,omitempty"`
	// P is a result's parsed content and N its notes (a dict); nil when
	// absent.
	P *Value `json:"p,omitempty"`
	N *Value `json:"n,omitempty"`
}

// Encode converts v for a payload.
func Encode(v value.Value) (Value, error) {
	switch v := v.(type) {
	case nil, value.Null:
		return Value{T: "null"}, nil
	case value.Bool:
		return Value{T: "bool", S: strconv.FormatBool(bool(v))}, nil
	case value.Int:
		return Value{T: "int", S: strconv.FormatInt(int64(v), 10)}, nil
	case value.Float:
		return Value{T: "float", S: strconv.FormatFloat(float64(v), 'g', -1, 64)}, nil
	case value.String:
		return Value{T: "string", S: string(v)}, nil
	case value.Symbol:
		return Value{T: "symbol", S: string(v)}, nil
	case value.List:
		l := make([]Value, len(v))
		for i, e := range v {
			x, err := Encode(e)
			if err != nil {
				return Value{}, err
			}
			l[i] = x
		}
		return Value{T: "list", L: l}, nil
	case *value.Dict:
		keys := v.Keys()
		l := make([]Value, len(keys))
		for i, k := range keys {
			e, _ := v.Get(k)
			x, err := Encode(e)
			if err != nil {
				return Value{}, err
			}
			l[i] = x
		}
		return Value{T: "dict", K: keys, L: l}, nil
	case *value.TaskResult:
		out := Value{T: "result", S: v.Status, C: v.Content}
		if v.Parsed != nil {
			p, err := Encode(v.Parsed)
			if err != nil {
				return Value{}, err
			}
			out.P = &p
		}
		if v.Notes != nil {
			n, err := Encode(v.Notes)
			if err != nil {
				return Value{}, err
			}
			out.N = &n
		}
		return out, nil
	}
	return Value{}, fmt.Errorf("a %s cannot be passed between workflow and activity", v.Type())
}

// Decode converts a payload's value back.
func Decode(x Value) (value.Value, error) {
	switch x.T {
	case "null":
		return value.Null{}, nil
	case "bool":
		return value.Bool(x.S == "true"), nil
	case "int":
		n, err := strconv.ParseInt(x.S, 10, 64)
		if err != nil {
			return nil, fmt.Errorf("bad int in payload: %w", err)
		}
		return value.Int(n), nil
	case "float":
		f, err := strconv.ParseFloat(x.S, 64)
		if err != nil {
			return nil, fmt.Errorf("bad float in payload: %w", err)
		}
		return value.Float(f), nil
	case "string":
		return value.String(x.S), nil
	case "symbol":
		return value.Symbol(x.S), nil
	case "list":
		if len(x.L) == 0 {
			return value.List(nil), nil
		}
		l := make(value.List, len(x.L))
		for i, e := range x.L {
			v, err := Decode(e)
			if err != nil {
				return nil, err
			}
			l[i] = v
		}
		return l, nil
	case "dict":
		if len(x.K) != len(x.L) {
			return nil, fmt.Errorf("bad dict in payload: %d keys, %d values", len(x.K), len(x.L))
		}
		d := value.NewDict(len(x.K))
		for i, k := range x.K {
			v, err := Decode(x.L[i])
			if err != nil {
				return nil, err
			}
			d.Set(k, v)
		}
		return d, nil
	case "result":
		r := &value.TaskResult{Status: x.S, Content: x.C}
		if x.P != nil {
			p, err := Decode(*x.P)
			if err != nil {
				return nil, err
			}
			r.Parsed = p
		}
		if x.N != nil {
			n, err := Decode(*x.N)
			if err != nil {
				return nil, err
			}
			d, ok := n.(*value.Dict)
			if !ok {
				return nil, fmt.Errorf("bad result notes in payload: %s", n.Type())
			}
			r.Notes = d
		}
		return r, nil
	}
	return nil, fmt.Errorf("unknown value type %q in payload", x.T)
}

func encodeAll(vs []value.Value) ([]Value, error) {
	out := make([]Value, len(vs))
	for i, v := range vs {
		x, err := Encode(v)
		if err != nil {
			return nil, err
		}
		out[i] = x
	}
	return out, nil
}

func decodeAll(xs []Value) ([]value.Value, error) {
	if xs == nil {
		return nil, nil
	}
	out := make([]value.Value, len(xs))
	for i, x := range xs {
		v, err := Decode(x)
		if err != nil {
			return nil, err
		}
		out[i] = v
	}
	return out, nil
}
