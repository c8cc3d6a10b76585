package evaluator

import (
	"github.com/evalrun/evalrun/sexp"
	"github.com/evalrun/evalrun/value"
)

// eval evaluates a compiled expression in env.
func (t *thread) eval(x *expr, env *Env) (value.Value, error) {
	switch x.op {
	case opConst:
		return x.val, nil
	case opSymbol:
		return t.lookup(x, env)
	}
	if err := t.tick(x); err != nil {
		return nil, err
	}
	switch x.op {
	case opSpecial:
		return x.form.eval(t, x, env)
	case opPrim:
		if x.prim.retains {
			args, err := t.evalArgs(x.args(), env)
			if err != nil {
				return nil, err
			}
			return t.callPrim(x.prim, x.site, args)
		}
		return t.callPrimOnStack(x, env)
	case opNamed:
		return t.evalNamed(x, env)
	case opApplyExpr:
		f, err := t.eval(x.elems[0], env)
		if err != nil {
			return nil, err
		}
		return t.applySyntax(f, x, env)
	case opApplyString:
		return t.applyNameSyntax(x.name, x, env)
	}
	return nil, errorf(x.elems[0].pos(), KindType, "Operator in list form must be a symbol or another list, got %s: %s",
		x.elems[0].syn.Kind, datum(x.elems[0].syn))
}

// callPrimOnStack evaluates the arguments of a primitive that does not keep
// its argument slice onto the thread's argument stack, calls it, and pops
// them: a primitive call then allocates no slice.
func (t *thread) callPrimOnStack(x *expr, env *Env) (value.Value, error) {
	base := len(t.argStack)
	for _, a := range x.elems[1:] {
		v, err := t.eval(a, env)
		if err != nil {
			t.popArgs(base)
			return nil, err
		}
		t.argStack = append(t.argStack, v)
	}
	top := len(t.argStack)
	if x.fast != fastNone {
		if v, ok := fastInt(x.fast, t.argStack[base], t.argStack[base+1]); ok {
			t.popArgs(base)
			return v, nil
		}
	}
	v, err := t.callPrim(x.prim, x.site, t.argStack[base:top:top])
	t.popArgs(base)
	return v, err
}

// popArgs drops the argument stack back to base, clearing the slots so that
// they keep no values alive.
func (t *thread) popArgs(base int) {
	clear(t.argStack[base:])
	t.argStack = t.argStack[:base]
}

// evalArgs evaluates expressions left to right.
func (t *thread) evalArgs(xs []*expr, env *Env) ([]value.Value, error) {
	if len(xs) == 0 {
		return nil, nil
	}
	vals := make([]value.Value, len(xs))
	for i, a := range xs {
		v, err := t.eval(a, env)
		if err != nil {
			return nil, err
		}
		vals[i] = v
	}
	return vals, nil
}

// evalBody evaluates forms in order and returns the last value (nil for none).
func (t *thread) evalBody(xs []*expr, env *Env) (value.Value, error) {
	var v value.Value = value.List(nil)
	for _, x := range xs {
		var err error
		if v, err = t.eval(x, env); err != nil {
			return nil, err
		}
	}
	return v, nil
}

// lookup evaluates a symbol (SPEC §6.2): from its slot when the compiler
// resolved it, else by name.
func (t *thread) lookup(x *expr, env *Env) (value.Value, error) {
	if v, ok := lookupVar(x, env); ok {
		return v, nil
	}
	if x.name == loopConfigName && t.dyn != nil && t.dyn.loopConfig != nil {
		return t.dyn.loopConfig, nil
	}
	if t.isCallableName(x.name) {
		return value.String(x.name), nil
	}
	err := errorf(x.pos(), KindUnbound, "Unbound symbol: Name '%s' is not defined.", x.name)
	err.Hint = t.nearestName(x.name, env)
	return nil, err
}

