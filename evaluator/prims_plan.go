package evaluator

import (
	"context"
	"errors"
	"strings"

	"github.com/evalrun/evalrun/sexp"
	"github.com/evalrun/evalrun/value"
)

// The plans of SPEC §23.6 from a workflow:
//
//	(plan-load DIR)
//	(plan-run DIR (task "IMPL-2") (parallel 2) (agent "claude"))
//	(plan-run DIR :task "IMPL-2" :parallel 2)
//
// In operator position both are special forms, so that the options read
// as the named arguments of a task call; applied to values (apply,
// map …) they are primitives: (plan-load DIR) and (plan-run DIR [OPTIONS])
// with OPTIONS a dict of task, parallel and agent. They reach the plans
// through the optional Planner of the interpreter's Tasks; the evaluator
// knows nothing of plan files.
func init() {
	defineForm("plan-load", false, compilePlanLoad)
	defineForm("plan-run", false, compilePlanRun)
	valuePrimitives["plan-load"] = &primitive{name: "plan-load", min: 1, max: 1, arityMsg: planLoadUsage, fn: primPlanLoad}
	valuePrimitives["plan-run"] = &primitive{name: "plan-run", min: 1, max: 2, arityMsg: planRunUsage, fn: primPlanRun}
}

const (
	planLoadUsage = "'plan-load' requires one argument, the plan directory: (plan-load DIR)"
	planRunUsage  = "'plan-run' requires the plan directory: (plan-run DIR [(task IDS)] [(parallel N)] [(agent NAME)])"
)

// Planner is an optional interface of Tasks: reading and running the
// plans of SPEC §23 for (plan-load) and (plan-run). The engine implements
// it (TaskSystem.Plans); under a Tasks without it both are evaluation
// errors.
type Planner interface {
	// LoadPlan reads and checks the plan in dir and returns the dict
	// {session, tasks, order}. A plan with errors is an error whose
	// message is its first problem (PATH:LINE:COL: error: MESSAGE).
	LoadPlan(ctx context.Context, dir string) (*value.Dict, error)
	// RunPlan runs the plan in dir as `evalrun plan run` does, its calls
	// journaled under the trace frame of ctx, and returns the dict of
	// per-task results. Failed tasks are entries of the dict, not an
	// error; a step that needs a person is a *PlanStop.
	RunPlan(ctx context.Context, dir string, opts PlanRunOptions) (*value.Dict, error)
}

// PlanRunOptions are the options of (plan-run), those of the command
// `evalrun plan run`.
type PlanRunOptions struct {
	// Tasks are the --task patterns (IMPL-1, IMPL-1.*); empty runs every
	// ready task.
	Tasks []string
	// Parallel is how many tasks run at once, at least 1.
	Parallel int
	// Agent is --agent; "" leaves the plan's and configuration's choice.
	Agent string
}

// PlanStop is the error of a plan run stopped at a step whose on_error is
// manual_intervention: Msg says which step needs a person and how to
// continue.
type PlanStop struct {
	TaskID, Step string
	Msg          string
}

// Error returns the message.
func (e *PlanStop) Error() string { return e.Msg }

// planRunKeys are the option names of plan-run.
var planRunKeys = []string{"task", "parallel", "agent"}

// planLoadForm is (plan-load DIR).
type planLoadForm struct {
	dir *expr
	err *Error
}

// planRunForm is (plan-run DIR OPTION...): an option is (key EXPR) or
// :key EXPR. A malformed form raises err when evaluation reaches it.
type planRunForm struct {
	dir  *expr
	opts []planRunOpt
	err  *Error
}

type planRunOpt struct {
	key string
	x   *expr
}

func compilePlanLoad(c *compiler, x *expr, depth int) (form, error) {
	a := argNodes(x)
	if len(a) != 1 {
		return &planLoadForm{err: c.problem(newError(x.pos(), KindArity, planLoadUsage))}, nil
	}
	d, err := c.compile(a[0], depth+1)
	if err != nil {
		return nil, err
	}
	return &planLoadForm{dir: d}, nil
}

