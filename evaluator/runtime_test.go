package evaluator_test

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/evalrun/evalrun/evaluator"
)

// countingRuntime is the local runtime with a count of what the evaluator
// asked of it and a fixed clock.
type countingRuntime struct {
	evaluator.Runtime
	goes, sems, timeouts, nows atomic.Int64
}

func (r *countingRuntime) Now() time.Time {
	r.nows.Add(1)
	return time.Date(2025, 1, 6, 14, 3, 0, 0, time.UTC)
}

func (r *countingRuntime) Go(ctx context.Context, fn func(context.Context)) {
	r.goes.Add(1)
	r.Runtime.Go(ctx, fn)
}

func (r *countingRuntime) NewSemaphore(n int) evaluator.Semaphore {
	r.sems.Add(1)
	return r.Runtime.NewSemaphore(n)
}

func (r *countingRuntime) WithTimeoutCause(ctx context.Context, d time.Duration, cause error) (context.Context, context.CancelFunc) {
	r.timeouts.Add(1)
	return r.Runtime.WithTimeoutCause(ctx, d, cause)
}

// TestRuntimeCarriesConcurrencyAndClock: parallel branches, the semaphores,
// the timeout and the start time all come from Options.Runtime.
func TestRuntimeCarriesConcurrencyAndClock(t *testing.T) {
	rt := &countingRuntime{Runtime: evaluator.Local()}
	in := evaluator.New(evaluator.Options{Runtime: rt, Limits: evaluator.Limits{Timeout: time.Minute}})
	v, err := in.EvalString(context.Background(), "rt", `(list (parallel-map (lambda (x) (* x x)) (list 1 2 3)) (parallel 4 5))`)
	if err != nil {
		t.Fatal(err)
	}
	if v.String() != "((1 4 9) (4 5))" {
		t.Fatalf("got %s", v)
	}
	// 3 + 2 branches; the run-wide semaphore and one per parallel form;
	// the run's timeout; the start time.
	if g, s, to, n := rt.goes.Load(), rt.sems.Load(), rt.timeouts.Load(), rt.nows.Load(); g != 5 || s != 3 || to != 1 || n != 1 {
		t.Fatalf("Go %d, NewSemaphore %d, WithTimeoutCause %d, Now %d", g, s, to, n)
	}
}
