package temporal

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"time"

	"github.com/evalrun/evalrun/evaluator"
	"github.com/evalrun/evalrun/plan"
	"github.com/evalrun/evalrun/progress"
	"github.com/evalrun/evalrun/trace"
	"github.com/evalrun/evalrun/value"
	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"
)

// Plans on Temporal (SPEC §23.6): (plan-load DIR) is one activity, which
// reads and checks the plan on a worker and returns its dict. (plan-run
// DIR …) is an activity that checks the request and returns the run's
// plan.Schedule, then scheduling in workflow code — the same pure
// plan.Schedule a local run uses, so dependencies, (parallel N) and
// overlapping focus_paths hold as locally — and one activity per task of
// the plan (a plan step): its pre-steps, agent or task calls, summary and
// status, run on a worker through the engine's plan code. Each step holds
// the workflow's slots of the agents it runs (max_parallel, see
// AgentPolicy). The workers that run plan steps need the plan directory:
// a shared checkout or file system at the same path relative to their
// working directory.

// The registered names of the plan activities.
const (
	PlanLoadActivityName    = "evalrun.PlanLoad"
	PlanPrepareActivityName = "evalrun.PlanPrepare"
	PlanStepActivityName    = "evalrun.PlanStep"
)

// errPlan is the type of the non-retryable error of a plan activity whose
// plan or request is wrong (a plan with errors, an unknown --task, an
// active task, a worker without plans): running it again cannot help.
const errPlan = "evalrun.PlanError"

// PlanWorker is what the plan activities need of a worker's task system
// (Activities.Tasks or the run's, Activities.ForRun); package engine
// implements it. Without it the plan activities fail with the message
// that plans are not available on the worker.
type PlanWorker interface {
	// LoadPlan reads and checks the plan in dir (evaluator.Planner).
	LoadPlan(ctx context.Context, dir string) (*value.Dict, error)
	// PreparePlan checks a run of the plan in dir and returns its
	// schedule (plan.Prepare) with what the live display announces of
	// the plan.
	PreparePlan(ctx context.Context, dir string, o evaluator.PlanRunOptions) (*PreparedPlan, error)
	// RunPlanStep runs task id of the plan in dir (plan.RunStep); sums
	// are its file's accepted sums (plan.ScheduledTask.Sums) and run the
	// workflow id, recorded as the task's run. The error is for a plan
	// that cannot be read; what the task did is the result.
	RunPlanStep(ctx context.Context, dir string, o evaluator.PlanRunOptions, id string, sums []string, run string) (plan.StepResult, error)
}

// PlanLoadInput is a (plan-load DIR).
type PlanLoadInput struct {
	Dir      string
	RunStart time.Time
}

// PlanRunInput is the start of a (plan-run DIR …).
type PlanRunInput struct {
	Dir      string
	Options  evaluator.PlanRunOptions
	RunStart time.Time
}

// PreparedPlan is the result of the plan-prepare activity: the run's
// schedule, and what the workflow needs to show the plan run as a local
// run's display does — the name and directory of its step and the plan's
// tasks, announced below the step before they run (progress.Sink.Plan).
// The schedule's fields are its own, so a result recorded before the
// others existed decodes as a PreparedPlan without them; the workflow
// then names the step after the directory as written and announces
// nothing (each task shows when it starts, without its title).
type PreparedPlan struct {
	plan.Schedule
	// Step is the name of the (plan-run)'s step, "plan-run WFS-TOPIC";
	// Dir the plan's directory as the worker read it (the step's input).
	Step string `json:",omitempty"`
	Dir  string `json:",omitempty"`
	// Planned are the plan's tasks in id order, containers included,
	// with their titles and agents.
	Planned []progress.PlannedTask `json:",omitempty"`
}

// PlanStepInput is one task of a (plan-run) to run.
type PlanStepInput struct {
	Dir     string
	Options evaluator.PlanRunOptions
	// TaskID is the task's id as written; Sums its file's accepted sums.
	TaskID   string
	Sums     []string
	RunStart time.Time
}

// How a plan step stopped the run (PlanStepOutput.Stop).
const (
	stopManual  = "manual_intervention"
	stopChanged = "changed"
)

// PlanStepOutput is what a plan step did: plan.StepResult with its error
// as text. Stop is set when the step stops the run: manual_intervention
// (Step names the step) or changed (a plan file changed on disk).
type PlanStepOutput struct {
	Completed, Failed bool
	Answer            string
	Tokens            int64
	CostUSD           float64
	Reason            string
	Error             string `json:",omitempty"`
	Stop              string `json:",omitempty"`
	Step              string `json:",omitempty"`
	// Usage is what the step's calls used (its agent and task calls, as
	// a call activity's CallResult.Usage), which the workflow adds to the
	// run's usage and budget; nil when the worker traced no call, and in
	// a result recorded before steps reported their usage.
	Usage *CallUsage `json:",omitempty"`
}

