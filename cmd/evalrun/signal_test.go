//go:build unix

package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/evalrun/evalrun/journal"
	"github.com/evalrun/evalrun/templates"
)

// startEvalrun starts the test binary as the evalrun command (see TestMain)
// and waits until the program has written its first stderr line, so that the
// signal handlers are installed before the test sends a signal. It returns
// the command and a function that waits for it and returns its exit code and
// the rest of its stderr.
func startEvalrun(t *testing.T, stdin io.Reader, args ...string) (*exec.Cmd, func() (int, string)) {
	t.Helper()
	// A directory of its own: the run's journal is not the module's.
	return startEvalrunIn(t, t.TempDir(), stdin, args...)
}

// startEvalrunIn is startEvalrun in the directory dir.
func startEvalrunIn(t *testing.T, dir string, stdin io.Reader, args ...string) (*exec.Cmd, func() (int, string)) {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := &exec.Cmd{Path: exe, Args: append([]string{"evalrun"}, args...), Stdin: stdin, Dir: dir}
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stdout bytes.Buffer
	cmd.Stdout = &stdout
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill() })
	r := bufio.NewReader(stderr)
	first := make(chan string, 1)
	go func() {
		line, _ := r.ReadString('\n')
		first <- line
	}()
	select {
	case line := <-first:
		if !strings.HasPrefix(line, "log: started") {
			t.Fatalf("first stderr line %q, want log: started", line)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("evalrun did not start")
	}
	wait := func() (int, string) {
		rest, _ := io.ReadAll(r)
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		select {
		case err := <-done:
			var ee *exec.ExitError
			if err != nil && !errors.As(err, &ee) {
				t.Fatal(err)
			}
			return cmd.ProcessState.ExitCode(), string(rest)
		case <-time.After(30 * time.Second):
			t.Fatal("evalrun did not end after the signal")
			return 0, ""
		}
	}
	return cmd, wait
}

// endless starts a log line, then loops for ever.
const endless = `(progn (log-message "started") (loop 9223372036854775807 (+ 1 1)))`

func TestInterruptRun(t *testing.T) {
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM} {
		t.Run(sig.String(), func(t *testing.T) {
			cmd, wait := startEvalrun(t, nil, "eval", endless)
			if err := cmd.Process.Signal(sig); err != nil {
				t.Fatal(err)
			}
			code, stderr := wait()
			if code != exitInterrupted {
				t.Errorf("exit code %d, want %d", code, exitInterrupted)
			}
			if stderr != "evalrun: interrupted\n" {
				t.Errorf("stderr %q, want %q", stderr, "evalrun: interrupted\n")
			}
			// The journal records the run as failed: cancelled.
			s, err := journal.Open(filepath.Join(cmd.Dir, journal.DefaultPath))
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			rec, err := s.Resolve("last")
			if err != nil {
				t.Fatal(err)
			}
			if rec.Status != journal.StatusFailed || rec.Error != "cancelled" {
				t.Errorf("journal: status %q, error %q; want failed, cancelled", rec.Status, rec.Error)
			}
		})
	}
}

// TestInterruptRunFileHintsResume: an interrupted run of files ends with
// the command that resumes it, naming the journaled run.
func TestInterruptRunFileHintsResume(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "endless.sexp"), []byte(endless), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd, wait := startEvalrunIn(t, dir, nil, "run", "endless.sexp")
	if err := cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	code, stderr := wait()
	rec, _ := lastRunTree(t, dir)
	want := "evalrun: interrupted\nhint: evalrun run --resume " + rec.ID + " continues the run, answering its completed calls from the journal\n"
	if code != exitInterrupted || stderr != want {
		t.Errorf("exit code %d, stderr %q; want %d, %q", code, stderr, exitInterrupted, want)
	}
}

// TestInterruptTwice: two signals in a row end the process with 130 and one
// "interrupted" line, whichever of the two ends it.
func TestInterruptTwice(t *testing.T) {
	cmd, wait := startEvalrun(t, nil, "eval", endless)
	cmd.Process.Signal(syscall.SIGINT)
	time.Sleep(100 * time.Millisecond)
	cmd.Process.Signal(syscall.SIGINT)
	code, stderr := wait()
	if code != exitInterrupted || stderr != "evalrun: interrupted\n" {
		t.Errorf("exit code %d, stderr %q; want %d and one interrupted line", code, stderr, exitInterrupted)
	}
}

