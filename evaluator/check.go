package evaluator

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/evalrun/evalrun/sexp"
	"github.com/evalrun/evalrun/templates"
)

// The severities of a Diagnostic.
const (
	SeverityError   = sexp.SeverityError
	SeverityWarning = sexp.SeverityWarning
)

// Diagnostic is one problem that Check found: a position, a severity and a
// message. check prints it with DisplaySeverity (SPEC §17.4).
type Diagnostic = sexp.Diagnostic

// CheckOptions configure Check.
type CheckOptions struct {
	// Tasks resolves template and tool names. Nil means that no template or
	// tool is known, except templates defined by defatom forms of the
	// program itself.
	Tasks Tasks
	// Globals are names bound in the global frame before the program runs,
	// such as those of --set options.
	Globals []string
}

// CheckProgram is Check applied to the forms of a compiled program.
func CheckProgram(p *Program, opts CheckOptions) []Diagnostic { return Check(p.Forms, opts) }

// Check examines forms without evaluating them (SPEC §17.4, the language
// part) and returns the problems found, sorted by source position (forms of
// several sources keep the order in which the sources first appear).
//
// Errors are problems that make evaluation fail when the form is reached:
// malformed special forms (argument counts, let bindings, lambda parameters,
// defatom clauses, loop clauses, step policies, try/catch, cond clauses),
// wrong argument counts of primitives, malformed task-call arguments,
// operators that resolve to nothing (SPEC §6.3) and symbols evaluated as
// variables that are not bound (SPEC §6.2), and template calls that pass an
// input the template does not declare or leave out a required input that
// has no default (SPEC §11.2, §17.4) — the calls written with the template's
// name, alias or type:subtype, (atomic-task NAME ...) with a literal name,
// and (call "NAME" (dict "key" expr ...)) with a literal name and dict. The
// template is the one of the latest defatom form met so far (in a lambda
// body, the program's last defatom of that name), else the task system's.
// Warnings are bindings whose names are hidden in operator position by a
// special form, primitive, template or tool, and defatom templates hidden by
// a special form or primitive.
//
// The check is conservative: a variable counts as bound when a define, bind,
// let, let*, parameter, catch variable or one of opts.Globals binds it in
// scope. Code that runs at once must see the binding earlier in its frame
// (define binds for the rest of its body); the body of a lambda runs later,
// so it may also use names that its enclosing frames bind anywhere, such as
// globals defined further down the file, and templates of later defatom
// forms. *loop-config* counts as bound inside lambda bodies, since any
// closure may run as a loop phase.
func Check(forms []*sexp.Node, opts CheckOptions) []Diagnostic {
	c := &checker{
		opts:            opts,
		defatoms:        map[string]bool{},
		allDefatoms:     map[string]bool{},
		defatomTmpls:    map[string]*templates.Template{},
		allDefatomTmpls: map[string]*templates.Template{},
	}
	for _, f := range forms {
		collectDefatoms(f, c.allDefatoms, c.allDefatomTmpls, 0)
	}
	global := &scope{names: map[string]bool{"null": true}, body: forms}
	for _, g := range opts.Globals {
		global.names[g] = true
	}
	env := cenv{sc: global}
	for _, f := range forms {
		c.expr(f, env, 0)
	}
	c.sortDiags(forms)
	return c.diags
}

// checker holds the state of one Check.
type checker struct {
	opts  CheckOptions
	diags []Diagnostic
	// defatoms are the templates defined by defatom forms met so far;
	// allDefatoms those of the whole program.
	defatoms    map[string]bool
	allDefatoms map[string]bool
	// defatomTmpls and allDefatomTmpls hold the templates of those forms
	// that parse, the last definition of a name winning.
	defatomTmpls    map[string]*templates.Template
	allDefatomTmpls map[string]*templates.Template
	tooDeep         bool
}

// scope is one frame of the program as the checker sees it.
type scope struct {
	parent *scope
	// names are the names bound so far, in the order of evaluation.
	names map[string]bool
	// body holds the forms evaluated in this frame and later the names it
	// binds after the current point in other ways (the bindings of let*);
	// all is computed from them when first needed.
	body  []*sexp.Node
	later []string
	all   map[string]bool
	// fn marks a closure's frame: its body runs when the closure is called.
	fn bool
}

// allNames returns the names the frame binds later than now (the names bound
// so far are in names): every define or bind anywhere in its body, and the
// names in later.
func (s *scope) allNames() map[string]bool {
	if s.all == nil {
		s.all = map[string]bool{}
		for _, n := range s.later {
			s.all[n] = true
		}
		collectDefines(s.body, s.all, 0)
	}
	return s.all
}

