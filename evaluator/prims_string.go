package evaluator

import (
	"strings"
	"unicode/utf8"

	"github.com/evalrun/evalrun/sexp"
	"github.com/evalrun/evalrun/value"
)

func init() {
	register(
		&primitive{name: "string-append", min: 0, max: -1, fn: primStringAppend},
		&primitive{name: "string-join", min: 1, max: 2, fn: primStringJoin},
		&primitive{name: "string-split", min: 2, max: 2, fn: primStringSplit},
		&primitive{name: "string-contains?", min: 2, max: 2, fn: primStringContains},
		&primitive{name: "string-upcase", min: 1, max: 1, fn: stringMap("string-upcase", strings.ToUpper)},
		&primitive{name: "string-downcase", min: 1, max: 1, fn: stringMap("string-downcase", strings.ToLower)},
		&primitive{name: "string-trim", min: 1, max: 1, fn: stringMap("string-trim", strings.TrimSpace)},
		&primitive{name: "substring", min: 2, max: 3, fn: primSubstring},
		&primitive{name: "string-length", min: 1, max: 1, fn: primStringLength},
		&primitive{name: "to-string", min: 1, max: 1, fn: primToString},
		&primitive{name: "to-number", min: 1, max: 1, fn: primToNumber},
	)
}

// checkPrintable refuses a value nested too deeply to be written as text
// faithfully (value.MaxPrintDepth).
func checkPrintable(name string, c *call, v value.Value) error {
	if value.TooDeepToPrint(v) {
		return errorf(c.at(), KindLimit, "'%s': value nested more than %d levels deep", name, value.MaxPrintDepth)
	}
	return nil
}

// checkString enforces limits.max_string_bytes (SPEC §6.7).
func (t *thread) checkString(c *call, n int) error {
	if max := t.in.limits.MaxStringBytes; n > max {
		return errorf(c.at(), KindLimit, "value too large: string of %d bytes exceeds the limit of %d", n, max)
	}
	return nil
}

func primStringAppend(t *thread, c *call, args []value.Value) (value.Value, error) {
	n := 0
	for i, a := range args {
		switch a := a.(type) {
		case value.String:
			n += len(a)
		case value.Symbol:
			n += len(a)
		case value.Int, value.Float, value.Bool:
			n += len(a.String())
		case value.Null:
		default:
			return nil, errorf(c.argPos(i), KindType, "'string-append' argument %d must be a string, symbol, number, or null. Got %s: %s", i+1, a.Type(), a)
		}
	}
	if err := t.checkString(c, n); err != nil {
		return nil, err
	}
	var b strings.Builder
	b.Grow(n)
	for _, a := range args {
		value.WriteText(&b, a)
	}
	if err := t.checkString(c, b.Len()); err != nil {
		return nil, err
	}
	return value.String(b.String()), nil
}

func primStringJoin(t *thread, c *call, args []value.Value) (value.Value, error) {
	l, err := argList("string-join", c, args, 0)
	if err != nil {
		return nil, err
	}
	sep := ""
	if len(args) == 2 {
		if sep, err = argText("string-join", c, args, 1); err != nil {
			return nil, err
		}
	}
	var b strings.Builder
	for i, e := range l {
		if i > 0 {
			b.WriteString(sep)
		}
		value.WriteText(&b, e)
		if b.Len() > t.in.limits.MaxStringBytes {
			return nil, t.checkString(c, b.Len())
		}
	}
	return value.String(b.String()), nil
}

func primStringSplit(t *thread, c *call, args []value.Value) (value.Value, error) {
	s, err := argText("string-split", c, args, 0)
	if err != nil {
		return nil, err
	}
	sep, err := argText("string-split", c, args, 1)
	if err != nil {
		return nil, err
	}
	var parts []string
	n := 1
	if sep == "" {
		n = utf8.RuneCountInString(s)
	} else {
		n += strings.Count(s, sep)
	}
	if err := checkElements(c, n, "list"); err != nil {
		return nil, err
	}
	if sep == "" {
		if s == "" {
			return value.List{value.String("")}, nil
		}
		parts = make([]string, 0, n)
		for _, r := range s {
			parts = append(parts, string(r))
		}
	} else {
		parts = strings.Split(s, sep)
	}
	out := make(value.List, len(parts))
	for i, p := range parts {
		out[i] = value.String(p)
	}
	return out, nil
}

func primStringContains(t *thread, c *call, args []value.Value) (value.Value, error) {
	s, err := argText("string-contains?", c, args, 0)
	if err != nil {
		return nil, err
	}
	sub, err := argText("string-contains?", c, args, 1)
	if err != nil {
		return nil, err
	}
	return value.Bool(strings.Contains(s, sub)), nil
}

func stringMap(name string, f func(string) string) func(t *thread, c *call, args []value.Value) (value.Value, error) {
	return func(t *thread, c *call, args []value.Value) (value.Value, error) {
		s, err := argText(name, c, args, 0)
		if err != nil {
			return nil, err
		}
		r := f(s)
		if err := t.checkString(c, len(r)); err != nil {
			return nil, err
		}
		return value.String(r), nil
	}
}

func primSubstring(t *thread, c *call, args []value.Value) (value.Value, error) {
	s, err := argText("substring", c, args, 0)
	if err != nil {
		return nil, err
	}
	start, err := argInt("substring", c, args, 1)
	if err != nil {
		return nil, err
	}
	runes := []rune(s)
	end := int64(len(runes))
	if len(args) == 3 {
		if end, err = argInt("substring", c, args, 2); err != nil {
			return nil, err
		}
	}
	if start < 0 || end < start || end > int64(len(runes)) {
		return nil, errorf(c.at(), KindValue, "substring: index out of range [%d:%d] with length %d", start, end, len(runes))
	}
	return value.String(string(runes[start:end])), nil
}

func primStringLength(t *thread, c *call, args []value.Value) (value.Value, error) {
	s, err := argText("string-length", c, args, 0)
	if err != nil {
		return nil, err
	}
	return value.Int(utf8.RuneCountInString(s)), nil
}

func primToString(t *thread, c *call, args []value.Value) (value.Value, error) {
	if err := t.checkString(c, value.TextSize(args[0], t.in.limits.MaxStringBytes)); err != nil {
		return nil, err
	}
	if err := checkPrintable("to-string", c, args[0]); err != nil {
		return nil, err
	}
	return value.String(value.Text(args[0])), nil
}

func primToNumber(t *thread, c *call, args []value.Value) (value.Value, error) {
	switch v := args[0].(type) {
	case value.Int, value.Float:
		return v, nil
	case value.String:
		return parseNumber(strings.TrimSpace(string(v))), nil
	}
	return nil, typeError("to-number", c, 0, "string", args[0])
}

// parseNumber reads text as an int or float literal of the reader (SPEC
// §4.4); anything else, including an out-of-range literal, is null.
func parseNumber(text string) value.Value {
	if text == "" || len(text) > 512 {
		return value.Null{}
	}
	forms, err := sexp.ParseString("", text)
	if err != nil || len(forms) != 1 || forms[0].Raw() != text {
		return value.Null{}
	}
	switch n := forms[0]; n.Kind {
	case sexp.Int:
		return value.Int(n.Int)
	case sexp.Float:
		return value.Float(n.Float())
	}
	return value.Null{}
}
