package evaluator

import (
	"github.com/evalrun/evalrun/sexp"
	"github.com/evalrun/evalrun/trace"
	"github.com/evalrun/evalrun/value"
	"golang.org/x/sync/errgroup"
)

// maxBranchGoroutines bounds the goroutines one parallel form starts at once;
// task and tool executions are further bounded by the run-wide semaphore.
const maxBranchGoroutines = 256

func init() {
	defineForm("parallel", true, compileParallel)
	register(&primitive{name: "parallel-map", min: 2, max: 2, applies: true, fn: primParallelMap})
}

// runParallel runs n branches concurrently (SPEC §6.8): each gets a child
// thread; results come back in order; the first error cancels the others and
// is returned.
func (t *thread) runParallel(n int, branch func(bt *thread, i int) (value.Value, error)) (value.List, error) {
	if n == 0 {
		return nil, nil
	}
	results := make(value.List, n)
	g, ctx := errgroup.WithContext(t.ctx)
	g.SetLimit(maxBranchGoroutines)
	for i := 0; i < n; i++ {
		bt := t.child(ctx)
		g.Go(func() (err error) {
			defer func() {
				if r := recover(); r != nil {
					err = internalError(sexp.Pos{}, r)
				}
			}()
			v, err := branch(bt, i)
			if err != nil {
				return err
			}
			results[i] = v
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		return nil, err
	}
	return results, nil
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
	l, err := t.runParallel(len(a), func(bt *thread, i int) (value.Value, error) {
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
	l, err := t.runParallel(len(items), func(bt *thread, i int) (value.Value, error) {
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