// cenv is where an expression is checked: its frame and whether it runs later
// than the surrounding top-level code (inside a lambda body).
type cenv struct {
	sc       *scope
	deferred bool
}

// child returns the environment of a new frame (let, try handler, parallel
// branch) evaluated at once.
func (e cenv) child(body []*sexp.Node) cenv {
	return cenv{sc: &scope{parent: e.sc, names: map[string]bool{}, body: body}, deferred: e.deferred}
}

// closure returns the environment of a closure body.
func (e cenv) closure(body []*sexp.Node) cenv {
	return cenv{sc: &scope{parent: e.sc, names: map[string]bool{}, body: body, fn: true}, deferred: true}
}

// bound reports whether name is bound as a variable where e is, the
// dynamically scoped *loop-config* included.
func (c *checker) bound(name string, e cenv) bool {
	return c.boundVar(name, e) || (name == loopConfigName && e.deferred)
}

// boundVar reports whether a frame in scope where e is binds name.
func (c *checker) boundVar(name string, e cenv) bool {
	passedFn := false
	for s := e.sc; s != nil; s = s.parent {
		if s.names[name] {
			return true
		}
		if passedFn && s.allNames()[name] {
			return true
		}
		if s.fn {
			passedFn = true
		}
	}
	return false
}

// isTemplate reports whether name is a template known to the task system or
// defined by a defatom form that has run by the time e runs.
func (c *checker) isTemplate(name string, e cenv) bool {
	if c.defatoms[name] || (e.deferred && c.allDefatoms[name]) {
		return true
	}
	if c.opts.Tasks != nil {
		_, ok := c.opts.Tasks.Lookup(name)
		return ok
	}
	return false
}

// template returns the template a call of name reaches where e is, or nil
// when it is not known (or is a tool): the template of the latest defatom
// form met so far, in a lambda body that of the program's last defatom form
// of that name, else the task system's.
func (c *checker) template(name string, e cenv) *templates.Template {
	if name == "" {
		return nil
	}
	if c.defatoms[name] {
		return c.defatomTmpls[name]
	}
	if e.deferred && c.allDefatoms[name] {
		return c.allDefatomTmpls[name]
	}
	if c.opts.Tasks != nil {
		if t, ok := c.opts.Tasks.Lookup(name); ok {
			return t
		}
	}
	return nil
}

func (c *checker) isTool(name string) bool {
	return c.opts.Tasks != nil && c.opts.Tasks.HasTool(name)
}

func (c *checker) errorf(pos sexp.Pos, format string, args ...any) {
	c.diags = append(c.diags, Diagnostic{Pos: pos, Severity: SeverityError, Msg: fmt.Sprintf(format, args...)})
}

func (c *checker) warnf(pos sexp.Pos, format string, args ...any) {
	c.diags = append(c.diags, Diagnostic{Pos: pos, Severity: SeverityWarning, Msg: fmt.Sprintf(format, args...)})
}

// report adds an evaluator error found statically.
func (c *checker) report(err error) {
	if err == nil {
		return
	}
	e := asEvalError(err, sexp.Pos{})
	c.diags = append(c.diags, Diagnostic{Pos: e.Pos, Severity: SeverityError, Msg: e.Msg})
}

// sortDiags orders the diagnostics by source (in order of first appearance
// among forms) and offset.
func (c *checker) sortDiags(forms []*sexp.Node) {
	order := map[*sexp.Source]int{}
	for _, f := range forms {
		if _, ok := order[f.Pos.Src]; !ok {
			order[f.Pos.Src] = len(order)
		}
	}
	slices.SortStableFunc(c.diags, func(a, b Diagnostic) int {
		if a.Pos.Src != b.Pos.Src {
			return cmp.Compare(order[a.Pos.Src], order[b.Pos.Src])
		}
		return cmp.Compare(a.Pos.Off, b.Pos.Off)
	})
}

// expr checks one expression.
func (c *checker) expr(n *sexp.Node, e cenv, depth int) {
	if depth > maxNesting {
		if !c.tooDeep {
			c.tooDeep = true
			c.errorf(n.Pos, "expression nesting too deep (more than %d levels)", maxNesting)
		}
		return
	}
	switch n.Kind {
	case sexp.Symbol:
		c.variable(n, e)
	case sexp.List:
		if len(n.Items) > 0 {
			c.form(n, e, depth)
		}
	}
}

// exprs checks expressions in order.
func (c *checker) exprs(ns []*sexp.Node, e cenv, depth int) {
	for _, n := range ns {
		c.expr(n, e, depth)
	}
}

