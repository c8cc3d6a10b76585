package evaluator

import (
	"fmt"
	"sort"
	"strings"

	"github.com/evalrun/evalrun/sexp"
	"github.com/evalrun/evalrun/value"
)

func init() {
	defineForm("loop", true, compileLoop)
	defineForm("director-evaluator-loop", true, func(c *compiler, x *expr, d int) (form, error) {
		return compileLoopForm(c, x, d, directorClauses, directorClauses)
	})
	defineForm("iterative-loop", true, func(c *compiler, x *expr, d int) (form, error) {
		return compileLoopForm(c, x, d, iterativeKnown, iterativeNeeded)
	})
}

// loopForm is (loop count body).
type loopForm struct{ count, body *expr }

func compileLoop(c *compiler, x *expr, depth int) (form, error) {
	a := argNodes(x)
	if len(a) != 2 {
		return c.bad(x, errorf(x.pos(), KindArity, "Loop requires exactly 2 arguments: count_expression and body_expression. Got %d.", len(a)), depth, -1)
	}
	xs, err := c.exprs(a, depth)
	if err != nil {
		return nil, err
	}
	return &loopForm{count: xs[0], body: xs[1]}, nil
}

func (f *loopForm) eval(t *thread, x *expr, env *Env) (value.Value, error) {
	cv, err := t.eval(f.count, env)
	if err != nil {
		return nil, err
	}
	n, ok := cv.(value.Int)
	if !ok {
		return nil, errorf(f.count.pos(), KindType, "Loop count must evaluate to an integer, got %s.", cv.Type())
	}
	if n < 0 {
		return nil, errorf(f.count.pos(), KindValue, "Loop count must be non-negative, got %d.", n)
	}
	var v value.Value = value.List(nil)
	// A body that is an atom or a quote evaluates no list form, so nothing
	// in it notices a timeout or interrupt: the loop must look itself.
	quiet := f.body.op == opConst || f.body.op == opSymbol
	for i := int64(1); i <= int64(n); i++ {
		if quiet {
			if err := t.pollCancel(x.pos()); err != nil {
				return nil, err
			}
		}
		if v, err = t.eval(f.body, env); err != nil {
			return nil, withPrefix(err, fmt.Sprintf("Error during loop iteration %d/%d: ", i, n))
		}
	}
	return v, nil
}

func (f *loopForm) children() []*expr {
	return []*expr{f.count, f.body}
}

// loopClause is one clause of a loop form: its name, the syntax of the
// clause (its name for the flat keyword form) and its expression.
type loopClause struct {
	name string
	syn  *sexp.Node
	x    *expr
}

// loopClauses holds the clauses of a loop form in the order written.
type loopClauses []loopClause

// get returns the expression of the clause name, nil when absent.
func (cl loopClauses) get(name string) *expr {
	for _, c := range cl {
		if c.name == name {
			return c.x
		}
	}
	return nil
}

// loopLoopForm is a director-evaluator-loop or an iterative-loop whose
// clauses were read (SPEC §7.11); err is a shape error found after reading
// them, raised before anything is evaluated.
type loopLoopForm struct {
	clauses loopClauses
	err     *Error
}

// compileLoopForm reads the (name expr) or :name expr clauses of a loop form
// (SPEC §7.11), checking unknown, repeated and missing clauses.
func compileLoopForm(c *compiler, x *expr, depth int, known, required []string) (form, error) {
	cl, e, err := readLoopClauses(c, x, depth, known, required)
	if err != nil {
		return nil, err
	}
	if e != nil {
		c.problem(e)
		check, err := lenientLoopClauses(c, argNodes(x), depth)
		if err != nil {
			return nil, err
		}
		parts, err := c.exprs(argNodes(x), depth)
		if err != nil {
			return nil, err
		}
		return &badForm{err: e, parts: parts, check: check}, nil
	}
	f := &loopLoopForm{clauses: cl}
	if x.name == "iterative-loop" {
		hasTest, hasGen := cl.get("test-command") != nil, cl.get("command-generator") != nil
		switch {
		case hasTest && hasGen:
			f.err = c.problem(newError(x.pos(), KindValue, "iterative-loop: give either 'test-command' or 'command-generator', not both"))
		case !hasTest && !hasGen:
			f.err = c.problem(newError(x.pos(), KindValue, "iterative-loop: give either 'test-command' or 'command-generator'"))
		}
	}
	return f, nil
}

