package value

import (
	"strconv"
	"unicode/utf8"

	"github.com/evalrun/evalrun/sexp"
)

// JSONSize returns the length in bytes of JSON(v) without building it. Once
// the count passes limit it stops and returns a number above limit, so that
// a value too large to encode is refused in time proportional to limit, not
// to the value (a list may hold the same large string ten million times).
func JSONSize(v Value, limit int) int {
	n := 0
	addJSONSize(v, limit, &n, 0)
	return n
}

// TextSize is JSONSize for Text(v).
func TextSize(v Value, limit int) int {
	switch v := v.(type) {
	case String:
		return len(v)
	case Symbol:
		return len(v)
	case Null, nil:
		return 0
	case List, *Dict:
		return JSONSize(v, limit)
	case *TaskResult:
		return len(v.Content)
	}
	return len(v.String())
}

func addJSONSize(v Value, limit int, n *int, depth int) {
	if *n > limit {
		return
	}
	switch v.(type) {
	case List, *Dict, *TaskResult:
		if depth >= MaxPrintDepth {
			*n += len(TooDeep) + 2
			return
		}
	}
	var digits [40]byte // numbers are measured here, not in a new string
	switch v := v.(type) {
	case Int:
		*n += len(strconv.AppendInt(digits[:0], int64(v), 10))
	case Float:
		*n += len(sexp.AppendFloat(digits[:0], float64(v)))
	case Bool:
		*n += len(strconv.AppendBool(digits[:0], bool(v)))
	case Null, nil:
		*n += 4
	case String:
		*n += jsonStringSize(string(v), limit-*n)
	case Symbol:
		*n += jsonStringSize(string(v), limit-*n)
	case List:
		*n += 2 + max(len(v)-1, 0)
		for _, e := range v {
			if addJSONSize(e, limit, n, depth+1); *n > limit {
				return
			}
		}
	case *Dict:
		*n += 2 + max(v.Len()-1, 0)
		for k, e := range v.All() {
			*n += jsonStringSize(k, limit-*n) + 1
			if addJSONSize(e, limit, n, depth+1); *n > limit {
				return
			}
		}
	case *TaskResult:
		*n += len(`{"status":,"content":,"parsedContent":,"notes":}`) + len(v.Status) + 2
		*n += jsonStringSize(v.Content, limit-*n)
		addJSONSize(v.ParsedOrNull(), limit, n, depth+1)
		addJSONSize(v.NotesOrEmpty(), limit, n, depth+1)
	default:
		*n += jsonStringSize(v.String(), limit-*n)
	}
}

// jsonStringSize is the encoded length of s as a JSON string, or a number
// above room once that is certain.
func jsonStringSize(s string, room int) int {
	if len(s)+2 > room {
		return len(s) + 2
	}
	n := 2
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			switch {
			case c == '"' || c == '\\' || c == '\n' || c == '\r' || c == '\t' || c == '\b' || c == '\f':
				n += 2
			case c < 0x20:
				n += 6
			default:
				n++
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			n += 6
		case r == '\u2028' || r == '\u2029':
			n += 6
		default:
			n += size
		}
		i += size
	}
	return n
}

// TooDeepToPrint reports whether v holds a list, dict or TaskResult nested
// MaxPrintDepth or more levels below it, which the printers replace by
// TooDeep; primitives that turn values into data refuse such values.
func TooDeepToPrint(v Value) bool { return containerAtDepth(v, MaxPrintDepth) }

// containerAtDepth reports whether a container lies remaining levels below v.
func containerAtDepth(v Value, remaining int) bool {
	var children func(yield func(Value) bool)
	switch v := v.(type) {
	case List:
		children = func(yield func(Value) bool) {
			for _, e := range v {
				if !yield(e) {
					return
				}
			}
		}
	case *Dict:
		children = func(yield func(Value) bool) {
			for _, e := range v.All() {
				if !yield(e) {
					return
				}
			}
		}
	case *TaskResult:
		children = func(yield func(Value) bool) {
			_ = yield(v.ParsedOrNull()) && yield(v.NotesOrEmpty())
		}
	default:
		return false
	}
	if remaining == 0 {
		return true
	}
	for e := range children {
		if containerAtDepth(e, remaining-1) {
			return true
		}
	}
	return false
}
