package evaluator

import (
	"slices"

	"github.com/evalrun/evalrun/sexp"
	"github.com/evalrun/evalrun/value"
)

// specialForm is a built-in operator that receives its arguments unevaluated
// (SPEC §7). Its compile function is the one place that knows the form's
// grammar: it turns the form's syntax into a typed form, recording every
// shape error with its position; evaluation runs the typed form and never
// looks at the syntax again.
type specialForm struct {
	name    string
	compile func(c *compiler, x *expr, depth int) (form, error)
	// repeats marks forms whose parts may run zero or several times
	// (conditionals, closures, loops, try, parallel branches), or are not
	// evaluated at all (quote, defatom): a step inside them is not part of
	// a run's plan (SPEC §16.2).
	repeats bool
}

// form is a compiled special form.
type form interface {
	// eval evaluates the form x in env.
	eval(t *thread, x *expr, env *Env) (value.Value, error)
	// children returns the expressions among the form's parts, in source
	// order; Check, PlannedSteps and Templates walk the program with it.
	children() []*expr
}

// specialForms maps names to special forms.
var specialForms = map[string]*specialForm{}

// defineForm adds a special form; repeats is explained at specialForm.
func defineForm(name string, repeats bool, compile func(c *compiler, x *expr, depth int) (form, error)) {
	specialForms[name] = &specialForm{name: name, compile: compile, repeats: repeats}
}

// SpecialFormNames returns the names of all special forms, sorted.
func SpecialFormNames() []string {
	names := make([]string, 0, len(specialForms))
	for n := range specialForms {
		names = append(names, n)
	}
	slices.Sort(names) // a map's order would make the hints of ties random
	return names
}

func init() {
	defineForm("quote", true, compileQuote)
	defineForm("if", true, compileIf)
	defineForm("when", true, func(c *compiler, x *expr, d int) (form, error) { return compileWhen(c, x, d, true) })
	defineForm("unless", true, func(c *compiler, x *expr, d int) (form, error) { return compileWhen(c, x, d, false) })
	defineForm("cond", true, compileCond)
	defineForm("and", true, func(c *compiler, x *expr, d int) (form, error) { return compileAndOr(c, x, d, false) })
	defineForm("or", true, func(c *compiler, x *expr, d int) (form, error) { return compileAndOr(c, x, d, true) })
	defineForm("progn", false, compileProgn)
	defineForm("begin", false, compileProgn)
	defineForm("let", false, func(c *compiler, x *expr, d int) (form, error) { return compileLet(c, x, d, false) })
	defineForm("let*", false, func(c *compiler, x *expr, d int) (form, error) { return compileLet(c, x, d, true) })
	defineForm("define", false, compileDefine)
	defineForm("bind", false, compileBind)
	defineForm("set!", false, compileSet)
	defineForm("lambda", true, compileLambda)
	defineForm("try", true, compileTry)
}

// argNodes returns the argument syntax of a special form.
func argNodes(x *expr) []*sexp.Node { return x.syn.Items[1:] }

// badForm is a special form with a shape error: evaluating it raises the
// error. parts are its arguments compiled as expressions, so that Check
// and Walk can still look into them; check lists those a checker examines
// (the well-formed parts), and bind a name the form binds for the checker
// despite the error.
type badForm struct {
	err   *Error
	parts []*expr
	check []*expr
	bind  *sexp.Node
}

func (f *badForm) eval(t *thread, x *expr, env *Env) (value.Value, error) {
	e := *f.err
	return nil, &e
}

func (f *badForm) children() []*expr {
	return f.parts
}

// bad records a shape error of form x and returns the badForm raising it;
// the form's arguments are compiled as expressions into its parts, and
// check holds the indexes (into the arguments) of those a checker still
// examines (-1 for all).
func (c *compiler) bad(x *expr, e *Error, depth int, check ...int) (form, error) {
	c.problem(e)
	return c.badRecorded(x, e, depth, check...)
}

