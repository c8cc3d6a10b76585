package sexp

import (
	"strings"
	"unicode/utf8"
)

// Byte classes of the lexer (SPEC §4.2), looked up in byteClass.
const (
	classAtom   uint8 = iota // an ordinary ASCII character inside an atom
	classSpace               // space, tab, LF, CR, vertical tab, form feed
	classDelim               // one of ( ) [ ] " ; which end an atom
	classEscape              // backslash
	classHigh                // the first byte of a non-ASCII code point
)

var byteClass = func() (t [256]uint8) {
	for c := 0x80; c < 0x100; c++ {
		t[c] = classHigh
	}
	for _, c := range []byte(" \t\n\r\v\f") {
		t[c] = classSpace
	}
	for _, c := range []byte(`()[]";`) {
		t[c] = classDelim
	}
	t['\\'] = classEscape
	return t
}()

// Messages of the syntax errors of SPEC §4.8.
const (
	msgEmptyProgram   = "empty program"
	msgUnclosedList   = "unclosed '(': missing ')'"
	msgUnexpectedRP   = "unexpected ')'"
	msgSquareBrackets = "square brackets are not supported; write lists with ( )"
	msgUnterminated   = "unterminated string"
	msgQuoteNoDatum   = "quote (') must be followed by a datum"
	msgInvalidUTF8    = "invalid UTF-8 encoding"
	msgTooLarge       = "source text too large (more than 4 GiB)"
	msgTooDeep        = "nesting too deep (more than 100000 levels)"
)

// MaxNesting is how deeply lists and quotes may nest in source text; deeper
// nesting is the syntax error "nesting too deep (more than 100000 levels)",
// so that every later stage (check, fmt, compilation, evaluation) can walk
// the tree without exhausting the stack.
const MaxNesting = 100_000

// lexer scans the text of one Source. It keeps the offset of the next byte
// and reports the first error it meets; the reader drives it.
type lexer struct {
	src  *Source
	text string
	off  int
	err  *Error // the first error met
	errs ErrorList

	keepComments bool
	comments     []Comment
}

// fail records an error at off and returns it.
func (lx *lexer) fail(off int, msg string) *Error {
	e := &Error{Pos: Pos{Src: lx.src, Off: off}, Msg: msg}
	if lx.err == nil {
		lx.err = e
	}
	lx.errs = append(lx.errs, e)
	return e
}

// checkRune validates the code point that starts at off and returns its
// length; an invalid UTF-8 byte is recorded as an error and then read as
// one byte, so that reading goes on.
func (lx *lexer) checkRune(off int) int {
	r, size := utf8.DecodeRuneInString(lx.text[off:])
	if r == utf8.RuneError && size == 1 {
		lx.fail(off, msgInvalidUTF8)
	}
	return size
}

// skipSpace moves past white space and comments, recording comments when
// asked. It stops at the next token or at the end of the text and returns
// true; an error in a comment (invalid UTF-8) is recorded.
func (lx *lexer) skipSpace() bool {
	text := lx.text
	for lx.off < len(text) {
		c := text[lx.off]
		switch {
		case byteClass[c] == classSpace:
			lx.off++
		case c == ';':
			lx.skipComment()
		default:
			return true
		}
	}
	return true
}

// skipComment moves past the comment that starts at lx.off, up to its line
// feed.
func (lx *lexer) skipComment() {
	start := lx.off
	end := len(lx.text)
	if i := strings.IndexByte(lx.text[start:], '\n'); i >= 0 {
		end = start + i
	}
	body := lx.text[start:end]
	if !utf8.ValidString(body) {
		for i := 0; i < len(body); {
			i += lx.checkRune(start + i)
		}
	}
	lx.off = end
	if lx.keepComments {
		if n := len(body); n > 0 && body[n-1] == '\r' && end < len(lx.text) {
			body = body[:n-1] // the CR of a CRLF line end
		}
		lx.comments = append(lx.comments, Comment{
			Pos:  Pos{Src: lx.src, Off: start},
			End:  start + len(body),
			Text: body,
		})
	}
}