func (f *loopLoopForm) eval(t *thread, x *expr, env *Env) (value.Value, error) {
	if f.err != nil {
		e := *f.err
		return nil, &e
	}
	if x.name == "director-evaluator-loop" {
		return evalDirectorLoop(t, x, f.clauses, env)
	}
	return evalIterativeLoop(t, x, f.clauses, env)
}

func (f *loopLoopForm) children() []*expr {
	out := make([]*expr, len(f.clauses))
	for i, cl := range f.clauses {
		out[i] = cl.x
	}
	return out
}

// lenientLoopClauses compiles the clause expressions of a malformed loop
// form, for Check.
func lenientLoopClauses(c *compiler, args []*sexp.Node, depth int) ([]*expr, error) {
	flat := len(args) > 0
	for i := 0; i < len(args); i += 2 {
		if args[i].Kind != sexp.Symbol {
			flat = false
		}
	}
	var out []*expr
	for i, a := range args {
		var n *sexp.Node
		switch {
		case flat:
			if i%2 == 1 {
				n = a
			}
		case a.Kind == sexp.List && len(a.Items) == 2 && a.Items[0].Kind == sexp.Symbol:
			n = a.Items[1]
		}
		if n != nil {
			x, err := c.compile(n, depth+1)
			if err != nil {
				return nil, err
			}
			out = append(out, x)
		}
	}
	return out, nil
}

// readLoopClauses reads the clauses of a loop form; a shape error is
// returned as e, a compile error as err.
func readLoopClauses(c *compiler, x *expr, depth int, known, required []string) (cl loopClauses, e *Error, err error) {
	form := x.name
	a := argNodes(x)
	add := func(name string, n *sexp.Node, at *sexp.Node, d int) (*Error, error) {
		if cl.get(name) != nil {
			return errorf(at.Pos, KindValue, "%s: Duplicate clause '%s' found.", form, name), nil
		}
		if !contains(known, name) {
			return errorf(at.Pos, KindValue, "%s: Unknown clause '%s'", form, name), nil
		}
		v, err := c.compile(n, d)
		if err != nil {
			return nil, err
		}
		cl = append(cl, loopClause{name: name, syn: at, x: v})
		return nil, nil
	}
	flat := true
	for i := 0; i < len(a); i += 2 {
		if a[i].Kind != sexp.Symbol {
			flat = false
			break
		}
	}
	if flat && len(a) > 0 {
		if len(a)%2 != 0 {
			return nil, errorf(x.pos(), KindArity, "%s: Uneven number of arguments. Expected key-value pairs.", form), nil
		}
		for i := 0; i < len(a); i += 2 {
			if e, err := add(strings.TrimPrefix(a[i].Str, ":"), a[i+1], a[i], depth); e != nil || err != nil {
				return nil, e, err
			}
		}
	} else {
		for _, n := range a {
			if n.Kind != sexp.List || len(n.Items) != 2 || n.Items[0].Kind != sexp.Symbol {
				return nil, errorf(n.Pos, KindValue, "%s: Each clause must be a list of (ClauseName Expression), got: %s", form, datum(n)), nil
			}
			if e, err := add(n.Items[0].Str, n.Items[1], n, depth+1); e != nil || err != nil {
				return nil, e, err
			}
		}
	}
	var missing []string
	for _, r := range required {
		if cl.get(r) == nil {
			missing = append(missing, r)
		}
	}
	if len(missing) > 0 {
		sort.Strings(missing)
		return nil, errorf(x.pos(), KindValue, "%s: Missing required clauses: %s", form, strings.Join(missing, ", ")), nil
	}
	return cl, nil, nil
}

func contains(list []string, s string) bool {
	for _, e := range list {
		if e == s {
			return true
		}
	}
	return false
}

