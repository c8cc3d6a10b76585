// Command starlark runs the same small programs in evalrun's evaluator and
// in go.starlark.net, the interpreter evalrun's evaluator takes as its model
// for speed, and prints the time of each and their ratio:
//
//	cd bench/starlark && go run .
//
// The figures come from testing.Benchmark over the benchmarks of
// bench_test.go, which `go test -bench .` runs too. This directory is a
// module of its own, so that the main module does not depend on starlark.
package main

import (
	"context"
	"fmt"

	"github.com/evalrun/evalrun/evaluator"
	"github.com/evalrun/evalrun/sexp"
	"github.com/evalrun/evalrun/value"
	"go.starlark.net/starlark"
	"go.starlark.net/syntax"
)

// workload is one program in both languages: definitions, then a call
// whose value is want (printed canonically by each interpreter).
type workload struct {
	name string
	// evalrun: definitions evaluated once, then the call evaluated each
	// time.
	evalrunDefs, evalrunCall string
	// starlark: a file defining run(), called each time.
	starlark string
	want     string
}

var workloads = []workload{
	{
		name:        "fib27",
		evalrunDefs: `(define (fib n) (if (< n 2) n (+ (fib (- n 1)) (fib (- n 2)))))`,
		evalrunCall: `(fib 27)`,
		starlark: `
def fib(n):
    if n < 2:
        return n
    return fib(n - 1) + fib(n - 2)

def run():
    return fib(27)
`,
		want: "196418",
	},
	{
		name: "loop1e6",
		evalrunDefs: `(define (run)
  (let ((i 0) (acc 0))
    (loop 1000000 (progn (set! i (+ i 1)) (set! acc (+ acc (* i 2)))))
    acc))`,
		evalrunCall: `(run)`,
		starlark: `
def run():
    acc = 0
    for i in range(1, 1000001):
        acc += i * 2
    return acc
`,
		want: "1000001000000",
	},
	{
		name: "strings10k",
		evalrunDefs: `(define (run)
  (let ((s ""))
    (loop 10000 (set! s (string-append s "ab")))
    (string-length s)))`,
		evalrunCall: `(run)`,
		starlark: `
def run():
    s = ""
    for i in range(10000):
        s += "ab"
    return len(s)
`,
		want: "20000",
	},
}

// evalrunRunner returns a function that evaluates w's call once in an
// interpreter where w's definitions ran.
func evalrunRunner(w workload) (func() (string, error), error) {
	ctx := context.Background()
	in := evaluator.New(evaluator.Options{})
	if _, err := in.EvalString(ctx, w.name+"-defs", w.evalrunDefs); err != nil {
		return nil, err
	}
	prog, err := evaluator.Compile(sexp.NewSource(w.name, w.evalrunCall))
	if err != nil {
		return nil, err
	}
	return func() (string, error) {
		v, err := in.Run(ctx, prog)
		if err != nil {
			return "", err
		}
		return value.Value(v).String(), nil
	}, nil
}

// starlarkRunner returns a function that calls run() of w's starlark file.
func starlarkRunner(w workload) (func() (string, error), error) {
	thread := &starlark.Thread{Name: w.name}
	globals, err := starlark.ExecFileOptions(&syntax.FileOptions{Recursion: true}, thread, w.name+".star", w.starlark, nil)
	if err != nil {
		return nil, err
	}
	run := globals["run"]
	if run == nil {
		return nil, fmt.Errorf("%s: no run function", w.name)
	}
	return func() (string, error) {
		v, err := starlark.Call(thread, run, nil, nil)
		if err != nil {
			return "", err
		}
		return v.String(), nil
	}, nil
}
