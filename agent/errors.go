package agent

import (
	"errors"
	"strconv"
)

// The failure reasons of SPEC §11.5 an agent call produces.
const (
	ReasonAgent            = "agent_error"
	ReasonTimeout          = "execution_timeout"
	ReasonInputValidation  = "input_validation_failure"
	ReasonConfiguration    = "configuration_error"
	ReasonToolExecution    = "tool_execution_error"
	ReasonExecutionHalted  = "execution_halted"
	maxArgumentPromptBytes = 100 << 10
)

// Error is a failed agent call. Its message is the TaskResult content and
// Reason the failure reason (agent_error, execution_timeout, …).
type Error struct {
	// Agent is the agent's name.
	Agent string
	// Kind is the failure reason.
	Kind string
	// Msg is the message.
	Msg string
	// ExitCode is the process's exit status (128+N when killed by signal
	// N), -1 when it did not exit on its own.
	ExitCode int
	// Stderr is the tail of the process's stderr.
	Stderr string
	// Result holds what was measured of the call (argv, duration, usage
	// when the output parsed); nil when no process started.
	Result *Result
	err    error
}

// Error returns the message.
func (e *Error) Error() string { return e.Msg }

// Reason returns the failure reason, such as "agent_error".
func (e *Error) Reason() string { return e.Kind }

// Unwrap returns the cause.
func (e *Error) Unwrap() error { return e.err }

// ReasonOf returns the failure reason of err, agent_error when err carries
// none.
func ReasonOf(err error) string {
	var r interface{ Reason() string }
	if errors.As(err, &r) && r.Reason() != "" {
		return r.Reason()
	}
	return ReasonAgent
}

func exitedMessage(name string, code int, line string) string {
	msg := "agent '" + name + "' exited with status " + strconv.Itoa(code)
	if line != "" {
		msg += ": " + line
	}
	return msg
}
