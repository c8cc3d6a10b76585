package evaluator

import (
	"context"
	"fmt"

	"github.com/evalrun/evalrun/sexp"
	"github.com/evalrun/evalrun/tasksystem"
	"github.com/evalrun/evalrun/templates"
	"github.com/evalrun/evalrun/trace"
	"github.com/evalrun/evalrun/value"
)

// Tasks is what the evaluator needs from the task system: the template
// registry, task and tool execution, and matching. NewTaskSystem adapts the
// tasksystem package; tests may supply their own. A Tasks may also be a
// UsageReporter (run-usage) and a Planner (plan-load, plan-run).
type Tasks interface {
	// Lookup resolves a name by exact name, alias, then type:subtype.
	Lookup(name string) (*templates.Template, bool)
	// HasTool reports whether name is a tool.
	HasTool(name string) bool
	// Define registers a template made by defatom.
	Define(t *templates.Template) error
	// Execute runs one task call and returns its result; failures are FAILED
	// results, never errors.
	Execute(ctx context.Context, call *TaskCall) *value.TaskResult
	// CallTool runs one tool with its parameters.
	CallTool(ctx context.Context, name string, params *value.Dict) *value.TaskResult
	// Match returns the templates matching a request (SPEC §10.5) as dicts
	// {"name", "score", "source"}, best first.
	Match(text string) value.List
	// GetContext runs a memory lookup and returns the get-context result
	// dict {"summary", "matches"[, "error"]} (SPEC §8.7).
	GetContext(ctx context.Context, q ContextQuery) *value.Dict
}

// waiting returns the context of a task or tool call about to wait for a
// slot of the run's concurrency semaphore: the call's span waits
// (trace.Wait, the journal's pending status, SPEC §16.2) until the task
// system starts it. args returns the call's arguments (trace.Args), asked
// for only when the run is traced.
func (t *thread) waiting(kind trace.Kind, name string, args func() value.Value) context.Context {
	if !trace.Enabled(t.ctx) {
		return t.ctx
	}
	return trace.Wait(t.ctx, kind, name, trace.Args(args()))
}

// callArgs are the arguments of a task call as it was made: its positional
// values, then its named ones (not the reserved arguments).
func callArgs(tc *TaskCall) value.Value {
	args := make(value.List, 0, len(tc.Positional)+len(tc.Named))
	args = append(args, tc.Positional...)
	for _, a := range tc.Named {
		args = append(args, a.Value)
	}
	return args
}

// NamedValue is one named argument of a task call, in call order: the
// task system's NamedArg.
type NamedValue = tasksystem.NamedArg

// TaskCall is one task call as the evaluator hands it to the task system
// (SPEC §11): the task system's Request — the template, the evaluated
// inputs, the reserved arguments and the ambient context in force — and
// the position of the call.
type TaskCall struct {
	tasksystem.Request
	Pos sexp.Pos
}

// callArg is one parsed (name expr) or :name expr argument.
type callArg struct {
	name string
	x    *expr
	pos  sexp.Pos
}

// readCallArgs reads the arguments of form x as the named-argument syntax
// of task and tool calls (SPEC §11.1), once, when x is compiled: the
// arguments into x.callArgs, or a malformed one into x.callErr, which makes
// the error for the name of the task called (known when the call is made).
// The value of a pair whose head names a special form, such as (if x), is
// compiled here, since the pair itself was compiled as that form.
func (c *compiler) readCallArgs(x *expr, depth int) error {
	args := x.args()
	out := make([]callArg, 0, len(args))
	pairs, keywords := false, false
	bad := func(n *sexp.Node) {
		x.callErr = func(task string) error {
			return errorf(n.Pos, KindValue, "Invalid argument format for task '%s'. Expected (key_symbol value_expression), got: %s", task, datum(n))
		}
	}
	for i := 0; i < len(args); i++ {
		a := args[i]
		n := a.syn
		switch {
		case n.Kind == sexp.Symbol && len(n.Str) > 1 && n.Str[0] == ':':
			if i+1 >= len(args) {
				bad(n)
				return nil
			}
			keywords = true
			out = append(out, callArg{name: n.Str[1:], x: args[i+1], pos: n.Pos})
			i++
		case n.Kind == sexp.List && len(n.Items) == 2 && n.Items[0].Kind == sexp.Symbol && !n.Quoted:
			pairs = true
			v := pairValue(a)
			if v == nil {
				var err error
				if v, err = c.compile(n.Items[1], depth+1); err != nil {
					return err
				}
			}
			out = append(out, callArg{name: n.Items[0].Str, x: v, pos: n.Pos})
		default:
			bad(n)
			return nil
		}
		if pairs && keywords {
			x.callErr = func(task string) error {
				return errorf(n.Pos, KindValue, "Task '%s': do not mix (param expr) and :param expr arguments", task)
			}
			return nil
		}
	}
	for i := range out {
		for j := 0; j < i; j++ {
			if out[j].name == out[i].name {
				dup := out[i]
				x.callErr = func(task string) error {
					return errorf(dup.pos, KindValue, "Duplicate argument '%s' for task '%s'", dup.name, task)
				}
				return nil
			}
		}
	}
	x.callArgs = out
	return nil
}

// namedArgs returns the arguments of form x read as those of a call of the
// task or tool name.
func (x *expr) namedArgs(name string) ([]callArg, error) {
	if x.callErr != nil {
		return nil, x.callErr(name)
	}
	return x.callArgs, nil
}

// pairValue returns the compiled expression of a (name expr) argument,
// nil when the pair was compiled as a special form.
func pairValue(a *expr) *expr {
	if a.elems != nil {
		return a.elems[1]
	}
	return nil
}

