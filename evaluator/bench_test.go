package evaluator_test

// The benchmark workloads of /work/shared/bench (manifest.json beside the
// workflows): TestBenchWorkloads checks every expectation, the benchmarks
// measure them. Workloads that call bench-echo run after the prelude
// bench-echo.sexp, a defatom registered through Tasks.Define, against
// fakeTasks, whose executor answers with the rendered instructions (the echo
// provider's semantics).

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/evalrun/evalrun/evaluator"
	"github.com/evalrun/evalrun/sexp"
	"github.com/evalrun/evalrun/value"
)

// benchDir holds the shared benchmark files, relative to this package.
const benchDir = "../../shared/bench"

type benchManifest struct {
	Workflows []benchWorkflow `json:"workflows"`
}

type benchWorkflow struct {
	Name   string `json:"name"`
	File   string `json:"file"`
	Kind   string `json:"kind"` // parse or eval
	Tasks  bool   `json:"tasks"`
	Calls  int    `json:"task_calls"`
	Expect struct {
		Value      json.RawMessage `json:"value"`
		JSONLen    int             `json:"json_len"`
		JSONSHA256 string          `json:"json_sha256"`
	} `json:"expect"`
	text string
}

// loadBench reads the manifest and the workflow texts, skipping the test
// when the shared directory is absent.
func loadBench(tb testing.TB) ([]benchWorkflow, string) {
	tb.Helper()
	data, err := os.ReadFile(filepath.Join(benchDir, "workflows", "manifest.json"))
	if os.IsNotExist(err) {
		tb.Skipf("no benchmark workflows at %s", benchDir)
	}
	if err != nil {
		tb.Fatal(err)
	}
	var m benchManifest
	if err := json.Unmarshal(data, &m); err != nil {
		tb.Fatalf("manifest.json: %v", err)
	}
	for i := range m.Workflows {
		text, err := os.ReadFile(filepath.Join(benchDir, "workflows", m.Workflows[i].File))
		if err != nil {
			tb.Fatal(err)
		}
		m.Workflows[i].text = string(text)
	}
	prelude, err := os.ReadFile(filepath.Join(benchDir, "bench-echo.sexp"))
	if err != nil {
		tb.Fatal(err)
	}
	return m.Workflows, string(prelude)
}

// newBenchInterp returns an interpreter whose fake task system has
// bench-echo registered by evaluating the prelude.
func newBenchInterp(tb testing.TB, prelude string, limits evaluator.Limits) (*evaluator.Interpreter, *fakeTasks) {
	tb.Helper()
	tasks := newFakeTasks()
	in := evaluator.New(evaluator.Options{Tasks: tasks, Limits: limits})
	if _, err := in.EvalString(context.Background(), "bench-echo.sexp", prelude); err != nil {
		tb.Fatalf("bench-echo.sexp: %v", err)
	}
	if _, ok := tasks.Lookup("bench-echo"); !ok {
		tb.Fatal("bench-echo was not registered through Tasks.Define")
	}
	return in, tasks
}

// canonicalJSON decodes JSON text into any (numbers kept as written) so
// that two texts compare equal when they hold the same value.
func canonicalJSON(tb testing.TB, text []byte) any {
	tb.Helper()
	dec := json.NewDecoder(bytes.NewReader(text))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		tb.Fatalf("invalid JSON %q: %v", text, err)
	}
	return v
}

// countNodes counts the lists and atoms of read forms.
func countNodes(forms []*sexp.Node) (lists, atoms int) {
	stack := append([]*sexp.Node(nil), forms...)
	for len(stack) > 0 {
		n := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if n.Kind == sexp.List {
			lists++
			stack = append(stack, n.Items...)
		} else {
			atoms++
		}
	}
	return lists, atoms
}