// badRecorded is bad for an error already recorded.
func (c *compiler) badRecorded(x *expr, e *Error, depth int, check ...int) (form, error) {
	parts, err := c.exprs(argNodes(x), depth)
	if err != nil {
		return nil, err
	}
	f := &badForm{err: e, parts: parts}
	for _, i := range check {
		if i < 0 {
			f.check = parts
			break
		}
		if i < len(parts) {
			f.check = append(f.check, parts[i])
		}
	}
	return f, nil
}

// compileQuote compiles (quote d) to a constant; a malformed quote is a
// badForm.
func compileQuote(c *compiler, x *expr, depth int) (form, error) {
	a := argNodes(x)
	if len(a) == 1 {
		v, err := quotedValue(a[0], depth)
		if err != nil {
			return nil, err
		}
		x.op, x.val, x.sf = opConst, v, nil
		return nil, nil
	}
	return &badForm{err: c.problem(newError(x.pos(), KindArity, "'quote' requires exactly one argument: (quote expression)"))}, nil
}

// ifForm is (if c then else).
type ifForm struct{ cond, then, els *expr }

func compileIf(c *compiler, x *expr, depth int) (form, error) {
	a := argNodes(x)
	if len(a) != 3 {
		return c.bad(x, newError(x.pos(), KindArity, "'if' requires 3 arguments: (if condition then_branch else_branch)"), depth, -1)
	}
	xs, err := c.exprs(a, depth)
	if err != nil {
		return nil, err
	}
	return &ifForm{xs[0], xs[1], xs[2]}, nil
}

func (f *ifForm) eval(t *thread, x *expr, env *Env) (value.Value, error) {
	c, err := t.eval(f.cond, env)
	if err != nil {
		return nil, err
	}
	if value.Truthy(c) {
		return t.eval(f.then, env)
	}
	return t.eval(f.els, env)
}

func (f *ifForm) children() []*expr {
	return []*expr{f.cond, f.then, f.els}
}

// whenForm is (when c body...) or, with want false, (unless c body...).
type whenForm struct {
	cond *expr
	body []*expr
	want bool
}

func compileWhen(c *compiler, x *expr, depth int, want bool) (form, error) {
	a := argNodes(x)
	if len(a) < 2 {
		return c.bad(x, errorf(x.pos(), KindArity, "'%s' requires a condition and at least one body expression: (%s condition body...)", x.name, x.name), depth, -1)
	}
	xs, err := c.exprs(a, depth)
	if err != nil {
		return nil, err
	}
	return &whenForm{cond: xs[0], body: xs[1:], want: want}, nil
}

func (f *whenForm) eval(t *thread, x *expr, env *Env) (value.Value, error) {
	c, err := t.eval(f.cond, env)
	if err != nil {
		return nil, err
	}
	if value.Truthy(c) != f.want {
		return value.List(nil), nil
	}
	return t.evalBody(f.body, env)
}

func (f *whenForm) children() []*expr {
	return append([]*expr{f.cond}, f.body...)
}

// condForm is (cond (test body...)...). A malformed clause raises its error
// when evaluation reaches it.
type condForm struct{ clauses []condClause }

type condClause struct {
	syn    *sexp.Node
	test   *expr // nil for else
	body   []*expr
	err    *Error
	isElse bool
}

func compileCond(c *compiler, x *expr, depth int) (form, error) {
	a := argNodes(x)
	f := &condForm{clauses: make([]condClause, len(a))}
	for i, cl := range a {
		cc := &f.clauses[i]
		cc.syn = cl
		if cl.Kind != sexp.List || len(cl.Items) == 0 {
			cc.err = c.problem(errorf(cl.Pos, KindValue, "Invalid 'cond' clause: expected (test body...), got %s", datum(cl)))
			continue
		}
		if cl.Items[0].IsSymbol("else") {
			cc.isElse = true
			if i != len(a)-1 {
				cc.err = c.problem(newError(cl.Pos, KindValue, "'else' must be the last cond clause"))
			}
		} else {
			test, err := c.compile(cl.Items[0], depth+1)
			if err != nil {
				return nil, err
			}
			cc.test = test
		}
		body, err := c.exprs(cl.Items[1:], depth+1)
		if err != nil {
			return nil, err
		}
		cc.body = body
	}
	return f, nil
}