// planWorker returns the PlanWorker of the call's task system.
func (a *Activities) planWorker(ctx context.Context, start time.Time) (PlanWorker, error) {
	if p, ok := a.tasksFor(ctx, start).(PlanWorker); ok {
		return p, nil
	}
	msg := "no plans can be run on this worker"
	return nil, temporal.NewNonRetryableApplicationError(msg, errPlan, nil)
}

// PlanLoad reads and checks a plan and returns its dict.
func (a *Activities) PlanLoad(ctx context.Context, in PlanLoadInput) (Value, error) {
	p, err := a.planWorker(ctx, in.RunStart)
	if err != nil {
		return Value{}, err
	}
	d, err := p.LoadPlan(ctx, in.Dir)
	if err != nil {
		return Value{}, temporal.NewNonRetryableApplicationError(err.Error(), errPlan, nil)
	}
	x, err := Encode(d)
	if err != nil {
		return Value{}, temporal.NewNonRetryableApplicationError(err.Error(), errBadInput, err)
	}
	if n := payloadSize(x); n > PayloadLimit {
		msg := fmt.Sprintf("the plan's dict is %d bytes encoded, over Temporal's payload limit of %d bytes", n, PayloadLimit)
		return Value{}, temporal.NewNonRetryableApplicationError(msg, errPlan, nil)
	}
	return x, nil
}

// PlanPrepare checks a plan run and returns its schedule.
func (a *Activities) PlanPrepare(ctx context.Context, in PlanRunInput) (*PreparedPlan, error) {
	p, err := a.planWorker(ctx, in.RunStart)
	if err != nil {
		return nil, err
	}
	s, err := p.PreparePlan(ctx, in.Dir, in.Options)
	if err != nil {
		return nil, temporal.NewNonRetryableApplicationError(err.Error(), errPlan, nil)
	}
	return s, nil
}

// PlanStep runs one task of a plan, heartbeating meanwhile; a
// cancellation reaches its agents' process groups through ctx. A failed
// task or a stop is a result; an interrupted step is an error, so that a
// step cut off by a stopping worker runs again elsewhere (from its first
// step, as --resume does).
func (a *Activities) PlanStep(ctx context.Context, in PlanStepInput) (PlanStepOutput, error) {
	p, err := a.planWorker(ctx, in.RunStart)
	if err != nil {
		return PlanStepOutput{}, err
	}
	run := ""
	if activity.IsActivity(ctx) {
		run = activity.GetInfo(ctx).WorkflowExecution.ID
	}
	stop := a.heartbeat(ctx)
	us := newUsageSink(trace.PlanTask)
	r, err := p.RunPlanStep(traced(ctx, a.tasksFor(ctx, in.RunStart), us), in.Dir, in.Options, in.TaskID, in.Sums, run)
	stop()
	if ierr := interrupted(ctx); ierr != nil {
		return PlanStepOutput{}, ierr
	}
	if err != nil {
		return PlanStepOutput{}, temporal.NewNonRetryableApplicationError(err.Error(), errPlan, nil)
	}
	out := PlanStepOutput{Completed: r.Completed, Failed: r.Failed, Answer: r.Answer, Tokens: r.Tokens, CostUSD: r.CostUSD, Reason: r.Reason, Usage: us.usage()}
	if r.Err != nil {
		out.Error = r.Err.Error()
		var me *plan.ManualError
		var ce *plan.ChangedError
		switch {
		case errors.As(r.Err, &me):
			out.Stop, out.Step = stopManual, me.Step
		case errors.As(r.Err, &ce):
			out.Stop = stopChanged
		}
	}
	if n := payloadSize(out); n > PayloadLimit {
		out.Answer = ""
		out.Completed, out.Failed = false, true
		out.Reason = fmt.Sprintf("the answer of %s is %d bytes encoded, over Temporal's payload limit of %d bytes", in.TaskID, n, PayloadLimit)
		out.Error = out.Reason
	}
	return out, nil
}

var _ evaluator.Planner = (*workflowTasks)(nil)

// LoadPlan implements evaluator.Planner in the workflow: an activity.
func (t *workflowTasks) LoadPlan(ctx context.Context, dir string) (*value.Dict, error) {
	wctx := workflow.WithActivityOptions(workflowOf(ctx), t.opts)
	var out Value
	if err := workflow.ExecuteActivity(wctx, PlanLoadActivityName, PlanLoadInput{Dir: dir, RunStart: t.start}).Get(wctx, &out); err != nil {
		return nil, errors.New(activityMessage(err))
	}
	v, err := Decode(out)
	if err != nil {
		return nil, err
	}
	d, ok := v.(*value.Dict)
	if !ok {
		return nil, fmt.Errorf("plan-load activity returned a %s", v.Type())
	}
	return d, nil
}

