package sexp

import (
	"errors"
	"math"
	"strconv"
	"strings"
)

// ClassifyAtom classifies the text of an atom written without backslash
// escapes by the rules of SPEC §4.4: Nil for nil, Bool for true and false,
// Int for an integer literal (value in i), Float for a float literal (value in
// f) and Symbol for anything else, including the empty text. A number literal
// that does not fit keeps its kind (Int or Float) and err is set; its text is
// the syntax error message, for example "float literal out of range: 1e999".
//
// The evaluator can use it to read numbers from strings (to-number) with
// exactly the reader's syntax.
func ClassifyAtom(text string) (kind Kind, i int64, f float64, err error) {
	kind, i, f, msg := classifyAtom(text)
	if msg != "" {
		err = errors.New(msg)
	}
	return kind, i, f, err
}

// ReadsAsNumber reports whether text, read as an atom without escapes, is an
// integer or float literal, whether or not its value is in range.
func ReadsAsNumber(text string) bool {
	k := numberShape(text)
	return k == Int || k == Float
}

// classifyAtom is ClassifyAtom with the error as a message, "" when none, so
// that the reader allocates nothing for the common case.
func classifyAtom(text string) (kind Kind, i int64, f float64, msg string) {
	switch text {
	case "nil":
		return Nil, 0, 0, ""
	case "true", "false":
		return Bool, 0, 0, ""
	}
	switch numberShape(text) {
	case Int:
		v, ok := parseInt(text)
		if !ok {
			return Int, 0, 0, "integer literal out of range: " + text
		}
		return Int, v, 0, ""
	case Float:
		v, ok := parseFloat(text)
		if !ok {
			return Float, 0, 0, "float literal out of range: " + text
		}
		return Float, 0, v, ""
	}
	return Symbol, 0, 0, ""
}

// numberShape returns Int when text has the shape of an integer literal, Float
// when it has the shape of a float literal and Symbol otherwise.
//
//	integer: [+-]? D
//	float:   [+-]? (D.D | D. | .D | D) ([eE] [+-]? D)?   with a . or an exponent
//	D:       [0-9]+ (_[0-9]+)*
func numberShape(text string) Kind {
	n := len(text)
	i := 0
	if n > 0 && (text[0] == '+' || text[0] == '-') {
		i++
	}
	j := scanDigitGroup(text, i)
	intDigits := j > i
	if j == n {
		if intDigits {
			return Int
		}
		return Symbol
	}
	if text[j] == '.' {
		k := scanDigitGroup(text, j+1)
		if !intDigits && k == j+1 {
			return Symbol // "." or ".e5": the mantissa needs a digit
		}
		j = k
	} else if !intDigits {
		return Symbol
	}
	if j < n && (text[j] == 'e' || text[j] == 'E') {
		k := j + 1
		if k < n && (text[k] == '+' || text[k] == '-') {
			k++
		}
		m := scanDigitGroup(text, k)
		if m == k {
			return Symbol
		}
		j = m
	}
	if j != n {
		return Symbol
	}
	return Float
}

// scanDigitGroup returns the end of the digit group [0-9]+(_[0-9]+)* that
// starts at s[i], or i when s[i] is not a digit.
func scanDigitGroup(s string, i int) int {
	j := i
	for j < len(s) && isDigit(s[j]) {
		j++
	}
	if j == i {
		return i
	}
	for j+1 < len(s) && s[j] == '_' && isDigit(s[j+1]) {
		j += 2
		for j < len(s) && isDigit(s[j]) {
			j++
		}
	}
	return j
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }

// parseInt converts text of integer shape; ok is false when the value does not
// fit in an int64.
func parseInt(text string) (v int64, ok bool) {
	neg := false
	switch text[0] {
	case '-':
		neg = true
		text = text[1:]
	case '+':
		text = text[1:]
	}
	limit := uint64(math.MaxInt64)
	if neg {
		limit++ // -9223372036854775808 fits
	}
	var u uint64
	for i := 0; i < len(text); i++ {
		c := text[i]
		if c == '_' {
			continue
		}
		d := uint64(c - '0')
		if u > (limit-d)/10 {
			return 0, false
		}
		u = u*10 + d
	}
	if neg {
		return int64(-u), true // two's complement: -(1<<63) wraps to MinInt64
	}
	return int64(u), true
}

// parseFloat converts text of float shape to the nearest float64; ok is false
// when the value is too large. A value too small becomes 0 or a subnormal.
func parseFloat(text string) (v float64, ok bool) {
	if strings.IndexByte(text, '_') >= 0 {
		text = strings.ReplaceAll(text, "_", "")
	}
	v, err := strconv.ParseFloat(text, 64)
	if err != nil || math.IsInf(v, 0) {
		return 0, false
	}
	return v, true
}
