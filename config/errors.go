package config

import (
	"errors"
	"strings"

	"github.com/evalrun/evalrun/sexp"
)

// Error is one configuration error (SPEC §18): a position in a
// configuration file, the key concerned and a message that names it.
type Error struct {
	// Pos is the position in the file; it is not valid for a file that
	// cannot be read, whose name is then File.
	Pos sexp.Pos
	// File names the file when Pos is not valid.
	File string
	// Key is the key path ("limits.timeout"), "" when the error concerns
	// no key (a syntax error).
	Key string
	// Msg is the message, without the position.
	Msg string
}

// Error returns "FILE:LINE:COL: MESSAGE" (or "FILE: MESSAGE" when there is
// no position).
func (e *Error) Error() string {
	if e.Pos.IsValid() {
		return e.Pos.String() + ": " + e.Msg
	}
	if e.File == "" {
		return e.Msg
	}
	return e.File + ": " + e.Msg
}

// Display returns the error as evalrun prints it: the position and message,
// the source line and a caret (SPEC §4.7), ending in a newline.
func (e *Error) Display() string {
	if e.Pos.IsValid() {
		return sexp.FormatError(e.Pos, e.Msg)
	}
	return "evalrun: " + e.Error() + "\n"
}

// ErrorList holds every error of a Load, in file order.
type ErrorList []*Error

// Error returns the errors, one per line.
func (l ErrorList) Error() string {
	lines := make([]string, len(l))
	for i, e := range l {
		lines[i] = e.Error()
	}
	return strings.Join(lines, "\n")
}

// Unwrap lets errors.As find the individual errors.
func (l ErrorList) Unwrap() []error {
	errs := make([]error, len(l))
	for i, e := range l {
		errs[i] = e
	}
	return errs
}

// Errors returns the configuration errors held by err: the errors of an
// ErrorList, or the one *Error.
func Errors(err error) []*Error {
	var l ErrorList
	if errors.As(err, &l) {
		return l
	}
	var e *Error
	if errors.As(err, &e) {
		return []*Error{e}
	}
	if err != nil {
		return []*Error{{Msg: err.Error()}}
	}
	return nil
}
