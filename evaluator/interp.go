package evaluator

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sync"
	"sync/atomic"
	"time"

	"github.com/evalrun/evalrun/sexp"
	"github.com/evalrun/evalrun/value"
)

// Limits are the run-wide limits of SPEC §6.7 and §6.8. Zero fields take
// their defaults.
type Limits struct {
	RecursionDepth int           // default 10,000
	MaxSteps       int64         // 0 = unlimited
	Timeout        time.Duration // 0 = none
	Concurrency    int           // default 8
	MaxStringBytes int           // default 64 MiB
}

// The default limits.
const (
	DefaultRecursionDepth = 10_000
	DefaultConcurrency    = 8
	DefaultMaxStringBytes = 64 << 20
	// MaxElements is the largest list or dict a primitive builds.
	MaxElements = 10_000_000
)

func (l Limits) withDefaults() Limits {
	if l.RecursionDepth <= 0 {
		l.RecursionDepth = DefaultRecursionDepth
	}
	if l.Concurrency <= 0 {
		l.Concurrency = DefaultConcurrency
	}
	if l.MaxStringBytes <= 0 {
		l.MaxStringBytes = DefaultMaxStringBytes
	}
	return l
}

// Options configure an Interpreter.
type Options struct {
	// Tasks runs task and tool calls and holds the template registry. Nil
	// means a program may not call tasks (every name is unknown).
	Tasks Tasks
	// Limits are the run's limits.
	Limits Limits
	// Stderr receives log-message lines and warnings; nil discards them.
	Stderr io.Writer
	// Start is the run's start time, the {{date}} of render; zero means the
	// runtime's time when New is called.
	Start time.Time
	// Runtime runs the parallel branches, holds the concurrency semaphore
	// and the timeout, and reads the clock; nil means Local().
	Runtime Runtime
}

// Interpreter evaluates programs in one global environment. It is the
// run-wide state: limits, the concurrency semaphore, the step counter and the
// output for log lines. Its methods are safe to call from one goroutine at a
// time; parallel forms inside a program run concurrently under its control.
type Interpreter struct {
	global *Env
	tasks  Tasks
	limits Limits
	rt     Runtime
	sem    Semaphore
	steps  atomic.Int64

	outMu  sync.Mutex
	stderr io.Writer

	defMu sync.Mutex // serialises defatom registration
	start time.Time
	// spareMu guards spare, the argument stack and free closure frames
	// that the last run left, for the next run to start with.
	spareMu sync.Mutex
	spare   threadCache
}

// threadCache is the memory a thread reuses: its argument stack and free
// closure frames.
type threadCache struct {
	argStack  []value.Value
	frames    []*smallFrame
	letFrames []*letFrame
}

// takeCache gives t the memory the last run left.
func (in *Interpreter) takeCache(t *thread) {
	in.spareMu.Lock()
	t.argStack, t.frames, t.letFrames = in.spare.argStack, in.spare.frames, in.spare.letFrames
	in.spare = threadCache{}
	in.spareMu.Unlock()
}

// putCache keeps t's memory for the next run, holding no values.
func (in *Interpreter) putCache(t *thread) {
	clear(t.argStack[:cap(t.argStack)])
	in.spareMu.Lock()
	in.spare = threadCache{argStack: t.argStack[:0], frames: t.frames, letFrames: t.letFrames}
	in.spareMu.Unlock()
}

// New returns an Interpreter whose global frame binds null.
func New(opts Options) *Interpreter {
	in := &Interpreter{
		tasks:  opts.Tasks,
		limits: opts.Limits.withDefaults(),
		stderr: opts.Stderr,
		start:  opts.Start,
		rt:     opts.Runtime,
	}
	if in.rt == nil {
		in.rt = Local()
	}
	if in.start.IsZero() {
		in.start = in.rt.Now()
	}
	if in.stderr == nil {
		in.stderr = io.Discard
	}
	in.sem = in.rt.NewSemaphore(in.limits.Concurrency)
	in.Reset()
	return in
}

// Reset replaces the global frame with a new one that binds only null.
func (in *Interpreter) Reset() {
	in.global = NewEnv(nil)
	in.global.Define("null", value.Null{})
}

// Global returns the global frame.
func (in *Interpreter) Global() *Env { return in.global }

// Define binds name to v in the global frame (used for --set).
func (in *Interpreter) Define(name string, v value.Value) { in.global.Define(name, v) }

// Limits returns the limits in force.
func (in *Interpreter) Limits() Limits { return in.limits }

// Tasks returns the task system the interpreter calls.
func (in *Interpreter) Tasks() Tasks { return in.tasks }

// Program is compiled source text, ready to evaluate.
type Program struct {
	Source *sexp.Source
	Forms  []*sexp.Node
	exprs  []*expr
	// problems are the shape errors of the program's special forms, in the
	// order met; each is raised when evaluation reaches its form.
	problems []*Error
}

// Compile reads and compiles a source text. A syntax error is a *sexp.Error.
func Compile(src *sexp.Source) (*Program, error) {
	forms, err := Parse(src)
	if err != nil {
		return nil, err
	}
	return CompileForms(src, forms)
}

// CompileForms compiles forms already read from src.
func CompileForms(src *sexp.Source, forms []*sexp.Node) (*Program, error) {
	p := &Program{Source: src, Forms: forms, exprs: make([]*expr, len(forms))}
	c := newProgramCompiler()
	for i, f := range forms {
		x, err := c.compile(f, 0)
		if err != nil {
			return nil, err
		}
		p.exprs[i] = x
	}
	c.resolve()
	p.problems = c.problems
	return p, nil
}