// TestInterruptRepl: a non-interactive REPL session ends with 130 when an
// evaluation is interrupted.
func TestInterruptRepl(t *testing.T) {
	cmd, wait := startEvalrun(t, strings.NewReader(endless+"\n(log-message \"not reached\")\n"), "repl")
	cmd.Process.Signal(syscall.SIGINT)
	code, stderr := wait()
	if code != exitInterrupted || stderr != "evalrun: interrupted\n" {
		t.Errorf("exit code %d, stderr %q; want %d and one interrupted line", code, stderr, exitInterrupted)
	}
}

// stubbornProject writes a project whose workflow asks an agent that
// ignores SIGTERM and SIGINT: a first Ctrl-C cannot end its run. The agent
// creates DIR/agent-started when it starts and DIR/agent-got-term when
// the cancellation reaches it. It returns the directory and the
// environment to run evalrun in.
func stubbornProject(t *testing.T) (string, []string) {
	t.Helper()
	dir := t.TempDir()
	agent := fmt.Sprintf(`#!/bin/sh
trap 'echo > %[1]s/agent-got-term' TERM
trap '' INT
echo > %[1]s/agent-started
while :; do sleep 30 & wait; done
`, dir)
	files := map[string]string{
		".evalrun/config.toml": fmt.Sprintf("[agents.stubborn]\ncommand = %q\n", filepath.Join(dir, "stubborn.sh")),
		".evalrun/templates/review.xml": `<tasks>
  <task name="review" type="atomic">
    <description>Review</description>
    <agent>stubborn</agent>
    <instructions>Review it</instructions>
  </task>
</tasks>
`,
		"stubborn.sexp": `(step "review" (get-field (review) "content"))` + "\n",
		"stubborn.sh":   agent,
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
	env := []string{"PATH=" + os.Getenv("PATH"), "HOME=" + home, "EVALRUN_HOME=" + filepath.Join(home, "evalrun"),
		templates.CeilingEnv + "=" + os.Getenv(templates.CeilingEnv)}
	return dir, env
}

// waitFile waits until the file path exists.
func waitFile(t *testing.T, path string) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		if _, err := os.Stat(path); err == nil {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s did not appear", path)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestInterruptTwiceJournal: the second Ctrl-C, while an agent that
// ignores SIGTERM keeps the run from ending, exits at once and records
// the run as failed "interrupted", its running call as failed
// execution_halted: the journal keeps no run running that no process
// runs.
func TestInterruptTwiceJournal(t *testing.T) {
	dir, env := stubbornProject(t)
	cmd := evalrunCmd(t, dir, env, "run", "stubborn.sexp")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill() })
	waitFile(t, filepath.Join(dir, "agent-started"))
	cmd.Process.Signal(syscall.SIGINT)
	waitFile(t, filepath.Join(dir, "agent-got-term")) // the first signal cancelled the run
	cmd.Process.Signal(syscall.SIGINT)
	err := cmd.Wait()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != exitInterrupted || !strings.HasSuffix(stderr.String(), "\nevalrun: interrupted\n") {
		t.Fatalf("evalrun: %v, stderr %q; want exit %d and one interrupted line", err, stderr.String(), exitInterrupted)
	}
	rec, tree := lastRunTree(t, dir)
	if rec.Status != journal.StatusFailed || rec.Error != "interrupted" || rec.FinishedAt.IsZero() {
		t.Errorf("run: status %q, error %q, finished %v; want failed, interrupted, a finish time", rec.Status, rec.Error, rec.FinishedAt)
	}
	// The agent, killed, may end its call before the run's end is
	// recorded: then that is the call's end; else it is halted.
	journal.Walk(tree, func(n *journal.Node, _ int) bool {
		if n.Status != journal.StatusFailed || n.FinishedAt.IsZero() {
			t.Errorf("%s %s: status %q, finished %v; want failed, a finish time", n.Kind, n.Name, n.Status, n.FinishedAt)
		}
		return true
	})
	if len(tree) != 1 || len(tree[0].Children) != 1 {
		t.Errorf("tree %d top-level nodes; want step review with its task", len(tree))
	}
}

// lastRunTree returns the last run of the journal of the project dir and
// its tree of calls.
func lastRunTree(t *testing.T, dir string) (*journal.RunRecord, []*journal.Node) {
	t.Helper()
	s, err := journal.Open(filepath.Join(dir, journal.DefaultPath))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	rec, err := s.Resolve("last")
	if err != nil {
		t.Fatal(err)
	}
	tree, err := s.Tree(rec.ID)
	if err != nil {
		t.Fatal(err)
	}
	return rec, tree
}

