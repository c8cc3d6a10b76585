package tasksystem

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"time"

	"github.com/evalrun/evalrun/internal/shellwords"
	"github.com/evalrun/evalrun/templates"
)

// Command defaults and limits (SPEC §9.2, §12.4).
const (
	// DefaultShell runs a <command> whose shell attribute is not set.
	DefaultShell = "sh"
	// DefaultCommandTimeout applies when a <command> sets no timeout, and to
	// the command of a <file_paths source="command">.
	DefaultCommandTimeout = 30 * time.Second
	// MaxCommandOutput is the most command output kept (1 MiB); the rest is
	// replaced by a final line "[output truncated]".
	MaxCommandOutput = 1 << 20
	// commandDrainTimeout bounds the wait for the output pipe to close once
	// the command and its process group are gone.
	commandDrainTimeout = 2 * time.Second
)

// OutputTruncated is the final line of command output cut at
// MaxCommandOutput.
const OutputTruncated = "[output truncated]"

// errCommandTimeout reports that a command ran out of time.
var errCommandTimeout = errors.New("command timed out")

// shellQuote quotes a value substituted into a <command> (SPEC §12.4)
// for the place it takes in the command text before it: a value inside
// "…" or '…' of the template's own text is escaped for those quotes.
var shellQuote = shellwords.QuoteAt

// renderCommand renders a <command> text with every placeholder's final
// text shell-quoted (SPEC §12.4, §19): each placeholder is resolved with
// lookup, walked and filtered exactly as anywhere else (so {{files | join(" ")}},
// {{plan.path}}, {{x | json}} and default(...) behave as in the prompt), and
// only then is its rendered text quoted as one shell word, or escaped for
// the quotes the template's text has open around it ("{{x}}", '{{x}}').
// Literal text is kept as written.
//
// Quoting the rendered text rather than the looked-up value matters: a
// lookup that returned pre-quoted strings would break dotted references and
// list filters, and a filter such as json would wrap the quoted text in
// double quotes, inside which the shell expands $(...) again.
func renderCommand(t *templates.Text, lookup templates.Lookup) (string, error) {
	text, missing, err := t.RenderQuoted(lookup, shellQuote)
	if len(missing) > 0 {
		return "", fmt.Errorf("Missing parameter(s) or access error for substitution: %s", strings.Join(missing, ", "))
	}
	if err != nil {
		return "", err
	}
	return text, nil
}

// shellCommand is one command to run.
type shellCommand struct {
	shell   string        // "" means DefaultShell
	text    string        // passed as SHELL -c TEXT
	dir     string        // working directory
	timeout time.Duration // 0 means DefaultCommandTimeout
}

// commandResult is the outcome of a command that ran to its end.
type commandResult struct {
	output string // stdout and stderr interleaved, capped
	status int    // exit status; 128+N for a command killed by signal N
}

// run starts SHELL -c TEXT in its own process group with stdout and stderr
// on one pipe, so that their output interleaves as produced, and waits for
// it. When the shell exits, any process it left in its group is killed; on
// timeout or cancellation the whole group is killed at once. The output is
// kept exactly up to MaxCommandOutput. The error is errCommandTimeout, ctx's
// error, or a failure to start the shell.
func (c shellCommand) run(ctx context.Context) (commandResult, error) {
	shell := c.shell
	if shell == "" {
		shell = DefaultShell
	}
	timeout := c.timeout
	if timeout <= 0 {
		timeout = DefaultCommandTimeout
	}
	if err := ctx.Err(); err != nil {
		return commandResult{}, err
	}
	r, w, err := os.Pipe()
	if err != nil {
		return commandResult{}, err
	}
	cmd := exec.Command(shell, "-c", c.text)
	cmd.Dir = c.dir
	cmd.Stdout = w
	cmd.Stderr = w
	setProcessGroup(cmd)
	if err := cmd.Start(); err != nil {
		r.Close()
		w.Close()
		return commandResult{}, err
	}
	w.Close()

	out := &cappedBuffer{limit: MaxCommandOutput}
	drained := make(chan struct{})
	go func() {
		io.Copy(out, r)
		close(drained)
	}()
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()

	timer := time.NewTimer(timeout)
	defer timer.Stop()
	var waitErr, runErr error
	select {
	case waitErr = <-exited:
	case <-timer.C:
		killProcessGroup(cmd)
		waitErr, runErr = <-exited, errCommandTimeout
	case <-ctx.Done():
		killProcessGroup(cmd)
		waitErr, runErr = <-exited, ctx.Err()
	}
	// Background children still holding the pipe must not keep the task
	// waiting, nor outlive it.
	killProcessGroup(cmd)
	select {
	case <-drained:
	case <-time.After(commandDrainTimeout):
		r.Close()
		<-drained
	}
	r.Close()
	if runErr != nil {
		return commandResult{}, runErr
	}
	res := commandResult{output: out.text()}
	if waitErr != nil {
		var exit *exec.ExitError
		if !errors.As(waitErr, &exit) {
			return commandResult{}, waitErr
		}
		res.status = exitStatus(exit)
	}
	return res, nil
}

// cappedBuffer keeps the first limit bytes written to it and counts the
// rest; it never fails, so the writer is never blocked.
type cappedBuffer struct {
	limit   int
	buf     []byte
	dropped int64
}

func (b *cappedBuffer) Write(p []byte) (int, error) {
	if room := b.limit - len(b.buf); room > 0 {
		n := min(room, len(p))
		b.buf = append(b.buf, p[:n]...)
		b.dropped += int64(len(p) - n)
	} else {
		b.dropped += int64(len(p))
	}
	return len(p), nil
}

// text returns the output, cut at a code point boundary and followed by the
// line "[output truncated]" when bytes were dropped.
func (b *cappedBuffer) text() string {
	if b.dropped == 0 {
		return string(b.buf)
	}
	return withFinalLine(string(cutAtRune(b.buf)), OutputTruncated)
}

// firstLine returns s up to its first line break.
func firstLine(s string) string {
	if i := strings.IndexAny(s, "\r\n"); i >= 0 {
		return s[:i]
	}
	return s
}

// commandExitMessage is the failure message of a non-zero exit status:
// "command exited with status N: FIRST LINE OF OUTPUT", without the colon
// part when the output is empty.
func commandExitMessage(res commandResult) string {
	msg := fmt.Sprintf("command exited with status %d", res.status)
	if line := firstLine(res.output); line != "" {
		msg += ": " + line
	}
	return msg
}

// commandTimeoutMessage is the failure message of a command that ran out of
// time.
func commandTimeoutMessage(timeout time.Duration) string {
	if timeout <= 0 {
		timeout = DefaultCommandTimeout
	}
	return "command timed out after " + timeout.String()
}

// echoesCommands reports whether a template's commands are echoed on stderr
// before they run (SPEC §19): those of the local and dir scopes.
func echoesCommands(t *templates.Template) bool {
	return t.Scope == templates.ScopeLocal || t.Scope == templates.ScopeDir
}

// commandLines reads the paths printed by a <file_paths source="command">:
// one per non-blank line, trimmed.
func commandLines(output string) []string {
	var paths []string
	for line := range strings.Lines(output) {
		if p := strings.TrimSpace(line); p != "" {
			paths = append(paths, p)
		}
	}
	return paths
}
