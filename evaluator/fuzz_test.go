package evaluator_test

import (
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/evalrun/evalrun/evaluator"
	"github.com/evalrun/evalrun/sexp"
	"github.com/evalrun/evalrun/value"
)

// fuzzLimits keep one fuzz input small: it must end within about a second
// and a few hundred megabytes whatever it does.
var fuzzLimits = evaluator.Limits{
	MaxSteps:       100_000,
	Timeout:        time.Second,
	MaxStringBytes: 1 << 20,
	RecursionDepth: 2000,
}

// FuzzEval compiles and evaluates any source text with limits and a fake
// task system. It must never panic, hang or report an internal error, and
// every error must be a positioned *evaluator.Error or *sexp.Error.
func FuzzEval(f *testing.F) {
	for _, src := range specRowSources() {
		f.Add(src)
	}
	for _, src := range scriptSources(f) {
		f.Add(src)
	}
	for _, r := range robustRows {
		f.Add(r.src)
	}
	f.Add(specPrelude)
	if files, err := filepath.Glob(filepath.Join(benchDir, "workflows", "*.sexp")); err == nil {
		for _, name := range files {
			if data, err := os.ReadFile(name); err == nil && len(data) < 10_000 {
				f.Add(string(data))
			}
		}
	}
	if data, err := os.ReadFile(filepath.Join(benchDir, "bench-echo.sexp")); err == nil {
		f.Add(string(data))
	}
	f.Fuzz(func(t *testing.T, src string) {
		tasks := newFakeTasks()
		in := evaluator.New(evaluator.Options{Tasks: tasks, Limits: fuzzLimits, Stderr: io.Discard})
		if _, err := in.EvalString(context.Background(), "<prelude>", specPrelude); err != nil {
			t.Fatalf("prelude: %v", err)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		defer cancel()
		start := time.Now()
		v, err := in.EvalString(ctx, "<fuzz>", src)
		if d := time.Since(start); d > 15*time.Second {
			t.Errorf("evaluation took %v despite the 1s timeout", d)
		}
		if err == nil {
			if v == nil {
				t.Fatal("nil value without an error")
			}
			// The printer, JSON and text rendering must accept every value.
			_ = v.String()
			_ = value.JSON(v)
			_ = value.Text(v)
			return
		}
		var ee *evaluator.Error
		var se *sexp.Error
		switch {
		case errors.As(err, &ee):
			if ee.Kind == evaluator.KindInternal {
				t.Fatalf("internal error: %v\nsource: %q", err, src)
			}
			if !ee.Pos.IsValid() {
				t.Fatalf("error without a position: %v\nsource: %q", err, src)
			}
			if ee.Pos.Src.Name != "<fuzz>" {
				t.Fatalf("error positioned in %q: %v", ee.Pos.Src.Name, err)
			}
			if off := ee.Pos.Off; off < 0 || off > len(src) {
				t.Fatalf("error offset %d outside the source: %v", off, err)
			}
			_ = ee.Display()
			_ = ee.AsDict()
		case errors.As(err, &se):
			if !se.Pos.IsValid() {
				t.Fatalf("syntax error without a position: %v", err)
			}
		default:
			t.Fatalf("error of type %T: %v", err, err)
		}
	})
}
