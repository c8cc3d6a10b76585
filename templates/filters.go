package templates

import (
	"sort"
	"strings"

	"github.com/evalrun/evalrun/value"
)

// argKind is the kind of argument a filter takes.
type argKind uint8

const (
	argCount  argKind = iota // a non-negative int
	argString                // a string
	argAny                   // any literal
)

// filterFunc applies a filter to a present value. ok is false when the value
// has the wrong type for the filter, which makes the reference missing.
type filterFunc func(v value.Value, args []value.Value) (out value.Value, ok bool)

// filterSpec describes one filter of SPEC §12.1.
type filterSpec struct {
	args  []argKind
	apply filterFunc // nil for default, which the renderer handles itself
}

// filters is the filter table of SPEC §12.1.
var filters = map[string]filterSpec{
	"json":     {apply: func(v value.Value, _ []value.Value) (value.Value, bool) { return value.String(value.JSON(v)), true }},
	"upper":    {apply: textFilter(strings.ToUpper)},
	"lower":    {apply: textFilter(strings.ToLower)},
	"trim":     {apply: textFilter(strings.TrimSpace)},
	"truncate": {args: []argKind{argCount}, apply: truncateFilter},
	"default":  {args: []argKind{argAny}},
	"join":     {args: []argKind{argString}, apply: joinFilter},
	"first":    {apply: firstFilter},
	"last":     {apply: lastFilter},
	"length":   {apply: lengthFilter},
	"indent":   {args: []argKind{argCount}, apply: indentFilter},
	"lines":    {args: []argKind{argCount}, apply: linesFilter},
	"keys":     {apply: keysFilter},
}

// filterNames lists the filter names in sorted order, for hints.
var filterNames = func() []string {
	names := make([]string, 0, len(filters))
	for n := range filters {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}()

// FilterNames returns the names of the placeholder filters of SPEC §12.1 in
// sorted order, for documentation and completion.
func FilterNames() []string { return append([]string(nil), filterNames...) }

func textFilter(f func(string) string) filterFunc {
	return func(v value.Value, _ []value.Value) (value.Value, bool) {
		return value.String(f(value.Text(v))), true
	}
}

func truncateFilter(v value.Value, args []value.Value) (value.Value, bool) {
	s := value.Text(v)
	n := int(args[0].(value.Int))
	if len(s) <= n {
		return value.String(s), true
	}
	i := 0
	for pos := range s {
		if i == n {
			return value.String(s[:pos] + "…"), true
		}
		i++
	}
	return value.String(s), true
}

func joinFilter(v value.Value, args []value.Value) (value.Value, bool) {
	l, ok := v.(value.List)
	if !ok {
		return nil, false
	}
	sep := string(args[0].(value.String))
	var b strings.Builder
	for i, e := range l {
		if i > 0 {
			b.WriteString(sep)
		}
		value.WriteText(&b, e)
	}
	return value.String(b.String()), true
}

func firstFilter(v value.Value, _ []value.Value) (value.Value, bool) {
	l, ok := v.(value.List)
	if !ok {
		return nil, false
	}
	if len(l) == 0 {
		return value.Null{}, true
	}
	return l[0], true
}

func lastFilter(v value.Value, _ []value.Value) (value.Value, bool) {
	l, ok := v.(value.List)
	if !ok {
		return nil, false
	}
	if len(l) == 0 {
		return value.Null{}, true
	}
	return l[len(l)-1], true
}

// lengthFilter counts the elements of a list or dict, or the code points of
// a string or symbol.
func lengthFilter(v value.Value, _ []value.Value) (value.Value, bool) {
	switch v := v.(type) {
	case value.List:
		return value.Int(len(v)), true
	case *value.Dict:
		return value.Int(v.Len()), true
	case value.String:
		return value.Int(value.RuneLen(string(v))), true
	case value.Symbol:
		return value.Int(value.RuneLen(string(v))), true
	}
	return nil, false
}

// indentFilter indents every line after the first by n spaces. The empty
// text after a final line feed is not a line and stays empty.
func indentFilter(v value.Value, args []value.Value) (value.Value, bool) {
	s := value.Text(v)
	n := int(args[0].(value.Int))
	if n == 0 || !strings.Contains(s, "\n") {
		return value.String(s), true
	}
	pad := strings.Repeat(" ", n)
	trailing := strings.HasSuffix(s, "\n")
	if trailing {
		s = s[:len(s)-1]
	}
	s = strings.ReplaceAll(s, "\n", "\n"+pad)
	if trailing {
		s += "\n"
	}
	return value.String(s), true
}

// linesFilter keeps the first n lines: the text before the n-th line feed,
// or the whole text when it has fewer lines.
func linesFilter(v value.Value, args []value.Value) (value.Value, bool) {
	s := value.Text(v)
	n := int(args[0].(value.Int))
	if n == 0 {
		return value.String(""), true
	}
	off := 0
	for range n {
		i := strings.IndexByte(s[off:], '\n')
		if i < 0 {
			return value.String(s), true
		}
		off += i + 1
	}
	return value.String(s[:off-1]), true
}

func keysFilter(v value.Value, _ []value.Value) (value.Value, bool) {
	d, ok := v.(*value.Dict)
	if !ok {
		return nil, false
	}
	keys := d.Keys()
	if len(keys) == 0 {
		return value.List(nil), true
	}
	l := make(value.List, len(keys))
	for i, k := range keys {
		l[i] = value.String(k)
	}
	return l, true
}

// isBlank reports whether default(v) replaces v: null, "" or the empty list.
func isBlank(v value.Value) bool {
	switch v := v.(type) {
	case nil, value.Null:
		return true
	case value.String:
		return v == ""
	case value.List:
		return len(v) == 0
	}
	return false
}