// lookupVar returns the value of the variable reference x in env: from
// its slot, from the global frame where it remembers the name is bound, or
// by name.
func lookupVar(x *expr, env *Env) (value.Value, bool) {
	if x.slot == -1 || x.op != opSymbol {
		return env.Lookup(x.name)
	}
	f := env
	for d := x.depth; d > 0 && f != nil; d-- {
		f = f.parent
	}
	switch {
	case f == nil:
	case x.slot >= 0:
		if int(x.slot) < len(f.vals) {
			return f.vals[x.slot], true
		}
	case f.parent == nil: // slotGlobal, and f is the global frame
		if g := x.global.Load(); g != nil && g.env == f && g.idx < len(f.vals) {
			return f.vals[g.idx], true
		}
		if i := f.find(x.name); i >= 0 {
			x.global.Store(&globalRef{env: f, idx: i})
			return f.vals[i], true
		}
		return nil, false
	}
	return env.Lookup(x.name)
}

// loopConfigName is the dynamically scoped variable of the loop forms.
const loopConfigName = "*loop-config*"

// isCallableName reports whether name is a primitive, a template or a tool:
// such a name evaluates to itself as a string when it is not bound.
func (t *thread) isCallableName(name string) bool {
	if _, ok := primitives[name]; ok {
		return true
	}
	if _, ok := valuePrimitives[name]; ok {
		return true
	}
	if t.in.tasks == nil {
		return false
	}
	if _, ok := t.in.tasks.Lookup(name); ok {
		return true
	}
	return t.in.tasks.HasTool(name)
}

// evalNamed evaluates a list form whose head is a symbol that is neither a
// special form nor a primitive: a task call, a tool call or the application of
// a variable (SPEC §6.3 rules 4–7).
func (t *thread) evalNamed(x *expr, env *Env) (value.Value, error) {
	if ts := t.in.tasks; ts != nil {
		if tmpl, ok := ts.Lookup(x.name); ok {
			return t.taskCallSyntax(x.name, tmpl, x, env)
		}
		if ts.HasTool(x.name) {
			return t.toolCallSyntax(x.name, x, env)
		}
	}
	var f value.Value
	var ok bool
	if h := x.elems[0]; h.op == opSymbol {
		f, ok = lookupVar(h, env)
	} else { // a keyword head, which is never bound
		f, ok = env.Lookup(x.name)
	}
	if ok {
		return t.applySyntax(f, x, env)
	}
	if x.name == loopConfigName && t.dyn != nil && t.dyn.loopConfig != nil {
		return t.applySyntax(t.dyn.loopConfig, x, env)
	}
	err := errorf(x.elems[0].pos(), KindUnbound, "Unbound symbol or unrecognized operator: %s", x.name)
	err.Hint = t.nearestName(x.name, env)
	return nil, err
}

// applySyntax applies f to the argument syntax of form x (SPEC §6.4).
func (t *thread) applySyntax(f value.Value, x *expr, env *Env) (value.Value, error) {
	switch f := f.(type) {
	case *Closure:
		base := len(t.argStack)
		for _, a := range x.elems[1:] {
			v, err := t.eval(a, env)
			if err != nil {
				t.popArgs(base)
				return nil, err
			}
			t.argStack = append(t.argStack, v)
		}
		v, err := t.callClosure(f, t.argStack[base:], x.pos())
		t.popArgs(base)
		return v, err
	case value.String:
		return t.applyNameSyntax(string(f), x, env)
	case value.Symbol:
		return t.applyNameSyntax(string(f), x, env)
	}
	return nil, notCallable(x.pos(), f)
}

func notCallable(pos sexp.Pos, f value.Value) *Error {
	return errorf(pos, KindType, "Cannot apply non-callable/non-closure operator: %s (type: %s)", f, f.Type())
}

// applyNameSyntax applies a name to argument syntax: a primitive, a template or
// a tool, each with its own call syntax.
func (t *thread) applyNameSyntax(name string, x *expr, env *Env) (value.Value, error) {
	if p := lookupPrimitive(name); p != nil {
		args, err := t.evalArgs(x.args(), env)
		if err != nil {
			return nil, err
		}
		return t.callPrim(p, x.site, args)
	}
	if ts := t.in.tasks; ts != nil {
		if tmpl, ok := ts.Lookup(name); ok {
			return t.taskCallSyntax(name, tmpl, x, env)
		}
		if ts.HasTool(name) {
			return t.toolCallSyntax(name, x, env)
		}
	}
	return nil, errorf(x.pos(), KindType, "Operator '%s' is not a callable primitive, task, or tool.", name)
}

