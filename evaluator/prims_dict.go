package evaluator

import (
	"strings"

	"github.com/evalrun/evalrun/value"
)

func init() {
	register(
		&primitive{name: "dict", min: 0, max: -1, fn: primDict},
		&primitive{name: "get", min: 2, max: 3, fn: primGet},
		&primitive{name: "assoc", min: 1, max: -1, fn: primAssoc},
		&primitive{name: "keys", min: 1, max: 1, fn: primKeys},
		&primitive{name: "values", min: 1, max: 1, fn: primValues},
		&primitive{name: "has-key?", min: 2, max: 2, fn: primHasKey},
		&primitive{name: "json-parse", min: 1, max: 1, fn: primJSONParse},
		&primitive{name: "json-encode", min: 1, max: 1, fn: primJSONEncode},
	)
}

// dictKey reads a dict key: a string, or a symbol whose keyword colon is
// dropped.
func dictKey(name string, c *call, args []value.Value, i int) (string, error) {
	switch k := args[i].(type) {
	case value.String:
		return string(k), nil
	case value.Symbol:
		return strings.TrimPrefix(string(k), ":"), nil
	}
	return "", typeError(name, c, i, "string", args[i])
}

func setPairs(name string, c *call, d *value.Dict, args []value.Value, offset int) error {
	for i := offset; i+1 < len(args); i += 2 {
		k, err := dictKey(name, c, args, i)
		if err != nil {
			return err
		}
		d.Set(k, args[i+1])
	}
	return checkElements(c, d.Len(), "dict")
}

func primDict(t *thread, c *call, args []value.Value) (value.Value, error) {
	if len(args)%2 != 0 {
		return nil, errorf(c.at(), KindArity, "'dict' requires an even number of arguments (key value pairs), got %d", len(args))
	}
	d := value.NewDict(len(args) / 2)
	if err := setPairs("dict", c, d, args, 0); err != nil {
		return nil, err
	}
	return d, nil
}

func primGet(t *thread, c *call, args []value.Value) (value.Value, error) {
	var def value.Value = value.Null{}
	if len(args) == 3 {
		def = args[2]
	}
	switch k := args[1].(type) {
	case value.Int:
		if l, ok := args[0].(value.List); ok {
			if k >= 0 && int64(k) < int64(len(l)) {
				return l[k], nil
			}
		}
		return def, nil
	case value.String, value.Symbol:
		key, _ := keyText(k)
		if v, ok := fieldOf(args[0], key); ok {
			return v, nil
		}
		return def, nil
	}
	return nil, typeError("get", c, 1, "string", args[1])
}

func primAssoc(t *thread, c *call, args []value.Value) (value.Value, error) {
	var d *value.Dict
	switch v := args[0].(type) {
	case *value.Dict:
		d = v.Clone()
	case value.Null:
		d = value.NewDict(len(args) / 2)
	default:
		return nil, typeError("assoc", c, 0, "dict", args[0])
	}
	if len(args)%2 != 1 {
		return nil, errorf(c.at(), KindArity, "'assoc' requires a dict and key value pairs, got %d arguments", len(args))
	}
	if err := setPairs("assoc", c, d, args, 1); err != nil {
		return nil, err
	}
	return d, nil
}

func primKeys(t *thread, c *call, args []value.Value) (value.Value, error) {
	d, err := argDict("keys", c, args, 0)
	if err != nil {
		return nil, err
	}
	if d.Len() == 0 {
		return value.List(nil), nil
	}
	out := make(value.List, 0, d.Len())
	for k := range d.All() {
		out = append(out, value.String(k))
	}
	return out, nil
}

func primValues(t *thread, c *call, args []value.Value) (value.Value, error) {
	d, err := argDict("values", c, args, 0)
	if err != nil {
		return nil, err
	}
	if d.Len() == 0 {
		return value.List(nil), nil
	}
	out := make(value.List, 0, d.Len())
	for _, v := range d.All() {
		out = append(out, v)
	}
	return out, nil
}

func primHasKey(t *thread, c *call, args []value.Value) (value.Value, error) {
	k, ok := keyText(args[1])
	if !ok {
		return nil, typeError("has-key?", c, 1, "string", args[1])
	}
	switch o := args[0].(type) {
	case *value.Dict:
		return value.Bool(o.Has(k)), nil
	case *value.TaskResult:
		_, ok := o.Field(k)
		return value.Bool(ok), nil
	}
	return nil, typeError("has-key?", c, 0, "dict", args[0])
}

func primJSONParse(t *thread, c *call, args []value.Value) (value.Value, error) {
	s, err := argString("json-parse", c, args, 0)
	if err != nil {
		return nil, err
	}
	v, err := value.ParseJSON(value.StripCodeFence(s))
	if err != nil {
		return nil, errorf(c.at(), KindValue, "json-parse: invalid JSON: %s", err)
	}
	return v, nil
}

func primJSONEncode(t *thread, c *call, args []value.Value) (value.Value, error) {
	if err := t.checkString(c, value.JSONSize(args[0], t.in.limits.MaxStringBytes)); err != nil {
		return nil, err
	}
	if err := checkPrintable("json-encode", c, args[0]); err != nil {
		return nil, err
	}
	return value.String(value.JSON(args[0])), nil
}