func (f *condForm) eval(t *thread, x *expr, env *Env) (value.Value, error) {
	for i := range f.clauses {
		cl := &f.clauses[i]
		if cl.err != nil {
			e := *cl.err
			return nil, &e
		}
		var tv value.Value = value.Bool(true)
		if !cl.isElse {
			var err error
			if tv, err = t.eval(cl.test, env); err != nil {
				return nil, err
			}
		}
		if !value.Truthy(tv) {
			continue
		}
		if len(cl.body) == 0 {
			return tv, nil
		}
		return t.evalBody(cl.body, env)
	}
	return value.List(nil), nil
}

func (f *condForm) children() []*expr {
	var out []*expr
	for _, cl := range f.clauses {
		if cl.test != nil {
			out = append(out, cl.test)
		}
		out = append(out, cl.body...)
	}
	return out
}

// andForm is (and e...) or, with or set, (or e...).
type andForm struct {
	args []*expr
	or   bool
}

func compileAndOr(c *compiler, x *expr, depth int, or bool) (form, error) {
	xs, err := c.exprs(argNodes(x), depth)
	if err != nil {
		return nil, err
	}
	return &andForm{args: xs, or: or}, nil
}

func (f *andForm) eval(t *thread, x *expr, env *Env) (value.Value, error) {
	var v value.Value = value.Bool(!f.or)
	for _, a := range f.args {
		var err error
		if v, err = t.eval(a, env); err != nil {
			return nil, err
		}
		if value.Truthy(v) == f.or {
			return v, nil
		}
	}
	return v, nil
}

func (f *andForm) children() []*expr {
	return f.args
}

// prognForm is (progn e...) and (begin e...).
type prognForm struct{ body []*expr }

func compileProgn(c *compiler, x *expr, depth int) (form, error) {
	xs, err := c.exprs(argNodes(x), depth)
	if err != nil {
		return nil, err
	}
	return &prognForm{body: xs}, nil
}

func (f *prognForm) eval(t *thread, x *expr, env *Env) (value.Value, error) {
	return t.evalBody(f.body, env)
}

func (f *prognForm) children() []*expr {
	return f.body
}

const letUsage = "requires a bindings list and at least one body expression: (let ((var expr)...) body...)"

// letForm is (let ((v e)...) body...) and, with seq set, let*. A malformed
// binding raises its error when evaluation reaches it.
type letForm struct {
	seq      bool
	bindings []letBinding
	body     []*expr
	// reuse is set when nothing in the form's syntax can make a closure,
	// so that its frame cannot outlive it and is recycled.
	reuse bool
}

// letFrame is a let frame with room for a few bindings in the same
// allocation, recycled by the thread.
type letFrame struct {
	env   Env
	names [4]string
	vals  [4]value.Value
}

// takeLetFrame returns a free let frame.
func (t *thread) takeLetFrame() *letFrame {
	if n := len(t.letFrames); n > 0 {
		lf := t.letFrames[n-1]
		t.letFrames = t.letFrames[:n-1]
		return lf
	}
	return &letFrame{}
}

// putLetFrame clears lf and keeps it for reuse.
func (t *thread) putLetFrame(lf *letFrame) {
	*lf = letFrame{}
	t.letFrames = append(t.letFrames, lf)
}

type letBinding struct {
	syn  *sexp.Node // the binding (v e)
	name string
	x    *expr
	err  *Error
}

