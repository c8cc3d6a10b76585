//go:build unix

package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/creack/pty"
)

// The live progress display (SPEC §17.3.1) is tested end to end: evalrun
// runs under a pseudo-terminal on a workflow whose model calls go to a
// slow fake OpenAI-compatible server and whose last call goes to a slow
// fake agent; a small terminal emulator (vt) replays what evalrun wrote
// to the terminal, so the test sees the screen as a person would.

// progressWorkflow maps a template over eight items (three at a time, the
// others wait for a slot), then asks the slow agent.
const progressWorkflow = `(log-message "started")
(define files (list "a" "b" "c" "d" "e" "f" "g" "h"))
(step "summaries"
  (parallel-map (lambda (f) (get-field (summarize (file f)) "content")) files))
(log-message "agent next")
(get-field (review) "content")
`

const progressTemplates = `<tasks>
  <task name="summarize" type="atomic">
    <description>Summarize a file</description>
    <inputs><input name="file"/></inputs>
    <instructions>Summarize {{file}}</instructions>
  </task>
  <task name="review" type="atomic">
    <description>Review the summaries</description>
    <agent>slow</agent>
    <instructions>Review them</instructions>
  </task>
</tasks>
`

// slowAgent prints progress lines with pauses, then its answer.
const slowAgent = `#!/bin/sh
cat > /dev/null
echo "reading 8 summaries" >&2
sleep 0.4
echo "Editing internal/http/retry.go" >&2
sleep 1.6
echo "looks good"
`

// progressProject writes a project that runs progressWorkflow against the
// fake server at url, and returns its directory and environment.
func progressProject(t *testing.T, url string) (string, []string) {
	t.Helper()
	dir := t.TempDir()
	files := map[string]string{
		".evalrun/config.toml": fmt.Sprintf(`default_provider = "fake"
[limits]
concurrency = 3
[providers.fake]
type = "openai"
base_url = %q
api_key_env = "FAKE_KEY"
model = "m1"
[agents.slow]
command = "./slow.sh"
`, url),
		".evalrun/templates/progress.xml": progressTemplates,
		"progress.sexp":                   progressWorkflow,
		"slow.sh":                         slowAgent,
	}
	for name, text := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	home := t.TempDir()
	env := []string{
		"PATH=" + os.Getenv("PATH"),
		"HOME=" + home,
		"EVALRUN_HOME=" + filepath.Join(home, "evalrun"),
		"FAKE_KEY=k",
		"TERM=xterm-256color",
		"NO_COLOR=1",
	}
	for _, kv := range os.Environ() {
		if strings.HasPrefix(kv, "EVALRUN_CEILING_DIRECTORIES=") {
			env = append(env, kv)
		}
	}
	return dir, env
}

