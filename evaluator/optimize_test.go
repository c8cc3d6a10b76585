package evaluator_test

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/evalrun/evalrun/evaluator"
	"github.com/evalrun/evalrun/sexp"
	"github.com/evalrun/evalrun/value"
)

// optimizeLimits bound the programs without a timeout, so that both runs
// of a program end the same way.
var optimizeLimits = evaluator.Limits{MaxSteps: 200_000, MaxStringBytes: 1 << 20, RecursionDepth: 2000}

// outcomeWith evaluates src in a new interpreter with the optimizations on
// or off.
func outcomeWith(t testing.TB, src string, on bool) specOutcome {
	evaluator.SetOptimize(on)
	defer evaluator.SetOptimize(true)
	tasks := newFakeTasks()
	in := evaluator.New(evaluator.Options{Tasks: tasks, Limits: optimizeLimits, Stderr: io.Discard})
	if _, err := in.EvalString(context.Background(), "<prelude>", specPrelude); err != nil {
		t.Fatalf("prelude: %v", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	return outcomeOf(in.EvalString(ctx, "<src>", src))
}

// optimizeCorpus returns the programs of the scripts, the spec tables, the
// robustness rows and the benchmark workflows.
func optimizeCorpus(t testing.TB) []string {
	srcs := append(scriptSources(t), specRowSources()...)
	for _, r := range robustRows {
		srcs = append(srcs, r.src)
	}
	files, _ := filepath.Glob(filepath.Join(benchDir, "workflows", "*.sexp"))
	for _, name := range files {
		if data, err := os.ReadFile(name); err == nil && len(data) < 10_000 {
			srcs = append(srcs, string(data))
		}
	}
	return srcs
}

// TestOptimizationsKeepOutcomes: every program of the corpus has the same
// value or error (message, kind, position) with the optimizations as
// without them.
func TestOptimizationsKeepOutcomes(t *testing.T) {
	for _, src := range optimizeCorpus(t) {
		if on, off := outcomeWith(t, src, true), outcomeWith(t, src, false); on != off {
			t.Errorf("%s\noptimized %+v\nplain     %+v", src, on, off)
		}
	}
}

// FuzzOptimizations compares any program's outcome with and without the
// optimizations.
func FuzzOptimizations(f *testing.F) {
	for _, src := range optimizeCorpus(f) {
		f.Add(src)
	}
	f.Fuzz(func(t *testing.T, src string) {
		if on, off := outcomeWith(t, src, true), outcomeWith(t, src, false); on != off {
			t.Errorf("%q\noptimized %+v\nplain     %+v", src, on, off)
		}
	})
}

// TestGlobalReferenceAcrossInterpreters: a compiled program that reads a
// global finds it in the global frame of the interpreter running it, also
// after Reset and when the frame binds more names first.
func TestGlobalReferenceAcrossInterpreters(t *testing.T) {
	prog, err := evaluator.Compile(sexp.NewSource("p", "(let ((f (lambda () who))) (f))"))
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	a, b := evaluator.New(evaluator.Options{}), evaluator.New(evaluator.Options{})
	a.Define("who", value.String("a"))
	b.Define("other", value.Int(1))
	b.Define("who", value.String("b"))
	for _, tc := range []struct {
		in   *evaluator.Interpreter
		want string
	}{{a, `"a"`}, {b, `"b"`}, {a, `"a"`}} {
		v, err := tc.in.Run(ctx, prog)
		if err != nil || v.String() != tc.want {
			t.Errorf("got %v, %v; want %s", v, err, tc.want)
		}
	}
	a.Reset()
	if _, err := a.Run(ctx, prog); err == nil || !strings.Contains(err.Error(), "Name 'who' is not defined") {
		t.Errorf("after Reset: %v", err)
	}
}
