package temporal

import (
	"context"
	"time"

	"github.com/evalrun/evalrun/evaluator"
	"go.temporal.io/sdk/workflow"
)

// wfKey is the context key under which the evaluator's contexts carry the
// workflow context of the coroutine they belong to.
type wfKey struct{}

// withWorkflow returns ctx carrying wctx.
func withWorkflow(ctx context.Context, wctx workflow.Context) context.Context {
	return context.WithValue(ctx, wfKey{}, wctx)
}

// workflowOf returns the workflow context carried by ctx. Every context the
// evaluator passes to the runtime or the task system descends from the one
// the workflow made, so it is always there.
func workflowOf(ctx context.Context) workflow.Context {
	return ctx.Value(wfKey{}).(workflow.Context)
}

// workflowRuntime is evaluator.Runtime inside a workflow: coroutines
// (workflow.Go), workflow semaphores and wait groups, workflow timers and
// workflow.Now. A Go context made here is paired with a workflow context:
// cancelling one cancels the other, so a cancelled parallel branch also
// cancels its activities.
type workflowRuntime struct {
	root workflow.Context
}

var _ evaluator.Runtime = workflowRuntime{}

func (r workflowRuntime) Now() time.Time { return workflow.Now(r.root) }

func (r workflowRuntime) WithCancelCause(ctx context.Context) (context.Context, context.CancelCauseFunc) {
	wctx, wcancel := workflow.WithCancel(workflowOf(ctx))
	gctx, gcancel := context.WithCancelCause(ctx)
	return withWorkflow(gctx, wctx), func(cause error) {
		gcancel(cause)
		wcancel()
	}
}

func (r workflowRuntime) WithTimeoutCause(ctx context.Context, d time.Duration, cause error) (context.Context, context.CancelFunc) {
	cctx, cancel := r.WithCancelCause(ctx)
	wctx := workflowOf(cctx)
	timer := workflow.NewTimer(wctx, d)
	workflow.Go(wctx, func(c workflow.Context) {
		// The timer fails with a CanceledError when the context is
		// cancelled first; then the cause is already set.
		if err := timer.Get(c, nil); err == nil {
			cancel(cause)
		}
	})
	return cctx, func() { cancel(context.Canceled) }
}

func (r workflowRuntime) Go(ctx context.Context, fn func(ctx context.Context)) {
	workflow.Go(workflowOf(ctx), func(c workflow.Context) {
		fn(withWorkflow(ctx, c))
	})
}

func (r workflowRuntime) NewSemaphore(n int) evaluator.Semaphore {
	return workflowSemaphore{workflow.NewSemaphore(r.root, int64(n))}
}

func (r workflowRuntime) NewWaitGroup() evaluator.WaitGroup {
	return workflowWaitGroup{workflow.NewWaitGroup(r.root)}
}

type workflowSemaphore struct{ s workflow.Semaphore }

func (s workflowSemaphore) Acquire(ctx context.Context) error {
	if err := ctx.Err(); err != nil {
		return context.Cause(ctx)
	}
	if err := s.s.Acquire(workflowOf(ctx), 1); err != nil {
		if c := context.Cause(ctx); c != nil {
			return c
		}
		return err
	}
	return nil
}

func (s workflowSemaphore) Release() { s.s.Release(1) }

type workflowWaitGroup struct{ wg workflow.WaitGroup }

func (w workflowWaitGroup) Add(delta int)            { w.wg.Add(delta) }
func (w workflowWaitGroup) Done()                    { w.wg.Done() }
func (w workflowWaitGroup) Wait(ctx context.Context) { w.wg.Wait(workflowOf(ctx)) }
