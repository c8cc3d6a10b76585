package engine

import (
	"errors"
	"fmt"
	"io/fs"
	"strings"
)

// Kind says what kind of problem ended Open or refused a Task, which is
// also the exit code class of the evalrun command (SPEC §17.9).
type Kind int

const (
	// KindUsage is a bad option or argument: a negative timeout, an
	// unreadable file of Options.Files, a templates directory that is a
	// file, an unknown provider or template name, a malformed reserved
	// task input. The evalrun command exits 2.
	KindUsage Kind = iota + 1
	// KindConfig is an invalid configuration file (the error wraps a
	// config.ErrorList; use config.Errors), or a provider that cannot be
	// built or lacks its API key. The evalrun command exits 2.
	KindConfig
	// KindTemplate is a template that does not validate; its diagnostics
	// were written to Options.Stderr by Open (or are in
	// Workspace.Diagnostics). The evalrun command exits 3.
	KindTemplate
)

// String returns the kind's name: usage, config or template.
func (k Kind) String() string {
	switch k {
	case KindUsage:
		return "usage"
	case KindConfig:
		return "config"
	case KindTemplate:
		return "template"
	}
	return fmt.Sprintf("Kind(%d)", int(k))
}

// Error is an error of Open, LoadWorkspace or Task with its Kind. Its
// message is the wrapped error's, without a prefix.
type Error struct {
	// Kind says what went wrong.
	Kind Kind
	// Err is the error itself.
	Err error
}

// Error returns the wrapped error's message.
func (e *Error) Error() string { return e.Err.Error() }

// Unwrap returns the wrapped error.
func (e *Error) Unwrap() error { return e.Err }

// errorf returns an *Error of kind k with a formatted message.
func errorf(k Kind, format string, args ...any) *Error {
	return &Error{Kind: k, Err: fmt.Errorf(format, args...)}
}

// UnknownTemplateError is a name that no template has as name, alias or
// type:subtype, with up to three suggestions (SPEC §10.5, §17.1).
type UnknownTemplateError struct {
	// Name is the name as given.
	Name string
	// Suggestions are up to three template names (Suggest).
	Suggestions []string
}

// Error returns "unknown template 'NAME' (did you mean 'a', 'b' or 'c'?)",
// without the parenthesis when there is no suggestion.
func (e *UnknownTemplateError) Error() string {
	return "unknown template '" + e.Name + "'" + didYouMean(e.Suggestions)
}

// didYouMean formats suggestions as " (did you mean 'a', 'b' or 'c'?)", or
// "" for none.
func didYouMean(names []string) string {
	if len(names) == 0 {
		return ""
	}
	q := make([]string, len(names))
	for i, n := range names {
		q[i] = "'" + n + "'"
	}
	if len(q) == 1 {
		return " (did you mean " + q[0] + "?)"
	}
	return " (did you mean " + strings.Join(q[:len(q)-1], ", ") + " or " + q[len(q)-1] + "?)"
}

// InputError is a reserved input of Task (files, context or
// history_config) whose value has the wrong shape.
type InputError struct {
	// Name is the input's name.
	Name string
	// Err says what is wrong with its value.
	Err error
}

// Error returns "invalid input NAME: REASON".
func (e *InputError) Error() string { return "invalid input " + e.Name + ": " + e.Err.Error() }

// Unwrap returns the reason.
func (e *InputError) Unwrap() error { return e.Err }

// reason returns the part of a file error that says what went wrong,
// without the operation and path that the caller prints itself.
func reason(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}
