package evaluator

import (
	"strings"

	"github.com/evalrun/evalrun/sexp"
	"github.com/evalrun/evalrun/trace"
	"github.com/evalrun/evalrun/value"
)

func init() {
	defineForm("step", evalStep)
}

// stepPolicy is a step's :on-error policy (SPEC §7.17).
type stepPolicy struct {
	skip    bool
	retries int64
}

const stepPolicyHelp = "(expected fail, skip-optional, retry-once or retry N)"

// parseStepPolicy reads the arguments after EXPR: nothing, or :on-error and
// a policy (fail, skip-optional, retry-once, retry N, (retry N)).
func (t *thread) parseStepPolicy(x *expr, rest []*expr, env *Env) (stepPolicy, error) {
	var p stepPolicy
	if len(rest) == 0 {
		return p, nil
	}
	if !rest[0].syn.IsSymbol(":on-error") || len(rest) < 2 || len(rest) > 3 {
		return p, errorf(x.pos(), KindArity, "'step' requires a name and an expression: (step NAME EXPR [:on-error POLICY])")
	}
	pol := rest[1]
	var countExpr *expr
	switch {
	case pol.syn.Kind == sexp.Symbol && len(rest) == 2:
	case pol.syn.IsSymbol("retry") && len(rest) == 3:
		countExpr = rest[2]
	case pol.syn.Kind == sexp.List && len(pol.syn.Items) == 2 && pol.syn.Items[0].IsSymbol("retry") && len(rest) == 2:
		countExpr = pol.elems[1]
	default:
		return p, errorf(pol.pos(), KindValue, "step: unknown :on-error policy '%s' %s", policyText(rest[1:]), stepPolicyHelp)
	}
	if countExpr != nil {
		v, err := t.eval(countExpr, env)
		if err != nil {
			return p, err
		}
		n, ok := v.(value.Int)
		if !ok || n < 1 {
			return p, errorf(countExpr.pos(), KindValue, "step: unknown :on-error policy 'retry %s' %s", v, stepPolicyHelp)
		}
		p.retries = int64(n)
		return p, nil
	}
	switch strings.ReplaceAll(pol.syn.Str, "_", "-") {
	case "fail":
	case "skip-optional":
		p.skip = true
	case "retry-once":
		p.retries = 1
	default:
		return p, errorf(pol.pos(), KindValue, "step: unknown :on-error policy '%s' %s", pol.syn.Str, stepPolicyHelp)
	}
	return p, nil
}

func policyText(xs []*expr) string {
	parts := make([]string, len(xs))
	for i, x := range xs {
		parts[i] = datum(x.syn).String()
	}
	return strings.Join(parts, " ")
}

// evalStep runs (step NAME EXPR [:on-error POLICY]) with its retry and skip
// policy.
func evalStep(t *thread, x *expr, env *Env) (value.Value, error) {
	a := x.args()
	if len(a) < 2 {
		return nil, errorf(x.pos(), KindArity, "'step' requires a name and an expression: (step NAME EXPR [:on-error POLICY])")
	}
	nv, err := t.eval(a[0], env)
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
		return nil, errorf(a[0].pos(), KindType, "step name must be a string, got %s", nv.Type())
	}
	policy, err := t.parseStepPolicy(x, a[2:], env)
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
	v, reason, attempts, err := t.stepAttempts(a[1], env, x, policy)
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
