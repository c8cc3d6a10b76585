//go:build !unix

package agent

import (
	"os"
	"os/exec"
)

func setProcessGroup(cmd *exec.Cmd) {}

func signalGroup(pgid int, kill bool) {
	if p, err := os.FindProcess(pgid); err == nil {
		_ = p.Kill()
	}
}

func groupAlive(pgid int) bool { return false }

// GroupAlive reports whether a process group still has a running member;
// without process groups it is always false.
func GroupAlive(pgid int) bool { return false }

func exitStatus(exit *exec.ExitError) int { return exit.ExitCode() }
