package evaluator_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/evalrun/evalrun/evaluator"
	"github.com/evalrun/evalrun/handler"
	"github.com/evalrun/evalrun/handler/tokens"
	"github.com/evalrun/evalrun/sexp"
	"github.com/evalrun/evalrun/tasksystem"
	"github.com/evalrun/evalrun/value"
)

// sleepyEcho answers like the echo provider after a delay, as a model
// server would.
type sleepyEcho struct{ delay time.Duration }

func (sleepyEcho) Name() string { return handler.EchoName }

func (p sleepyEcho) Complete(ctx context.Context, req *handler.Request) (*handler.Response, error) {
	select {
	case <-time.After(p.delay):
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	return handler.Echo{}.Complete(ctx, req)
}

// newRealBenchInterp is newBenchInterp with the real task system: the
// registry, the executor and a handler session per call, answered by
// provider.
func newRealBenchInterp(tb testing.TB, prelude string, limits evaluator.Limits, provider handler.Provider) (*evaluator.Interpreter, *tasksystem.Executor) {
	tb.Helper()
	exec := tasksystem.NewExecutor(tasksystem.Options{DefaultProvider: provider, Counter: tokens.None})
	in := evaluator.New(evaluator.Options{Tasks: evaluator.NewTaskSystem(tasksystem.NewRegistry(), exec), Limits: limits})
	if _, err := in.EvalString(context.Background(), "bench-echo.sexp", prelude); err != nil {
		tb.Fatalf("bench-echo.sexp: %v", err)
	}
	return in, exec
}

// TestBenchWorkloadsRealTaskSystem runs every eval workload through the
// executor, the handler and the echo provider and checks the manifest
// value and the number of model calls.
func TestBenchWorkloadsRealTaskSystem(t *testing.T) {
	workflows, prelude := loadBench(t)
	for _, w := range workflows {
		if w.Kind != "eval" {
			continue
		}
		t.Run(w.Name, func(t *testing.T) {
			in, exec := newRealBenchInterp(t, prelude, evaluator.Limits{}, handler.Echo{})
			v, err := in.EvalString(context.Background(), w.File, w.text)
			if err != nil {
				t.Fatal(err)
			}
			got := value.JSON(v)
			if len(w.Expect.Value) > 0 {
				if diff := cmp.Diff(canonicalJSON(t, w.Expect.Value), canonicalJSON(t, []byte(got))); diff != "" {
					t.Errorf("value (-want +got):\n%s", diff)
				}
			} else if sum := sha256.Sum256([]byte(got)); len(got) != w.Expect.JSONLen || hex.EncodeToString(sum[:]) != w.Expect.JSONSHA256 {
				t.Errorf("JSON of the result has length %d and sha256 %x, want %d and %s", len(got), sum, w.Expect.JSONLen, w.Expect.JSONSHA256)
			}
			if n := exec.Usage().Calls; n != w.Calls {
				t.Errorf("%d model calls, want %d", n, w.Calls)
			}
		})
	}
}

// BenchmarkParallelMap20SleepingProvider is d3_parallel_map_20 through the
// real task system against a provider that takes 100 ms per call: 20 calls
// at concurrency 8 are three waves (target ≤ 330 ms of wall time).
func BenchmarkParallelMap20SleepingProvider(b *testing.B) {
	const src = `(parallel-map
  (lambda (i) (get-field (bench-echo (prompt (string-append "item-" i))) "content"))
  (range 1 21))`
	_, prelude := loadBench(b)
	in, _ := newRealBenchInterp(b, prelude, evaluator.Limits{Concurrency: 8}, sleepyEcho{100 * time.Millisecond})
	p, err := evaluator.Compile(sexp.NewSource("d3_parallel_map_20", src))
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	for b.Loop() {
		if _, err := in.Run(ctx, p); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Milliseconds())/float64(b.N), "ms/op")
}
