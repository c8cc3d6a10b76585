package value

import (
	"bufio"
	"io"
	"math"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/evalrun/evalrun/sexp"
)

// Value is any value a workflow can compute with.
type Value interface {
	// Type returns the type name used in messages: int, float, bool, string,
	// symbol, list, null, dict, task-result or closure.
	Type() string
	// String returns the canonical printed form (SPEC §5.5).
	String() string
}

// Int is a signed 64-bit integer.
type Int int64

// Float is a finite 64-bit float.
type Float float64

// Bool is true or false.
type Bool bool

// String is a string of Unicode text.
type String string

// Symbol is a symbol; a name starting with ':' is a keyword.
type Symbol string

// Null is the null value: misses in lookups, JSON null, the variable null.
type Null struct{}

// List is a list of values; the nil List is the empty list, printed nil.
type List []Value

// Type implements Value.
func (Int) Type() string { return "int" }

// Type implements Value.
func (Float) Type() string { return "float" }

// Type implements Value.
func (Bool) Type() string { return "bool" }

// Type implements Value.
func (String) Type() string { return "string" }

// Type implements Value.
func (Symbol) Type() string { return "symbol" }

// Type implements Value.
func (Null) Type() string { return "null" }

// Type implements Value.
func (List) Type() string { return "list" }

// String implements Value.
func (v Int) String() string { return strconv.FormatInt(int64(v), 10) }

// String implements Value.
func (v Float) String() string { return sexp.FormatFloat(float64(v)) }

// String implements Value.
func (v Bool) String() string {
	if v {
		return "true"
	}
	return "false"
}

// String implements Value.
func (v String) String() string { return sexp.QuoteString(string(v)) }

// String implements Value.
func (v Symbol) String() string { return sexp.SymbolText(string(v)) }

// String implements Value.
func (Null) String() string { return "null" }

// String implements Value.
func (l List) String() string {
	if len(l) == 0 {
		return "nil"
	}
	var b strings.Builder
	writeList(&b, l, 0, 0)
	return b.String()
}

// IsKeyword reports whether the symbol is a keyword (its name starts with ':').
func (v Symbol) IsKeyword() bool { return len(v) > 0 && v[0] == ':' }

// MaxPrintDepth is how deeply nested lists and dicts are printed, as
// canonical text or JSON; a value nested deeper prints TooDeep in its place.
// It keeps printing from exhausting the stack, and indented JSON, whose size
// grows with the square of the depth, from exhausting memory.
const MaxPrintDepth = 10_000

// maxCompareDepth bounds the recursion of Equal and JSONSize: values nested
// deeper than a million levels compare unequal and measure as too large.
const maxCompareDepth = 1_000_000

// TooDeep is printed in place of a value nested more than MaxPrintDepth
// levels deep.
const TooDeep = "#<nested too deeply>"

// Print writes the canonical form of v into b without building intermediate
// strings for nested lists and dicts.
func Print(b *strings.Builder, v Value) { print(b, v, 0, 0) }

// Fprint writes the canonical form of v to w through a buffer, so that a
// large value is never held as one text (Print into a strings.Builder
// holds it, and its regrowths, in memory).
func Fprint(w io.Writer, v Value) error {
	cw := &countingWriter{w: bufio.NewWriterSize(w, 64<<10)}
	print(cw, v, 0, 0)
	return cw.w.Flush()
}

// textSink is where the printer writes: a strings.Builder or a
// countingWriter. Len is the number of bytes written so far, which Brief
// uses to stop.
type textSink interface {
	WriteString(s string) (int, error)
	WriteByte(c byte) error
	Len() int
}

// countingWriter is a buffered writer that counts what it is given.
type countingWriter struct {
	w       *bufio.Writer
	n       int
	scratch []byte // an atom's text
}

func (c *countingWriter) WriteString(s string) (int, error) {
	c.n += len(s)
	return c.w.WriteString(s)
}

func (c *countingWriter) WriteByte(b byte) error {
	c.n++
	return c.w.WriteByte(b)
}

func (c *countingWriter) Len() int { return c.n }

// Brief returns the canonical form of v cut to about max bytes, with "…"
// appended when cut: for messages, which must stay short even for a value
// whose full form is huge (a list sharing its elements can print to 2^60
// bytes).
func Brief(v Value, max int) string {
	var b strings.Builder
	print(&b, v, 0, max)
	if b.Len() <= max {
		return b.String()
	}
	s := b.String()[:max]
	for !utf8.ValidString(s) {
		s = s[:len(s)-1]
	}
	return s + "…"
}

// print writes v; once b holds more than limit bytes (limit > 0) it stops.
func print(b textSink, v Value, depth, limit int) {
	switch v := v.(type) {
	case List:
		if len(v) == 0 {
			b.WriteString("nil")
			return
		}
		writeList(b, v, depth, limit)
	case *Dict:
		v.print(b, depth, limit)
	default:
		if cw, ok := b.(*countingWriter); ok {
			// Through the writer's scratch space: no string per atom.
			cw.scratch = appendAtom(cw.scratch[:0], v)
			cw.n += len(cw.scratch)
			_, _ = cw.w.Write(cw.scratch)
			return
		}
		b.WriteString(v.String())
	}
}