func compileLet(c *compiler, x *expr, depth int, seq bool) (form, error) {
	a := argNodes(x)
	if len(a) < 2 || (a[0].Kind != sexp.List && a[0].Kind != sexp.Nil) {
		return c.bad(x, errorf(x.pos(), KindArity, "'%s' %s", x.name, letUsage), depth)
	}
	f := &letForm{seq: seq, bindings: make([]letBinding, len(a[0].Items)), reuse: optimize && !c.makesClosure(a)}
	var names []string          // the names bound so far
	shared := map[string]bool{} // let*: the names define adds to its frame
	var scopes []*staticScope   // let*: the scopes of its bindings
	for i, b := range a[0].Items {
		lb := &f.bindings[i]
		lb.syn = b
		if b.Kind != sexp.List || len(b.Items) != 2 || b.Items[0].Kind != sexp.Symbol {
			lb.err = c.problem(errorf(b.Pos, KindValue, "Invalid '%s' binding format: expected (symbol expression), got %s", x.name, datum(b)))
			continue
		}
		if err := checkBindable(b.Items[0]); err != nil {
			lb.err = c.problem(err)
			continue
		}
		lb.name = b.Items[0].Str
		var v *expr
		sc := c.letScope(seq, names, a[0].Items[i:], shared)
		if seq {
			scopes = append(scopes, sc)
		}
		err := c.in(sc, func() (err error) {
			v, err = c.compile(b.Items[1], depth+2)
			return err
		})
		if err != nil {
			return nil, err
		}
		lb.x = v
		names = append(names, lb.name)
	}
	body := c.newScope(names)
	if seq {
		body.defines = shared
		if len(shared) > 0 {
			// A define ran among the bindings: their slots are unknown.
			body.opaque = true
			for _, sc := range scopes {
				sc.opaque = true
			}
		}
	}
	err := c.in(body, func() (err error) {
		f.body, err = c.exprs(a[1:], depth)
		return err
	})
	if err != nil {
		return nil, err
	}
	return f, nil
}

// letScope returns the scope a binding's value is compiled in: the current
// one for let; for let*, the new frame holding the names bound so far, the
// binding's own name and the later ones being dynamic there.
func (c *compiler) letScope(seq bool, names []string, rest []*sexp.Node, shared map[string]bool) *staticScope {
	if !seq {
		return c.scope
	}
	sc := c.newScope(names)
	sc.defines = shared
	sc.later = map[string]bool{}
	for _, b := range rest {
		if b.Kind == sexp.List && len(b.Items) == 2 && b.Items[0].Kind == sexp.Symbol {
			sc.later[b.Items[0].Str] = true
		}
	}
	return sc
}

func (f *letForm) eval(t *thread, x *expr, env *Env) (value.Value, error) {
	if f.reuse && len(f.bindings) <= len(letFrame{}.vals) {
		lf := t.takeLetFrame()
		lf.env = Env{parent: env, names: lf.names[:0], vals: lf.vals[:0], owner: t.branch}
		v, err := f.run(t, env, &lf.env)
		t.putLetFrame(lf)
		return v, err
	}
	frame := &Env{parent: env, names: make([]string, 0, len(f.bindings)), vals: make([]value.Value, 0, len(f.bindings)), owner: t.branch}
	return f.run(t, env, frame)
}

// run binds the let's names in frame, a new frame under env, and
// evaluates the body there.
func (f *letForm) run(t *thread, env, frame *Env) (value.Value, error) {
	evalEnv := env
	if f.seq {
		evalEnv = frame
	}
	for i := range f.bindings {
		b := &f.bindings[i]
		if b.err != nil {
			e := *b.err
			return nil, &e
		}
		v, err := t.eval(b.x, evalEnv)
		if err != nil {
			return nil, err
		}
		frame.Define(b.name, v)
	}
	return t.evalBody(f.body, frame)
}

func (f *letForm) children() []*expr {
	var out []*expr
	for _, b := range f.bindings {
		if b.x != nil {
			out = append(out, b.x)
		}
	}
	return append(out, f.body...)
}

// checkBindable rejects keywords (SPEC §6.5).
func checkBindable(n *sexp.Node) *Error {
	if n.Kind == sexp.Symbol && len(n.Str) > 0 && n.Str[0] == ':' {
		return errorf(n.Pos, KindValue, "cannot bind keyword '%s'", n.Str)
	}
	return nil
}

