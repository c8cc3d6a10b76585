//go:build unix

package main

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/evalrun/evalrun/journal"
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
	s, err := journal.Open(filepath.Join(dir, journal.DefaultPath))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	rec, err := s.Resolve("last")
	if err != nil {
		t.Fatal(err)
	}
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
