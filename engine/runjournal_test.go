package engine_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/evalrun/evalrun/engine"
	"github.com/evalrun/evalrun/journal"
	"github.com/evalrun/evalrun/value"
)

// TestResumeCarriesFlags: the arguments a journaled run records are read
// back by FindResume, --agent and the files (names with spaces) included,
// and Open uses them where the new options give none.
func TestResumeCarriesFlags(t *testing.T) {
	root := t.TempDir()
	if err := os.MkdirAll(filepath.Join(root, ".evalrun"), 0o755); err != nil {
		t.Fatal(err)
	}
	getenv := func(k string) string {
		if k == "HOME" {
			return root
		}
		return os.Getenv(k)
	}
	e, err := engine.Open(engine.Options{WorkDir: root, Getenv: getenv, Model: "m1",
		AgentOptions: engine.AgentOptions{Agent: "none", Role: "", Contexts: nil},
		Inputs:       []engine.Input{{Name: "who", Value: value.String("Zed")}},
		Journal:      &engine.JournalInfo{WorkflowPath: "a b.sexp c.sexp", WorkflowText: "1", Files: []string{"a b.sexp", "c.sexp"}}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.Eval(context.Background(), "<eval>", `(system_list_directory (directory_path "."))`); err != nil {
		t.Fatal(err)
	}
	e.Finish(nil, nil)
	e.Close()
	r, err := engine.FindResume(engine.Options{WorkDir: root, Getenv: getenv}, "last")
	if err != nil {
		t.Fatal(err)
	}
	if got := fmt.Sprintf("%q %q %q %q %v", r.Files, r.Agent, r.Model, r.Provider, r.Inputs); got != `["a b.sexp" "c.sexp"] "none" "m1" "" [{who "Zed"}]` {
		t.Errorf("resume %s", got)
	}
}

// TestCancelledWhileWaiting: a call interrupted while it waits for its
// concurrency slot ends failed with error "cancelled" in the journal, not
// pending.
func TestCancelledWhileWaiting(t *testing.T) {
	root := t.TempDir()
	files := map[string]string{
		".evalrun/config.toml":        "[limits]\nconcurrency = 1\n[agents.slow]\ncommand = \"./slow.sh {prompt}\"\n",
		".evalrun/templates/slow.xml": "<task name=\"slow\" type=\"atomic\">\n  <description>Slow</description>\n  <agent>slow</agent>\n  <instructions>n={{n}}</instructions>\n</task>\n",
		"slow.sh":                     "#!/bin/sh\ntouch started\nexec sleep 30\n",
	}
	for name, text := range files {
		p := filepath.Join(root, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	getenv := func(k string) string {
		if k == "HOME" {
			return root
		}
		return os.Getenv(k)
	}
	const workflow = `(parallel (slow (n 1)) (slow (n 2)))`
	e, err := engine.Open(engine.Options{WorkDir: root, Getenv: getenv,
		Journal: &engine.JournalInfo{WorkflowPath: "<eval>", WorkflowText: workflow}})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		// Cancel once the first call's agent has started and the second
		// call is in the journal, waiting for its slot (on a loaded
		// machine its goroutine may get there after the agent started).
		for i := 0; i < 1000 && !(started(root) && taskNodes(root) == 2); i++ {
			time.Sleep(10 * time.Millisecond)
		}
		cancel()
	}()
	_, err = e.Eval(ctx, "<eval>", workflow)
	if err == nil {
		t.Fatal("the cancelled run returned no error")
	}
	e.Finish(nil, errors.New("cancelled"))
	e.Close()
	_, tree := lastTree(t, root)
	var got []string
	journal.Walk(tree, func(n *journal.Node, _ int) bool {
		if n.Kind == journal.KindTask {
			got = append(got, n.Status+" "+n.Error)
		}
		return true
	})
	slices.Sort(got)
	if len(got) != 2 || got[1] != "failed cancelled" || strings.HasPrefix(got[0], "pending") {
		t.Errorf("task nodes %q", got)
	}
}

// started reports whether the slow agent of TestCancelledWhileWaiting has
// started.
func started(root string) bool {
	_, err := os.Stat(filepath.Join(root, "started"))
	return err == nil
}

// taskNodes counts the task nodes of the last run in root's journal, as a
// reader beside the running run sees them (0 while there is none).
func taskNodes(root string) int {
	s, err := journal.Open(filepath.Join(root, journal.DefaultPath))
	if err != nil {
		return 0
	}
	defer s.Close()
	rec, err := s.Resolve("last")
	if err != nil {
		return 0
	}
	tree, err := s.Tree(rec.ID)
	if err != nil {
		return 0
	}
	n := 0
	journal.Walk(tree, func(c *journal.Node, _ int) bool {
		if c.Kind == journal.KindTask {
			n++
		}
		return true
	})
	return n
}

// TestWriteRunsWithoutRuns: `evalrun runs` without runs prints one line
// saying so, not a lone header, whether the journal is missing or empty;
// --json prints [].
func TestWriteRunsWithoutRuns(t *testing.T) {
	var b strings.Builder
	if err := engine.WriteNoRuns(&b, false); err != nil {
		t.Fatal(err)
	}
	if want := "no runs yet: the journal .evalrun/journal.db does not exist (evalrun run, eval and task create it)\n"; b.String() != want {
		t.Errorf("no journal: %q, want %q", b.String(), want)
	}

	dir := project(t, map[string]string{})
	s, err := journal.Open(filepath.Join(dir, journal.DefaultPath))
	if err != nil {
		t.Fatal(err)
	}
	s.Close()
	h, ok, err := engine.OpenHistory(engine.Options{WorkDir: dir, Getenv: env(t)})
	if err != nil || !ok {
		t.Fatal(ok, err)
	}
	defer h.Close()
	for asJSON, want := range map[bool]string{
		false: "no runs yet: the journal .evalrun/journal.db has none (evalrun run, eval and task record them)\n",
		true:  "[]\n",
	} {
		b.Reset()
		if err := h.WriteRuns(&b, asJSON); err != nil {
			t.Fatal(err)
		}
		if b.String() != want {
			t.Errorf("empty journal, json %v: %q, want %q", asJSON, b.String(), want)
		}
	}
}