// variable checks a symbol evaluated as a variable (SPEC §6.2).
func (c *checker) variable(n *sexp.Node, e cenv) {
	name := n.Str
	if strings.HasPrefix(name, ":") || c.bound(name, e) || IsPrimitive(name) || c.isTemplate(name, e) || c.isTool(name) {
		return
	}
	c.errorf(n.Pos, "Unbound symbol: Name '%s' is not defined.", name)
	c.diags[len(c.diags)-1].Hint = c.nearestName(name, e)
}

// form checks a non-empty list form (SPEC §6.3).
func (c *checker) form(n *sexp.Node, e cenv, depth int) {
	head, args := n.Items[0], n.Items[1:]
	d := depth + 1
	switch head.Kind {
	case sexp.Symbol:
		name := head.Str
		switch {
		case IsSpecialForm(name):
			c.special(name, n, e, d)
		case primitives[name] != nil:
			c.primitiveCall(primitives[name], n, e, d)
		case c.isTemplate(name, e) || c.isTool(name):
			c.callArgs(name, c.template(name, e), n, n.Items[1:], e, d)
		case c.bound(name, e):
			c.exprs(args, e, d)
		default:
			c.errorf(head.Pos, "Unbound symbol or unrecognized operator: %s", name)
			c.diags[len(c.diags)-1].Hint = c.nearestName(name, e)
			c.lenientArgs(args, e, d)
		}
	case sexp.List:
		c.expr(head, e, d)
		c.exprs(args, e, d)
	case sexp.String:
		name := head.Str
		switch {
		case lookupPrimitive(name) != nil:
			c.primitiveCall(lookupPrimitive(name), n, e, d)
		case c.isTemplate(name, e) || c.isTool(name):
			c.callArgs(name, c.template(name, e), n, n.Items[1:], e, d)
		default:
			c.errorf(n.Pos, "Operator '%s' is not a callable primitive, task, or tool.", name)
			c.lenientArgs(args, e, d)
		}
	default:
		c.errorf(head.Pos, "Operator in list form must be a symbol or another list, got %s: %s", head.Kind, datum(head))
		c.exprs(args, e, d)
	}
}

// primitiveCall checks the argument count of a primitive and its arguments.
func (c *checker) primitiveCall(p *primitive, n *sexp.Node, e cenv, depth int) {
	args := n.Items[1:]
	if k := len(args); k < p.min || (p.max >= 0 && k > p.max) {
		c.report(arityError(p, &call{pos: n.Pos}, k))
	}
	if p.name == "call" {
		c.checkCallPrimitive(n, e)
	}
	c.exprs(args, e, depth)
}

// checkCallPrimitive checks the inputs of (call "NAME") and
// (call "NAME" (dict "key" expr ...)) when NAME is a literal naming a
// template and every key of the dict form is a string literal.
func (c *checker) checkCallPrimitive(n *sexp.Node, e cenv) {
	args := n.Items[1:]
	if len(args) == 0 || len(args) > 2 || args[0].Kind != sexp.String {
		return
	}
	name := args[0].Str
	t := c.template(name, e)
	if t == nil {
		return
	}
	var given []givenInput
	if len(args) == 2 {
		d := args[1]
		if d.Kind != sexp.List || d.Quoted || len(d.Items) == 0 || !d.Items[0].IsSymbol("dict") || len(d.Items)%2 == 0 {
			return
		}
		for i := 1; i < len(d.Items); i += 2 {
			k := d.Items[i]
			if k.Kind != sexp.String {
				return
			}
			given = append(given, givenInput{name: k.Str, pos: k.Pos})
		}
	}
	c.checkInputs(name, t, given, n.Pos)
}

// givenInput is one named argument of a template call: its name and where
// it is written.
type givenInput struct {
	name string
	pos  sexp.Pos
}

// checkInputs checks the named arguments of a call of template t (SPEC
// §11.2): with declared inputs, every name must be an input; every required
// input without a default must be given. The reserved keys files, context
// and history_config are not inputs. pos is the call form's position.
func (c *checker) checkInputs(name string, t *templates.Template, given []givenInput, pos sexp.Pos) {
	have := map[string]bool{}
	var unknown []string
	var unknownPos sexp.Pos
	for _, g := range given {
		switch g.name {
		case "files", "context", "history_config":
			continue
		}
		have[g.name] = true
		if _, ok := t.InputNamed(g.name); t.InputsDeclared && !ok {
			if len(unknown) == 0 {
				unknownPos = g.pos
			}
			unknown = append(unknown, g.name)
		}
	}
	if len(unknown) > 0 {
		c.errorf(unknownPos, "Unknown parameter(s) for task '%s': %s", name, strings.Join(unknown, ", "))
	}
	var missing []string
	for _, in := range t.Inputs {
		if in.Required && in.Default == nil && !have[in.Name] {
			missing = append(missing, in.Name)
		}
	}
	if len(missing) > 0 {
		c.errorf(pos, "Missing required input(s) for task '%s': %s", name, strings.Join(missing, ", "))
	}
}

