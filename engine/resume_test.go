package engine_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/evalrun/evalrun/engine"
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
