//go:build !unix

package tasksystem

import "os/exec"

// setProcessGroup does nothing where process groups are not available.
func setProcessGroup(cmd *exec.Cmd) {}

// killProcessGroup kills the command's process.
func killProcessGroup(cmd *exec.Cmd) {
	if cmd.Process != nil {
		_ = cmd.Process.Kill()
	}
}

// exitStatus returns the exit status of a finished command.
func exitStatus(exit *exec.ExitError) int { return exit.ExitCode() }