// lenientArgs checks the arguments of a form whose operator is unknown: a
// (name expr) pair may be a named task argument, so only its expression is
// checked.
func (c *checker) lenientArgs(args []*sexp.Node, e cenv, depth int) {
	for _, a := range args {
		if a.Kind == sexp.List && len(a.Items) == 2 && a.Items[0].Kind == sexp.Symbol && !a.Quoted {
			c.expr(a.Items[1], e, depth)
			continue
		}
		if a.Kind == sexp.Symbol && strings.HasPrefix(a.Str, ":") {
			continue
		}
		c.expr(a, e, depth)
	}
}

// callArgs checks the named arguments of a task or tool call (SPEC §11.1)
// and, when tmpl is the template called, its inputs (SPEC §11.2). n is the
// call form.
func (c *checker) callArgs(name string, tmpl *templates.Template, n *sexp.Node, args []*sexp.Node, e cenv, depth int) {
	xs := make([]*expr, len(args))
	for i, a := range args {
		x, err := compile(a)
		if err != nil {
			c.report(err)
			return
		}
		xs[i] = x
	}
	parsed, err := parseCallArgs(name, xs)
	if err != nil {
		c.report(err)
		c.lenientArgs(args, e, depth)
		return
	}
	if tmpl != nil {
		given := make([]givenInput, len(parsed))
		for i, a := range parsed {
			given[i] = givenInput{name: a.name, pos: a.pos}
		}
		c.checkInputs(name, tmpl, given, n.Pos)
	}
	for _, a := range parsed {
		c.expr(a.x.syn, e, depth)
	}
}

// bind records a binding of name node n in the current frame, warning when
// the name is hidden in operator position.
func (c *checker) bind(n *sexp.Node, e cenv) {
	if n.Kind != sexp.Symbol || strings.HasPrefix(n.Str, ":") {
		return
	}
	name := n.Str
	e.sc.names[name] = true
	switch {
	case IsSpecialForm(name):
		c.warnf(n.Pos, "binding '%s' has the name of a special form; (%s ...) is still the special form", name, name)
	case IsPrimitive(name):
		c.warnf(n.Pos, "binding '%s' has the name of a primitive; (%s ...) still calls the primitive", name, name)
	case c.allDefatoms[name] || c.isTemplate(name, e):
		c.warnf(n.Pos, "binding '%s' has the name of a template; (%s ...) still calls the template", name, name)
	case c.isTool(name):
		c.warnf(n.Pos, "binding '%s' has the name of a tool; (%s ...) still calls the tool", name, name)
	}
}

// special checks a special form (SPEC §7) with the messages the evaluator
// gives when it meets the same problem.
func (c *checker) special(name string, n *sexp.Node, e cenv, depth int) {
	args := n.Items[1:]
	switch name {
	case "quote":
		if len(args) != 1 {
			c.errorf(n.Pos, "'quote' requires exactly one argument: (quote expression)")
		}
	case "if":
		if len(args) != 3 {
			c.errorf(n.Pos, "'if' requires 3 arguments: (if condition then_branch else_branch)")
		}
		c.exprs(args, e, depth)
	case "when", "unless":
		if len(args) < 2 {
			c.errorf(n.Pos, "'%s' requires a condition and at least one body expression: (%s condition body...)", name, name)
		}
		c.exprs(args, e, depth)
	case "cond":
		c.checkCond(n, e, depth)
	case "and", "or", "progn", "begin":
		c.exprs(args, e, depth)
	case "let", "let*":
		c.checkLet(name, n, e, depth)
	case "define":
		c.checkDefine(n, e, depth)
	case "bind":
		c.checkBind(n, e, depth)
	case "set!":
		c.checkSet(n, e, depth)
	case "lambda":
		c.checkLambda(n, e, depth)
	case "try":
		c.checkTry(n, e, depth)
	case "loop":
		c.checkLoop(n, e, depth)
	case "director-evaluator-loop", "iterative-loop":
		c.checkLoopForm(name, n, e, depth)
	case "defatom":
		c.checkDefatom(n)
	case "step":
		c.checkStep(n, e, depth)
	case "with-context":
		if len(args) < 2 {
			c.errorf(n.Pos, "'with-context' requires a context and at least one body expression: (with-context CTX body...)")
		}
		if len(args) > 0 {
			switch a := args[0]; a.Kind {
			case sexp.Int, sexp.Float, sexp.Bool:
				c.errorf(a.Pos, "with-context: expected a get-context result, a match, a path or a list of them, got %s", a.Kind)
			}
		}
		c.exprs(args, e, depth)
	case "parallel":
		for _, a := range args {
			c.expr(a, e.child([]*sexp.Node{a}), depth)
		}
	case "atomic-task", "direct-tool":
		if len(args) == 0 {
			c.errorf(n.Pos, "'%s' requires a name: (%s NAME (param expr)...)", name, name)
			return
		}
		if k := args[0].Kind; k != sexp.Symbol && k != sexp.String {
			c.expr(args[0], e, depth)
		}
		var tmpl *templates.Template
		if name == "atomic-task" {
			tmpl = c.template(nameOf(args[0]), e)
		}
		c.callArgs(nameOf(args[0]), tmpl, n, args[1:], e, depth)
	case "get-context", "get_context":
		c.checkGetContext(n, e, depth)
	default:
		// A special form the checker does not know: its arguments are not
		// necessarily expressions, so nothing is said about them.
	}
}

