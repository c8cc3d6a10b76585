package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// exampleEnv is the environment of an example run: a home directory
// without configuration and no API key.
func exampleEnv(t *testing.T) func(string) string {
	home := t.TempDir()
	return func(k string) string {
		if k == "HOME" {
			return home
		}
		return ""
	}
}

// copyDir copies the directory tree src into dst.
func copyDir(t *testing.T, src, dst string) {
	t.Helper()
	if err := os.CopyFS(dst, os.DirFS(src)); err != nil {
		t.Fatal(err)
	}
}

// TestExamplesCheck: every example workflow of examples/ passes evalrun
// check with its project's templates and configuration (SPEC §20).
func TestExamplesCheck(t *testing.T) {
	root, err := filepath.Abs("../../examples")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ dir, file string }{
		{"review", "review.sexp"},
		{"improve", "improve.sexp"},
		{"overview", "overview.sexp"},
		{"release", "release.sexp"},
		{"agents", "agents.sexp"},
		{".", "greet.sexp"},
		{".", "fanout.sexp"},
		{".", "refine.sexp"},
	} {
		t.Run(tc.file, func(t *testing.T) {
			t.Chdir(filepath.Join(root, tc.dir))
			if tc.dir == "agents" {
				// The fake claude and codex of the demo.
				t.Setenv("PATH", filepath.Join(root, "agents", "fake-bin")+string(os.PathListSeparator)+os.Getenv("PATH"))
			}
			var stdout, stderr bytes.Buffer
			a := &app{stdin: strings.NewReader(""), stdout: &stdout, stderr: &stderr, getenv: exampleEnv(t)}
			// The global variables the examples take with --set.
			code := a.main([]string{"check", "--set", "focus=x", "--set", "goal=x", "--set", "topic=x", tc.file})
			if code != exitOK || stdout.String() != tc.file+": ok\n" || stderr.Len() > 0 {
				t.Errorf("check %s: exit %d\nstdout:\n%s\nstderr:\n%s", tc.file, code, &stdout, &stderr)
			}
		})
	}
}

// TestExamplesRun runs the improve and overview examples on the echo
// provider in temporary copies, as make demo does.
func TestExamplesRun(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the examples")
	}
	root, err := filepath.Abs("../../examples")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		dir  string
		args []string
		want string // prefix of stdout
		log  string // a line of stderr
	}{
		{"improve", []string{"run", "improve.sexp", "--set", "goal=A Getting started section"},
			`#<TaskResult COMPLETE "Write the section. Follow this plan exactly: Goal: A Getting`, "log: round 4 of 4 score 0"},
		{"overview", []string{"run", "overview.sexp", "--set", "topic=HTTP retries and backoff"},
			`#<TaskResult COMPLETE "Write a one-page overview of \"HTTP retries and backoff\"`, "of 5 files summarised"},
	} {
		t.Run(tc.dir, func(t *testing.T) {
			dir := t.TempDir()
			copyDir(t, filepath.Join(root, tc.dir), dir)
			t.Chdir(dir)
			var stdout, stderr bytes.Buffer
			a := &app{stdin: strings.NewReader(""), stdout: &stdout, stderr: &stderr, getenv: exampleEnv(t)}
			code := a.main(tc.args)
			if code != exitOK || !strings.HasPrefix(stdout.String(), tc.want) || !strings.Contains(stderr.String(), tc.log) {
				t.Errorf("%v: exit %d\nstdout:\n%s\nstderr:\n%s", tc.args, code, &stdout, &stderr)
			}
		})
	}
}

// TestExamplesFakeAgentsAnswer runs the agent example and the plan example
// with the fake claude, codex and gemini of examples/agents/fake-bin, as
// make demo does, and checks that every prompt got its recorded answer of
// fake-bin/answers (none the fallback that names a missing marker).
func TestExamplesFakeAgentsAnswer(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the examples")
	}
	root, err := filepath.Abs("../../examples")
	if err != nil {
		t.Fatal(err)
	}
	answers := filepath.Join(root, "agents", "fake-bin", "answers")
	answer := func(name string) string {
		data, err := os.ReadFile(filepath.Join(answers, name+".md"))
		if err != nil {
			t.Fatal(err)
		}
		return strings.TrimRight(string(data), "\n")
	}
	t.Setenv("PATH", filepath.Join(root, "agents", "fake-bin")+string(os.PathListSeparator)+os.Getenv("PATH"))

	t.Run("agents.sexp", func(t *testing.T) {
		dir := t.TempDir()
		copyDir(t, filepath.Join(root, "agents"), dir)
		t.Chdir(dir)
		var stdout, stderr bytes.Buffer
		a := &app{stdin: strings.NewReader(""), stdout: &stdout, stderr: &stderr, getenv: exampleEnv(t)}
		code := a.main([]string{"run", "agents.sexp"})
		want := strconv.Quote(answer("verdict")) + "\n"
		if code != exitOK || stdout.String() != want {
			t.Errorf("exit %d, stdout:\n%s\nwant:\n%s\nstderr:\n%s", code, &stdout, want, &stderr)
		}
		for _, log := range []string{
			"log: review by claude:\n" + answer("review") + "\n",
			"log: second opinion by codex:\n" + answer("second-opinion") + "\n",
		} {
			if !strings.Contains(stderr.String(), log) {
				t.Errorf("stderr lacks %q:\n%s", log, &stderr)
			}
		}
	})

	t.Run("plan", func(t *testing.T) {
		dir := t.TempDir()
		copyDir(t, filepath.Join(root, "plan"), dir)
		t.Chdir(dir)
		var stdout, stderr bytes.Buffer
		a := &app{stdin: strings.NewReader(""), stdout: &stdout, stderr: &stderr, getenv: exampleEnv(t)}
		if code := a.main([]string{"plan", "run", "--parallel", "3"}); code != exitOK {
			t.Fatalf("plan run: exit %d\nstdout:\n%s\nstderr:\n%s", code, &stdout, &stderr)
		}
		for _, id := range []string{"IMPL-001", "IMPL-002.1", "IMPL-002.2", "IMPL-003.1", "IMPL-003.2", "IMPL-004"} {
			data, err := os.ReadFile(filepath.Join(dir, ".workflow", "active", "WFS-jwt-auth", ".summaries", id+"-summary.md"))
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(string(data), "## Answer\n\n"+answer(id)+"\n") {
				t.Errorf("the summary of %s lacks its recorded answer:\n%s", id, data)
			}
		}
		// Every call of the run, the analysis step of IMPL-002.1 (ccw cli …
		// --tool gemini) included, got its recorded answer, none the fallback.
		stdout.Reset()
		stderr.Reset()
		if code := a.main([]string{"status", "--json"}); code != exitOK {
			t.Fatalf("status --json: exit %d\nstderr:\n%s", code, &stderr)
		}
		analysis := answer("analysis-login")
		if first, _, _ := strings.Cut(analysis, ":"); !strings.Contains(stdout.String(), first+":") {
			t.Errorf("the run lacks the answer of the login analysis %q", first)
		}
		for _, line := range strings.Split(stdout.String(), "\n") {
			if strings.Contains(line, "[fake ") {
				t.Errorf("a call of the run got a fallback answer: %s", strings.TrimSpace(line))
			}
		}
	})
}