// Run evaluates the program's forms in order in the global frame and returns
// the value of the last one. Errors are *Error values.
func (in *Interpreter) Run(ctx context.Context, p *Program) (value.Value, error) {
	t, cancel := in.newThread(ctx)
	defer cancel()
	in.takeCache(t)
	defer in.putCache(t)
	var result value.Value = value.List(nil)
	for _, x := range p.exprs {
		v, err := t.evalTop(x, in.global)
		if err != nil {
			return nil, err
		}
		result = v
	}
	return result, nil
}

// EvalString reads, compiles and evaluates text named name.
func (in *Interpreter) EvalString(ctx context.Context, name, text string) (value.Value, error) {
	p, err := Compile(sexp.NewSource(name, text))
	if err != nil {
		return nil, err
	}
	return in.Run(ctx, p)
}

// evalTop evaluates one top-level form, turning a recovered panic into an
// internal error so that no panic leaves the package.
func (t *thread) evalTop(x *expr, env *Env) (v value.Value, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = internalError(x.pos(), r)
		}
	}()
	return t.eval(x, env)
}

// internalError reports a recovered panic as a kind-internal error.
func internalError(pos sexp.Pos, r any) *Error {
	return errorf(pos, KindInternal, "internal error: %v (please report this)", r)
}

// errTimeout and errInterrupted are the causes of a cancelled run context.
var errInterrupted = errors.New("interrupted")

// newThread makes the root thread of a run: its context carries the timeout.
func (in *Interpreter) newThread(ctx context.Context) (*thread, context.CancelFunc) {
	cancel := context.CancelFunc(func() {})
	if d := in.limits.Timeout; d > 0 {
		ctx, cancel = in.rt.WithTimeoutCause(ctx, d,
			&Error{Kind: KindLimit, Msg: fmt.Sprintf("timeout exceeded (%s)", d)})
	}
	return &thread{in: in, ctx: ctx, done: ctx.Done()}, cancel
}

// thread is the evaluation state of one goroutine: the context, the number of
// active applications, the parallel branch it runs in and the dynamic
// bindings.
type thread struct {
	in     *Interpreter
	ctx    context.Context
	done   <-chan struct{}
	depth  int
	branch *branch
	dyn    *dynamic
	// argStack holds the arguments of the primitive calls in progress
	// (callPrimOnStack).
	argStack []value.Value
	// frames are closure frames free for reuse (callRecycled), letFrames
	// let frames (letForm.eval).
	frames    []*smallFrame
	letFrames []*letFrame
}

// branch identifies one branch of a parallel form.
type branch struct{ parent *branch }

// dynamic holds the dynamically scoped bindings (SPEC §6.5): *loop-config*
// and the ambient context items. It is immutable; forms that change it make a
// new one for their extent.
type dynamic struct {
	loopConfig value.Value
	ambient    []value.Value
	// ambientSummary is the summary of the innermost with-context whose
	// context was a get-context result.
	ambientSummary string
}

// child returns a thread for a parallel branch with its own context.
func (t *thread) child(ctx context.Context) *thread {
	return &thread{in: t.in, ctx: ctx, done: ctx.Done(), depth: t.depth, branch: &branch{parent: t.branch}, dyn: t.dyn}
}

// cancelled returns the error for a cancelled context.
func (t *thread) cancelled(pos sexp.Pos) *Error {
	cause := context.Cause(t.ctx)
	var e *Error
	if errors.As(cause, &e) {
		c := *e
		if !c.Pos.IsValid() {
			c.Pos = pos
		}
		if c.Catchable() {
			// A sibling parallel branch failed (SPEC §6.8): this branch is
			// cancelled, which try must not catch nor step retry. The group
			// raises the sibling's own error.
			c.Kind = KindCancelled
		}
		return &c
	}
	if errors.Is(cause, context.DeadlineExceeded) {
		return errorf(pos, KindLimit, "timeout exceeded")
	}
	return errorf(pos, KindCancelled, "interrupted")
}

// tick is called for every list-form evaluation: it notices cancellation and
// counts steps.
func (t *thread) tick(x *expr) error {
	select {
	case <-t.done:
		return t.cancelled(x.pos())
	default:
	}
	if max := t.in.limits.MaxSteps; max > 0 {
		if t.in.steps.Add(1) > max {
			return errorf(x.pos(), KindLimit, "step budget exceeded (%d steps)", max)
		}
	}
	return nil
}

// pollCancel notices cancellation (timeout, interrupt, a failed parallel
// sibling) in loops whose iterations need not evaluate any list form.
func (t *thread) pollCancel(pos sexp.Pos) error {
	select {
	case <-t.done:
		return t.cancelled(pos)
	default:
		return nil
	}
}

// enter counts one more active application.
func (t *thread) enter(pos sexp.Pos) error {
	if t.depth >= t.in.limits.RecursionDepth {
		return errorf(pos, KindDepth, "recursion depth limit exceeded (%d)", t.in.limits.RecursionDepth)
	}
	t.depth++
	return nil
}

func (t *thread) leave() { t.depth-- }

// logf writes one line to the interpreter's stderr.
func (in *Interpreter) logf(format string, args ...any) {
	in.outMu.Lock()
	defer in.outMu.Unlock()
	fmt.Fprintf(in.stderr, format, args...)
}

// Interrupted is the cause to cancel a run's context with on SIGINT/SIGTERM;
// the run then ends with a kind-cancelled error.
func Interrupted() error { return errInterrupted }
