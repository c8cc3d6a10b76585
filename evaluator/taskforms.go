package evaluator

import (
	"strings"

	"github.com/evalrun/evalrun/sexp"
	"github.com/evalrun/evalrun/tasksystem"
	"github.com/evalrun/evalrun/value"
)

func init() {
	defineForm("atomic-task", false, func(c *compiler, x *expr, d int) (form, error) { return compileTaskForm(c, x, d, false) })
	defineForm("direct-tool", false, func(c *compiler, x *expr, d int) (form, error) { return compileTaskForm(c, x, d, true) })
	defineForm("with-context", false, compileWithContext)
	register(
		&primitive{name: "call", min: 1, max: 2, fn: primCall},
		&primitive{name: "task-ok?", min: 1, max: 1, fn: primTaskOK},
		&primitive{name: "match-task", min: 1, max: 1, fn: primMatchTask},
		&primitive{name: "error", min: 1, max: 1, fn: primError},
	)
}

// taskForm is (atomic-task NAME arg...) or, with tool set, (direct-tool
// NAME arg...). NAME is used as written when it is a symbol or string
// literal (literal set), else evaluated. call is the form with NAME as its
// head, as a task or tool call of that name reads it.
type taskForm struct {
	tool    bool
	literal bool
	call    *expr
}

func compileTaskForm(c *compiler, x *expr, depth int, tool bool) (form, error) {
	a := argNodes(x)
	if len(a) == 0 {
		return c.bad(x, errorf(x.pos(), KindArity, "'%s' requires a name: (%s NAME (param expr)...)", x.name, x.name), depth)
	}
	elems, err := c.exprs(a, depth)
	if err != nil {
		return nil, err
	}
	f := &taskForm{tool: tool, call: &expr{op: opNamed, syn: x.syn, elems: elems}}
	if k := a[0].Kind; k == sexp.Symbol || k == sexp.String {
		f.literal = true
		f.call.name = a[0].Str
	}
	if err := c.readCallArgs(f.call, depth); err != nil {
		return nil, err
	}
	return f, nil
}

// nameExpr returns the expression of NAME.
func (f *taskForm) nameExpr() *expr { return f.call.elems[0] }

// computedName returns the NAME of the form: as written, or evaluated to a
// string.
func (f *taskForm) computedName(t *thread, x *expr, env *Env) (string, error) {
	if f.literal {
		return f.call.name, nil
	}
	v, err := t.eval(f.nameExpr(), env)
	if err != nil {
		return "", err
	}
	switch v := v.(type) {
	case value.String:
		return string(v), nil
	case value.Symbol:
		return string(v), nil
	}
	return "", errorf(f.nameExpr().pos(), KindType, "'%s' name must evaluate to a string, got %s", x.name, v.Type())
}

func (f *taskForm) eval(t *thread, x *expr, env *Env) (value.Value, error) {
	name, err := f.computedName(t, x, env)
	if err != nil {
		return nil, err
	}
	if f.tool {
		if t.in.tasks != nil && t.in.tasks.HasTool(name) {
			return t.toolCallSyntax(name, f.call, env)
		}
		if _, err := f.call.namedArgs(name); err != nil {
			return nil, err
		}
		return notFound("Tool '" + name + "' not found in registered executors."), nil
	}
	if t.in.tasks != nil {
		if tmpl, ok := t.in.tasks.Lookup(name); ok {
			return t.taskCallSyntax(name, tmpl, f.call, env)
		}
	}
	if _, err := f.call.namedArgs(name); err != nil {
		return nil, err
	}
	return notFound("Template not found: " + name), nil
}

func (f *taskForm) children() []*expr {
	if f.literal {
		return f.call.elems[1:]
	}
	return f.call.elems
}

// primCall is (call NAME [inputs]): a template, else a tool, by name, with a
// dict of named arguments.
func primCall(t *thread, c *call, args []value.Value) (value.Value, error) {
	name, err := argText("call", c, args, 0)
	if err != nil {
		return nil, err
	}
	inputs := value.NewDict(0)
	if len(args) == 2 {
		switch v := args[1].(type) {
		case *value.Dict:
			inputs = v
		case value.Null:
		default:
			return nil, typeError("call", c, 1, "dict", args[1])
		}
	}
	if t.in.tasks != nil {
		if tmpl, ok := t.in.tasks.Lookup(name); ok {
			tc := &TaskCall{Request: tasksystem.Request{Name: name, Template: tmpl}, Pos: c.at()}
			for k, v := range inputs.All() {
				if err := tc.setArg(k, v); err != nil {
					return nil, errorf(c.argPos(1), KindValue, "%s", err)
				}
			}
			return t.executeTask(tc)
		}
		if t.in.tasks.HasTool(name) {
			return t.executeTool(name, inputs, c.at())
		}
	}
	return notFound("Template not found: " + name), nil
}