// maxIterations evaluates the max-iterations clause.
func (t *thread) maxIterations(form string, e *expr, env *Env) (int64, error) {
	v, err := t.eval(e, env)
	if err != nil {
		return 0, err
	}
	n, ok := v.(value.Int)
	if !ok || n < 0 {
		return 0, errorf(e.pos(), KindValue, "%s: 'max-iterations' must evaluate to a non-negative integer, got %s (type: %s).", form, v, v.Type())
	}
	return int64(n), nil
}

// phase evaluates a phase clause to something callable: a closure or the name
// of a primitive or template.
func (t *thread) phase(form, clause string, e *expr, env *Env) (value.Value, error) {
	v, err := t.eval(e, env)
	if err != nil {
		return nil, err
	}
	if t.isPhaseCallable(v) {
		return v, nil
	}
	return nil, errorf(e.pos(), KindType, "%s: '%s' expression must evaluate to a callable S-expression function, got %s: %s", form, clause, v.Type(), v)
}

func (t *thread) isPhaseCallable(v value.Value) bool {
	var name string
	switch v := v.(type) {
	case *Closure:
		return true
	case value.String:
		name = string(v)
	case value.Symbol:
		name = string(v)
	default:
		return false
	}
	if lookupPrimitive(name) != nil {
		return true
	}
	if t.in.tasks != nil {
		_, ok := t.in.tasks.Lookup(name)
		return ok
	}
	return false
}

// phases evaluates the named phase clauses in order.
func (t *thread) phases(form string, cl loopClauses, env *Env, names ...string) ([]value.Value, error) {
	fns := make([]value.Value, len(names))
	for i, name := range names {
		var err error
		if fns[i], err = t.phase(form, name, cl.get(name), env); err != nil {
			return nil, err
		}
	}
	return fns, nil
}

// applyPhase applies a loop phase, re-raising its error with the loop's
// phrase (SPEC §7.12, §7.13).
func (t *thread) applyPhase(f value.Value, args []value.Value, pos sexp.Pos, prefix string) (value.Value, error) {
	v, err := t.apply(f, args, pos)
	if err != nil {
		return nil, withPrefix(err, prefix)
	}
	return v, nil
}

// decision interprets a controller's answer: (continue v) or (stop v), the
// action a symbol or a string.
func decision(v value.Value, pos sexp.Pos) (stop bool, val value.Value, err error) {
	l, ok := v.(value.List)
	if !ok || len(l) != 2 {
		return false, nil, errorf(pos, KindValue, "Controller must return a list of (action_symbol value), got: %s", v)
	}
	var action string
	switch a := l[0].(type) {
	case value.Symbol:
		action = string(a)
	case value.String:
		action = string(a)
	default:
		return false, nil, errorf(pos, KindValue, "Controller must return a list of (action_symbol value), got: %s", v)
	}
	switch action {
	case "stop":
		return true, l[1], nil
	case "continue":
		return false, l[1], nil
	}
	return false, nil, errorf(pos, KindValue, "Controller decision action must be 'continue' or 'stop' symbol, got: '%s'", action)
}

// withLoopConfig runs fn with *loop-config* bound to cfg.
func (t *thread) withLoopConfig(cfg value.Value, fn func() (value.Value, error)) (value.Value, error) {
	saved := t.dyn
	d := dynamic{}
	if saved != nil {
		d = *saved
	}
	d.loopConfig = cfg
	t.dyn = &d
	defer func() { t.dyn = saved }()
	return fn()
}

var (
	directorClauses = []string{"max-iterations", "initial-director-input", "director", "executor", "evaluator", "controller"}
	iterativeKnown  = []string{"max-iterations", "initial-input", "test-command", "command-generator", "executor", "validator", "controller"}
	iterativeNeeded = []string{"max-iterations", "initial-input", "executor", "validator", "controller"}
)