// bindTarget checks that n names a bindable variable.
func bindTarget(n *sexp.Node, form string) (string, *Error) {
	switch n.Kind {
	case sexp.Symbol:
		if err := checkBindable(n); err != nil {
			return "", err
		}
		return n.Str, nil
	case sexp.Bool, sexp.Nil:
		return "", errorf(n.Pos, KindValue, "cannot bind '%s'", n.Raw())
	}
	return "", errorf(n.Pos, KindType, "'%s' first argument must be a symbol, got %s.", form, n.Kind)
}

// defineForm is (define name e) and (bind name e): evaluate, then bind in
// the current frame.
type defineVarForm struct {
	target *sexp.Node
	name   string
	value  *expr
}

// lambdaForm is (lambda (p...) body...) and, with a name, the function
// form (define (name p...) body...).
type lambdaForm struct {
	target *sexp.Node // the name of a define, else nil
	name   string
	params []string
	// paramNodes are the parameters' symbols.
	paramNodes []*sexp.Node
	body       []*expr
	// reuse is set when nothing in the body's syntax can make a closure
	// (see Closure.reuse).
	reuse bool
}

func compileDefine(c *compiler, x *expr, depth int) (form, error) {
	a := argNodes(x)
	if len(a) >= 1 && a[0].Kind == sexp.List && len(a[0].Items) > 0 {
		// (define (f p...) body...)
		sig := a[0]
		name, terr := bindTarget(sig.Items[0], "define")
		if terr != nil {
			c.problem(terr)
		}
		if len(a) < 2 {
			e := newError(x.pos(), KindArity, "'define' requires a body for the function: (define (name params...) body...)")
			if terr != nil {
				c.problem(e)
				return &badForm{err: terr}, nil
			}
			return &badForm{err: c.problem(e), bind: sig.Items[0]}, nil
		}
		params, perr := lambdaParams(sig.Items[1:], sig.Pos)
		if perr != nil {
			c.problem(perr)
		}
		if terr == nil {
			c.defines(name)
		}
		body, err := c.closureBody(params, a[1:], depth)
		if err != nil {
			return nil, err
		}
		f := &lambdaForm{target: sig.Items[0], name: name, params: params, paramNodes: sig.Items[1:], body: body, reuse: optimize && !c.makesClosure(a[1:])}
		switch {
		case terr != nil:
			f.target = nil
			return &badLambda{lambdaForm: f, err: terr}, nil
		case perr != nil:
			return &badLambda{lambdaForm: f, err: perr}, nil
		}
		return f, nil
	}
	if len(a) != 2 {
		f, err := c.bad(x, newError(x.pos(), KindArity, "'define' requires a symbol and a value expression: (define name expression) or (define (name params...) body...)"), depth, bodyIndexes(1, len(a))...)
		if b, ok := f.(*badForm); ok && len(a) > 0 && a[0].Kind == sexp.Symbol {
			b.bind = a[0]
		}
		return f, err
	}
	return c.defineValue("define", x, a, depth)
}

// bodyIndexes returns the indexes from i to n-1.
func bodyIndexes(i, n int) []int {
	var out []int
	for ; i < n; i++ {
		out = append(out, i)
	}
	if out == nil {
		return []int{n} // none: an index past the end
	}
	return out
}

func compileBind(c *compiler, x *expr, depth int) (form, error) {
	a := argNodes(x)
	if len(a) != 2 || (a[0].Kind != sexp.Symbol && a[0].Kind != sexp.Bool && a[0].Kind != sexp.Nil) {
		return c.bad(x, newError(x.pos(), KindArity, "'bind' requires a symbol and a value expression: (bind variable_symbol expression)"), depth, bodyIndexes(1, len(a))...)
	}
	return c.defineValue("bind", x, a, depth)
}

