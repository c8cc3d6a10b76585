package evaluator

import (
	"github.com/evalrun/evalrun/sexp"
	"github.com/evalrun/evalrun/value"
)

// specialForm is a built-in operator that receives its arguments unevaluated
// (SPEC §7).
type specialForm struct {
	name string
	fn   func(t *thread, x *expr, env *Env) (value.Value, error)
}

// specialForms maps names to special forms.
var specialForms = map[string]*specialForm{}

func defineForm(name string, fn func(t *thread, x *expr, env *Env) (value.Value, error)) {
	specialForms[name] = &specialForm{name: name, fn: fn}
}

// SpecialFormNames returns the names of all special forms.
func SpecialFormNames() []string {
	names := make([]string, 0, len(specialForms))
	for n := range specialForms {
		names = append(names, n)
	}
	return names
}

func init() {
	defineForm("quote", evalQuote)
	defineForm("if", evalIf)
	defineForm("when", func(t *thread, x *expr, env *Env) (value.Value, error) { return evalWhen(t, x, env, true) })
	defineForm("unless", func(t *thread, x *expr, env *Env) (value.Value, error) { return evalWhen(t, x, env, false) })
	defineForm("cond", evalCond)
	defineForm("and", evalAnd)
	defineForm("or", evalOr)
	defineForm("progn", evalProgn)
	defineForm("begin", evalProgn)
	defineForm("let", func(t *thread, x *expr, env *Env) (value.Value, error) { return evalLet(t, x, env, false) })
	defineForm("let*", func(t *thread, x *expr, env *Env) (value.Value, error) { return evalLet(t, x, env, true) })
	defineForm("define", evalDefine)
	defineForm("bind", evalBind)
	defineForm("set!", evalSet)
	defineForm("lambda", evalLambda)
	defineForm("try", evalTry)
}

func evalQuote(t *thread, x *expr, env *Env) (value.Value, error) {
	// A well-formed quote was compiled to a constant.
	return nil, newError(x.pos(), KindArity, "'quote' requires exactly one argument: (quote expression)")
}

func evalIf(t *thread, x *expr, env *Env) (value.Value, error) {
	a := x.args()
	if len(a) != 3 {
		return nil, newError(x.pos(), KindArity, "'if' requires 3 arguments: (if condition then_branch else_branch)")
	}
	c, err := t.eval(a[0], env)
	if err != nil {
		return nil, err
	}
	if value.Truthy(c) {
		return t.eval(a[1], env)
	}
	return t.eval(a[2], env)
}

func evalWhen(t *thread, x *expr, env *Env, want bool) (value.Value, error) {
	a := x.args()
	if len(a) < 2 {
		return nil, errorf(x.pos(), KindArity, "'%s' requires a condition and at least one body expression: (%s condition body...)", x.name, x.name)
	}
	c, err := t.eval(a[0], env)
	if err != nil {
		return nil, err
	}
	if value.Truthy(c) != want {
		return value.List(nil), nil
	}
	return t.evalBody(a[1:], env)
}

func evalCond(t *thread, x *expr, env *Env) (value.Value, error) {
	clauses := x.args()
	for i, cl := range clauses {
		if cl.syn.Kind != sexp.List || len(cl.syn.Items) == 0 {
			return nil, errorf(cl.pos(), KindValue, "Invalid 'cond' clause: expected (test body...), got %s", datum(cl.syn))
		}
		test := cl.elems[0]
		var tv value.Value
		if test.syn.IsSymbol("else") {
			if i != len(clauses)-1 {
				return nil, newError(cl.pos(), KindValue, "'else' must be the last cond clause")
			}
			tv = value.Bool(true)
		} else {
			var err error
			if tv, err = t.eval(test, env); err != nil {
				return nil, err
			}
		}
		if !value.Truthy(tv) {
			continue
		}
		if len(cl.elems) == 1 {
			return tv, nil
		}
		return t.evalBody(cl.elems[1:], env)
	}
	return value.List(nil), nil
}

func evalAnd(t *thread, x *expr, env *Env) (value.Value, error) {
	var v value.Value = value.Bool(true)
	for _, a := range x.args() {
		var err error
		if v, err = t.eval(a, env); err != nil {
			return nil, err
		}
		if !value.Truthy(v) {
			return v, nil
		}
	}
	return v, nil
}

