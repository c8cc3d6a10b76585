package engine_test

import (
	"context"
	"fmt"
	"log"
	"os"

	"github.com/evalrun/evalrun/engine"
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