func (f *planLoadForm) eval(t *thread, x *expr, env *Env) (value.Value, error) {
	if f.err != nil {
		e := *f.err
		return nil, &e
	}
	v, err := t.eval(f.dir, env)
	if err != nil {
		return nil, err
	}
	return t.planLoad(v, x.pos())
}

func (f *planLoadForm) children() []*expr {
	if f.dir == nil {
		return nil
	}
	return []*expr{f.dir}
}

func compilePlanRun(c *compiler, x *expr, depth int) (form, error) {
	a := argNodes(x)
	f := &planRunForm{}
	if len(a) == 0 {
		f.err = c.problem(newError(x.pos(), KindArity, planRunUsage))
		return f, nil
	}
	d, err := c.compile(a[0], depth+1)
	if err != nil {
		return nil, err
	}
	f.dir = d
	seen := map[string]bool{}
	for i := 1; i < len(a); i++ {
		n := a[i]
		var key string
		var vn *sexp.Node
		switch {
		case n.Kind == sexp.List && len(n.Items) == 2 && n.Items[0].Kind == sexp.Symbol:
			key, vn = n.Items[0].Str, n.Items[1]
		case n.Kind == sexp.Symbol && strings.HasPrefix(n.Str, ":") && i+1 < len(a):
			key, vn = n.Str[1:], a[i+1]
			i++
		default:
			f.err = c.problem(errorf(n.Pos, KindValue, "'plan-run' takes (task IDS), (parallel N) and (agent NAME) after the directory, got %s", datum(n)))
			return f, nil
		}
		if !contains(planRunKeys, key) {
			f.err = c.problem(errorf(n.Pos, KindValue, "Unknown 'plan-run' option: %s (expected task, parallel or agent)", key))
			return f, nil
		}
		if seen[key] {
			f.err = c.problem(errorf(n.Pos, KindValue, "'plan-run' option %s given twice", key))
			return f, nil
		}
		seen[key] = true
		v, err := c.compile(vn, depth+1)
		if err != nil {
			return nil, err
		}
		f.opts = append(f.opts, planRunOpt{key: key, x: v})
	}
	return f, nil
}

func (f *planRunForm) eval(t *thread, x *expr, env *Env) (value.Value, error) {
	if f.err != nil {
		e := *f.err
		return nil, &e
	}
	dir, err := t.eval(f.dir, env)
	if err != nil {
		return nil, err
	}
	opts := PlanRunOptions{Parallel: 1}
	for _, o := range f.opts {
		v, err := t.eval(o.x, env)
		if err != nil {
			return nil, err
		}
		if err := setPlanRunOption(&opts, o.key, v, o.x.pos()); err != nil {
			return nil, err
		}
	}
	return t.planRun(dir, opts, x.pos())
}

func (f *planRunForm) children() []*expr {
	var out []*expr
	if f.dir != nil {
		out = append(out, f.dir)
	}
	for _, o := range f.opts {
		out = append(out, o.x)
	}
	return out
}

// setPlanRunOption checks and stores one evaluated option: task is a
// string of ids separated by spaces or a list of them, parallel a
// positive integer, agent a string.
func setPlanRunOption(o *PlanRunOptions, key string, v value.Value, pos sexp.Pos) error {
	switch key {
	case "task":
		switch x := v.(type) {
		case value.String:
			o.Tasks = strings.Fields(string(x))
		case value.List:
			for _, it := range x {
				s, ok := it.(value.String)
				if !ok {
					return errorf(pos, KindType, "'plan-run' task must be a string or a list of strings, got a list holding %s", it.Type())
				}
				o.Tasks = append(o.Tasks, strings.Fields(string(s))...)
			}
		default:
			return errorf(pos, KindType, "'plan-run' task must be a string or a list of strings, got %s", v.Type())
		}
		if len(o.Tasks) == 0 {
			return newError(pos, KindValue, "'plan-run' task names no task")
		}
	case "parallel":
		n, ok := v.(value.Int)
		if !ok || n < 1 {
			return errorf(pos, KindValue, "'plan-run' parallel must be a positive integer, got %s", v)
		}
		o.Parallel = int(n)
	case "agent":
		s, ok := v.(value.String)
		if !ok {
			return errorf(pos, KindType, "'plan-run' agent must be a string, got %s", v.Type())
		}
		o.Agent = string(s)
	default:
		return errorf(pos, KindValue, "Unknown 'plan-run' option: %s (expected task, parallel or agent)", key)
	}
	return nil
}

