package engine_test

import (
	"context"
	"fmt"
	"log"
	"os"
	"path/filepath"

	"github.com/evalrun/evalrun/engine"
	"github.com/evalrun/evalrun/value"
)

// A Go program runs a workflow in a dozen lines: open an engine on a
// project, evaluate the program, close the engine. The echo provider
// answers every model call with the prompt it is sent, so this runs
// offline.
func Example() {
	e, err := engine.Open(engine.Options{
		WorkDir:  "testdata/project",
		Provider: "echo",
		Stderr:   os.Stderr, // warnings, provenance and log-message lines
	})
	if err != nil {
		log.Fatal(err)
	}
	defer e.Close()
	v, err := e.Eval(context.Background(), "<example>", `
(defatom greet (params name) (instructions "Hello {{name}}!"))
(get-field (greet (name "Ada")) "content")`)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(v, e.Usage().Calls)
	// Output: "Hello Ada!" 1
}

// exampleProject makes a project directory (one that holds .evalrun/) with one
// template, greet, for the examples.
func exampleProject() string {
	dir, err := os.MkdirTemp("", "evalrun-example")
	if err != nil {
		log.Fatal(err)
	}
	tmpl := `<task name="greet" type="atomic">
  <description>Greet someone by name</description>
  <inputs><input name="name" type="string"/></inputs>
  <instructions>Hello {{name}}!</instructions>
</task>
`
	if err := os.MkdirAll(filepath.Join(dir, ".evalrun", "templates"), 0o755); err != nil {
		log.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, ".evalrun", "templates", "greet.xml"), []byte(tmpl), 0o644); err != nil {
		log.Fatal(err)
	}
	return dir
}

// Task runs one template by name, alias or type:subtype with its inputs,
// as `evalrun task` does; InputsOf turns plain Go values into inputs.
func ExampleEngine_Task() {
	dir := exampleProject()
	defer os.RemoveAll(dir)
	e, err := engine.Open(engine.Options{WorkDir: dir, Provider: "echo"})
	if err != nil {
		log.Fatal(err)
	}
	defer e.Close()
	inputs, err := engine.InputsOf(map[string]any{"name": "Ada"})
	if err != nil {
		log.Fatal(err)
	}
	res, err := e.Task(context.Background(), "greet", inputs)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(res.Status, res.Content)
	// Output: COMPLETE Hello Ada!
}

// A journaled run is recorded in the project's .evalrun/journal.db;
// FindResume finds it again and Options.Resume runs the workflow once
// more, answering its completed calls from the journal instead of the
// model (SPEC §16.4). The resumed run keeps the first run's inputs.
func ExampleFindResume() {
	dir := exampleProject()
	defer os.RemoveAll(dir)
	const workflow = `(get-field (greet (name who)) "content")`
	run := func(inputs []engine.Input, resume *engine.Resume) {
		e, err := engine.Open(engine.Options{
			WorkDir:  dir,
			Provider: "echo",
			Inputs:   inputs,
			Journal:  &engine.JournalInfo{WorkflowPath: "greet.sexp", WorkflowText: workflow},
			Resume:   resume,
		})
		if err != nil {
			log.Fatal(err)
		}
		defer e.Close()
		v, err := e.Eval(context.Background(), "greet.sexp", workflow)
		e.Finish(v, err)
		if err != nil {
			log.Fatal(err)
		}
		u := e.Usage()
		fmt.Println(v, u.Calls, "call,", u.Replayed, "replayed")
	}
	run([]engine.Input{{Name: "who", Value: value.String("Ada")}}, nil)

	r, err := engine.FindResume(engine.Options{WorkDir: dir}, "last")
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(r.Files, r.Inputs[0].Name, r.Changed(workflow))
	run(nil, r)
	// Output:
	// "Hello Ada!" 1 call, 0 replayed
	// [greet.sexp] who false
	// "Hello Ada!" 1 call, 1 replayed
}

// The journal's runs and a run's tree, as `evalrun runs` and `evalrun
// status` print them.
func ExampleOpenHistory() {
	dir := exampleProject()
	defer os.RemoveAll(dir)
	e, err := engine.Open(engine.Options{WorkDir: dir, Provider: "echo",
		Journal: &engine.JournalInfo{WorkflowPath: "<eval>", WorkflowText: `(step "hello" (greet (name "Bo")))`}})
	if err != nil {
		log.Fatal(err)
	}
	v, err := e.Eval(context.Background(), "<eval>", `(step "hello" (greet (name "Bo")))`)
	e.Finish(v, err)
	e.Close()

	h, ok, err := engine.OpenHistory(engine.Options{WorkDir: dir})
	if err != nil || !ok {
		log.Fatal(ok, err)
	}
	defer h.Close()
	if err := h.WriteStatus(os.Stdout, "last", engine.StatusMarkdown); err != nil {
		log.Fatal(err)
	}
	// Output:
	// - [x] step hello
	//   - [x] task greet
}