// planDone is the end of one plan step, sent to the scheduling loop.
type planDone struct {
	id  string
	out PlanStepOutput
	err error
}

// RunPlan implements evaluator.Planner in the workflow: the schedule
// comes from a worker, the scheduling happens here, every task is a plan
// step activity. The result is the dict of a local (plan-run): completed
// tasks in the order they finished, then the failed, then those not
// started.
func (t *workflowTasks) RunPlan(ctx context.Context, dir string, o evaluator.PlanRunOptions) (*value.Dict, error) {
	wctx := workflow.WithActivityOptions(workflowOf(ctx), t.opts)
	var sched PreparedPlan
	if err := workflow.ExecuteActivity(wctx, PlanPrepareActivityName, PlanRunInput{Dir: dir, Options: o, RunStart: t.start}).Get(wctx, &sched); err != nil {
		return nil, errors.New(activityMessage(err))
	}
	ctx, end := t.planRunStep(ctx, dir, o, &sched)
	res, failedIDs, err := t.schedulePlan(ctx, wctx, dir, o, &sched)
	end(res, failedIDs, err)
	return res, err
}

// planRunStep opens the step of a (plan-run), as a local run does
// (engine's planRunStep): named "plan-run WFS-TOPIC", its input the
// plan's directory and the options given, and announces the plan's tasks
// to the display below it, so that a follower sees the whole plan from
// the start. end records it completed with the result dict, or failed:
// with err, else with the failed tasks as plan.FailedError says them.
func (t *workflowTasks) planRunStep(ctx context.Context, dir string, o evaluator.PlanRunOptions, sched *PreparedPlan) (context.Context, func(d *value.Dict, failed []string, err error)) {
	name, pdir := sched.Step, sched.Dir
	if pdir == "" {
		pdir = dir
	}
	if name == "" {
		name = "plan-run " + filepath.Base(pdir)
	}
	in := value.DictOf("dir", value.String(pdir))
	if len(o.Tasks) > 0 {
		ts := make(value.List, len(o.Tasks))
		for i, id := range o.Tasks {
			ts[i] = value.String(id)
		}
		in.Set("task", ts)
	}
	if o.Parallel > 0 {
		in.Set("parallel", value.Int(o.Parallel))
	}
	if o.Agent != "" {
		in.Set("agent", value.String(o.Agent))
	}
	ctx, sp := trace.Start(ctx, trace.Step, name, in)
	sp.Running()
	if t.display != nil && len(sched.Planned) > 0 {
		t.display.Plan(sp, sched.Planned)
	}
	return ctx, func(d *value.Dict, failed []string, err error) {
		r := trace.Result{Status: trace.Completed, Attempts: 1}
		if d != nil {
			r.Value = d
		}
		if err == nil && len(failed) > 0 {
			err = &plan.FailedError{Failed: failed}
		}
		if err != nil {
			r.Status, r.Error = trace.Failed, err.Error()
		}
		sp.End(r, trace.Usage{})
	}
}