// slowServer is an OpenAI-compatible server that answers each request
// after delay with 10 input and 5 output tokens.
func slowServer(t *testing.T, delay time.Duration) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		select {
		case <-time.After(delay):
		case <-r.Context().Done():
			return
		}
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"id":"1","object":"chat.completion","choices":[{"index":0,"message":{"role":"assistant","content":"a summary"},"finish_reason":"stop"}],"usage":{"prompt_tokens":10,"completion_tokens":5,"total_tokens":15}}`)
	}))
	t.Cleanup(srv.Close)
	return srv
}

// evalrunCmd is the test binary as the evalrun command (see TestMain).
func evalrunCmd(t *testing.T, dir string, env []string, args ...string) *exec.Cmd {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	return &exec.Cmd{Path: exe, Args: append([]string{"evalrun"}, args...), Dir: dir, Env: env}
}

// ptyRun is evalrun running with its stderr (and stdin) on a terminal of
// 24 lines and 100 columns; stdout is kept apart.
type ptyRun struct {
	cmd    *exec.Cmd
	stdout bytes.Buffer
	mu     sync.Mutex
	raw    bytes.Buffer // everything written to the terminal
	done   chan struct{}
}

func startPty(t *testing.T, cmd *exec.Cmd) *ptyRun {
	t.Helper()
	return startPtySize(t, cmd, 24, 100)
}

// startPtySize starts cmd on a terminal of rows lines and cols columns.
func startPtySize(t *testing.T, cmd *exec.Cmd, rows, cols uint16) *ptyRun {
	t.Helper()
	r := &ptyRun{cmd: cmd, done: make(chan struct{})}
	cmd.Stdout = &r.stdout
	f, err := pty.StartWithSize(cmd, &pty.Winsize{Rows: rows, Cols: cols})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); f.Close() })
	go func() {
		defer close(r.done)
		buf := make([]byte, 4096)
		for {
			n, err := f.Read(buf)
			r.mu.Lock()
			r.raw.Write(buf[:n])
			r.mu.Unlock()
			if err != nil {
				return
			}
		}
	}()
	return r
}

// output is what evalrun has written to the terminal so far.
func (r *ptyRun) output() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.raw.String()
}

// screen is the terminal's screen now.
func (r *ptyRun) screen(t *testing.T) string {
	var s vt
	if err := s.feed(r.output()); err != nil {
		t.Fatal(err)
	}
	return s.text()
}

// waitScreen polls the screen until ok accepts it, and returns it.
func (r *ptyRun) waitScreen(t *testing.T, what string, ok func(string) bool) string {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		if s := r.screen(t); ok(s) {
			return s
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatalf("the screen never showed %s; it holds:\n%s\nraw output: %q", what, r.screen(t), r.output())
	return ""
}

// wait waits for the process and the end of its terminal output and
// returns its exit code.
func (r *ptyRun) wait(t *testing.T) int {
	t.Helper()
	err := r.cmd.Wait()
	var ee *exec.ExitError
	if err != nil && !errors.As(err, &ee) {
		t.Fatal(err)
	}
	select {
	case <-r.done:
	case <-time.After(10 * time.Second):
		t.Fatal("the terminal output did not end")
	}
	return r.cmd.ProcessState.ExitCode()
}

var (
	groupLine   = regexp.MustCompile(`(?m)^    parallel-map ([1-7])/8  \d+s$`)
	runningLine = regexp.MustCompile(`(?m)^      ▸ task summarize  fake:m1  \ds$`)
	waitingLine = regexp.MustCompile(`(?m)^      … [1-5] waiting$`)
	headerLine  = regexp.MustCompile(`(?m)^[1-7] done · 3 running · [0-4] waiting · [0-9,]+ tokens · cost unknown for [1-7] · \d+s\n  ▸ step summaries  \ds\n    parallel-map`)
	colour      = regexp.MustCompile(`\x1b\[[0-9;]*m`)
	agentLine   = regexp.MustCompile(`(?m)^  ▸ agent review  agent:slow  \ds  │ Editing internal/http/retry\.go$`)
)

// TestProgressPty runs the workflow under a terminal and checks what the
// screen shows while it runs and what stays after it: exactly what the
// same run prints on a pipe.
func TestProgressPty(t *testing.T) {
	if testing.Short() {
		t.Skip("runs evalrun for a few seconds")
	}
	srv := slowServer(t, 300*time.Millisecond)
	dir, env := progressProject(t, srv.URL)

	r := startPty(t, evalrunCmd(t, dir, env, "run", "progress.sexp"))
	mid := r.waitScreen(t, "the parallel-map group with finished items", func(s string) bool {
		return groupLine.MatchString(s) && len(runningLine.FindAllString(s, -1)) == 3 && waitingLine.MatchString(s)
	})
	if !headerLine.MatchString(mid) {
		t.Errorf("mid-run header does not show done / 3 running / waiting / tokens / time:\n%s", mid)
	}
	if !strings.Contains(mid, "\nlog: started\n") {
		t.Errorf("mid-run screen lacks the log line above the display:\n%s", mid)
	}
	agent := r.waitScreen(t, "the agent's last line", agentLine.MatchString)
	if !strings.Contains(agent, "8 done · 1 running · 0 waiting · 120 tokens") {
		t.Errorf("header while the agent runs:\n%s", agent)
	}
	if code := r.wait(t); code != 0 {
		t.Fatalf("exit %d; screen:\n%s", code, r.screen(t))
	}
	final := r.screen(t)
	if colour.MatchString(r.output()) {
		t.Errorf("NO_COLOR is set, yet the display has colours")
	}
	if want := "\"looks good\"\n"; r.stdout.String() != want {
		t.Errorf("stdout = %q, want %q", r.stdout.String(), want)
	}
	if capture := os.Getenv("EVALRUN_PROGRESS_CAPTURE"); capture != "" {
		// docs/progress.md shows this frame.
		os.WriteFile(capture, []byte(mid+"\n\n"+agent+"\n"), 0o644)
	}

	// The same run on a pipe: its stderr is what must stay on the screen.
	pipe := evalrunCmd(t, dir, env, "run", "progress.sexp")
	var stderr, stdout bytes.Buffer
	pipe.Stdout, pipe.Stderr = &stdout, &stderr
	if err := pipe.Run(); err != nil {
		t.Fatalf("pipe run: %v\n%s", err, &stderr)
	}
	if strings.Contains(stderr.String(), "\x1b") {
		t.Errorf("stderr on a pipe holds escape sequences: %q", stderr.String())
	}
	want := strings.TrimRight(stderr.String(), "\n")
	if !regexp.MustCompile(`\nlog: agent next\n.*\nusage: 9 model calls, \d+ input \+ \d+ output tokens, 9 turns, cost unknown for 9 calls$`).MatchString(want) {
		t.Errorf("pipe stderr lacks the log or usage lines:\n%s", want)
	}
	if final != want {
		t.Errorf("screen after the run:\n%s\nwant what a pipe gets:\n%s", final, want)
	}
}

// TestProgressSmallTerminal: on a terminal of 8 lines and 50 columns the
// display uses at most 6 lines (the height less two), sums up the calls it
// has no room for, and cuts lines to the width.
func TestProgressSmallTerminal(t *testing.T) {
	if testing.Short() {
		t.Skip("runs evalrun for a few seconds")
	}
	srv := slowServer(t, 300*time.Millisecond)
	dir, env := progressProject(t, srv.URL)
	r := startPtySize(t, evalrunCmd(t, dir, env, "run", "progress.sexp"), 8, 50)
	s := r.waitScreen(t, "the group cut to the terminal", func(s string) bool {
		return strings.Contains(s, "    parallel-map ") && strings.Contains(s, " more")
	})
	// The frame starts at the header, below the lines passed through.
	i := strings.LastIndex(s, " done · ")
	frame := s[strings.LastIndex(s[:i], "\n")+1:]
	lines := strings.Split(frame, "\n")
	want := regexp.MustCompile(`^\d done · 3 running · \d waiting · [^\n]{1,20}\n` +
		`  ▸ step summaries  \ds\n` +
		`    parallel-map \d/8  \ds\n` +
		`      ▸ task summarize  fake:m1  \ds\n` +
		`      ▸ task summarize  fake:m1  \ds\n` +
		`  … 2 more$`)
	if len(lines) > 6 || !want.MatchString(frame) {
		t.Errorf("frame of %d lines on a terminal of 8:\n%s", len(lines), frame)
	}
	if code := r.wait(t); code != 0 {
		t.Fatalf("exit %d", code)
	}
}

// TestProgressOff: --progress never and TERM=dumb on a terminal, and a
// pipe, draw nothing: no escape sequence reaches stderr.
func TestProgressOff(t *testing.T) {
	if testing.Short() {
		t.Skip("runs evalrun for a few seconds")
	}
	srv := slowServer(t, 150*time.Millisecond)
	dir, env := progressProject(t, srv.URL)
	cases := []struct {
		name string
		env  []string
		args []string
	}{
		{"never", env, []string{"run", "--progress", "never", "progress.sexp"}},
		{"dumb", append(env[:len(env):len(env)], "TERM=dumb"), []string{"run", "progress.sexp"}},
	}
	for _, c := range cases {
		r := startPty(t, evalrunCmd(t, dir, c.env, c.args...))
		if code := r.wait(t); code != 0 {
			t.Fatalf("%s: exit %d\n%s", c.name, code, r.output())
		}
		out := r.output()
		if strings.Contains(out, "\x1b") || strings.Contains(out, "running ·") {
			t.Errorf("%s: the terminal got a display: %q", c.name, out)
		}
		if !strings.Contains(out, "log: agent next\r\n") {
			t.Errorf("%s: the log lines are missing: %q", c.name, out)
		}
	}
	// Without NO_COLOR the display has colours: a running call is green.
	var noColour []string
	for _, kv := range env {
		if !strings.HasPrefix(kv, "NO_COLOR=") {
			noColour = append(noColour, kv)
		}
	}
	r := startPty(t, evalrunCmd(t, dir, noColour, "run", "progress.sexp"))
	if code := r.wait(t); code != 0 {
		t.Fatalf("colour: exit %d", code)
	}
	if !strings.Contains(r.output(), "\x1b[32m  ▸ agent review  agent:slow  ") {
		t.Errorf("without NO_COLOR the running agent is not green: %q", r.output())
	}
	// --progress always on a pipe draws (decided: always means always).
	pipe := evalrunCmd(t, dir, env, "run", "--progress", "always", "progress.sexp")
	var stderr bytes.Buffer
	pipe.Stderr = &stderr
	if err := pipe.Run(); err != nil {
		t.Fatalf("always: %v\n%s", err, &stderr)
	}
	if !strings.Contains(stderr.String(), "\x1b[J") || !strings.Contains(stderr.String(), " running · ") {
		t.Errorf("--progress always on a pipe drew nothing: %q", stderr.String())
	}
	// An unknown mode is a usage error.
	bad := evalrunCmd(t, dir, env, "run", "--progress", "sometimes", "progress.sexp")
	var bs bytes.Buffer
	bad.Stderr = &bs
	err := bad.Run()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != exitUsage || !strings.Contains(bs.String(), "--progress") {
		t.Errorf("--progress sometimes: %v\n%s", err, &bs)
	}
}

// TestProgressInterrupt: Ctrl-C shows which calls are being cancelled
// before the run ends; after it the screen holds the lines a pipe gets.
func TestProgressInterrupt(t *testing.T) {
	if testing.Short() {
		t.Skip("runs evalrun for a few seconds")
	}
	srv := slowServer(t, 50*time.Millisecond)
	dir, env := progressProject(t, srv.URL)
	os.WriteFile(filepath.Join(dir, "slow.sh"), []byte("#!/bin/sh\necho thinking\nsleep 30\n"), 0o755)
	r := startPty(t, evalrunCmd(t, dir, env, "run", "progress.sexp"))
	r.waitScreen(t, "the agent", func(s string) bool { return strings.Contains(s, "▸ agent review  agent:slow  0s  │ thinking") })
	if err := r.cmd.Process.Signal(os.Interrupt); err != nil {
		t.Fatal(err)
	}
	if code := r.wait(t); code != exitInterrupted {
		t.Fatalf("exit %d, want %d", code, exitInterrupted)
	}
	// The agent ends within milliseconds of SIGTERM, so the frame is
	// looked for in what was written, not polled on the screen.
	// A frame of the ended call ("cancelling 0 running …") may come
	// between it and the interrupted line when the machine is loaded.
	cancelling := regexp.MustCompile(`\x1b\[Jcancelling 1 running and 0 waiting calls · 120 tokens · cost unknown for 8 · \ds\r\n  ▸ agent review  agent:slow  \ds  │ thinking\r\x1b\[1A(\x1b\[Jcancelling 0 running and 0 waiting calls [^\r]*\r)?\x1b\[Jevalrun: interrupted\r\n`)
	if !cancelling.MatchString(r.output()) {
		t.Errorf("no frame showed the call being cancelled before the run ended: %q", r.output())
	}
	final := r.screen(t)
	if strings.Contains(final, "cancelling") || strings.Contains(final, "▸") || !strings.Contains(final, "\nevalrun: interrupted\n") {
		t.Errorf("screen after the interrupted run:\n%s", final)
	}
}

// TestProgressInterruptTwice: a second Ctrl-C, while an agent that
// ignores SIGTERM keeps the run from ending, exits at once (130) and
// erases the display first: the screen keeps no line of the frame.
func TestProgressInterruptTwice(t *testing.T) {
	if testing.Short() {
		t.Skip("runs evalrun for a few seconds")
	}
	srv := slowServer(t, 50*time.Millisecond)
	dir, env := progressProject(t, srv.URL)
	os.WriteFile(filepath.Join(dir, "slow.sh"), []byte("#!/bin/sh\ntrap '' TERM INT\necho thinking\nsleep 30\n"), 0o755)
	r := startPty(t, evalrunCmd(t, dir, env, "run", "progress.sexp"))
	r.waitScreen(t, "the agent", func(s string) bool { return strings.Contains(s, "▸ agent review  agent:slow  0s  │ thinking") })
	if err := r.cmd.Process.Signal(os.Interrupt); err != nil {
		t.Fatal(err)
	}
	r.waitScreen(t, "the call being cancelled", func(s string) bool { return strings.Contains(s, "cancelling 1 running and 0 waiting calls") })
	if err := r.cmd.Process.Signal(os.Interrupt); err != nil {
		t.Fatal(err)
	}
	if code := r.wait(t); code != exitInterrupted {
		t.Fatalf("exit %d, want %d", code, exitInterrupted)
	}
	final := r.screen(t)
	if strings.Contains(final, "cancelling") || strings.Contains(final, "▸") || !strings.HasSuffix(final, "\nevalrun: interrupted") {
		t.Errorf("screen after the second Ctrl-C:\n%s", final)
	}
}

// TestProgressCtrlZ: Ctrl-Z (SIGTSTP) erases the display before evalrun
// stops, so that the shell's "Stopped" line and prompt land below what
// stays; fg (SIGCONT) draws it again below them, without moving over the
// shell's lines, and the run finishes as usual. evalrun runs as a job of
// a shell with job control (its own process group, under the shell's), as
// from an interactive shell: a process group without such a parent is
// orphaned, and the system does not stop it on SIGTSTP.
func TestProgressCtrlZ(t *testing.T) {
	if testing.Short() {
		t.Skip("runs evalrun for a few seconds")
	}
	srv := slowServer(t, 50*time.Millisecond)
	dir, env := progressProject(t, srv.URL)
	os.WriteFile(filepath.Join(dir, "slow.sh"), []byte("#!/bin/sh\ncat > /dev/null\necho thinking >&2\nsleep 2\necho done\n"), 0o755)
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(t.TempDir(), "evalrun")
	if err := os.Symlink(exe, bin); err != nil {
		t.Fatal(err)
	}
	pidFile := filepath.Join(t.TempDir(), "pid")
	// The shell waits for its job until it has ended, not only stopped.
	script := `set -m; "$0" run progress.sexp & pid=$!; echo $pid > "$1"
while :; do wait $pid; st=$?; kill -0 $pid 2>/dev/null || exit $st; sleep 0.05; done`
	r := startPty(t, &exec.Cmd{Path: "/bin/sh", Args: []string{"sh", "-c", script, bin, pidFile}, Dir: dir, Env: env})
	r.waitScreen(t, "the agent", func(s string) bool { return strings.Contains(s, "▸ agent review  agent:slow") })
	b, err := os.ReadFile(pidFile)
	if err != nil {
		t.Fatal(err)
	}
	pid := strings.TrimSpace(string(b))
	if err := exec.Command("kill", "-TSTP", pid).Run(); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		out, _ := exec.Command("ps", "-o", "stat=", "-p", pid).Output()
		if strings.HasPrefix(strings.TrimSpace(string(out)), "T") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("evalrun did not stop on SIGTSTP (ps: %q); screen:\n%s", out, r.screen(t))
		}
		time.Sleep(20 * time.Millisecond)
	}
	stopped := r.output()
	if s := r.screen(t); strings.Contains(s, "▸") || strings.Contains(s, " done · ") {
		t.Errorf("the display is still on the screen of the stopped evalrun:\n%s", s)
	}
	// The shell reports the job and, on fg, continues it.
	const shell = "\r\n[1]+  Stopped  evalrun run progress.sexp\r\n$ fg\r\nevalrun run progress.sexp\r\n"
	if err := exec.Command("kill", "-CONT", pid).Run(); err != nil {
		t.Fatal(err)
	}
	if code := r.wait(t); code != 0 {
		t.Fatalf("exit %d; screen:\n%s", code, r.screen(t))
	}
	if !strings.Contains(r.output()[len(stopped):], "▸ agent review") {
		t.Errorf("the display was not drawn again after SIGCONT: %q", r.output()[len(stopped):])
	}
	var s vt
	if err := s.feed(stopped + shell + r.output()[len(stopped):]); err != nil {
		t.Fatal(err)
	}
	final := s.text()
	if !strings.Contains(final, "\nlog: agent next\n") || !strings.Contains(final, "[1]+  Stopped  evalrun run progress.sexp\n$ fg\nevalrun run progress.sexp\n") ||
		strings.Contains(final, "▸") || !regexp.MustCompile(`\nusage: 9 model calls[^\n]*$`).MatchString(final) {
		t.Errorf("screen after a Ctrl-Z, fg and the end of the run:\n%s", final)
	}
}

// TestProgressCtrlZOrphaned: evalrun that leads its own session (a
// terminal or `script` runs it directly) is in an orphaned process group:
// nobody could continue it, so SIGTSTP does not stop it, as the system
// would not stop it either, and the run goes on to its end.
func TestProgressCtrlZOrphaned(t *testing.T) {
	if testing.Short() {
		t.Skip("runs evalrun for a few seconds")
	}
	srv := slowServer(t, 50*time.Millisecond)
	dir, env := progressProject(t, srv.URL)
	os.WriteFile(filepath.Join(dir, "slow.sh"), []byte("#!/bin/sh\ncat > /dev/null\necho thinking >&2\nsleep 1\necho done\n"), 0o755)
	r := startPty(t, evalrunCmd(t, dir, env, "run", "progress.sexp"))
	r.waitScreen(t, "the agent", func(s string) bool { return strings.Contains(s, "▸ agent review  agent:slow") })
	if err := r.cmd.Process.Signal(syscall.SIGTSTP); err != nil {
		t.Fatal(err)
	}
	if code := r.wait(t); code != 0 {
		t.Fatalf("exit %d; screen:\n%s", code, r.screen(t))
	}
	if s := r.screen(t); strings.Contains(s, "▸") || !strings.Contains(s, "\nusage: 9 model calls") {
		t.Errorf("screen after the run:\n%s", s)
	}
}

// vt is the part of a terminal the display uses: printable text, \r, \n,
// ESC[nA (up), ESC[J (erase below) and ESC[…m (colours, ignored).
type vt struct {
	lines    [][]rune
	row, col int
}

func (s *vt) feed(out string) error {
	rs := []rune(out)
	for i := 0; i < len(rs); i++ {
		for len(s.lines) <= s.row {
			s.lines = append(s.lines, nil)
		}
		switch c := rs[i]; c {
		case '\r':
			s.col = 0
		case '\n':
			s.row++
		case 0x1b:
			if i+1 >= len(rs) || rs[i+1] != '[' {
				return fmt.Errorf("unexpected escape at %d: %q", i, string(rs[i:min(i+8, len(rs))]))
			}
			j := i + 2
			for j < len(rs) && (rs[j] >= '0' && rs[j] <= '9' || rs[j] == ';') {
				j++
			}
			if j >= len(rs) {
				return nil // an unfinished sequence: the rest comes later
			}
			n := 1
			if j > i+2 {
				fmt.Sscan(string(rs[i+2:j]), &n)
			}
			switch rs[j] {
			case 'A':
				s.row -= n
				if s.row < 0 {
					return fmt.Errorf("cursor moved above the screen")
				}
			case 'J':
				line := s.lines[s.row]
				if s.col < len(line) {
					s.lines[s.row] = line[:s.col]
				}
				s.lines = s.lines[:s.row+1]
			case 'm':
			default:
				return fmt.Errorf("unexpected escape %q", string(rs[i:j+1]))
			}
			i = j
		default:
			line := s.lines[s.row]
			for len(line) < s.col {
				line = append(line, ' ')
			}
			if s.col < len(line) {
				line[s.col] = c
			} else {
				line = append(line, c)
			}
			s.lines[s.row] = line
			s.col++
		}
	}
	return nil
}

func (s *vt) text() string {
	out := make([]string, len(s.lines))
	for i, l := range s.lines {
		out[i] = string(l)
	}
	return strings.TrimRight(strings.Join(out, "\n"), "\n")
}