func primTaskOK(t *thread, c *call, args []value.Value) (value.Value, error) {
	r, ok := args[0].(*value.TaskResult)
	return value.Bool(ok && r.OK()), nil
}

func primMatchTask(t *thread, c *call, args []value.Value) (value.Value, error) {
	text, err := argText("match-task", c, args, 0)
	if err != nil {
		return nil, err
	}
	if t.in.tasks == nil {
		return value.List(nil), nil
	}
	return t.in.tasks.Match(text), nil
}

func primError(t *thread, c *call, args []value.Value) (value.Value, error) {
	if err := t.checkString(c, value.TextSize(args[0], t.in.limits.MaxStringBytes)); err != nil {
		return nil, err
	}
	return nil, newError(c.at(), KindUser, value.Text(args[0]))
}

// withContextForm is (with-context CTX body...).
type withContextForm struct {
	ctx  *expr
	body []*expr
}

func compileWithContext(c *compiler, x *expr, depth int) (form, error) {
	a := argNodes(x)
	if len(a) < 2 {
		return c.bad(x, newError(x.pos(), KindArity, "'with-context' requires a context and at least one body expression: (with-context CTX body...)"), depth, -1)
	}
	xs, err := c.exprs(a, depth)
	if err != nil {
		return nil, err
	}
	return &withContextForm{ctx: xs[0], body: xs[1:]}, nil
}

// eval adds context items to the ambient context for the dynamic extent of
// the body (SPEC §7.18, §13.3).
func (f *withContextForm) eval(t *thread, x *expr, env *Env) (value.Value, error) {
	ctxv, err := t.eval(f.ctx, env)
	if err != nil {
		return nil, err
	}
	items, ok := contextItems(ctxv, 0)
	if !ok {
		return nil, errorf(f.ctx.pos(), KindType, "with-context: expected a get-context result, a match, a path or a list of them, got %s", ctxv.Type())
	}
	saved := t.dyn
	d := dynamic{}
	if saved != nil {
		d = *saved
	}
	d.ambient = mergeAmbient(d.ambient, items)
	if res, ok := ctxv.(*value.Dict); ok {
		if summary, ok := res.Get("summary"); ok && res.Has("matches") {
			d.ambientSummary = value.Text(summary)
		}
	}
	t.dyn = &d
	defer func() { t.dyn = saved }()
	return t.evalBody(f.body, env)
}

func (f *withContextForm) children() []*expr {
	return append([]*expr{f.ctx}, f.body...)
}

// contextItems flattens a with-context argument into match dicts and path
// strings; lists nested more than value.MaxPrintDepth deep are refused.
func contextItems(v value.Value, depth int) ([]value.Value, bool) {
	if depth > value.MaxPrintDepth {
		return nil, false
	}
	switch v := v.(type) {
	case value.String:
		return []value.Value{v}, true
	case *value.Dict:
		if m, ok := v.Get("matches"); ok {
			return contextItems(m, depth+1)
		}
		if _, ok := v.Get("id"); ok {
			return []value.Value{v}, true
		}
		return nil, false
	case value.List:
		var out []value.Value
		for _, e := range v {
			items, ok := contextItems(e, depth+1)
			if !ok {
				return nil, false
			}
			out = append(out, items...)
		}
		return out, true
	}
	return nil, false
}

// itemID is the id of an ambient item: a path, or a match's id.
func itemID(v value.Value) string {
	if d, ok := v.(*value.Dict); ok {
		id, _ := d.Get("id")
		return value.Text(id)
	}
	return value.Text(v)
}

// mergeAmbient appends items whose ids are not yet present.
func mergeAmbient(outer, items []value.Value) []value.Value {
	out := append(make([]value.Value, 0, len(outer)+len(items)), outer...)
	seen := make(map[string]bool, len(out))
	for _, o := range out {
		seen[itemID(o)] = true
	}
	for _, it := range items {
		id := itemID(it)
		if !seen[id] {
			seen[id] = true
			out = append(out, it)
		}
	}
	return out
}

// firstLine returns s up to its first line break.
func firstLine(s string) string {
	if i := strings.IndexAny(s, "\r\n"); i >= 0 {
		return s[:i]
	}
	return s
}
