package evaluator

import (
	"strings"

	"github.com/evalrun/evalrun/sexp"
	"github.com/evalrun/evalrun/trace"
	"github.com/evalrun/evalrun/value"
)

func init() {
	defineForm("step", false, compileStep)
}

// stepPolicy is a step's :on-error policy (SPEC §7.17).
type stepPolicy struct {
	skip    bool
	retries int64
}

const stepPolicyHelp = "(expected fail, skip-optional, retry-once or retry N)"

const stepUsage = "'step' requires a name and an expression: (step NAME EXPR [:on-error POLICY])"

// stepForm is (step NAME EXPR [:on-error POLICY]). A malformed policy
// raises policyErr after NAME is evaluated; the count of retry N is an
// expression evaluated then.
type stepForm struct {
	name, body *expr
	policy     stepPolicy
	policyErr  *Error
	count      *expr
}

func compileStep(c *compiler, x *expr, depth int) (form, error) {
	a := argNodes(x)
	if len(a) < 2 {
		return c.bad(x, newError(x.pos(), KindArity, stepUsage), depth, -1)
	}
	xs, err := c.exprs(a[:2], depth)
	if err != nil {
		return nil, err
	}
	f := &stepForm{name: xs[0], body: xs[1]}
	rest := a[2:]
	if len(rest) == 0 {
		return f, nil
	}
	if !rest[0].IsSymbol(":on-error") || len(rest) < 2 || len(rest) > 3 {
		f.policyErr = c.problem(newError(x.pos(), KindArity, stepUsage))
		return f, nil
	}
	pol := rest[1]
	var count *sexp.Node
	switch {
	case pol.Kind == sexp.Symbol && len(rest) == 2:
	case pol.IsSymbol("retry") && len(rest) == 3:
		count = rest[2]
	case pol.Kind == sexp.List && len(pol.Items) == 2 && pol.Items[0].IsSymbol("retry") && len(rest) == 2:
		count = pol.Items[1]
	default:
		f.policyErr = c.problem(errorf(pol.Pos, KindValue, "step: unknown :on-error policy '%s' %s", policyText(rest[1:]), stepPolicyHelp))
		return f, nil
	}
	if count != nil {
		if f.count, err = c.compile(count, depth+1); err != nil {
			return nil, err
		}
		return f, nil
	}
	switch strings.ReplaceAll(pol.Str, "_", "-") {
	case "fail":
	case "skip-optional":
		f.policy.skip = true
	case "retry-once":
		f.policy.retries = 1
	default:
		f.policyErr = c.problem(errorf(pol.Pos, KindValue, "step: unknown :on-error policy '%s' %s", pol.Str, stepPolicyHelp))
	}
	return f, nil
}

func policyText(ns []*sexp.Node) string {
	parts := make([]string, len(ns))
	for i, n := range ns {
		parts[i] = datum(n).String()
	}
	return strings.Join(parts, " ")
}

// literalName returns the name of a step written as a string literal, and
// whether it is one.
func (f *stepForm) literalName() (string, bool) {
	if f.name.syn.Kind == sexp.String {
		return f.name.syn.Str, true
	}
	return "", false
}

// evalPolicy returns the step's policy, evaluating the count of retry N.
func (f *stepForm) evalPolicy(t *thread, env *Env) (stepPolicy, error) {
	if f.policyErr != nil {
		e := *f.policyErr
		return stepPolicy{}, &e
	}
	if f.count == nil {
		return f.policy, nil
	}
	v, err := t.eval(f.count, env)
	if err != nil {
		return stepPolicy{}, err
	}
	n, ok := v.(value.Int)
	if !ok || n < 1 {
		return stepPolicy{}, errorf(f.count.pos(), KindValue, "step: unknown :on-error policy 'retry %s' %s", v, stepPolicyHelp)
	}
	return stepPolicy{retries: int64(n)}, nil
}

func (f *stepForm) eval(t *thread, x *expr, env *Env) (value.Value, error) {
	return evalStep(t, x, f, env)
}

func (f *stepForm) children() []*expr {
	out := []*expr{f.name, f.body}
	if f.count != nil {
		out = append(out, f.count)
	}
	return out
}

// evalStep runs (step NAME EXPR [:on-error POLICY]) with its retry and skip
// policy.
func evalStep(t *thread, x *expr, f *stepForm, env *Env) (value.Value, error) {
	nv, err := t.eval(f.name, env)
	if err != nil {
		return nil, err
	}
	var name string
	switch v := nv.(type) {
	case value.String:
		name = string(v)
	case value.Symbol:
		name = string(v)
	default:
		return nil, errorf(f.name.pos(), KindType, "step name must be a string, got %s", nv.Type())
	}
	policy, err := f.evalPolicy(t, env)
	if err != nil {
		return nil, err
	}
	// The step is a span (SPEC §16.2): the calls made inside it are its
	// children.
	outer := t.ctx
	ctx, span := trace.Start(outer, trace.Step, name, nil)
	t.ctx = ctx
	defer func() { t.ctx = outer }()
	end := func(status trace.Status, v value.Value, reason string, attempts int) {
		span.End(trace.Result{Status: status, Value: v, Error: reason, Attempts: attempts}, trace.Usage{})
	}
	v, reason, attempts, err := t.stepAttempts(f.body, env, x, policy)
	switch {
	case err != nil:
		end(trace.Failed, nil, firstLine(err.Error()), attempts)
		return nil, err
	case v != nil:
		end(trace.Completed, v, "", attempts)
		return v, nil
	case policy.skip:
		end(trace.Skipped, nil, reason, attempts)
		t.in.logf("warning: optional step '%s' skipped: %s\n", name, reason)
		return value.Null{}, nil
	}
	end(trace.Failed, nil, reason, attempts)
	return nil, errorf(x.pos(), KindStep, "step '%s' failed: %s", name, reason)
}

// stepAttempts evaluates a step's body up to 1 + retries times. It returns
// the value of the first successful attempt, or a nil value with the
// reason of the last failure; an uncatchable error ends the attempts.
func (t *thread) stepAttempts(body *expr, env *Env, x *expr, policy stepPolicy) (value.Value, string, int, error) {
	var reason string
	attempts := 0
	for attempt := int64(0); attempt <= policy.retries; attempt++ {
		if err := t.pollCancel(x.pos()); err != nil {
			return nil, "", attempts, err
		}
		attempts++
		v, err := t.eval(body, env)
		if err != nil {
			e := asEvalError(err, body.pos())
			if !e.Catchable() {
				return nil, "", attempts, e
			}
			reason = firstLine(e.Msg)
			continue
		}
		if r, ok := v.(*value.TaskResult); ok && r.Status == value.StatusFailed {
			reason = firstLine(failureMessage(r))
			continue
		}
		return v, "", attempts, nil
	}
	return nil, reason, attempts, nil
}

// failureMessage is a FAILED result's notes.error.message, else its content.
func failureMessage(r *value.TaskResult) string {
	if r.Notes != nil {
		if e, ok := r.Notes.Get("error"); ok {
			if d, ok := e.(*value.Dict); ok {
				if m, ok := d.Get("message"); ok {
					return value.Text(m)
				}
			}
		}
	}
	return r.Content
}
