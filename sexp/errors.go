package sexp

import (
	"fmt"
	"io"
	"strings"
	"unicode/utf8"
)

// Error is a syntax error: a message at a source position. Parse, ParseFile
// and Format return it as their error.
type Error struct {
	Pos Pos    // where the error is; see FormatError for an invalid Pos
	Msg string // the message, without position
	// Incomplete is set when more text could complete the input: a list still
	// open, a string without its closing quote or a quote at the end of the
	// text. The REPL uses it to ask for a continuation line.
	Incomplete bool
}

// Error returns "FILE:LINE:COL: MSG", or just MSG when the position is not
// valid.
func (e *Error) Error() string {
	if !e.Pos.IsValid() {
		return e.Msg
	}
	return e.Pos.String() + ": " + e.Msg
}

// Display returns the three-line display of the error (SPEC §4.7): position
// and message, the source line, and a caret under the column.
func (e *Error) Display() string { return FormatError(e.Pos, e.Msg) }

// FormatError returns the three-line display of SPEC §4.7, each line ending in
// a newline:
//
//	FILE:LINE:COL: MSG
//	<the source line, without its line terminator>
//	<caret line>
//
// When pos is not valid the display is the one line "evalrun: MSG".
func FormatError(pos Pos, msg string) string { return FormatDiagnostic(pos, "", msg) }

// FormatDiagnostic is FormatError with a severity word such as "error" or
// "warning" written after the position (SPEC §17.4:
// "FILE:LINE:COL: error: MSG"). An empty severity writes none.
func FormatDiagnostic(pos Pos, severity, msg string) string {
	var b strings.Builder
	writeDiagnostic(&b, pos, severity, msg)
	return b.String()
}

// WriteDiagnostic writes FormatDiagnostic(pos, severity, msg) to w.
func WriteDiagnostic(w io.Writer, pos Pos, severity, msg string) error {
	_, err := io.WriteString(w, FormatDiagnostic(pos, severity, msg))
	return err
}

func writeDiagnostic(b *strings.Builder, pos Pos, severity, msg string) {
	if pos.IsValid() {
		b.WriteString(pos.String())
	} else {
		b.WriteString("evalrun")
	}
	b.WriteString(": ")
	if severity != "" {
		b.WriteString(severity)
		b.WriteString(": ")
	}
	b.WriteString(msg)
	b.WriteByte('\n')
	if !pos.IsValid() {
		return
	}
	b.WriteString(SourceAndCaret(pos.Src.LineText(pos.Off), pos.Position().Column))
}

// SourceAndCaret returns the two lines evalrun prints under a position
// (SPEC §4.7), each ending in a newline: line as displayed (bytes that are
// not valid UTF-8 shown as U+FFFD) and the caret line under column col,
// counted in code points. Other positioned formats (plan files) use it,
// so that every caret of evalrun looks the same.
func SourceAndCaret(line string, col int) string {
	var b strings.Builder
	writeDisplayLine(&b, line)
	b.WriteByte('\n')
	writeCaretLine(&b, line, col)
	b.WriteByte('\n')
	return b.String()
}

// writeDisplayLine writes line with every byte that is not valid UTF-8
// replaced by U+FFFD, so that the terminal shows one column for each code point
// the column count saw.
func writeDisplayLine(b *strings.Builder, line string) {
	for len(line) > 0 {
		r, size := utf8.DecodeRuneInString(line)
		if r == utf8.RuneError && size == 1 {
			b.WriteRune(utf8.RuneError)
		} else {
			b.WriteString(line[:size])
		}
		line = line[size:]
	}
}

// writeCaretLine writes, for each code point of line before column col, a tab
// where the line has a tab and a space otherwise, then "^". A column past the
// end of the line (the position of a line terminator) is padded with spaces.
func writeCaretLine(b *strings.Builder, line string, col int) {
	n := 0
	for _, r := range line {
		if n >= col-1 {
			break
		}
		if r == '\t' {
			b.WriteByte('\t')
		} else {
			b.WriteByte(' ')
		}
		n++
	}
	for ; n < col-1; n++ {
		b.WriteByte(' ')
	}
	b.WriteByte('^')
}

// ErrorList is the list of syntax errors of a text, in the order the
// reader met them (ParseAll).
type ErrorList []*Error

// Error returns the first error's text, followed by "(and N more errors)"
// when there are more.
func (l ErrorList) Error() string {
	switch len(l) {
	case 0:
		return "no errors"
	case 1:
		return l[0].Error()
	}
	return fmt.Sprintf("%s (and %d more errors)", l[0], len(l)-1)
}

// Err returns l as an error, nil when it is empty.
func (l ErrorList) Err() error {
	if len(l) == 0 {
		return nil
	}
	return l
}

// Unwrap returns the errors, so that errors.As finds the first *Error.
func (l ErrorList) Unwrap() []error {
	out := make([]error, len(l))
	for i, e := range l {
		out[i] = e
	}
	return out
}