// appendAtom appends v.String() to dst, without making the string for the
// atoms of the reader.
func appendAtom(dst []byte, v Value) []byte {
	switch v := v.(type) {
	case Int:
		return strconv.AppendInt(dst, int64(v), 10)
	case Float:
		return sexp.AppendFloat(dst, float64(v))
	case Bool:
		return strconv.AppendBool(dst, bool(v))
	case String:
		return sexp.AppendQuoteString(dst, string(v))
	case Symbol:
		return sexp.AppendSymbol(dst, string(v))
	}
	return append(dst, v.String()...)
}

func writeList(b textSink, l List, depth, limit int) {
	if depth >= MaxPrintDepth {
		b.WriteString(TooDeep)
		return
	}
	b.WriteByte('(')
	for i, e := range l {
		if limit > 0 && b.Len() > limit {
			return
		}
		if i > 0 {
			b.WriteByte(' ')
		}
		print(b, e, depth+1, limit)
	}
	b.WriteByte(')')
}

// Truthy reports whether v counts as true (SPEC §5.2): false, null, 0, 0.0,
// "", the empty list and the empty dict are false; everything else is true.
func Truthy(v Value) bool {
	switch v := v.(type) {
	case Bool:
		return bool(v)
	case Null:
		return false
	case Int:
		return v != 0
	case Float:
		return v != 0
	case String:
		return v != ""
	case List:
		return len(v) > 0
	case *Dict:
		return v.Len() > 0
	case nil:
		return false
	}
	return true
}

// Equal is the structural equality of eq? and equal? (SPEC §5.3). A symbol
// given at the top level compares as the string of its name; inside lists and
// dicts a symbol equals only a symbol.
func Equal(a, b Value) bool {
	if s, ok := a.(Symbol); ok {
		a = String(s)
	}
	if s, ok := b.(Symbol); ok {
		b = String(s)
	}
	var st eqState
	return st.equal(a, b, 0)
}

// eqState carries one Equal call: after memoAfter comparisons of lists and
// dicts it remembers the pairs found equal, so that values sharing their
// parts (a list built by (list l l) sixty times over) compare in time
// proportional to their distinct parts, not to their printed size.
type eqState struct {
	compared int
	memo     map[eqPair]bool
}

// eqPair identifies two lists or two dicts by their storage.
type eqPair struct{ a, b any }

const memoAfter = 10_000

// seen reports whether the pair was already found equal; remember records
// that it is.
func (st *eqState) seen(p eqPair) bool {
	st.compared++
	if st.memo == nil {
		if st.compared < memoAfter {
			return false
		}
		st.memo = make(map[eqPair]bool)
	}
	return st.memo[p]
}

func (st *eqState) remember(p eqPair) {
	if st.memo != nil {
		st.memo[p] = true
	}
}

func (st *eqState) equal(a, b Value, depth int) bool {
	if depth > maxCompareDepth {
		return false
	}
	switch a := a.(type) {
	case Int:
		switch b := b.(type) {
		case Int:
			return a == b
		case Float:
			return intEqualsFloat(int64(a), float64(b))
		}
		return false
	case Float:
		switch b := b.(type) {
		case Int:
			return intEqualsFloat(int64(b), float64(a))
		case Float:
			return a == b
		}
		return false
	case Bool:
		b, ok := b.(Bool)
		return ok && a == b
	case String:
		b, ok := b.(String)
		return ok && a == b
	case Symbol:
		b, ok := b.(Symbol)
		return ok && a == b
	case Null:
		_, ok := b.(Null)
		return ok
	case List:
		b, ok := b.(List)
		if !ok || len(a) != len(b) {
			return false
		}
		if len(a) == 0 || &a[0] == &b[0] {
			return true // the same list
		}
		pair := eqPair{&a[0], &b[0]}
		if st.seen(pair) {
			return true
		}
		for i := range a {
			if !st.equal(a[i], b[i], depth+1) {
				return false
			}
		}
		st.remember(pair)
		return true
	case *Dict:
		b, ok := b.(*Dict)
		if !ok || a.Len() != b.Len() {
			return false
		}
		if a.Len() == 0 || a == b {
			return true // either may be the nil dict
		}
		pair := eqPair{a, b}
		if st.seen(pair) {
			return true
		}
		for i, k := range a.keys {
			bv, ok := b.Get(k)
			if !ok || !st.equal(a.vals[i], bv, depth+1) {
				return false
			}
		}
		st.remember(pair)
		return true
	case *TaskResult:
		b, ok := b.(*TaskResult)
		if !ok {
			return false
		}
		if a == b {
			return true
		}
		return a.Status == b.Status && a.Content == b.Content &&
			st.equal(a.ParsedOrNull(), b.ParsedOrNull(), depth+1) && st.equal(a.NotesOrEmpty(), b.NotesOrEmpty(), depth+1)
	}
	// Closures and other host values are equal only to themselves.
	return a == b
}

// truncateRunes cuts s to n code points and reports whether it was cut.
func truncateRunes(s string, n int) (string, bool) {
	if len(s) <= n {
		return s, false
	}
	i := 0
	for pos := range s {
		if i == n {
			return s[:pos], true
		}
		i++
	}
	return s, false
}

// RuneLen returns the number of code points in s.
func RuneLen(s string) int { return utf8.RuneCountInString(s) }

// intEqualsFloat reports whether an int and a float are numerically equal,
// exactly: 9007199254740993 is not 9007199254740992.0, although converting
// the int to a float rounds it to that.
func intEqualsFloat(i int64, f float64) bool {
	if f != math.Trunc(f) || f >= 0x1p63 || f < -0x1p63 {
		return false
	}
	return int64(f) == i
}