func evalDirectorLoop(t *thread, x *expr, cl loopClauses, env *Env) (value.Value, error) {
	const form = "director-evaluator-loop"
	n, err := t.maxIterations(form, cl.get("max-iterations"), env)
	if err != nil {
		return nil, err
	}
	input, err := t.eval(cl.get("initial-director-input"), env)
	if err != nil {
		return nil, err
	}
	fns, err := t.phases(form, cl, env, "director", "executor", "evaluator", "controller")
	if err != nil {
		return nil, err
	}
	cfg := value.DictOf("max-iterations", value.Int(n), "initial-director-input", input)
	return t.withLoopConfig(cfg, func() (value.Value, error) {
		var result value.Value = value.List(nil)
		for i := int64(1); i <= n; i++ {
			if err := t.pollCancel(x.pos()); err != nil {
				return nil, err
			}
			iter := value.Int(i)
			run := func(phase string, f value.Value, args ...value.Value) (value.Value, error) {
				return t.applyPhase(f, args, x.pos(), fmt.Sprintf("Error in '%s' phase (iteration %d): ", phase, i))
			}
			plan, err := run("director", fns[0], input, iter)
			if err != nil {
				return nil, err
			}
			if result, err = run("executor", fns[1], plan, iter); err != nil {
				return nil, err
			}
			feedback, err := run("evaluator", fns[2], result, plan, iter)
			if err != nil {
				return nil, err
			}
			d, err := run("controller", fns[3], feedback, plan, result, iter)
			if err != nil {
				return nil, err
			}
			stop, v, err := decision(d, x.pos())
			if err != nil {
				return nil, err
			}
			if stop {
				return v, nil
			}
			input = v
		}
		return result, nil
	})
}

func evalIterativeLoop(t *thread, x *expr, cl loopClauses, env *Env) (value.Value, error) {
	const form = "iterative-loop"
	testCmd, gen := cl.get("test-command"), cl.get("command-generator")
	hasGen := gen != nil
	n, err := t.maxIterations(form, cl.get("max-iterations"), env)
	if err != nil {
		return nil, err
	}
	input, err := t.eval(cl.get("initial-input"), env)
	if err != nil {
		return nil, err
	}
	var cmd, generator value.Value
	if hasGen {
		if generator, err = t.phase(form, "command-generator", gen, env); err != nil {
			return nil, err
		}
	} else {
		v, err := t.eval(testCmd, env)
		if err != nil {
			return nil, err
		}
		switch {
		case isString(v):
			cmd = v
		case t.isPhaseCallable(v):
			generator = v
		default:
			return nil, errorf(testCmd.pos(), KindType, "iterative-loop: 'test-command' must evaluate to a string or a function, got %s: %s", v.Type(), v)
		}
	}
	fns, err := t.phases(form, cl, env, "executor", "validator", "controller")
	if err != nil {
		return nil, err
	}
	cfg := value.DictOf("max-iterations", value.Int(n), "initial-input", input)
	return t.withLoopConfig(cfg, func() (value.Value, error) {
		var result value.Value = value.List(nil)
		for i := int64(1); i <= n; i++ {
			if err := t.pollCancel(x.pos()); err != nil {
				return nil, err
			}
			iter := value.Int(i)
			prefix := fmt.Sprintf("Error during iterative-loop iteration %d: ", i)
			run := func(f value.Value, args ...value.Value) (value.Value, error) {
				return t.applyPhase(f, args, x.pos(), prefix)
			}
			var d value.Value
			if generator != nil {
				c, err := run(generator, input)
				if err != nil {
					return nil, err
				}
				if result, err = run(fns[0], c); err != nil {
					return nil, err
				}
				v, err := run(fns[1], c, result)
				if err != nil {
					return nil, err
				}
				if d, err = run(fns[2], input, c, result, v); err != nil {
					return nil, err
				}
			} else {
				var err error
				if result, err = run(fns[0], input, iter); err != nil {
					return nil, err
				}
				v, err := run(fns[1], cmd, iter)
				if err != nil {
					return nil, err
				}
				if d, err = run(fns[2], result, v, input, iter); err != nil {
					return nil, err
				}
			}
			stop, v, err := decision(d, x.pos())
			if err != nil {
				return nil, err
			}
			if stop {
				return v, nil
			}
			input = v
		}
		return result, nil
	})
}

func isString(v value.Value) bool {
	_, ok := v.(value.String)
	return ok
}
