package evaluator

import (
	"context"
	"sync"
	"time"
)

// Runtime is how an evaluation runs things at the same time and reads the
// clock: the branches of parallel and parallel-map, the run-wide
// concurrency semaphore, cancellation with a cause, the run's timeout and
// its start time (SPEC §6.7, §6.8). Nothing else in the evaluator starts a
// goroutine, blocks on a channel or reads the time, so an evaluation that
// runs on a deterministic runtime replays the same way.
//
// Local, the default, is goroutines, channels and package time. Package
// temporal implements it with workflow coroutines, workflow semaphores and
// workflow time, so that the evaluator runs inside a Temporal workflow.
//
// Every context the evaluator hands to a Runtime was made by that Runtime
// (from the context given to Interpreter.Run): an implementation may keep
// its own state in it with context.WithValue.
type Runtime interface {
	// Now returns the current time.
	Now() time.Time
	// WithCancelCause returns a child of ctx and a function that cancels it
	// with a cause. Blocking calls made under the child return when it is
	// cancelled.
	WithCancelCause(ctx context.Context) (context.Context, context.CancelCauseFunc)
	// WithTimeoutCause returns a child of ctx that is cancelled with cause
	// after d.
	WithTimeoutCause(ctx context.Context, d time.Duration, cause error) (context.Context, context.CancelFunc)
	// Go runs fn concurrently with the caller; fn receives the context it
	// must use for everything it does (a child of ctx that is cancelled
	// when ctx is).
	Go(ctx context.Context, fn func(ctx context.Context))
	// NewSemaphore returns a counting semaphore with n slots.
	NewSemaphore(n int) Semaphore
	// NewWaitGroup returns a wait group for the functions started by Go.
	NewWaitGroup() WaitGroup
}

// Semaphore is a counting semaphore made by a Runtime.
type Semaphore interface {
	// Acquire takes one slot, waiting until one is free. It returns
	// context.Cause(ctx) when ctx is cancelled first, and then holds no slot.
	Acquire(ctx context.Context) error
	// Release frees a slot taken by Acquire.
	Release()
}

// WaitGroup waits for a collection of functions started by Runtime.Go.
type WaitGroup interface {
	// Add adds delta to the counter.
	Add(delta int)
	// Done decrements the counter by one.
	Done()
	// Wait blocks until the counter is zero; ctx is the caller's context.
	Wait(ctx context.Context)
}

// Local returns the runtime of a run in this process: goroutines, channels
// and package time.
func Local() Runtime { return localRuntime{} }

type localRuntime struct{}

func (localRuntime) Now() time.Time { return time.Now() }

func (localRuntime) WithCancelCause(ctx context.Context) (context.Context, context.CancelCauseFunc) {
	return context.WithCancelCause(ctx)
}

func (localRuntime) WithTimeoutCause(ctx context.Context, d time.Duration, cause error) (context.Context, context.CancelFunc) {
	return context.WithTimeoutCause(ctx, d, cause)
}

func (localRuntime) Go(ctx context.Context, fn func(ctx context.Context)) { go fn(ctx) }

func (localRuntime) NewSemaphore(n int) Semaphore { return make(localSemaphore, n) }

func (localRuntime) NewWaitGroup() WaitGroup { return &localWaitGroup{} }

// localSemaphore is a buffered channel holding one element per slot taken.
type localSemaphore chan struct{}

func (s localSemaphore) Acquire(ctx context.Context) error {
	select {
	case s <- struct{}{}:
		return nil
	case <-ctx.Done():
		return context.Cause(ctx)
	}
}

func (s localSemaphore) Release() { <-s }

type localWaitGroup struct{ wg sync.WaitGroup }

func (w *localWaitGroup) Add(delta int)        { w.wg.Add(delta) }
func (w *localWaitGroup) Done()                { w.wg.Done() }
func (w *localWaitGroup) Wait(context.Context) { w.wg.Wait() }
