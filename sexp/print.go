package sexp

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// QuoteString returns s as a string literal by the rule of SPEC §5.5: in
// double quotes, with backslash, double quote, LF, tab, CR, backspace and form
// feed escaped and every other character verbatim. Reading the result gives s
// back whenever s is valid UTF-8.
func QuoteString(s string) string { return string(AppendQuoteString(nil, s)) }

// AppendQuoteString appends QuoteString(s) to dst and returns the result.
func AppendQuoteString(dst []byte, s string) []byte {
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(s); i++ {
		esc := quoteEscape(s[i])
		if esc == 0 {
			continue
		}
		dst = append(dst, s[start:i]...)
		dst = append(dst, '\\', esc)
		start = i + 1
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
}

// quoteEscape returns the letter that follows the backslash when QuoteString
// escapes c, or 0 when c is written as it is.
func quoteEscape(c byte) byte {
	switch c {
	case '\\', '"':
		return c
	case '\n':
		return 'n'
	case '\t':
		return 't'
	case '\r':
		return 'r'
	case '\b':
		return 'b'
	case '\f':
		return 'f'
	}
	return 0
}

// FormatFloat returns the canonical text of f (SPEC §5.5): the shortest
// decimal digits that read back as f, in plain notation with ".0" appended
// when there is no '.' if f is 0 or 1e-6 <= |f| < 1e21, otherwise in exponent
// notation d[.ddd]e±N without leading zeros in N. Examples: 3.5, 1000.0,
// 0.30000000000000004, -0.0, 1e+21, 1.5e-7. The non-finite values, which
// evalrun never produces, print as +Inf, -Inf and NaN.
func FormatFloat(f float64) string { return string(AppendFloat(nil, f)) }

// AppendFloat appends FormatFloat(f) to dst and returns the result.
func AppendFloat(dst []byte, f float64) []byte {
	if math.IsInf(f, 0) || math.IsNaN(f) {
		return strconv.AppendFloat(dst, f, 'g', -1, 64)
	}
	start := len(dst)
	if abs := math.Abs(f); f == 0 || (abs >= 1e-6 && abs < 1e21) {
		dst = strconv.AppendFloat(dst, f, 'f', -1, 64)
		for _, c := range dst[start:] {
			if c == '.' {
				return dst
			}
		}
		return append(dst, '.', '0')
	}
	dst = strconv.AppendFloat(dst, f, 'e', -1, 64)
	// strconv writes at least two exponent digits (1.5e-07); drop the zeros.
	i := len(dst) - 1
	for dst[i-1] != '+' && dst[i-1] != '-' {
		i--
	}
	j := i
	for j < len(dst)-1 && dst[j] == '0' {
		j++
	}
	return append(dst[:i], dst[j:]...)
}

// SymbolText returns the text that reads back as the symbol name (SPEC §5.5):
// the name with a backslash before white space, ( ) [ ] " ; and a leading ',
// and before the first character of a name that would otherwise read as a
// number, nil, true or false. Decided here, as §5.5 does not mention them: a
// backslash in the name is written as two backslashes (else \n would read
// back as n), and a leading byte-order mark gets a backslash too (else it
// would be ignored at the start of a text). The empty name has no written
// form; it prints as the empty text. For every other name that is valid
// UTF-8, reading the result gives the symbol back.
func SymbolText(name string) string {
	if !symbolNeedsEscape(name) {
		return name
	}
	return string(AppendSymbol(nil, name))
}

// AppendSymbol appends SymbolText(name) to dst and returns the result.
func AppendSymbol(dst []byte, name string) []byte {
	if name == "" {
		return dst
	}
	if needsLeadingEscape(name) {
		dst = append(dst, '\\')
	}
	start := 0
	for i := 0; i < len(name); i++ {
		if needsAtomEscape(name[i]) {
			dst = append(dst, name[start:i]...)
			dst = append(dst, '\\')
			start = i
		}
	}
	return append(dst, name[start:]...)
}

func symbolNeedsEscape(name string) bool {
	if name == "" {
		return false
	}
	if needsLeadingEscape(name) {
		return true
	}
	for i := 0; i < len(name); i++ {
		if needsAtomEscape(name[i]) {
			return true
		}
	}
	return false
}

// needsLeadingEscape reports whether a backslash must precede the first
// character of name, which is not empty.
func needsLeadingEscape(name string) bool {
	return name[0] == '\'' || strings.HasPrefix(name, bom) || classifiesAsNonSymbol(name)
}

// needsAtomEscape reports whether the byte c must follow a backslash to be
// part of an atom: white space, a delimiter or the backslash itself.
func needsAtomEscape(c byte) bool {
	cl := byteClass[c]
	return cl == classSpace || cl == classDelim || cl == classEscape
}

// classifiesAsNonSymbol reports whether text, read as an atom, is nil, a
// boolean or a number (in range or not) rather than a symbol.
func classifiesAsNonSymbol(text string) bool {
	switch text {
	case "nil", "true", "false":
		return true
	}
	return numberShape(text) != Symbol
}

// String returns the canonical text of n (SPEC §5.5): atoms as the value
// printer writes them, lists as (a b), the empty list as nil and a quote
// shorthand 'd as (quote d); a datum made by a Builder prints as its value's
// String method does, when it has one. It does not recurse, so any depth
// prints.
func (n *Node) String() string { return string(AppendNode(nil, n)) }

// AppendNode appends n.String() to dst and returns the result.
func AppendNode(dst []byte, n *Node) []byte {
	type open struct {
		items []*Node
		next  int
	}
	var stack []open
	for {
		if n != nil && n.Kind == List && len(n.Items) > 0 {
			dst = append(dst, '(')
			stack = append(stack, open{items: n.Items, next: 1})
			n = n.Items[0]
			continue
		}
		dst = appendAtom(dst, n)
		for {
			if len(stack) == 0 {
				return dst
			}
			top := &stack[len(stack)-1]
			if top.next < len(top.items) {
				n = top.items[top.next]
				top.next++
				dst = append(dst, ' ')
				break
			}
			dst = append(dst, ')')
			stack = stack[:len(stack)-1]
		}
	}
}

// appendAtom appends the canonical text of a node that is not a non-empty
// list.
func appendAtom(dst []byte, n *Node) []byte {
	if n == nil {
		return append(dst, "<nil>"...)
	}
	if v, ok := n.Built(); ok {
		if s, ok := v.(fmt.Stringer); ok {
			return append(dst, s.String()...)
		}
	}
	switch n.Kind {
	case Symbol:
		return AppendSymbol(dst, n.Str)
	case String:
		return AppendQuoteString(dst, n.Str)
	case Int:
		return strconv.AppendInt(dst, n.Int, 10)
	case Float:
		return AppendFloat(dst, n.Float())
	case Bool:
		return strconv.AppendBool(dst, n.Bool)
	case Nil, List:
		return append(dst, "nil"...)
	}
	return append(dst, "#<invalid node>"...)
}
