package evaluator_test

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/evalrun/evalrun/evaluator"
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
