package evaluator

import (
	"fmt"
	"sort"
	"strings"

	"github.com/evalrun/evalrun/sexp"
	"github.com/evalrun/evalrun/value"
)

func init() {
	defineForm("loop", evalLoop)
	defineForm("director-evaluator-loop", evalDirectorLoop)
	defineForm("iterative-loop", evalIterativeLoop)
}

func evalLoop(t *thread, x *expr, env *Env) (value.Value, error) {
	a := x.args()
	if len(a) != 2 {
		return nil, errorf(x.pos(), KindArity, "Loop requires exactly 2 arguments: count_expression and body_expression. Got %d.", len(a))
	}
	cv, err := t.eval(a[0], env)
	if err != nil {
		return nil, err
	}
	n, ok := cv.(value.Int)
	if !ok {
		return nil, errorf(a[0].pos(), KindType, "Loop count must evaluate to an integer, got %s.", cv.Type())
	}
	if n < 0 {
		return nil, errorf(a[0].pos(), KindValue, "Loop count must be non-negative, got %d.", n)
	}
	var v value.Value = value.List(nil)
	// A body that is an atom or a quote evaluates no list form, so nothing
	// in it notices a timeout or interrupt: the loop must look itself.
	quiet := a[1].op == opConst || a[1].op == opSymbol
	for i := int64(1); i <= int64(n); i++ {
		if quiet {
			if err := t.pollCancel(x.pos()); err != nil {
				return nil, err
			}
		}
		if v, err = t.eval(a[1], env); err != nil {
			return nil, withPrefix(err, fmt.Sprintf("Error during loop iteration %d/%d: ", i, n))
		}
	}
	return v, nil
}

// loopClauses holds the clause expressions of a loop form by name.
type loopClauses map[string]*expr

// parseLoopClauses reads the (name expr) or :name expr clauses of a loop form
// (SPEC §7.11), checking unknown, repeated and missing clauses.
func parseLoopClauses(x *expr, known, required []string) (loopClauses, error) {
	form := x.name
	a := x.args()
	clauses := loopClauses{}
	add := func(name string, e *expr, at sexp.Pos) error {
		if _, dup := clauses[name]; dup {
			return errorf(at, KindValue, "%s: Duplicate clause '%s' found.", form, name)
		}
		if !contains(known, name) {
			return errorf(at, KindValue, "%s: Unknown clause '%s'", form, name)
		}
		clauses[name] = e
		return nil
	}
	flat := true
	for i := 0; i < len(a); i += 2 {
		if a[i].syn.Kind != sexp.Symbol {
			flat = false
			break
		}
	}
	if flat && len(a) > 0 {
		if len(a)%2 != 0 {
			return nil, errorf(x.pos(), KindArity, "%s: Uneven number of arguments. Expected key-value pairs.", form)
		}
		for i := 0; i < len(a); i += 2 {
			if err := add(strings.TrimPrefix(a[i].syn.Str, ":"), a[i+1], a[i].pos()); err != nil {
				return nil, err
			}
		}
	} else {
		for _, c := range a {
			if c.syn.Kind != sexp.List || len(c.syn.Items) != 2 || c.syn.Items[0].Kind != sexp.Symbol {
				return nil, errorf(c.pos(), KindValue, "%s: Each clause must be a list of (ClauseName Expression), got: %s", form, datum(c.syn))
			}
			if err := add(c.syn.Items[0].Str, c.elems[1], c.pos()); err != nil {
				return nil, err
			}
		}
	}
	var missing []string
	for _, r := range required {
		if _, ok := clauses[r]; !ok {
			missing = append(missing, r)
		}
	}
	if len(missing) > 0 {
		sort.Strings(missing)
		return nil, errorf(x.pos(), KindValue, "%s: Missing required clauses: %s", form, strings.Join(missing, ", "))
	}
	return clauses, nil
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
		if fns[i], err = t.phase(form, name, cl[name], env); err != nil {
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

func evalDirectorLoop(t *thread, x *expr, env *Env) (value.Value, error) {
	const form = "director-evaluator-loop"
	cl, err := parseLoopClauses(x, directorClauses, directorClauses)
	if err != nil {
		return nil, err
	}
	n, err := t.maxIterations(form, cl["max-iterations"], env)
	if err != nil {
		return nil, err
	}
	input, err := t.eval(cl["initial-director-input"], env)
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

func evalIterativeLoop(t *thread, x *expr, env *Env) (value.Value, error) {
	const form = "iterative-loop"
	cl, err := parseLoopClauses(x, iterativeKnown, iterativeNeeded)
	if err != nil {
		return nil, err
	}
	testCmd, hasTest := cl["test-command"]
	gen, hasGen := cl["command-generator"]
	switch {
	case hasTest && hasGen:
		return nil, newError(x.pos(), KindValue, "iterative-loop: give either 'test-command' or 'command-generator', not both")
	case !hasTest && !hasGen:
		return nil, newError(x.pos(), KindValue, "iterative-loop: give either 'test-command' or 'command-generator'")
	}
	n, err := t.maxIterations(form, cl["max-iterations"], env)
	if err != nil {
		return nil, err
	}
	input, err := t.eval(cl["initial-input"], env)
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
