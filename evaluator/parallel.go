package evaluator

import (
	"context"
	"sync"

	"github.com/evalrun/evalrun/sexp"
	"github.com/evalrun/evalrun/trace"
	"github.com/evalrun/evalrun/value"
)

// maxBranchGoroutines bounds the goroutines one parallel form starts at once;
// task and tool executions are further bounded by the run-wide semaphore.
const maxBranchGoroutines = 256

func init() {
	defineForm("parallel", true, compileParallel)
	register(&primitive{name: "parallel-map", min: 2, max: 2, applies: true, fn: primParallelMap})
}

// runParallel runs n branches concurrently on the run's Runtime (SPEC
// §6.8): each gets a child thread; results come back in order; the first
// error cancels the others and is returned once every started branch has
// ended. pos is where a cancellation that reached the form before any
// branch failed is reported.
func (t *thread) runParallel(n int, pos sexp.Pos, branch func(bt *thread, i int) (value.Value, error)) (value.List, error) {
	if n == 0 {
		return nil, nil
	}
	rt := t.in.rt
	ctx, cancel := rt.WithCancelCause(t.ctx)
	defer cancel(nil)
	results := make(value.List, n)
	var (
		mu    sync.Mutex
		first error
	)
	fail := func(err error) {
		mu.Lock()
		defer mu.Unlock()
		if first == nil {
			first = err
			cancel(err)
		}
	}
	slots := rt.NewSemaphore(maxBranchGoroutines)
	wg := rt.NewWaitGroup()
	started := 0
	for i := 0; i < n; i++ {
		if slots.Acquire(ctx) != nil {
			break
		}
		started++
		bt := t.child(ctx)
		wg.Add(1)
		rt.Go(ctx, func(bctx context.Context) {
			defer wg.Done()
			defer slots.Release()
			bt.ctx, bt.done = bctx, bctx.Done()
			v, err := runBranch(bt, i, branch)
			if err != nil {
				fail(err)
				return
			}
			results[i] = v
		})
	}
	wg.Wait(t.ctx)
	mu.Lock()
	defer mu.Unlock()
	if first != nil {
		return nil, first
	}
	if started < n {
		return nil, t.cancelled(pos)
	}
	return results, nil
}

// runBranch runs one branch, turning a panic into an internal error.
func runBranch(bt *thread, i int, branch func(bt *thread, i int) (value.Value, error)) (v value.Value, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = internalError(sexp.Pos{}, r)
		}
	}()
	return branch(bt, i)
}

// parallelForm is (parallel e...).
type parallelForm struct{ branches []*expr }

func compileParallel(c *compiler, x *expr, depth int) (form, error) {
	a := argNodes(x)
	f := &parallelForm{branches: make([]*expr, len(a))}
	for i, n := range a {
		// Each branch has a frame of its own.
		err := c.in(c.newScope(nil), func() (err error) {
			f.branches[i], err = c.compile(n, depth)
			return err
		})
		if err != nil {
			return nil, err
		}
	}
	return f, nil
}

func (f *parallelForm) eval(t *thread, x *expr, env *Env) (value.Value, error) {
	a := f.branches
	l, err := t.runParallel(len(a), x.pos(), func(bt *thread, i int) (value.Value, error) {
		frame := &Env{parent: env, owner: bt.branch}
		return bt.eval(a[i], frame)
	})
	if err != nil {
		return nil, err
	}
	return l, nil
}

func (f *parallelForm) children() []*expr {
	return f.branches
}

func primParallelMap(t *thread, c *call, args []value.Value) (value.Value, error) {
	items, err := argList("parallel-map", c, args, 1)
	if err != nil {
		return nil, err
	}
	f := args[0]
	// The map is one span (the live display's group, SPEC §17.3.1); its
	// items' calls are its children and each finished item advances it.
	outer := t.ctx
	var span *trace.Span
	t.ctx, span = trace.Start(outer, trace.ParallelMap, "parallel-map", nil, trace.Total(len(items)))
	l, err := t.runParallel(len(items), c.at(), func(bt *thread, i int) (value.Value, error) {
		defer span.Advance()
		return bt.apply(f, []value.Value{items[i]}, c.at())
	})
	t.ctx = outer
	if err != nil {
		span.End(trace.Result{Status: trace.Failed, Error: err.Error()}, trace.Usage{})
		return nil, err
	}
	span.End(trace.Result{Status: trace.Completed}, trace.Usage{})
	return l, nil
}