// taskCallSyntax evaluates (NAME (param expr) ...) for a template.
func (t *thread) taskCallSyntax(name string, tmpl *templates.Template, x *expr, env *Env) (value.Value, error) {
	args, err := x.namedArgs(name)
	if err != nil {
		return nil, err
	}
	tc := &TaskCall{Request: tasksystem.Request{Name: name, Template: tmpl}, Pos: x.pos()}
	for _, a := range args {
		v, err := t.eval(a.x, env)
		if err != nil {
			return nil, err
		}
		if err := tc.setArg(a.name, v); err != nil {
			return nil, errorf(a.pos, KindValue, "%s", err)
		}
	}
	return t.executeTask(tc)
}

// setArg stores one evaluated argument, handling the reserved keys files,
// context and history_config.
func (tc *TaskCall) setArg(name string, v value.Value) error {
	switch name {
	case "files":
		files, err := FilesArgument(tc.Name, v)
		if err != nil {
			return err
		}
		tc.Files, tc.FilesGiven = files, true
	case "context":
		cs, err := parseContextArg(tc.Name, v)
		if err != nil {
			return err
		}
		tc.Context = cs
	case "history_config":
		h, err := parseHistoryArg(tc.Name, v)
		if err != nil {
			return err
		}
		tc.History = h
	default:
		tc.Named = append(tc.Named, NamedValue{Name: name, Value: v})
	}
	return nil
}

// FilesArgument reads the reserved files argument of a task call: a path
// string or a list of them (SPEC §11.1).
func FilesArgument(task string, v value.Value) ([]string, error) {
	switch v := v.(type) {
	case value.String:
		return []string{string(v)}, nil
	case value.List:
		files := make([]string, len(v))
		for i, e := range v {
			s, ok := e.(value.String)
			if !ok {
				return nil, fmt.Errorf("'files' argument for task '%s' must evaluate to a list of strings, got %s: %s", task, v.Type(), value.Brief(v, maxMessageValue))
			}
			files[i] = string(s)
		}
		return files, nil
	}
	return nil, fmt.Errorf("'files' argument for task '%s' must evaluate to a list of strings, got %s: %s", task, v.Type(), value.Brief(v, maxMessageValue))
}

// taskCallValues applies a template to positional argument values (SPEC §6.4,
// §11.2 rule 1).
func (t *thread) taskCallValues(name string, tmpl *templates.Template, args []value.Value, pos sexp.Pos) (value.Value, error) {
	if len(args) > len(tmpl.Inputs) {
		return nil, errorf(pos, KindArity, "Task '%s' expects at most %d positional arguments, got %d", name, len(tmpl.Inputs), len(args))
	}
	return t.executeTask(&TaskCall{Request: tasksystem.Request{Name: name, Template: tmpl, Positional: args}, Pos: pos})
}

// executeTask runs a task call under the concurrency semaphore.
func (t *thread) executeTask(tc *TaskCall) (value.Value, error) {
	if err := t.enter(tc.Pos); err != nil {
		return nil, err
	}
	defer t.leave()
	if t.dyn != nil {
		tc.Ambient, tc.AmbientSummary = t.dyn.ambient, t.dyn.ambientSummary
	}
	name := tc.Name
	if tc.Template != nil {
		name = tc.Template.Name
	}
	ctx := t.waiting(trace.Task, name, func() value.Value { return callArgs(tc) })
	if err := t.acquire(tc.Pos); err != nil {
		trace.Abandon(ctx, trace.Result{Status: trace.Failed, Error: "cancelled"})
		return nil, err
	}
	r := t.in.tasks.Execute(ctx, tc)
	t.release()
	if err := t.interruption(tc.Pos); err != nil {
		return nil, err
	}
	return r, nil
}

// toolCallSyntax evaluates (TOOL (param expr) ...): the arguments become one
// parameter dict (SPEC §11.4).
func (t *thread) toolCallSyntax(name string, x *expr, env *Env) (value.Value, error) {
	args, err := x.namedArgs(name)
	if err != nil {
		return nil, err
	}
	params := value.NewDict(len(args))
	for _, a := range args {
		v, err := t.eval(a.x, env)
		if err != nil {
			return nil, err
		}
		params.Set(a.name, v)
	}
	return t.executeTool(name, params, x.pos())
}

func (t *thread) executeTool(name string, params *value.Dict, pos sexp.Pos) (value.Value, error) {
	if err := t.enter(pos); err != nil {
		return nil, err
	}
	defer t.leave()
	ctx := t.waiting(trace.Tool, name, func() value.Value { return params })
	if err := t.acquire(pos); err != nil {
		trace.Abandon(ctx, trace.Result{Status: trace.Failed, Error: "cancelled"})
		return nil, err
	}
	r := t.in.tasks.CallTool(ctx, name, params)
	t.release()
	if err := t.interruption(pos); err != nil {
		return nil, err
	}
	return r, nil
}

// acquire takes a slot of the run-wide concurrency semaphore.
func (t *thread) acquire(pos sexp.Pos) error {
	if err := t.in.sem.Acquire(t.ctx); err != nil {
		return t.cancelled(pos)
	}
	return nil
}

func (t *thread) release() { t.in.sem.Release() }

// interruption returns the cancellation error when the run was cancelled
// while a task ran: a cancelled run ends, it does not go on with a FAILED
// result.
func (t *thread) interruption(pos sexp.Pos) error {
	select {
	case <-t.done:
		return t.cancelled(pos)
	default:
		return nil
	}
}

// notFound is the FAILED result of an unknown template or tool name.
func notFound(msg string) *value.TaskResult {
	return value.Failed("template_not_found", msg, nil)
}