// nameOf returns the name a symbol or string literal gives, else "".
func nameOf(n *sexp.Node) string {
	if n.Kind == sexp.Symbol || n.Kind == sexp.String {
		return n.Str
	}
	return ""
}

func (c *checker) checkCond(n *sexp.Node, e cenv, depth int) {
	clauses := n.Items[1:]
	for i, cl := range clauses {
		if cl.Kind != sexp.List || len(cl.Items) == 0 {
			c.errorf(cl.Pos, "Invalid 'cond' clause: expected (test body...), got %s", datum(cl))
			continue
		}
		if cl.Items[0].IsSymbol("else") {
			if i != len(clauses)-1 {
				c.errorf(cl.Pos, "'else' must be the last cond clause")
			}
		} else {
			c.expr(cl.Items[0], e, depth+1)
		}
		c.exprs(cl.Items[1:], e, depth+1)
	}
}

func (c *checker) checkLet(name string, n *sexp.Node, e cenv, depth int) {
	args := n.Items[1:]
	if len(args) < 2 || (args[0].Kind != sexp.List && args[0].Kind != sexp.Nil) {
		c.errorf(n.Pos, "'%s' %s", name, letUsage)
		return
	}
	inner := e.child(args[1:])
	if name == "let*" {
		// A closure made in a binding of let* captures the new frame, so
		// its body sees the later bindings too.
		for _, b := range args[0].Items {
			if b.Kind == sexp.List && len(b.Items) == 2 && b.Items[0].Kind == sexp.Symbol {
				inner.sc.later = append(inner.sc.later, b.Items[0].Str)
			}
		}
	}
	for _, b := range args[0].Items {
		if b.Kind != sexp.List || len(b.Items) != 2 || b.Items[0].Kind != sexp.Symbol {
			c.errorf(b.Pos, "Invalid '%s' binding format: expected (symbol expression), got %s", name, datum(b))
			continue
		}
		if err := checkBindable(b.Items[0]); err != nil {
			c.report(err)
			continue
		}
		if name == "let*" {
			c.expr(b.Items[1], inner, depth+1)
		} else {
			c.expr(b.Items[1], e, depth+1)
		}
		c.bind(b.Items[0], inner)
	}
	c.exprs(args[1:], inner, depth)
}

func (c *checker) checkDefine(n *sexp.Node, e cenv, depth int) {
	args := n.Items[1:]
	if len(args) >= 1 && args[0].Kind == sexp.List && len(args[0].Items) > 0 {
		// (define (f p...) body...)
		sig := args[0]
		if _, err := bindTarget(sig.Items[0], "define"); err != nil {
			c.report(err)
		} else {
			c.bind(sig.Items[0], e)
		}
		if len(args) < 2 {
			c.errorf(n.Pos, "'define' requires a body for the function: (define (name params...) body...)")
			return
		}
		c.closureBody(sig.Items[1:], sig.Pos, args[1:], e, depth)
		return
	}
	if len(args) != 2 {
		c.errorf(n.Pos, "'define' requires a symbol and a value expression: (define name expression) or (define (name params...) body...)")
		if len(args) > 1 {
			c.exprs(args[1:], e, depth)
		}
		if len(args) > 0 && args[0].Kind == sexp.Symbol {
			c.bind(args[0], e)
		}
		return
	}
	_, err := bindTarget(args[0], "define")
	c.report(err)
	c.expr(args[1], e, depth)
	if err == nil {
		c.bind(args[0], e)
	}
}

