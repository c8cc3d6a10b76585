package tools

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/evalrun/evalrun/handler"
	"github.com/evalrun/evalrun/internal/shellwords"
	"github.com/evalrun/evalrun/value"
)

// The shell tool's timeouts (SPEC §14.4).
const (
	DefaultShellTimeout = 30 * time.Second
	MaxShellTimeout     = 600 * time.Second
	// MaxShellOutput caps each of stdout and stderr; the rest is replaced
	// by a final line "[output truncated]".
	MaxShellOutput = 1 << 20
)

// shell implements system_execute_shell_command (SPEC §14.4, §19).
func (t *Tools) shell(ctx context.Context, params *value.Dict) *value.TaskResult {
	if len(t.cfg.ShellAllow) == 0 {
		return value.Failed(handler.ReasonConfiguration, errShellDisabled, nil)
	}
	command, _ := paramString(params, "command")
	words, err := shellwords.Split(command, shellwords.Strict)
	if err != nil {
		return value.Failed(handler.ReasonInputValidation, "invalid command: "+err.Error(), nil)
	}
	if len(words) == 0 {
		return value.Failed(handler.ReasonInputValidation, "invalid command: empty command", nil)
	}
	program := words[0]
	if !slices.Contains(t.cfg.ShellAllow, "*") && !slices.Contains(t.cfg.ShellAllow, program) {
		return value.Failed(handler.ReasonInputValidation, "program '"+program+"' is not allowed (see [tools] shell_allow)", nil)
	}
	dir := t.workDir
	if cwd, ok := paramString(params, "cwd"); ok && cwd != "" {
		real, err := t.resolve(cwd)
		if errors.Is(err, errOutsideRoot) {
			return outsideRoot(cwd)
		}
		if err != nil || !isDir(real) {
			return value.Failed(handler.ReasonInputValidation, "cwd is not a directory: "+cwd, nil)
		}
		dir = real
	} else if !t.inside(resolveExisting(dir)) {
		return outsideRoot(dir)
	}
	timeout := DefaultShellTimeout
	if secs, ok := paramNumber(params, "timeout"); ok {
		if secs <= 0 || secs > MaxShellTimeout.Seconds() {
			return value.Failed(handler.ReasonInputValidation, fmt.Sprintf(
				"Parameter 'timeout' of tool '%s' must be more than 0 and at most 600 seconds, got %s",
				ToolShell, strconv.FormatFloat(secs, 'f', -1, 64)), nil)
		}
		timeout = time.Duration(secs * float64(time.Second))
	}
	if t.cfg.DryRun {
		notes := value.DictOf("exit_code", value.Int(0), "stdout", value.String(""), "stderr", value.String(""),
			"dry_run", value.Bool(true))
		return complete("", notes)
	}

	tctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	cmd := exec.CommandContext(tctx, program, words[1:]...)
	cmd.Dir = dir
	cmd.Env = t.commandEnv()
	cmd.WaitDelay = time.Second
	var stdout, stderr cappedBuffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	runErr := cmd.Run()
	notes := value.DictOf(
		"exit_code", value.Int(cmd.ProcessState.ExitCode()), // -1 when it did not exit
		"stdout", value.String(stdout.String()),
		"stderr", value.String(stderr.String()),
	)
	switch {
	case ctx.Err() != nil:
		return value.Failed(handler.ReasonExecutionHalted, "cancelled", notes)
	case tctx.Err() != nil:
		return value.Failed(handler.ReasonExecutionTimeout, "command timed out after "+timeout.String()+": "+command, notes)
	case runErr == nil:
		return complete(stdout.String(), notes)
	}
	var exitErr *exec.ExitError
	if errors.As(runErr, &exitErr) && exitErr.Exited() {
		msg := "command exited with status " + strconv.Itoa(exitErr.ExitCode())
		if line := firstLine(stderr.String()); line != "" {
			msg += ": " + line
		}
		return value.Failed(handler.ReasonToolExecution, msg, notes)
	}
	if errors.As(runErr, &exitErr) { // killed by a signal
		return value.Failed(handler.ReasonToolExecution, "command terminated: "+exitErr.String(), notes)
	}
	return value.Failed(handler.ReasonToolExecution, "cannot run "+program+": "+execErrorText(runErr), notes)
}

// commandEnv returns the process environment without the variables of
// ToolsConfig.HideEnv and OPENAI_API_KEY.
func (t *Tools) commandEnv() []string {
	hidden := append([]string{handler.DefaultAPIKeyEnv}, t.cfg.HideEnv...)
	env := os.Environ()
	out := env[:0]
	for _, kv := range env {
		name, _, _ := strings.Cut(kv, "=")
		if !slices.Contains(hidden, name) {
			out = append(out, kv)
		}
	}
	return out
}

// execErrorText returns the reason of a start error without repeating the
// program name.
func execErrorText(err error) string {
	var ee *exec.Error
	if errors.As(err, &ee) {
		return ee.Err.Error()
	}
	return handler.PathReason(err)
}

// firstLine returns the first line of s without its line ending.
func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return strings.TrimSuffix(line, "\r")
}

// cappedBuffer keeps the first MaxShellOutput bytes written to it.
type cappedBuffer struct {
	buf       bytes.Buffer
	truncated bool
}

func (c *cappedBuffer) Write(p []byte) (int, error) {
	if room := MaxShellOutput - c.buf.Len(); room < len(p) {
		c.buf.Write(p[:max(room, 0)])
		c.truncated = true
		return len(p), nil
	}
	return c.buf.Write(p)
}

func (c *cappedBuffer) String() string {
	if !c.truncated {
		return c.buf.String()
	}
	s := c.buf.String()
	if !strings.HasSuffix(s, "\n") {
		s += "\n"
	}
	return s + "[output truncated]"
}