// planner returns the Planner of the interpreter's Tasks.
func (t *thread) planner(name string, pos sexp.Pos) (Planner, error) {
	if p, ok := t.in.tasks.(Planner); ok {
		return p, nil
	}
	return nil, errorf(pos, KindValue, "'%s' is not available here: no plans can be run", name)
}

func planDir(name string, v value.Value, pos sexp.Pos) (string, error) {
	s, ok := v.(value.String)
	if !ok {
		return "", errorf(pos, KindType, "'%s' directory must be a string, got %s", name, v.Type())
	}
	if strings.TrimSpace(string(s)) == "" {
		return "", errorf(pos, KindValue, "'%s' directory is empty", name)
	}
	return string(s), nil
}

func (t *thread) planLoad(dirv value.Value, pos sexp.Pos) (value.Value, error) {
	dir, err := planDir("plan-load", dirv, pos)
	if err != nil {
		return nil, err
	}
	p, err := t.planner("plan-load", pos)
	if err != nil {
		return nil, err
	}
	d, err := p.LoadPlan(t.ctx, dir)
	if err != nil {
		return nil, t.planError("plan-load", err, pos)
	}
	return d, nil
}

func (t *thread) planRun(dirv value.Value, opts PlanRunOptions, pos sexp.Pos) (value.Value, error) {
	dir, err := planDir("plan-run", dirv, pos)
	if err != nil {
		return nil, err
	}
	p, err := t.planner("plan-run", pos)
	if err != nil {
		return nil, err
	}
	d, err := p.RunPlan(t.ctx, dir, opts)
	if err != nil {
		return nil, t.planError("plan-run", err, pos)
	}
	return d, nil
}

// planError is the evaluation error of a failed plan-load or plan-run at
// the form's position; a cancelled run stays a cancellation.
func (t *thread) planError(name string, err error, pos sexp.Pos) *Error {
	if t.ctx.Err() != nil {
		return t.cancelled(pos)
	}
	var stop *PlanStop
	if errors.As(err, &stop) {
		return errorf(pos, KindValue, "'%s' stopped: %s", name, stop.Msg)
	}
	return errorf(pos, KindValue, "'%s': %s", name, err.Error())
}

// primPlanLoad is plan-load applied to a value: the directory.
func primPlanLoad(t *thread, c *call, args []value.Value) (value.Value, error) {
	return t.planLoad(args[0], c.at())
}

// primPlanRun is plan-run applied to values: the directory and a dict of
// options.
func primPlanRun(t *thread, c *call, args []value.Value) (value.Value, error) {
	opts := PlanRunOptions{Parallel: 1}
	if len(args) == 2 {
		d, ok := args[1].(*value.Dict)
		if !ok {
			return nil, typeError("plan-run", c, 1, "dict", args[1])
		}
		for _, k := range d.Keys() {
			v, _ := d.Get(k)
			if err := setPlanRunOption(&opts, k, v, c.argPos(1)); err != nil {
				return nil, err
			}
		}
	}
	return t.planRun(args[0], opts, c.at())
}

// errNoPlans is the error of plan-load and plan-run under a TaskSystem
// without Plans.
var errNoPlans = errors.New("plans are not available here")

// LoadPlan implements Planner with s.Plans.
func (s *TaskSystem) LoadPlan(ctx context.Context, dir string) (*value.Dict, error) {
	if s.Plans == nil {
		return nil, errNoPlans
	}
	return s.Plans.LoadPlan(ctx, dir)
}

// RunPlan implements Planner with s.Plans.
func (s *TaskSystem) RunPlan(ctx context.Context, dir string, opts PlanRunOptions) (*value.Dict, error) {
	if s.Plans == nil {
		return nil, errNoPlans
	}
	return s.Plans.RunPlan(ctx, dir, opts)
}