func TestBenchWorkloads(t *testing.T) {
	workflows, prelude := loadBench(t)
	for _, w := range workflows {
		t.Run(w.Name, func(t *testing.T) {
			if w.Kind == "parse" {
				forms, err := sexp.ParseString(w.File, w.text)
				if err != nil {
					t.Fatal(err)
				}
				var want struct{ Lists, Atoms int }
				if err := json.Unmarshal(w.Expect.Value, &want); err != nil {
					t.Fatal(err)
				}
				lists, atoms := countNodes(forms)
				if lists != want.Lists || atoms != want.Atoms {
					t.Errorf("read %d lists and %d atoms, want %d and %d", lists, atoms, want.Lists, want.Atoms)
				}
				if _, err := evaluator.CompileForms(sexp.NewSource(w.File, w.text), forms); err != nil {
					t.Errorf("compile: %v", err)
				}
				return
			}
			in, tasks := newBenchInterp(t, prelude, evaluator.Limits{})
			v, err := in.EvalString(context.Background(), w.File, w.text)
			if err != nil {
				t.Fatal(err)
			}
			got := value.JSON(v)
			if len(w.Expect.Value) > 0 {
				if diff := cmp.Diff(canonicalJSON(t, w.Expect.Value), canonicalJSON(t, []byte(got))); diff != "" {
					t.Errorf("value (-want +got):\n%s", diff)
				}
			} else {
				sum := sha256.Sum256([]byte(got))
				if len(got) != w.Expect.JSONLen || hex.EncodeToString(sum[:]) != w.Expect.JSONSHA256 {
					t.Errorf("JSON of the result has length %d and sha256 %x, want %d and %s\n%.200s",
						len(got), sum, w.Expect.JSONLen, w.Expect.JSONSHA256, got)
				}
			}
			if n := tasks.calls.Load(); int(n) != w.Calls {
				t.Errorf("%d task calls, want %d", n, w.Calls)
			}
		})
	}
}

// d3 with a provider that takes 100 ms per call: 20 calls at concurrency 8
// are three waves, about 300 ms of wall time.
func TestParallelMapWallTime(t *testing.T) {
	workflows, prelude := loadBench(t)
	var w *benchWorkflow
	for i := range workflows {
		if workflows[i].Name == "d3_parallel_map_20" {
			w = &workflows[i]
		}
	}
	if w == nil {
		t.Skip("no d3_parallel_map_20 workload")
	}
	in, tasks := newBenchInterp(t, prelude, evaluator.Limits{Concurrency: 8})
	tasks.delay = 100 * time.Millisecond
	start := time.Now()
	if _, err := in.EvalString(context.Background(), w.File, w.text); err != nil {
		t.Fatal(err)
	}
	d := time.Since(start)
	if m := tasks.maxActive.Load(); m != 8 {
		t.Errorf("%d calls ran at once, want 8", m)
	}
	if d < 300*time.Millisecond || d > 10*time.Second { // three waves of 100 ms at least; the upper bound only catches a hang
		t.Errorf("took %v, want about 300ms", d)
	}
}

func BenchmarkWorkload(b *testing.B) {
	workflows, prelude := loadBench(b)
	for _, w := range workflows {
		b.Run(w.Name, func(b *testing.B) {
			if w.Kind == "parse" {
				b.SetBytes(int64(len(w.text)))
				for b.Loop() {
					if _, err := sexp.ParseString(w.File, w.text); err != nil {
						b.Fatal(err)
					}
				}
				return
			}
			in, _ := newBenchInterp(b, prelude, evaluator.Limits{})
			p, err := evaluator.Compile(sexp.NewSource(w.File, w.text))
			if err != nil {
				b.Fatal(err)
			}
			ctx := context.Background()
			b.ReportAllocs()
			for b.Loop() {
				if _, err := in.Run(ctx, p); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkClosureCall reports the cost of one closure call: c_fib_18 makes
// 8361 of them.
func BenchmarkClosureCall(b *testing.B) {
	const src = `(progn
  (bind fib (lambda (n) (if (< n 2) n (+ (fib (- n 1)) (fib (- n 2))))))
  (fib 18))`
	const calls = 8361
	in := evaluator.New(evaluator.Options{})
	p, err := evaluator.Compile(sexp.NewSource("c_fib_18", src))
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := in.Run(ctx, p); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/calls, "ns/call")
}