func evalOr(t *thread, x *expr, env *Env) (value.Value, error) {
	var v value.Value = value.Bool(false)
	for _, a := range x.args() {
		var err error
		if v, err = t.eval(a, env); err != nil {
			return nil, err
		}
		if value.Truthy(v) {
			return v, nil
		}
	}
	return v, nil
}

func evalProgn(t *thread, x *expr, env *Env) (value.Value, error) {
	return t.evalBody(x.args(), env)
}

const letUsage = "requires a bindings list and at least one body expression: (let ((var expr)...) body...)"

func evalLet(t *thread, x *expr, env *Env, sequential bool) (value.Value, error) {
	a := x.args()
	if len(a) < 2 || (a[0].syn.Kind != sexp.List && a[0].syn.Kind != sexp.Nil) {
		return nil, errorf(x.pos(), KindArity, "'%s' %s", x.name, letUsage)
	}
	bindings := a[0].elems
	frame := &Env{parent: env, names: make([]string, 0, len(bindings)), vals: make([]value.Value, 0, len(bindings)), owner: t.branch}
	evalEnv := env
	if sequential {
		evalEnv = frame
	}
	for _, b := range bindings {
		if b.syn.Kind != sexp.List || len(b.syn.Items) != 2 || b.syn.Items[0].Kind != sexp.Symbol {
			return nil, errorf(b.pos(), KindValue, "Invalid '%s' binding format: expected (symbol expression), got %s", x.name, datum(b.syn))
		}
		name := b.syn.Items[0].Str
		if err := checkBindable(b.syn.Items[0]); err != nil {
			return nil, err
		}
		v, err := t.eval(b.elems[1], evalEnv)
		if err != nil {
			return nil, err
		}
		frame.Define(name, v)
	}
	return t.evalBody(a[1:], frame)
}

// checkBindable rejects keywords (SPEC §6.5).
func checkBindable(n *sexp.Node) error {
	if n.Kind == sexp.Symbol && len(n.Str) > 0 && n.Str[0] == ':' {
		return errorf(n.Pos, KindValue, "cannot bind keyword '%s'", n.Str)
	}
	return nil
}

// bindTarget checks that n names a bindable variable.
func bindTarget(n *sexp.Node, form string) (string, error) {
	switch n.Kind {
	case sexp.Symbol:
		if err := checkBindable(n); err != nil {
			return "", err
		}
		return n.Str, nil
	case sexp.Bool, sexp.Nil:
		return "", errorf(n.Pos, KindValue, "cannot bind '%s'", n.Raw)
	}
	return "", errorf(n.Pos, KindType, "'%s' first argument must be a symbol, got %s.", form, n.Kind)
}

func evalDefine(t *thread, x *expr, env *Env) (value.Value, error) {
	a := x.args()
	if len(a) >= 1 && a[0].syn.Kind == sexp.List && len(a[0].syn.Items) > 0 {
		// (define (f p...) body...)
		sig := a[0]
		name, err := bindTarget(sig.syn.Items[0], "define")
		if err != nil {
			return nil, err
		}
		if len(a) < 2 {
			return nil, newError(x.pos(), KindArity, "'define' requires a body for the function: (define (name params...) body...)")
		}
		params, err := lambdaParams(sig.syn.Items[1:], sig.pos())
		if err != nil {
			return nil, err
		}
		c := &Closure{params: params, body: a[1:], env: env}
		env.Define(name, c)
		return c, nil
	}
	if len(a) != 2 {
		return nil, newError(x.pos(), KindArity, "'define' requires a symbol and a value expression: (define name expression) or (define (name params...) body...)")
	}
	return t.defineValue("define", a[0], a[1], env)
}

func evalBind(t *thread, x *expr, env *Env) (value.Value, error) {
	a := x.args()
	if len(a) != 2 || (a[0].syn.Kind != sexp.Symbol && a[0].syn.Kind != sexp.Bool && a[0].syn.Kind != sexp.Nil) {
		return nil, newError(x.pos(), KindArity, "'bind' requires a symbol and a value expression: (bind variable_symbol expression)")
	}
	return t.defineValue("bind", a[0], a[1], env)
}

