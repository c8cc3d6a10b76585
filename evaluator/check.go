package evaluator

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/evalrun/evalrun/internal/suggest"
	"github.com/evalrun/evalrun/sexp"
	"github.com/evalrun/evalrun/templates"
	"github.com/evalrun/evalrun/value"
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

// CheckProgram is Check applied to a compiled program.
func CheckProgram(p *Program, opts CheckOptions) []Diagnostic {
	return checkCompiled(p.exprs, p.problems, opts)
}

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
	p, problems := compileForCheck(forms)
	return checkCompiled(p, problems, opts)
}

// compileForCheck compiles forms, collecting the shape errors of their
// special forms; a form nested too deep to compile is left out, its error
// reported once.
func compileForCheck(forms []*sexp.Node) ([]*expr, []*Error) {
	c := newProgramCompiler()
	var xs []*expr
	var tooDeep *Error
	for _, f := range forms {
		x, err := c.compile(f, 0)
		if err != nil {
			if tooDeep == nil {
				tooDeep = asEvalError(err, f.Pos)
			}
			continue
		}
		xs = append(xs, x)
	}
	c.resolve()
	if tooDeep != nil {
		c.problems = append(c.problems, tooDeep)
	}
	return xs, c.problems
}

// checkCompiled is Check on compiled forms and the shape errors found when
// compiling them.
func checkCompiled(xs []*expr, problems []*Error, opts CheckOptions) []Diagnostic {
	c := &checker{
		opts:            opts,
		defatoms:        map[string]bool{},
		allDefatoms:     map[string]bool{},
		defatomTmpls:    map[string]*templates.Template{},
		allDefatomTmpls: map[string]*templates.Template{},
	}
	for _, e := range problems {
		c.report(e)
	}
	for _, x := range xs {
		collectDefatoms(x, c.allDefatoms, c.allDefatomTmpls)
	}
	global := &scope{names: map[string]bool{"null": true}, body: xs}
	for _, g := range opts.Globals {
		global.names[g] = true
	}
	env := cenv{sc: global}
	for _, x := range xs {
		c.expr(x, env)
	}
	c.sortDiags(xs)
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
}