// defineValue compiles (define name e) and (bind name e).
func (c *compiler) defineValue(formName string, x *expr, a []*sexp.Node, depth int) (form, error) {
	name, err := bindTarget(a[0], formName)
	if err != nil {
		return c.bad(x, err, depth, 1)
	}
	v, cerr := c.compile(a[1], depth)
	if cerr != nil {
		return nil, cerr
	}
	c.defines(name)
	return &defineVarForm{target: a[0], name: name, value: v}, nil
}

func (f *defineVarForm) eval(t *thread, x *expr, env *Env) (value.Value, error) {
	v, err := t.eval(f.value, env)
	if err != nil {
		return nil, err
	}
	env.Define(f.name, v)
	return v, nil
}

func (f *defineVarForm) children() []*expr {
	return []*expr{f.value}
}

// setForm is (set! name e).
type setForm struct {
	target *sexp.Node
	value  *expr
}

func compileSet(c *compiler, x *expr, depth int) (form, error) {
	a := argNodes(x)
	if len(a) != 2 {
		return c.bad(x, newError(x.pos(), KindArity, "'set!' requires exactly two arguments: a symbol and a new value expression."), depth, bodyIndexes(1, len(a))...)
	}
	if a[0].Kind != sexp.Symbol {
		return c.bad(x, errorf(a[0].Pos, KindType, "'set!' first argument must be a symbol, got %s.", a[0].Kind), depth, 1)
	}
	v, err := c.compile(a[1], depth)
	if err != nil {
		return nil, err
	}
	return &setForm{target: a[0], value: v}, nil
}

func (f *setForm) eval(t *thread, x *expr, env *Env) (value.Value, error) {
	name := f.target.Str
	v, err := t.eval(f.value, env)
	if err != nil {
		return nil, err
	}
	frame, i := env.frameOf(name)
	if frame == nil {
		return nil, errorf(f.target.Pos, KindUnbound, "Cannot 'set!' unbound symbol: %s", name)
	}
	if t.branch != nil && !ownedBy(frame, t.branch) {
		return nil, errorf(x.pos(), KindValue, "set! of '%s' inside a parallel branch: the variable is shared", name)
	}
	frame.vals[i] = v
	return v, nil
}