// schedulePlan runs the tasks of sched, each a plan step activity below
// the step of ctx, and returns the result dict of RunPlan and the ids of
// the failed tasks.
func (t *workflowTasks) schedulePlan(ctx context.Context, wctx workflow.Context, dir string, o evaluator.PlanRunOptions, sched *PreparedPlan) (*value.Dict, []string, error) {
	planned := make(map[string]progress.PlannedTask, len(sched.Planned))
	for _, p := range sched.Planned {
		planned[p.ID] = p
	}
	done := workflow.NewChannel(wctx)
	var completed, failedIDs []string
	outs := map[string]PlanStepOutput{}
	var stop error
	for {
		if stop == nil && ctx.Err() == nil {
			for _, id := range sched.Next() {
				st := sched.Task(id)
				in := PlanStepInput{Dir: dir, Options: o, TaskID: id, Sums: st.Sums, RunStart: t.start}
				agents := st.Agents
				pt, known := planned[id]
				workflow.Go(wctx, func(c workflow.Context) {
					var out PlanStepOutput
					release, err := t.acquireAgents(c, agents)
					if err == nil {
						out, err = t.planStep(ctx, c, in, agents, pt, known)
						release()
					}
					done.Send(c, planDone{id: id, out: out, err: err})
				})
			}
		}
		if sched.Running() == 0 {
			break
		}
		var d planDone
		done.Receive(wctx, &d)
		switch {
		case d.err != nil && (temporal.IsCanceledError(d.err) || ctx.Err() != nil):
			sched.Finish(d.id, false, false)
			if stop == nil {
				stop = d.err
			}
		case d.err != nil:
			// The step's activity failed after its retries: the task
			// failed, as a task whose call failed does locally.
			sched.Finish(d.id, false, true)
			failedIDs = append(failedIDs, d.id)
			outs[d.id] = PlanStepOutput{Failed: true, Reason: firstLine(activityMessage(d.err))}
		case d.out.Stop != "":
			sched.Finish(d.id, false, false)
			if stop == nil {
				stop = stepStop(d.id, d.out)
			}
		default:
			sched.Finish(d.id, d.out.Completed, d.out.Error != "")
			outs[d.id] = d.out
			if d.out.Completed {
				completed = append(completed, d.id)
			}
			if d.out.Failed {
				failedIDs = append(failedIDs, d.id)
			}
		}
	}
	if stop != nil {
		return nil, failedIDs, stop
	}
	res := value.NewDict(0)
	for _, id := range completed {
		r := outs[id]
		res.Set(id, value.DictOf(
			"status", value.String("completed"),
			"answer", value.String(r.Answer),
			"tokens", value.Int(r.Tokens),
			"cost_usd", value.Float(r.CostUSD),
		))
	}
	for _, id := range failedIDs {
		res.Set(id, value.DictOf("status", value.String("failed"), "reason", value.String(outs[id].Reason)))
	}
	log := workflow.GetLogger(wctx)
	for _, ns := range sched.NotStarted() {
		if _, ok := res.Get(ns.ID); ok {
			continue
		}
		log.Info(fmt.Sprintf("plan: %s not started (%s)", ns.ID, ns.Why))
		res.Set(ns.ID, value.DictOf("status", value.String("not_started")))
	}
	return res, failedIDs, nil
}

// planStep runs one plan step as an activity inside a plan-task span,
// which the live display shows as a local run's plan task, ending with
// what the step used; a spent budget refuses the step before it starts
// (budget.go): it fails as a task whose call the budget refused does
// locally, "resource_exhaustion: budget spent: …". agents are the agents
// the step runs. When the plan was announced (known), the span has the
// task's title and agent as a local run's has, taking over the announced
// task on the display; else, when the step runs one agent, the span names
// it as its executor.
func (t *workflowTasks) planStep(ctx context.Context, c workflow.Context, in PlanStepInput, agents []string, pt progress.PlannedTask, known bool) (PlanStepOutput, error) {
	var attrs []trace.Attr
	switch {
	case known:
		attrs = append(attrs, trace.Title(pt.Title), trace.Executor(pt.Agent))
	case len(agents) == 1:
		attrs = append(attrs, trace.Executor(agents[0]))
	}
	_, span := trace.Start(ctx, trace.PlanTask, in.TaskID, nil, attrs...)
	span.Running()
	var out PlanStepOutput
	var err error
	if berr := t.refuse(); berr != nil {
		out = PlanStepOutput{Failed: true, Reason: berr.Reason() + ": " + berr.Error()}
		out.Error = out.Reason
	} else {
		err = workflow.ExecuteActivity(c, PlanStepActivityName, in).Get(c, &out)
	}
	// The span ends with what the step's calls used: the display shows
	// the step as one call, not its agent calls on the worker.
	var su trace.Usage
	if out.Usage != nil {
		u := out.Usage.Run
		t.addUsage(u)
		su = trace.Usage{InputTokens: u.InputTokens, OutputTokens: u.OutputTokens, Turns: u.Turns, CostUSD: u.CostUSD, CostKnown: u.CostUnknown == 0}
	}
	r := trace.Result{Status: trace.Completed, Value: value.String(out.Answer), Attempts: 1}
	switch {
	case err != nil:
		r = trace.Result{Status: trace.Failed, Error: firstLine(activityMessage(err)), Attempts: 1}
	case !out.Completed:
		msg := out.Reason
		if msg == "" {
			msg = firstLine(out.Error)
		}
		r = trace.Result{Status: trace.Failed, Error: msg, Attempts: 1}
	}
	span.End(r, su)
	return out, err
}

// stepStop is the error of a step that stops the run: a *PlanStop for a
// manual_intervention step, as locally, else the step's message.
func stepStop(id string, out PlanStepOutput) error {
	if out.Stop == stopManual {
		return &evaluator.PlanStop{TaskID: id, Step: out.Step, Msg: out.Error}
	}
	return errors.New(out.Error)
}

func firstLine(s string) string {
	for i := 0; i < len(s); i++ {
		if s[i] == '\n' {
			return s[:i]
		}
	}
	return s
}