// scope is one frame of the program as the checker sees it.
type scope struct {
	parent *scope
	// names are the names bound so far, in the order of evaluation.
	names map[string]bool
	// body holds the forms evaluated in this frame and later the names it
	// binds after the current point in other ways (the bindings of let*);
	// all is computed from them when first needed.
	body  []*expr
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
		collectDefines(s.body, s.all)
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
func (e cenv) child(body []*expr) cenv {
	return cenv{sc: &scope{parent: e.sc, names: map[string]bool{}, body: body}, deferred: e.deferred}
}

// closure returns the environment of a closure body.
func (e cenv) closure(body []*expr) cenv {
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
func (c *checker) sortDiags(forms []*expr) {
	order := map[*sexp.Source]int{}
	for _, f := range forms {
		if _, ok := order[f.pos().Src]; !ok {
			order[f.pos().Src] = len(order)
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
func (c *checker) expr(x *expr, e cenv) {
	switch x.op {
	case opConst:
	case opSymbol:
		c.variable(x.syn, e)
	case opSpecial:
		c.special(x, e)
	default:
		c.form(x, e)
	}
}

// exprs checks expressions in order.
func (c *checker) exprs(xs []*expr, e cenv) {
	for _, x := range xs {
		c.expr(x, e)
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

// form checks a list form that is not a special form (SPEC §6.3).
func (c *checker) form(x *expr, e cenv) {
	head, args := x.elems[0], x.args()
	switch x.op {
	case opPrim:
		c.primitiveCall(x, e)
	case opNamed:
		name := x.name
		switch {
		case c.isTemplate(name, e) || c.isTool(name):
			c.callArgs(name, c.template(name, e), x, e)
		case c.bound(name, e):
			c.exprs(args, e)
		default:
			c.errorf(head.pos(), "Unbound symbol or unrecognized operator: %s", name)
			hint := c.nearestName(name, e)
			c.diags[len(c.diags)-1].Hint = hint
			// A misspelt special form ((defin x 1), (lett ((a 1)) a)) has
			// arguments in that form's syntax: checked as a call's, they
			// would only add errors that the fix removes.
			if specialForms[hint] == nil {
				c.lenientArgs(args, e)
			}
		}
	case opApplyExpr:
		c.expr(head, e)
		c.exprs(args, e)
	case opApplyString:
		name := x.name
		switch {
		case lookupPrimitive(name) != nil:
			c.primitiveCall(x, e)
		case c.isTemplate(name, e) || c.isTool(name):
			c.callArgs(name, c.template(name, e), x, e)
		default:
			c.errorf(x.pos(), "Operator '%s' is not a callable primitive, task, or tool.", name)
			c.lenientArgs(args, e)
		}
	default:
		c.errorf(head.pos(), "Operator in list form must be a symbol or another list, got %s: %s", head.syn.Kind, datum(head.syn))
		c.exprs(args, e)
	}
}

// primitiveCall checks the argument count of a primitive and its arguments.
func (c *checker) primitiveCall(x *expr, e cenv) {
	p := lookupPrimitive(x.name)
	args := x.args()
	if k := len(args); k < p.min || (p.max >= 0 && k > p.max) {
		c.report(arityError(p, &call{pos: x.pos()}, k))
	}
	if p.name == "call" {
		c.checkCallPrimitive(x.syn, e)
	}
	c.exprs(args, e)
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

// lenientArgs checks the arguments of a form whose operator is unknown: a
// (name expr) pair may be a named task argument, so only its expression is
// checked.
func (c *checker) lenientArgs(args []*expr, e cenv) {
	for _, a := range args {
		n := a.syn
		if n.Kind == sexp.List && len(n.Items) == 2 && n.Items[0].Kind == sexp.Symbol && !n.Quoted {
			if v := pairValue(a); v != nil {
				c.expr(v, e)
			} else {
				c.expr(compileLenient(n.Items[1]), e)
			}
			continue
		}
		if n.Kind == sexp.Symbol && strings.HasPrefix(n.Str, ":") {
			continue
		}
		c.expr(a, e)
	}
}

// compileLenient compiles n alone, for a checker that must look at it; a
// node too deep to compile stands for nil.
func compileLenient(n *sexp.Node) *expr {
	x, err := compile(n)
	if err != nil {
		return &expr{op: opConst, syn: n, val: value.List(nil)}
	}
	return x
}

// callArgs checks the named arguments of the task or tool call x of name
// (SPEC §11.1) and, when tmpl is the template called, its inputs (SPEC
// §11.2).
func (c *checker) callArgs(name string, tmpl *templates.Template, x *expr, e cenv) {
	parsed, err := x.namedArgs(name)
	if err != nil {
		c.report(err)
		c.lenientArgs(x.args(), e)
		return
	}
	if tmpl != nil {
		given := make([]givenInput, len(parsed))
		for i, a := range parsed {
			given[i] = givenInput{name: a.name, pos: a.pos}
		}
		c.checkInputs(name, tmpl, given, x.pos())
	}
	for _, a := range parsed {
		c.expr(a.x, e)
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

// special checks the scopes of a special form (SPEC §7); its shape errors
// were found when it was compiled.
func (c *checker) special(x *expr, e cenv) {
	switch f := x.form.(type) {
	case *badForm:
		c.exprs(f.check, e)
		if f.bind != nil && f.bind.Kind == sexp.Symbol {
			c.bind(f.bind, e)
		}
	case *condForm:
		for _, cl := range f.clauses {
			if cl.test != nil {
				c.expr(cl.test, e)
			}
			c.exprs(cl.body, e)
		}
	case *letForm:
		c.checkLet(f, e)
	case *defineVarForm:
		c.expr(f.value, e)
		c.bind(f.target, e)
	case *setForm:
		c.expr(f.value, e)
		if !c.boundVar(f.target.Str, e) {
			c.errorf(f.target.Pos, "Cannot 'set!' unbound symbol: %s", f.target.Str)
		}
	case *lambdaForm:
		c.closure(f, e)
	case *badLambda:
		c.closure(f.lambdaForm, e)
	case *tryForm:
		c.exprs(f.body, e)
		handler := e.child(f.handler)
		c.bind(f.catchVar, handler)
		c.exprs(f.handler, handler)
	case *loopForm:
		switch cnt := f.count.syn; {
		case cnt.Kind == sexp.Int && cnt.Int < 0:
			c.errorf(cnt.Pos, "Loop count must be non-negative, got %d.", cnt.Int)
		case isLiteral(cnt) && cnt.Kind != sexp.Int:
			c.errorf(cnt.Pos, "Loop count must evaluate to an integer, got %s.", nodeValue(cnt).Type())
		}
		c.exprs([]*expr{f.count, f.body}, e)
	case *loopLoopForm:
		c.checkLoopForm(x.name, f, e)
	case *defatomForm:
		c.checkDefatom(x.syn, f)
	case *stepForm:
		c.checkStep(f, e)
	case *withContextForm:
		switch a := f.ctx.syn; a.Kind {
		case sexp.Int, sexp.Float, sexp.Bool:
			c.errorf(a.Pos, "with-context: expected a get-context result, a match, a path or a list of them, got %s", a.Kind)
		}
		c.expr(f.ctx, e)
		c.exprs(f.body, e)
	case *parallelForm:
		for _, b := range f.branches {
			c.expr(b, e.child([]*expr{b}))
		}
	case *taskForm:
		if !f.literal {
			c.expr(f.nameExpr(), e)
		}
		var tmpl *templates.Template
		if !f.tool {
			tmpl = c.template(f.call.name, e)
		}
		c.callArgs(f.call.name, tmpl, f.call, e)
	default:
		c.exprs(x.children(), e)
	}
}

func (c *checker) checkLet(f *letForm, e cenv) {
	inner := e.child(f.body)
	if f.seq {
		// A closure made in a binding of let* captures the new frame, so
		// its body sees the later bindings too.
		for _, b := range f.bindings {
			if b.syn.Kind == sexp.List && len(b.syn.Items) == 2 && b.syn.Items[0].Kind == sexp.Symbol {
				inner.sc.later = append(inner.sc.later, b.syn.Items[0].Str)
			}
		}
	}
	for _, b := range f.bindings {
		if b.err != nil {
			continue
		}
		if f.seq {
			c.expr(b.x, inner)
		} else {
			c.expr(b.x, e)
		}
		c.bind(b.syn.Items[0], inner)
	}
	c.exprs(f.body, inner)
}

// closure checks a lambda or a function define: the name is bound in the
// current frame; the body runs later in a new frame binding the parameters.
func (c *checker) closure(f *lambdaForm, e cenv) {
	if f.target != nil {
		c.bind(f.target, e)
	}
	inner := e.closure(f.body)
	for _, p := range f.paramNodes {
		c.bind(p, inner)
	}
	c.exprs(f.body, inner)
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
		names := make([]string, len(t.Inputs))
		for i, in := range t.Inputs {
			names[i] = in.Name
		}
		c.diags[len(c.diags)-1].Hint = suggest.Near(unknown[0], names)
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

func (c *checker) checkLoopForm(name string, f *loopLoopForm, e cenv) {
	for _, cl := range f.clauses {
		syn := cl.x.syn
		switch k := cl.name; {
		case k == "max-iterations" && isLiteral(syn) && (syn.Kind != sexp.Int || syn.Int < 0):
			v := nodeValue(syn)
			c.errorf(syn.Pos, "%s: 'max-iterations' must evaluate to a non-negative integer, got %s (type: %s).", name, v, v.Type())
		case slices.Contains(phaseClauses, k) && isLiteral(syn) && syn.Kind != sexp.String:
			v := nodeValue(syn)
			c.errorf(syn.Pos, "%s: '%s' expression must evaluate to a callable S-expression function, got %s: %s", name, k, v.Type(), v)
		}
		c.expr(cl.x, e)
	}
}

func (c *checker) checkDefatom(n *sexp.Node, f *defatomForm) {
	if len(n.Items) < 2 || n.Items[1].Kind != sexp.Symbol {
		return
	}
	nameNode := n.Items[1]
	name := nameNode.Str
	c.defatoms[name] = true
	c.defatomTmpls[name] = f.tmpl // nil when the form is malformed
	switch {
	case IsSpecialForm(name):
		c.warnf(nameNode.Pos, "template '%s' is hidden by the special form '%s'; use (call \"%s\" ...)", name, name, name)
	case IsPrimitive(name):
		c.warnf(nameNode.Pos, "template '%s' is hidden by the primitive '%s'; use (call \"%s\" ...)", name, name, name)
	case c.isTool(name):
		c.warnf(nameNode.Pos, "template '%s' has the name of a tool; (%s ...) calls the template", name, name)
	}
}

func (c *checker) checkStep(f *stepForm, e cenv) {
	if a := f.name.syn; isLiteral(a) && a.Kind != sexp.String && a.Kind != sexp.Symbol {
		c.errorf(a.Pos, "step name must be a string, got %s", nodeValue(a).Type())
	}
	c.exprs([]*expr{f.name, f.body}, e)
	if f.count == nil {
		return
	}
	if count := f.count.syn; isLiteral(count) && (count.Kind != sexp.Int || count.Int < 1) {
		c.errorf(count.Pos, "step: unknown :on-error policy 'retry %s' %s", nodeValue(count), stepPolicyHelp)
	}
	c.expr(f.count, e)
}

// collectDefines adds to names every name that a define or bind among xs
// binds in the frame they are evaluated in: it does not look into the
// bodies of lambda, let, let*, try handlers, parallel branches or quoted
// data, which have frames (or values) of their own.
func collectDefines(xs []*expr, names map[string]bool) {
	for _, x := range xs {
		if x.op != opSpecial {
			collectDefines(x.elems, names)
			continue
		}
		switch f := x.form.(type) {
		case *defineVarForm:
			names[f.name] = true
			collectDefines([]*expr{f.value}, names)
		case *lambdaForm:
			if f.target != nil {
				names[f.name] = true
			}
		case *badLambda:
			if f.target != nil {
				names[f.name] = true
			}
		case *badForm:
			if f.bind != nil && f.bind.Kind == sexp.Symbol {
				names[f.bind.Str] = true
			}
			switch x.name {
			case "define", "bind", "let", "let*", "lambda", "parallel", "try":
			default:
				collectDefines(f.parts, names)
			}
		case *letForm:
			if !f.seq {
				for _, b := range f.bindings {
					if b.x != nil {
						collectDefines([]*expr{b.x}, names)
					}
				}
			}
		case *tryForm:
			collectDefines(f.body, names)
		case *parallelForm, *defatomForm:
		default:
			collectDefines(x.children(), names)
		}
	}
}

// collectDefatoms adds the names of all defatom forms anywhere in x, and
// the templates of those that parse (the last one of a name winning).
func collectDefatoms(x *expr, names map[string]bool, tmpls map[string]*templates.Template) {
	if f, ok := x.form.(*defatomForm); ok && x.op == opSpecial {
		if n := x.syn.Items; len(n) > 1 && n[1].Kind == sexp.Symbol {
			names[n[1].Str] = true
			if f.tmpl != nil {
				tmpls[f.tmpl.Name] = f.tmpl
			} else {
				delete(tmpls, n[1].Str)
			}
		}
		return
	}
	for _, c := range x.children() {
		collectDefatoms(c, names, tmpls)
	}
}