// apply applies f to argument values (map, filter, reduce, apply,
// parallel-map, loop phases, call). pos is the form doing the applying.
func (t *thread) apply(f value.Value, args []value.Value, pos sexp.Pos) (value.Value, error) {
	// (map range (range 100000)) applies primitives without evaluating a
	// list form; look for a timeout or interrupt here too.
	if err := t.pollCancel(pos); err != nil {
		return nil, err
	}
	switch f := f.(type) {
	case *Closure:
		return t.callClosure(f, args, pos)
	case value.String:
		return t.applyName(string(f), args, pos)
	case value.Symbol:
		return t.applyName(string(f), args, pos)
	}
	return nil, notCallable(pos, f)
}

// applyName applies a primitive, template or tool name to argument values.
func (t *thread) applyName(name string, args []value.Value, pos sexp.Pos) (value.Value, error) {
	if p := lookupPrimitive(name); p != nil {
		return t.callPrim(p, &call{pos: pos}, args)
	}
	if ts := t.in.tasks; ts != nil {
		if tmpl, ok := ts.Lookup(name); ok {
			return t.taskCallValues(name, tmpl, args, pos)
		}
		if ts.HasTool(name) {
			return nil, errorf(pos, KindType, "tool '%s' cannot be applied to positional arguments; use (call \"%s\" dict)", name, name)
		}
	}
	return nil, errorf(pos, KindType, "Operator '%s' is not a callable primitive, task, or tool.", name)
}

// smallFrame is a closure frame with room for a few parameters in the same
// allocation.
type smallFrame struct {
	env  Env
	vals [4]value.Value
}

// callClosure applies a closure to argument values, which it copies into
// the new frame.
func (t *thread) callClosure(c *Closure, args []value.Value, pos sexp.Pos) (value.Value, error) {
	if len(args) != len(c.params) {
		return nil, errorf(pos, KindArity, "Arity mismatch: Closure expects %d arguments, got %d", len(c.params), len(args))
	}
	if err := t.enter(pos); err != nil {
		return nil, err
	}
	if c.reuse && len(args) <= len(smallFrame{}.vals) {
		return t.callRecycled(c, args, pos)
	}
	var frame *Env
	if len(args) <= len(smallFrame{}.vals) {
		sf := &smallFrame{}
		n := copy(sf.vals[:], args)
		sf.env.vals = sf.vals[:n:n]
		frame = &sf.env
	} else {
		frame = &Env{vals: append([]value.Value(nil), args...)}
	}
	frame.parent, frame.names, frame.sharedNames, frame.owner = c.env, c.params, true, t.branch
	v, err := t.evalBody(c.body, frame)
	t.leave()
	if err != nil {
		return nil, addTrace(err, pos)
	}
	return v, nil
}

// callRecycled is callClosure for a closure whose frames cannot outlive
// its calls: the frame comes from the thread's free list and goes back to
// it, cleared, so a call allocates nothing. The caller has checked the
// arity and entered the application.
func (t *thread) callRecycled(c *Closure, args []value.Value, pos sexp.Pos) (value.Value, error) {
	var sf *smallFrame
	if n := len(t.frames); n > 0 {
		sf = t.frames[n-1]
		t.frames = t.frames[:n-1]
	} else {
		sf = &smallFrame{}
	}
	n := copy(sf.vals[:], args)
	sf.env = Env{parent: c.env, names: c.params, vals: sf.vals[:n:n], sharedNames: true, owner: t.branch}
	v, err := t.evalBody(c.body, &sf.env)
	sf.env = Env{}
	sf.vals = [len(smallFrame{}.vals)]value.Value{}
	t.frames = append(t.frames, sf)
	t.leave()
	if err != nil {
		return nil, addTrace(err, pos)
	}
	return v, nil
}

// addTrace records that err passed out of the application at pos.
func addTrace(err error, pos sexp.Pos) error {
	e, ok := err.(*Error)
	if !ok || len(e.Trace) >= maxTrace || !pos.IsValid() {
		return err
	}
	if n := len(e.Trace); n > 0 && e.Trace[n-1] == pos {
		return err // recursion through one call site is reported once
	}
	c := *e
	c.Trace = append(append(make([]sexp.Pos, 0, len(e.Trace)+1), e.Trace...), pos)
	return &c
}
