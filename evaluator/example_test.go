package evaluator_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/evalrun/evalrun/evaluator"
	"github.com/evalrun/evalrun/value"
)

// A Go program embeds evalrun by creating an interpreter, binding values in
// its global frame and evaluating source text. Pass Options.Tasks to let
// programs call templates and tools; without it, every task name is unknown.
func Example() {
	in := evaluator.New(evaluator.Options{
		Limits: evaluator.Limits{Timeout: 10 * time.Second},
		Stderr: os.Stderr, // log-message lines and warnings
	})
	in.Define("names", value.List{value.String("Ann"), value.String("Bob")})

	v, err := in.EvalString(context.Background(), "<example>", `
(define (greet n) (string-append "Hello, " n "!"))
(map greet names)`)
	if err != nil {
		var e *evaluator.Error
		if errors.As(err, &e) {
			fmt.Print(e.Display()) // FILE:LINE:COL: MESSAGE, the line and a caret
		}
		return
	}
	fmt.Println(v)
	fmt.Println(value.JSON(v))
	// Output:
	// ("Hello, Ann!" "Hello, Bob!")
	// ["Hello, Ann!","Hello, Bob!"]
}

// Evaluation errors carry a kind, a message and the position of the node
// where they were detected.
func ExampleError() {
	in := evaluator.New(evaluator.Options{})
	_, err := in.EvalString(context.Background(), "<eval>", `(list 1 (+ 1 "a"))`)
	var e *evaluator.Error
	if errors.As(err, &e) {
		fmt.Println(e.Kind)
		fmt.Print(e.Display())
	}
	// Output:
	// type
	// <eval>:1:14: '+' argument 2 must be a number, got string.
	// (list 1 (+ 1 "a"))
	//              ^
}