// stringSpecial marks the bytes that scanString must look at: the closing
// quote, a backslash, a CR and the first byte of a non-ASCII code point.
var stringSpecial = func() (t [256]bool) {
	for c := utf8.RuneSelf; c < 0x100; c++ {
		t[c] = true
	}
	t['"'], t['\\'], t['\r'] = true, true, true
	return t
}()

// scanString scans the string literal whose opening quote is at lx.off. It
// returns the string's value; ok is false after an error.
func (lx *lexer) scanString() (value string, ok bool) {
	text := lx.text
	start := lx.off
	plain := true // no escape and no CRLF: the value is a substring of text
	i := start + 1
	for i < len(text) {
		c := text[i]
		if !stringSpecial[c] {
			i++
			continue
		}
		switch {
		case c == '"':
			lx.off = i + 1
			body := text[start+1 : i]
			if plain {
				return body, true
			}
			return unescapeString(body), true
		case c == '\\':
			plain = false
			i++
			if i < len(text) && text[i] < utf8.RuneSelf {
				i++ // the escaped character, " and \ included
			}
		case c == '\r':
			if i+1 < len(text) && text[i+1] == '\n' {
				plain = false
			}
			i++
		default: // the first byte of a non-ASCII code point
			i += lx.checkRune(i)
		}
	}
	lx.fail(start, msgUnterminated).Incomplete = true
	lx.off = len(text)
	return "", false
}

// unescapeString returns the value of a string body: the escapes of SPEC §4.3
// replaced, any other backslash sequence kept as written, and each CRLF line
// break read as a single LF.
func unescapeString(body string) string {
	var b strings.Builder
	b.Grow(len(body))
	run := 0 // body[run:i] is still to be copied
	for i := 0; i < len(body)-1; i++ {
		c := body[i]
		if c == '\r' && body[i+1] == '\n' {
			b.WriteString(body[run:i])
			run = i + 1 // the LF is copied with the next run
		} else if c == '\\' {
			if r, ok := stringEscape(body[i+1]); ok {
				b.WriteString(body[run:i])
				b.WriteByte(r)
				i++
				run = i + 1
			}
			// Any other \x stays as written.
		}
	}
	b.WriteString(body[run:])
	return b.String()
}

// stringEscape returns the character that the string escape \c stands for.
func stringEscape(c byte) (byte, bool) {
	switch c {
	case '\\', '"':
		return c, true
	case 'n':
		return '\n', true
	case 't':
		return '\t', true
	case 'r':
		return '\r', true
	case 'b':
		return '\b', true
	case 'f':
		return '\f', true
	}
	return 0, false
}

// scanAtom scans the atom that starts at lx.off. It returns the atom's source
// text and whether it holds a backslash escape; ok is false after an error.
func (lx *lexer) scanAtom() (raw string, escaped, ok bool) {
	text := lx.text
	start := lx.off
	i := start
loop:
	for i < len(text) {
		switch byteClass[text[i]] {
		case classAtom:
			i++
		case classEscape:
			escaped = true
			i++
			if i < len(text) {
				if text[i] < utf8.RuneSelf {
					i++
				} else {
					i += lx.checkRune(i)
				}
			}
		case classHigh:
			i += lx.checkRune(i)
		default:
			break loop
		}
	}
	lx.off = i
	return text[start:i], escaped, true
}

// unescapeAtom returns the symbol name of an atom with backslash escapes: each
// backslash is dropped and the character after it kept. A backslash at the
// very end of the text has nothing to escape and stands for itself.
func unescapeAtom(raw string) string {
	var b strings.Builder
	b.Grow(len(raw))
	for i := 0; i < len(raw); i++ {
		if raw[i] == '\\' && i+1 < len(raw) {
			i++
		}
		b.WriteByte(raw[i])
	}
	return b.String()
}