func (c *checker) checkBind(n *sexp.Node, e cenv, depth int) {
	args := n.Items[1:]
	if len(args) != 2 || (args[0].Kind != sexp.Symbol && args[0].Kind != sexp.Bool && args[0].Kind != sexp.Nil) {
		c.errorf(n.Pos, "'bind' requires a symbol and a value expression: (bind variable_symbol expression)")
		if len(args) > 1 {
			c.exprs(args[1:], e, depth)
		}
		return
	}
	_, err := bindTarget(args[0], "bind")
	c.report(err)
	c.expr(args[1], e, depth)
	if err == nil {
		c.bind(args[0], e)
	}
}

func (c *checker) checkSet(n *sexp.Node, e cenv, depth int) {
	args := n.Items[1:]
	if len(args) != 2 {
		c.errorf(n.Pos, "'set!' requires exactly two arguments: a symbol and a new value expression.")
		if len(args) > 1 {
			c.exprs(args[1:], e, depth)
		}
		return
	}
	target := args[0]
	if target.Kind != sexp.Symbol {
		c.errorf(target.Pos, "'set!' first argument must be a symbol, got %s.", target.Kind)
		c.expr(args[1], e, depth)
		return
	}
	c.expr(args[1], e, depth)
	if !c.boundVar(target.Str, e) {
		c.errorf(target.Pos, "Cannot 'set!' unbound symbol: %s", target.Str)
	}
}

func (c *checker) checkLambda(n *sexp.Node, e cenv, depth int) {
	args := n.Items[1:]
	if len(args) < 2 {
		c.errorf(n.Pos, "'lambda' requires a parameter list and at least one body expression.")
		return
	}
	ps := args[0]
	if ps.Kind != sexp.List && ps.Kind != sexp.Nil {
		c.errorf(ps.Pos, "Lambda parameter definition must be a list of symbols.")
		return
	}
	c.closureBody(ps.Items, ps.Pos, args[1:], e, depth)
}

// closureBody checks a parameter list and a closure body, which runs later in
// a new frame binding the parameters.
func (c *checker) closureBody(params []*sexp.Node, pos sexp.Pos, body []*sexp.Node, e cenv, depth int) {
	if _, err := lambdaParams(params, pos); err != nil {
		c.report(err)
	}
	inner := e.closure(body)
	for _, p := range params {
		c.bind(p, inner)
	}
	c.exprs(body, inner, depth)
}

func (c *checker) checkTry(n *sexp.Node, e cenv, depth int) {
	args := n.Items[1:]
	if len(args) == 0 {
		c.errorf(n.Pos, tryUsage)
		return
	}
	body := args[:len(args)-1]
	for _, b := range body {
		if isCatch(b) {
			c.errorf(b.Pos, tryUsage)
		}
	}
	last := args[len(args)-1]
	if !isCatch(last) || len(last.Items) < 3 || last.Items[1].Kind != sexp.Symbol {
		c.errorf(n.Pos, tryUsage)
		if !isCatch(last) {
			body = args
		}
		last = nil
	}
	for _, b := range body {
		if !isCatch(b) {
			c.expr(b, e, depth)
		}
	}
	if last == nil {
		return
	}
	if err := checkBindable(last.Items[1]); err != nil {
		c.report(err)
	}
	handler := e.child(last.Items[2:])
	c.bind(last.Items[1], handler)
	c.exprs(last.Items[2:], handler, depth+1)
}

func (c *checker) checkLoop(n *sexp.Node, e cenv, depth int) {
	args := n.Items[1:]
	if len(args) != 2 {
		c.errorf(n.Pos, "Loop requires exactly 2 arguments: count_expression and body_expression. Got %d.", len(args))
	}
	if len(args) > 0 {
		switch cnt := args[0]; {
		case cnt.Kind == sexp.Int && cnt.Int < 0:
			c.errorf(cnt.Pos, "Loop count must be non-negative, got %d.", cnt.Int)
		case isLiteral(cnt) && cnt.Kind != sexp.Int:
			c.errorf(cnt.Pos, "Loop count must evaluate to an integer, got %s.", nodeValue(cnt).Type())
		}
	}
	c.exprs(args, e, depth)
}

// isLiteral reports whether n is a literal atom: a number, string, boolean,
// nil or keyword.
func isLiteral(n *sexp.Node) bool {
	switch n.Kind {
	case sexp.Int, sexp.Float, sexp.String, sexp.Bool, sexp.Nil:
		return true
	case sexp.Symbol:
		return strings.HasPrefix(n.Str, ":")
	}
	return false
}

