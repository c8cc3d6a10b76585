//go:build unix && !linux

package journal

import (
	"errors"
	"syscall"
)

// processStart returns "": without /proc there is no cheap way to tell a
// process from a later one given the same pid.
func processStart(int) string { return "" }

// processGone reports whether no process has the pid of o now (kill with
// signal 0 finds none). A process that has it may be a later one: the
// run is then taken as still running.
func processGone(o, _ Owner) bool {
	return errors.Is(syscall.Kill(o.PID, 0), syscall.ESRCH)
}
