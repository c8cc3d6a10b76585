package evaluator

import (
	"context"
	"strings"

	"github.com/evalrun/evalrun/sexp"
	"github.com/evalrun/evalrun/value"
)

func init() {
	defineForm("step", false, compileStep)
}

// The statuses a step ends with in the journal (SPEC §16.2).
const (
	StepCompleted = "completed"
	StepFailed    = "failed"
	StepSkipped   = "skipped"
)

// StepJournal records steps in the run's journal (SPEC §16.2). The
// evaluator does not import the journal: the engine plugs it in through
// Options.Steps.
type StepJournal interface {
	// BeginStep records the start of the step name under the parent ctx
	// carries and returns the context of its attempts, which carries the
	// step as the parent of the calls made inside it
	// (tasksystem.WithParent), and the function that records its end:
	// status StepCompleted, StepFailed or StepSkipped, its value (nil when
	// it has none), the reason of its last failure ("" when completed) and
	// the number of attempts made.
	BeginStep(ctx context.Context, name string) (context.Context, func(status string, v value.Value, reason string, attempts int))
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
	end := func(string, value.Value, string, int) {}
	if t.in.stepJournal != nil {
		outer := t.ctx
		var ctx context.Context
		ctx, end = t.in.stepJournal.BeginStep(outer, name)
		t.ctx = ctx
		defer func() { t.ctx = outer }()
	}
	v, reason, attempts, err := t.stepAttempts(f.body, env, x, policy)
	switch {
	case err != nil:
		end(StepFailed, nil, firstLine(err.Error()), attempts)
		return nil, err
	case v != nil:
		end(StepCompleted, v, "", attempts)
		return v, nil
	case policy.skip:
		end(StepSkipped, nil, reason, attempts)
		t.in.logf("warning: optional step '%s' skipped: %s\n", name, reason)
		return value.Null{}, nil
	}
	end(StepFailed, nil, reason, attempts)
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
