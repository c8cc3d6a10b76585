package evaluator

import (
	"errors"
	"fmt"

	"github.com/evalrun/evalrun/sexp"
	"github.com/evalrun/evalrun/value"
)

// ErrorKind classifies evaluation errors (SPEC §6.6).
type ErrorKind string

// The error kinds.
const (
	KindUnbound   ErrorKind = "unbound"
	KindType      ErrorKind = "type"
	KindArity     ErrorKind = "arity"
	KindValue     ErrorKind = "value"
	KindUser      ErrorKind = "user"
	KindStep      ErrorKind = "step"
	KindDepth     ErrorKind = "depth"
	KindLimit     ErrorKind = "limit"
	KindCancelled ErrorKind = "cancelled"
	KindIO        ErrorKind = "io"
	KindInternal  ErrorKind = "internal"
)

// maxTrace is how many "called from" positions an error keeps.
const maxTrace = 10

// Error is an evaluation error: a kind, a message and the position of the
// node where it was detected, plus the positions of the enclosing closure
// applications (innermost first) for the "called from" lines.
type Error struct {
	Kind  ErrorKind
	Msg   string
	Pos   sexp.Pos
	Trace []sexp.Pos
	// Hint, when not "", is a known name near an unknown one, shown by
	// Display as "hint: did you mean 'NAME'?"; it is not part of Msg.
	Hint string
}

// Error returns "FILE:LINE:COL: MESSAGE", or the message alone when the error
// has no position.
func (e *Error) Error() string {
	if !e.Pos.IsValid() {
		return e.Msg
	}
	return e.Pos.String() + ": " + e.Msg
}

// Catchable reports whether try may catch the error and step may retry or
// skip it: every kind except limit and cancelled.
func (e *Error) Catchable() bool { return e.Kind != KindLimit && e.Kind != KindCancelled }

// Display returns the error in the three-line format of SPEC §4.7, followed by
// up to ten "  called from FILE:LINE:COL" lines and, for an unknown name
// near a known one, a line "hint: did you mean 'NAME'?".
func (e *Error) Display() string {
	s := sexp.FormatError(e.Pos, e.Msg)
	for _, p := range e.Trace {
		s += "  called from " + p.String() + "\n"
	}
	if e.Hint != "" {
		s += "hint: did you mean '" + e.Hint + "'?\n"
	}
	return s
}

// AsDict returns the dict a try handler binds: message, kind and position.
func (e *Error) AsDict() *value.Dict {
	pos := ""
	if e.Pos.IsValid() {
		pos = e.Pos.String()
	}
	return value.DictOf("message", value.String(e.Msg), "kind", value.String(string(e.Kind)), "position", value.String(pos))
}

func newError(pos sexp.Pos, kind ErrorKind, msg string) *Error {
	return &Error{Kind: kind, Msg: msg, Pos: pos}
}

func errorf(pos sexp.Pos, kind ErrorKind, format string, args ...any) *Error {
	for i, a := range args {
		switch v := a.(type) {
		case value.List, *value.Dict:
			// Messages quote values briefly: a list that shares its
			// elements can have a printed form of 2^60 bytes.
			args[i] = value.Brief(v.(value.Value), maxMessageValue)
		}
	}
	return &Error{Kind: kind, Msg: fmt.Sprintf(format, args...), Pos: pos}
}

// maxMessageValue is about how many bytes of a value an error message quotes.
const maxMessageValue = 200

// asEvalError converts any error into an *Error, giving it pos when it has
// none of its own.
func asEvalError(err error, pos sexp.Pos) *Error {
	var e *Error
	if errors.As(err, &e) {
		if !e.Pos.IsValid() && pos.IsValid() {
			c := *e
			c.Pos = pos
			return &c
		}
		return e
	}
	return &Error{Kind: KindInternal, Msg: err.Error(), Pos: pos}
}

// withPrefix returns a copy of err whose message starts with prefix; used only
// for the loop phrases of SPEC §7.10–§7.13.
func withPrefix(err error, prefix string) error {
	e := asEvalError(err, sexp.Pos{})
	if !e.Catchable() {
		return e
	}
	c := *e
	c.Msg = prefix + e.Msg
	return &c
}