// killedFlow completes a model call, then loops for ever.
const killedFlow = `(defatom greet (params name) (instructions "Hello {{name}}!"))
(step "greet" (get-field (greet (name who)) "content"))
(log-message "started")
(step "wait" (loop 9223372036854775807 (+ 1 1)))
`

// killRun starts `evalrun run flow.sexp` on killedFlow in a new project,
// kills it with SIGKILL once it has completed its model call, and returns
// the project and the pid it had.
func killRun(t *testing.T) (dir string, pid int) {
	t.Helper()
	dir = t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "flow.sexp"), []byte(killedFlow), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd, _ := startEvalrunIn(t, dir, nil, "run", "--provider", "echo", "--set", "who=Zed", "flow.sexp")
	waitJournal(t, filepath.Join(dir, journal.DefaultPath), `step "wait"`, journal.StatusRunning)
	if err := cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	cmd.Wait() // killed: no exit code of its own
	return dir, cmd.Process.Pid
}

// waitJournal waits until the newest run of the journal at path has a
// call named name (as `kind "name"` for steps, `kind name` else) with the
// status; the journal commits what a run writes within milliseconds.
func waitJournal(t *testing.T, path, name, status string) {
	t.Helper()
	s, err := journal.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	deadline := time.Now().Add(30 * time.Second)
	for {
		found := false
		if rec, err := s.Resolve("last"); err == nil {
			tree, err := s.Tree(rec.ID)
			if err != nil {
				t.Fatal(err)
			}
			journal.Walk(tree, func(n *journal.Node, _ int) bool {
				label := n.Kind + " " + n.Name
				if n.Kind == journal.KindStep {
					label = n.Kind + " " + strconv.Quote(n.Name)
				}
				found = found || (label == name && n.Status == status)
				return !found
			})
		}
		if found {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("the journal has no %s %s", status, name)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestKilledRunShownFailed: a run whose process was killed (SIGKILL) is
// left running in the journal; runs and status show it as failed, with
// the process named, and the call it was making as halted.
func TestKilledRunShownFailed(t *testing.T) {
	dir, pid := killRun(t)
	host, _ := os.Hostname()
	wantErr := fmt.Sprintf("the process running it (pid %d on %s) ended without finishing it", pid, host)

	code, out, errOut := runIn(t, dir, nil, "runs")
	if lines := strings.Split(strings.TrimSpace(out), "\n"); code != 0 || len(lines) != 2 || !strings.Contains(lines[1], "  failed  ") {
		t.Errorf("runs: exit %d\n%s%s", code, out, errOut)
	}
	code, out, errOut = runIn(t, dir, nil, "status")
	if code != 0 || !strings.Contains(out, "  failed  flow.sexp") || !strings.Contains(out, "\nerror: "+wantErr+"\n") ||
		!strings.Contains(out, `[failed]    step "wait"`) {
		t.Errorf("status: exit %d\n%s%s", code, out, errOut)
	}
	code, out, errOut = runIn(t, dir, nil, "status", "--json")
	var st struct {
		Run struct {
			Status, Error string
			FinishedAt    *string `json:"finished_at"`
		}
		Nodes []struct {
			Seq                 int
			Name, Status, Error string
		}
		Current *int
	}
	if err := json.Unmarshal([]byte(out), &st); err != nil || code != 0 {
		t.Fatalf("status --json: exit %d, %v\n%s%s", code, err, out, errOut)
	}
	if st.Run.Status != "failed" || st.Run.Error != wantErr || st.Run.FinishedAt != nil {
		t.Errorf("status --json run: %+v", st.Run)
	}
	var nodes []string
	for _, n := range st.Nodes {
		nodes = append(nodes, fmt.Sprint(n.Seq, " ", n.Name, " ", n.Status, " ", n.Error))
	}
	want := []string{"1 greet completed ", "2 wait failed execution_halted: the process running the run ended"}
	if strings.Join(nodes, "\n") != strings.Join(want, "\n") || st.Current == nil || *st.Current != 2 {
		t.Errorf("status --json nodes:\n%s\ncurrent %v; want:\n%s\ncurrent 2", strings.Join(nodes, "\n"), st.Current, strings.Join(want, "\n"))
	}
}

// TestResumeKilledRun: --resume of a run whose process was killed works as
// for a failed run: its completed model call is replayed, and the new run
// records the one it resumes.
func TestResumeKilledRun(t *testing.T) {
	dir, _ := killRun(t)
	killed := strings.Replace(killedFlow, "9223372036854775807", "3", 1)
	if err := os.WriteFile(filepath.Join(dir, "flow.sexp"), []byte(killed), 0o644); err != nil {
		t.Fatal(err)
	}
	_, out, _ := runIn(t, dir, nil, "runs", "--json")
	var runs []struct{ ID, Status string }
	if err := json.Unmarshal([]byte(out), &runs); err != nil || len(runs) != 1 || runs[0].Status != "failed" {
		t.Fatalf("runs --json: %v\n%s", err, out)
	}
	code, out, errOut := runIn(t, dir, nil, "run", "--resume", "last")
	if code != 0 || !strings.Contains(errOut, "warning: the workflow changed since run "+runs[0].ID) ||
		!strings.Contains(errOut, "\nusage: 1 model call (1 replayed), ") || strings.Contains(errOut, "still running") {
		t.Fatalf("run --resume last: exit %d\n%s%s", code, out, errOut)
	}
	code, out, errOut = runIn(t, dir, nil, "status", "--json")
	var st struct {
		Run struct {
			Status      string
			ResumedFrom string `json:"resumed_from"`
		}
		Nodes []struct {
			Name     string
			Status   string
			Children []struct{ Replayed bool }
		}
	}
	if err := json.Unmarshal([]byte(out), &st); err != nil || code != 0 {
		t.Fatalf("status --json: exit %d, %v\n%s%s", code, err, out, errOut)
	}
	if st.Run.Status != "completed" || st.Run.ResumedFrom != runs[0].ID || len(st.Nodes) != 2 ||
		len(st.Nodes[0].Children) != 1 || !st.Nodes[0].Children[0].Replayed || st.Nodes[1].Status != "completed" {
		t.Errorf("the resumed run: %s", out)
	}
}

// TestHangupJournal: SIGHUP (the terminal closed) ends a run at once, as a
// second Ctrl-C does: exit 130, the run recorded as failed "interrupted"
// and the step it was running as failed execution_halted.
func TestHangupJournal(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "flow.sexp"), []byte(killedFlow), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd, wait := startEvalrunIn(t, dir, nil, "run", "--provider", "echo", "--set", "who=Zed", "flow.sexp")
	waitJournal(t, filepath.Join(dir, journal.DefaultPath), `step "wait"`, journal.StatusRunning)
	if err := cmd.Process.Signal(syscall.SIGHUP); err != nil {
		t.Fatal(err)
	}
	if code, stderr := wait(); code != exitInterrupted || !strings.HasSuffix(stderr, "evalrun: interrupted\n") {
		t.Fatalf("exit %d, stderr %q; want %d, interrupted", code, stderr, exitInterrupted)
	}
	rec, tree := lastRunTree(t, dir)
	if rec.Status != journal.StatusFailed || rec.Error != "interrupted" || rec.Ended || len(tree) != 2 ||
		tree[1].Status != journal.StatusFailed || tree[1].Error != "execution_halted: interrupted" {
		t.Errorf("run %s %q (ended %v), tree %+v", rec.Status, rec.Error, rec.Ended, tree)
	}
}

// TestResumeRunningRunWarns: resuming a run whose process still runs warns
// that the calls it has not completed run again.
func TestResumeRunningRunWarns(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "flow.sexp"), []byte(killedFlow), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd, _ := startEvalrunIn(t, dir, nil, "run", "--provider", "echo", "--set", "who=Zed", "flow.sexp")
	waitJournal(t, filepath.Join(dir, journal.DefaultPath), `step "wait"`, journal.StatusRunning)
	short := strings.Replace(killedFlow, "9223372036854775807", "3", 1)
	if err := os.WriteFile(filepath.Join(dir, "flow.sexp"), []byte(short), 0o644); err != nil {
		t.Fatal(err)
	}
	_, out, _ := runIn(t, dir, nil, "runs", "--json")
	var runs []struct{ ID, Status string }
	if err := json.Unmarshal([]byte(out), &runs); err != nil || len(runs) != 1 || runs[0].Status != "running" {
		t.Fatalf("runs --json: %v\n%s", err, out)
	}
	host, _ := os.Hostname()
	code, _, errOut := runIn(t, dir, nil, "run", "--resume", "last")
	want := fmt.Sprintf("warning: run %s is still running (pid %d on %s): the calls it has not completed run again in this run\n",
		runs[0].ID, cmd.Process.Pid, host)
	if code != 0 || !strings.HasPrefix(errOut, want) {
		t.Errorf("run --resume last: exit %d, stderr\n%s\nwant it to start with\n%s", code, errOut, want)
	}
}
