package handler

import (
	"errors"
	"io/fs"
	"strconv"
)

// The failure reasons of SPEC §11.5 that the handler produces.
const (
	ReasonLLMError         = "llm_error"
	ReasonConnectionError  = "connection_error"
	ReasonExecutionTimeout = "execution_timeout"
	ReasonExecutionHalted  = "execution_halted"
	ReasonConfiguration    = "configuration_error"
	ReasonInputValidation  = "input_validation_failure"
	ReasonToolExecution    = "tool_execution_error"
	ReasonContextRetrieval = "context_retrieval_failure"
	ReasonTemplateNotFound = "template_not_found"
	ReasonUnexpected       = "unexpected_error"
)

// Reasoner is implemented by errors that name a TaskResult failure reason
// (SPEC §11.5). The task system maps Reason() to notes.error.reason and
// uses llm_error for provider errors without one.
type Reasoner interface {
	Reason() string
}

// Error is a handler failure with a SPEC §11.5 reason, such as a provider
// error after the last retry.
type Error struct {
	reason string
	msg    string
	err    error
}

// NewError returns an Error with a reason, a message (the TaskResult
// content) and an optional cause for errors.Is/As.
func NewError(reason, msg string, cause error) *Error {
	return &Error{reason: reason, msg: msg, err: cause}
}

// Error returns the message.
func (e *Error) Error() string { return e.msg }

// Reason returns the failure reason, such as "llm_error".
func (e *Error) Reason() string { return e.reason }

// Unwrap returns the cause.
func (e *Error) Unwrap() error { return e.err }

// ReasonOf returns the reason of err: the Reason of the first Reasoner in
// its chain, else def.
func ReasonOf(err error, def string) string {
	var r Reasoner
	if errors.As(err, &r) && r.Reason() != "" {
		return r.Reason()
	}
	return def
}

// The resources of a LimitError (SPEC §14.2).
const (
	ResourceTurns   = "turns"
	ResourceContext = "context"
)

// LimitError reports that a session reached a resource limit before a model
// call (SPEC §14.2). The task system turns it into a RESOURCE_EXHAUSTION
// failure.
type LimitError struct {
	// Resource names the limit: ResourceTurns or ResourceContext.
	Resource string
	Used     int
	Limit    int
}

// Error returns "Resource exhausted: turns (10/10)".
func (e *LimitError) Error() string {
	return "Resource exhausted: " + e.Resource + " (" + strconv.Itoa(e.Used) + "/" + strconv.Itoa(e.Limit) + ")"
}

// PathReason returns the reason of a file-system error without the path,
// which the message already names.
func PathReason(err error) string {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		err = pe.Err
	}
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return "no such file or directory"
	case errors.Is(err, fs.ErrPermission):
		return "permission denied"
	}
	return err.Error()
}