func (f *setForm) children() []*expr {
	return []*expr{f.value}
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

func compileLambda(c *compiler, x *expr, depth int) (form, error) {
	a := argNodes(x)
	if len(a) < 2 {
		return c.bad(x, newError(x.pos(), KindArity, "'lambda' requires a parameter list and at least one body expression."), depth)
	}
	ps := a[0]
	if ps.Kind != sexp.List && ps.Kind != sexp.Nil {
		return c.bad(x, newError(ps.Pos, KindType, "Lambda parameter definition must be a list of symbols."), depth)
	}
	params, perr := lambdaParams(ps.Items, ps.Pos)
	if perr != nil {
		c.problem(perr)
	}
	body, err := c.closureBody(params, a[1:], depth)
	if err != nil {
		return nil, err
	}
	f := &lambdaForm{params: params, paramNodes: ps.Items, body: body, reuse: optimize && !c.makesClosure(a[1:])}
	if perr != nil {
		return &badLambda{lambdaForm: f, err: perr}, nil
	}
	return f, nil
}

// makesClosure reports whether any list in ns, quoted data included, is a
// lambda or a function define: only those make closures, which keep the
// frame they are made in. Looking at all the syntax errs on the safe side.
// The answer for each list is remembered, so nested forms are looked at
// once.
func (c *compiler) makesClosure(ns []*sexp.Node) bool {
	for _, n := range ns {
		if n.Kind != sexp.List || len(n.Items) == 0 {
			continue
		}
		made, ok := c.closureMemo[n]
		if !ok {
			head := n.Items[0]
			made = head.IsSymbol("lambda") || (head.IsSymbol("define") && len(n.Items) > 1 && n.Items[1].Kind == sexp.List) ||
				c.makesClosure(n.Items)
			if c.closureMemo == nil {
				c.closureMemo = map[*sexp.Node]bool{}
			}
			c.closureMemo[n] = made
		}
		if made {
			return true
		}
	}
	return false
}

// closureBody compiles the body of a closure in the scope of its frame.
func (c *compiler) closureBody(params []string, body []*sexp.Node, depth int) (xs []*expr, err error) {
	err = c.in(c.newScope(params), func() error {
		xs, err = c.exprs(body, depth)
		return err
	})
	return xs, err
}

func (f *lambdaForm) eval(t *thread, x *expr, env *Env) (value.Value, error) {
	c := &Closure{params: f.params, body: f.body, env: env, reuse: f.reuse}
	if f.target != nil {
		env.Define(f.name, c)
	}
	return c, nil
}

func (f *lambdaForm) children() []*expr {
	return f.body
}

// badLambda is a lambda or function define whose parameter list is
// malformed: evaluating it raises err; Check still looks into its body.
type badLambda struct {
	*lambdaForm
	err *Error
}

func (f *badLambda) eval(t *thread, x *expr, env *Env) (value.Value, error) {
	e := *f.err
	return nil, &e
}

func (f *badLambda) children() []*expr {
	return f.body
}

func lambdaParams(items []*sexp.Node, pos sexp.Pos) ([]string, *Error) {
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

// tryForm is (try body... (catch e handler...)). A catch variable that
// cannot be bound raises its error only when an error is caught.
type tryForm struct {
	body     []*expr
	catchVar *sexp.Node
	catchErr *Error
	handler  []*expr
}

func compileTry(c *compiler, x *expr, depth int) (form, error) {
	a := argNodes(x)
	if len(a) == 0 {
		return c.bad(x, newError(x.pos(), KindArity, tryUsage), depth)
	}
	// Every misplaced catch clause is a problem; the first is raised.
	var first *Error
	for _, b := range a[:len(a)-1] {
		if isCatch(b) {
			e := c.problem(newError(b.Pos, KindArity, tryUsage))
			if first == nil {
				first = e
			}
		}
	}
	last := a[len(a)-1]
	if !isCatch(last) || len(last.Items) < 3 || last.Items[1].Kind != sexp.Symbol {
		e := c.problem(newError(x.pos(), KindArity, tryUsage))
		if first == nil {
			first = e
		}
	}
	if first != nil {
		return c.badTry(x, first, depth)
	}
	body, err := c.exprs(a[:len(a)-1], depth)
	if err != nil {
		return nil, err
	}
	var handler []*expr
	err = c.in(c.newScope([]string{last.Items[1].Str}), func() (err error) {
		handler, err = c.exprs(last.Items[2:], depth+1)
		return err
	})
	if err != nil {
		return nil, err
	}
	f := &tryForm{body: body, catchVar: last.Items[1], handler: handler}
	if _, e := bindTarget(last.Items[1], "catch"); e != nil {
		f.catchErr = c.problem(e)
	}
	return f, nil
}

// badTry is the badForm of a malformed try, whose problems are recorded: a
// checker examines the body forms that are not catch clauses.
func (c *compiler) badTry(x *expr, e *Error, depth int) (form, error) {
	var check []int
	for i, a := range argNodes(x) {
		if !isCatch(a) {
			check = append(check, i)
		}
	}
	if check == nil {
		check = []int{len(argNodes(x))}
	}
	return c.badRecorded(x, e, depth, check...)
}

func (f *tryForm) eval(t *thread, x *expr, env *Env) (value.Value, error) {
	v, err := t.evalBody(f.body, env)
	if err == nil {
		return v, nil
	}
	e := asEvalError(err, x.pos())
	if !e.Catchable() {
		return nil, e
	}
	if f.catchErr != nil {
		ce := *f.catchErr
		return nil, &ce
	}
	frame := &Env{parent: env, owner: t.branch}
	frame.Define(f.catchVar.Str, e.AsDict())
	return t.evalBody(f.handler, frame)
}

func (f *tryForm) children() []*expr {
	return append(append([]*expr(nil), f.body...), f.handler...)
}

func isCatch(n *sexp.Node) bool {
	return n.Kind == sexp.List && len(n.Items) > 0 && n.Items[0].IsSymbol("catch")
}