// defineValue evaluates e and binds it to the name target in env's frame,
// returning the value (define and bind).
func (t *thread) defineValue(form string, target, e *expr, env *Env) (value.Value, error) {
	name, err := bindTarget(target.syn, form)
	if err != nil {
		return nil, err
	}
	v, err := t.eval(e, env)
	if err != nil {
		return nil, err
	}
	env.Define(name, v)
	return v, nil
}

func evalSet(t *thread, x *expr, env *Env) (value.Value, error) {
	a := x.args()
	if len(a) != 2 {
		return nil, newError(x.pos(), KindArity, "'set!' requires exactly two arguments: a symbol and a new value expression.")
	}
	if a[0].syn.Kind != sexp.Symbol {
		return nil, errorf(a[0].pos(), KindType, "'set!' first argument must be a symbol, got %s.", a[0].syn.Kind)
	}
	name := a[0].syn.Str
	v, err := t.eval(a[1], env)
	if err != nil {
		return nil, err
	}
	frame, i := env.frameOf(name)
	if frame == nil {
		return nil, errorf(a[0].pos(), KindUnbound, "Cannot 'set!' unbound symbol: %s", name)
	}
	if t.branch != nil && !ownedBy(frame, t.branch) {
		return nil, errorf(x.pos(), KindValue, "set! of '%s' inside a parallel branch: the variable is shared", name)
	}
	frame.vals[i] = v
	return v, nil
}

// ownedBy reports whether frame was created inside branch b (or one of its
// nested branches), so a set! there does not touch shared state.
func ownedBy(frame *Env, b *branch) bool {
	for o := frame.owner; o != nil; o = o.parent {
		if o == b {
			return true
		}
	}
	return false
}

func evalLambda(t *thread, x *expr, env *Env) (value.Value, error) {
	a := x.args()
	if len(a) < 2 {
		return nil, newError(x.pos(), KindArity, "'lambda' requires a parameter list and at least one body expression.")
	}
	ps := a[0].syn
	if ps.Kind != sexp.List && ps.Kind != sexp.Nil {
		return nil, newError(ps.Pos, KindType, "Lambda parameter definition must be a list of symbols.")
	}
	params, err := lambdaParams(ps.Items, ps.Pos)
	if err != nil {
		return nil, err
	}
	return &Closure{params: params, body: a[1:], env: env}, nil
}

func lambdaParams(items []*sexp.Node, pos sexp.Pos) ([]string, error) {
	params := make([]string, 0, len(items))
	for _, p := range items {
		if p.Kind != sexp.Symbol {
			return nil, errorf(p.Pos, KindType, "Lambda parameters must be symbols, got %s: %s", p.Kind, datum(p))
		}
		if err := checkBindable(p); err != nil {
			return nil, err
		}
		for _, q := range params {
			if q == p.Str {
				return nil, errorf(p.Pos, KindValue, "Duplicate lambda parameter: %s", p.Str)
			}
		}
		params = append(params, p.Str)
	}
	return params, nil
}

const tryUsage = "try requires a final (catch VAR handler...) clause"

func evalTry(t *thread, x *expr, env *Env) (value.Value, error) {
	a := x.args()
	if len(a) == 0 {
		return nil, newError(x.pos(), KindArity, tryUsage)
	}
	for _, b := range a[:len(a)-1] {
		if isCatch(b.syn) {
			return nil, newError(b.pos(), KindArity, tryUsage)
		}
	}
	c := a[len(a)-1]
	if !isCatch(c.syn) || len(c.syn.Items) < 3 || c.syn.Items[1].Kind != sexp.Symbol {
		return nil, newError(x.pos(), KindArity, tryUsage)
	}
	v, err := t.evalBody(a[:len(a)-1], env)
	if err == nil {
		return v, nil
	}
	e := asEvalError(err, x.pos())
	if !e.Catchable() {
		return nil, e
	}
	name, berr := bindTarget(c.syn.Items[1], "catch")
	if berr != nil {
		return nil, berr
	}
	frame := &Env{parent: env, owner: t.branch}
	frame.Define(name, e.AsDict())
	return t.evalBody(c.elems[2:], frame)
}

func isCatch(n *sexp.Node) bool {
	return n.Kind == sexp.List && len(n.Items) > 0 && n.Items[0].IsSymbol("catch")
}