// phaseClauses are the clauses of the loop forms that must evaluate to
// something callable.
var phaseClauses = []string{"director", "executor", "evaluator", "controller", "validator", "command-generator"}

func (c *checker) checkLoopForm(name string, n *sexp.Node, e cenv, depth int) {
	x, err := compile(n)
	if err != nil {
		c.report(err)
		return
	}
	var cl loopClauses
	if name == "director-evaluator-loop" {
		cl, err = parseLoopClauses(x, directorClauses, directorClauses)
	} else {
		cl, err = parseLoopClauses(x, iterativeKnown, iterativeNeeded)
	}
	if err != nil {
		c.report(err)
		c.lenientLoopClauses(n.Items[1:], e, depth)
		return
	}
	if name == "iterative-loop" {
		_, hasTest := cl["test-command"]
		_, hasGen := cl["command-generator"]
		switch {
		case hasTest && hasGen:
			c.errorf(n.Pos, "iterative-loop: give either 'test-command' or 'command-generator', not both")
		case !hasTest && !hasGen:
			c.errorf(n.Pos, "iterative-loop: give either 'test-command' or 'command-generator'")
		}
	}
	// Clause expressions are evaluated in the order of the form.
	names := make([]string, 0, len(cl))
	for k := range cl {
		names = append(names, k)
	}
	slices.SortFunc(names, func(a, b string) int { return cmp.Compare(cl[a].syn.Pos.Off, cl[b].syn.Pos.Off) })
	for _, k := range names {
		syn := cl[k].syn
		switch {
		case k == "max-iterations" && isLiteral(syn) && (syn.Kind != sexp.Int || syn.Int < 0):
			v := nodeValue(syn)
			c.errorf(syn.Pos, "%s: 'max-iterations' must evaluate to a non-negative integer, got %s (type: %s).", name, v, v.Type())
		case slices.Contains(phaseClauses, k) && isLiteral(syn) && syn.Kind != sexp.String:
			v := nodeValue(syn)
			c.errorf(syn.Pos, "%s: '%s' expression must evaluate to a callable S-expression function, got %s: %s", name, k, v.Type(), v)
		}
		c.expr(syn, e, depth)
	}
}

// lenientLoopClauses checks the clause expressions of a malformed loop form.
func (c *checker) lenientLoopClauses(args []*sexp.Node, e cenv, depth int) {
	flat := len(args) > 0
	for i := 0; i < len(args); i += 2 {
		if args[i].Kind != sexp.Symbol {
			flat = false
		}
	}
	for i, a := range args {
		switch {
		case flat:
			if i%2 == 1 {
				c.expr(a, e, depth)
			}
		case a.Kind == sexp.List && len(a.Items) == 2 && a.Items[0].Kind == sexp.Symbol:
			c.expr(a.Items[1], e, depth)
		}
	}
}

func (c *checker) checkDefatom(n *sexp.Node) {
	tmpl, err := parseDefatom(n)
	c.report(err)
	if len(n.Items) < 2 || n.Items[1].Kind != sexp.Symbol {
		return
	}
	nameNode := n.Items[1]
	name := nameNode.Str
	c.defatoms[name] = true
	c.defatomTmpls[name] = tmpl // nil when the form is malformed
	switch {
	case IsSpecialForm(name):
		c.warnf(nameNode.Pos, "template '%s' is hidden by the special form '%s'; use (call \"%s\" ...)", name, name, name)
	case IsPrimitive(name):
		c.warnf(nameNode.Pos, "template '%s' is hidden by the primitive '%s'; use (call \"%s\" ...)", name, name, name)
	case c.isTool(name):
		c.warnf(nameNode.Pos, "template '%s' has the name of a tool; (%s ...) calls the template", name, name)
	}
}

func (c *checker) checkStep(n *sexp.Node, e cenv, depth int) {
	args := n.Items[1:]
	const usage = "'step' requires a name and an expression: (step NAME EXPR [:on-error POLICY])"
	if len(args) < 2 {
		c.errorf(n.Pos, usage)
		c.exprs(args, e, depth)
		return
	}
	if a := args[0]; isLiteral(a) && a.Kind != sexp.String && a.Kind != sexp.Symbol {
		c.errorf(a.Pos, "step name must be a string, got %s", nodeValue(a).Type())
	}
	c.exprs(args[:2], e, depth)
	rest := args[2:]
	if len(rest) == 0 {
		return
	}
	if !rest[0].IsSymbol(":on-error") || len(rest) < 2 || len(rest) > 3 {
		c.errorf(n.Pos, usage)
		return
	}
	pol := rest[1]
	var count *sexp.Node
	switch {
	case pol.Kind == sexp.Symbol && len(rest) == 2:
		switch strings.ReplaceAll(pol.Str, "_", "-") {
		case "fail", "skip-optional", "retry-once":
		default:
			c.errorf(pol.Pos, "step: unknown :on-error policy '%s' %s", pol.Str, stepPolicyHelp)
		}
		return
	case pol.IsSymbol("retry") && len(rest) == 3:
		count = rest[2]
	case pol.Kind == sexp.List && len(pol.Items) == 2 && pol.Items[0].IsSymbol("retry") && len(rest) == 2:
		count = pol.Items[1]
	default:
		texts := make([]string, len(rest)-1)
		for i, r := range rest[1:] {
			texts[i] = datum(r).String()
		}
		c.errorf(pol.Pos, "step: unknown :on-error policy '%s' %s", strings.Join(texts, " "), stepPolicyHelp)
		return
	}
	if isLiteral(count) && (count.Kind != sexp.Int || count.Int < 1) {
		c.errorf(count.Pos, "step: unknown :on-error policy 'retry %s' %s", nodeValue(count), stepPolicyHelp)
	}
	c.expr(count, e, depth)
}

// getContextKeys are the parameter names of get-context (SPEC §8.7).
var getContextKeys = []string{"query", "matching_strategy", "context-strategy", "context_strategy", "top_k", "inputs", "templateDescription"}

func (c *checker) checkGetContext(n *sexp.Node, e cenv, depth int) {
	for i, a := range n.Items[1:] {
		if a.Kind == sexp.List && len(a.Items) == 2 && a.Items[0].Kind == sexp.Symbol && slices.Contains(getContextKeys, a.Items[0].Str) {
			c.expr(a.Items[1], e, depth)
			continue
		}
		if i == 0 {
			c.expr(a, e, depth)
			continue
		}
		c.errorf(a.Pos, "Unknown '%s' parameter: %s", n.Items[0].Str, datum(a))
	}
}

// collectDefines adds to names every name that a define or bind among forms
// binds in the frame the forms are evaluated in: it does not look into the
// bodies of lambda, let, let*, try handlers, parallel branches or quoted
// data, which have frames (or values) of their own.
func collectDefines(forms []*sexp.Node, names map[string]bool, depth int) {
	if depth > maxNesting {
		return
	}
	for _, n := range forms {
		if n.Kind != sexp.List || len(n.Items) == 0 {
			continue
		}
		head, args := n.Items[0], n.Items[1:]
		if head.Kind != sexp.Symbol {
			collectDefines(n.Items, names, depth+1)
			continue
		}
		switch head.Str {
		case "quote", "lambda", "parallel", "defatom":
			continue
		case "define", "bind":
			if len(args) == 0 {
				continue
			}
			if t := args[0]; t.Kind == sexp.Symbol {
				names[t.Str] = true
				collectDefines(args[1:], names, depth+1)
			} else if head.Str == "define" && t.Kind == sexp.List && len(t.Items) > 0 && t.Items[0].Kind == sexp.Symbol {
				names[t.Items[0].Str] = true
			}
			continue
		case "let", "let*":
			if head.Str == "let" && len(args) > 0 && args[0].Kind == sexp.List {
				for _, b := range args[0].Items {
					if b.Kind == sexp.List && len(b.Items) == 2 {
						collectDefines(b.Items[1:], names, depth+1)
					}
				}
			}
			continue
		case "try":
			for _, a := range args {
				if !isCatch(a) {
					collectDefines([]*sexp.Node{a}, names, depth+1)
				}
			}
			continue
		}
		collectDefines(n.Items, names, depth+1)
	}
}

// collectDefatoms adds the names of all defatom forms anywhere in n, and
// the templates of those that parse (the last one of a name winning).
func collectDefatoms(n *sexp.Node, names map[string]bool, tmpls map[string]*templates.Template, depth int) {
	if n.Kind != sexp.List || len(n.Items) == 0 || depth > maxNesting {
		return
	}
	head := n.Items[0]
	if head.IsSymbol("quote") {
		return
	}
	if head.IsSymbol("defatom") && len(n.Items) > 1 && n.Items[1].Kind == sexp.Symbol {
		names[n.Items[1].Str] = true
		if t, err := parseDefatom(n); err == nil {
			tmpls[t.Name] = t
		} else {
			delete(tmpls, n.Items[1].Str)
		}
		return
	}
	for _, it := range n.Items {
		collectDefatoms(it, names, tmpls, depth+1)
	}
}
