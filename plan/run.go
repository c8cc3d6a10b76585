package plan

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/evalrun/evalrun/internal/rootfs"
	"github.com/evalrun/evalrun/internal/shellwords"
)

// Executor runs the calls of a plan that are not shell commands: the
// prompt of a task (a template rendered with the task, run by an agent of
// §22 or a provider) and an agent on a prompt (NAME(…) steps and ccw cli).
// It also opens the journal nodes of the run. Package engine implements
// it; plan never runs a model or an agent itself.
type Executor interface {
	// RunTask renders call.Template with call.Inputs and runs it with
	// call.Agent ("" for the provider of §14.5).
	RunTask(ctx context.Context, call TaskCall) (Answer, error)
	// RunAgent runs the agent call.Agent on call.Prompt.
	RunAgent(ctx context.Context, call AgentCall) (Answer, error)
	// Begin opens a journal node of kind "task" (a plan task) or "step"
	// under the node ctx carries; the returned context carries the new
	// node, and end records its outcome (err nil for success).
	Begin(ctx context.Context, kind, name string) (context.Context, func(output string, err error))
}

// CommandExecutor is an Executor that journals the command of an
// implementation_approach step as a node of its own: Run uses it when the
// Executor implements it (package engine's does), and Begin(ctx, "step",
// name) otherwise.
type CommandExecutor interface {
	Executor
	// BeginCommand opens a journal node named name ("IMPL-1 step 2")
	// under the node ctx carries, for the command as written; the
	// returned context carries the new node (an agent command's call goes
	// below it), and end records what the command did (err nil for
	// success).
	BeginCommand(ctx context.Context, name, command string) (context.Context, func(res CommandResult, err error))
}

// CommandResult is what one command did.
type CommandResult struct {
	// Output is the command's output, which later steps see when it
	// succeeded: a shell command's standard output without its last
	// newline, an agent's answer, or "[dry run: CMD]".
	Output string
	// Agent is the agent of an agent command (NAME(…), ccw cli); "" for a
	// shell command.
	Agent string
	// ExitCode is a shell command's exit status: -1 when it did not run
	// to an exit (not started, killed, cancelled) or did not run at all
	// (an agent command, a dry run).
	ExitCode int
	// Stderr is a shell command's standard error.
	Stderr string
}

// TaskCall is the prompt of one task (or one group of its
// implementation steps).
type TaskCall struct {
	// TaskID is the task's id as written (IMPL-001).
	TaskID string
	// Template is plan/ROLE.
	Template string
	// Agent is the agent of §22 that runs the call; "" means a provider.
	Agent string
	// Inputs are task, session, parent, analysis, dependency_summaries
	// and sections: strings, numbers, bools, []any and []KV
	// (objects, in order).
	Inputs []KV
	// Optional names the inputs passed only to a template that declares
	// them: sections, which role templates written before it do not.
	Optional []string
}

// AgentCall is an agent run on a prompt by a step.
type AgentCall struct {
	TaskID string
	Step   string
	Agent  string
	Prompt string
	// Dir is the directory the agent runs in: the project root, or
	// `ccw cli --cd DIR` under it.
	Dir string
	// ReadOnly asks for the agent's read_only_args (`--mode analysis`).
	ReadOnly bool
}

// Answer is the outcome of a call.
type Answer struct {
	Text    string
	Tokens  int64
	CostUSD float64
}

// ManualError stops a plan run at a step whose on_error is
// manual_intervention; the command line exits 4.
type ManualError struct {
	TaskID string
	Step   string
	Err    error
}

// Error returns the message.
func (e *ManualError) Error() string {
	return fmt.Sprintf("%s: pre_analysis step %q failed and needs a person (on_error manual_intervention): %v\n"+
		"the task stays active; fix the cause, then continue with: evalrun plan run --resume", e.TaskID, e.Step, e.Err)
}

// Unwrap returns the error that stopped the step.
func (e *ManualError) Unwrap() error { return e.Err }

// RunOptions configure a plan run.
type RunOptions struct {
	Options
	// Parallel is how many tasks run at once; 0 means 1.
	Parallel int
	// Tasks are the --task patterns; empty runs every ready task.
	Tasks []string
	// Agent is --agent: the agent of tasks that [plan.agents] and
	// meta.tool leave unchosen.
	Agent string
	// DefaultAgent is default_agent of the configuration.
	DefaultAgent string
	// DryRun prints the waves and sends every prompt to the executor
	// (which writes it, §17.7) without running a command or an agent.
	DryRun bool
	// Resume restarts the tasks left active by a crash or a
	// manual_intervention from their first step.
	Resume bool
	// RunID is the journal run, recorded with each task.
	RunID string
	// Stdout receives the dry run's waves; Stderr warnings and progress.
	Stdout, Stderr io.Writer
	// Now is the clock; nil means time.Now.
	Now func() time.Time
	// Env is the environment of shell commands; nil inherits evalrun's.
	Env []string
}

// Outcome is what a plan run did.
type Outcome struct {
	Completed []string
	Failed    []string
	// NotStarted are selected tasks that did not run: their dependencies
	// failed or are outside the selection.
	NotStarted []string
	// Waves is the order of a dry run.
	Waves [][]string
	// Answers holds the answer of each completed task, by id.
	Answers map[string]string
	// Usage holds the tokens and cost of each completed task, by id.
	Usage map[string]Answer
	// Reasons holds the first line of the failure of each failed task,
	// by id.
	Reasons map[string]string
}

// FailedError is returned when some tasks failed; the others ran.
type FailedError struct{ Failed []string }

// Error returns the message.
func (e *FailedError) Error() string {
	return fmt.Sprintf("%d task(s) failed: %s", len(e.Failed), strings.Join(e.Failed, ", "))
}

// runner is one plan run.
type runner struct {
	p    *Plan
	exec Executor
	opts RunOptions
	mu   sync.Mutex // guards the plan's files, recs, outcome
	recs map[string]*RunRecord
	out  *Outcome
	// restart holds the active tasks that --resume starts again.
	restart map[*Task]bool
	// step, when set, is the one task of a step run by RunStep: other
	// processes may write the plan's shared files meanwhile.
	step *Task
}

func (o *RunOptions) now() time.Time {
	if o.Now != nil {
		return o.Now()
	}
	return time.Now()
}

// Run executes the plan (SPEC §23.3). The plan must have been loaded
// without errors. It returns the outcome and, when the run did not
// complete everything it started, an error: *ManualError (exit 4),
// *ChangedError, *FailedError (exit 1) or a usage problem.
func Run(ctx context.Context, p *Plan, exec Executor, opts RunOptions) (*Outcome, error) {
	if opts.Stderr == nil {
		opts.Stderr = io.Discard
	}
	if opts.Stdout == nil {
		opts.Stdout = io.Discard
	}
	if opts.Parallel < 1 {
		opts.Parallel = 1
	}
	sel, bad := p.Select(opts.Tasks)
	if len(bad) > 0 {
		return nil, &UsageError{Msg: strings.Join(bad, "; ")}
	}
	recs, err := p.ReadState()
	if err != nil {
		return nil, err
	}
	r := &runner{p: p, exec: exec, opts: opts, recs: recs, out: &Outcome{Answers: map[string]string{}, Usage: map[string]Answer{}, Reasons: map[string]string{}}, restart: map[*Task]bool{}}
	for _, t := range p.Leaves() {
		if t.Status != StatusActive || (sel != nil && !sel(t)) {
			continue
		}
		if !opts.Resume && !opts.DryRun {
			return nil, &UsageError{Msg: fmt.Sprintf("%s is active: an earlier run stopped in it; continue with evalrun plan run --resume", t.ID)}
		}
		r.restart[t] = true
	}
	if opts.DryRun {
		return r.dryRun(ctx, sel)
	}
	unlock, err := p.lock()
	if err != nil {
		return nil, err
	}
	defer unlock()
	return r.run(ctx, sel)
}

// UsageError is a problem with the request, not the plan (exit 2).
type UsageError struct{ Msg string }

// Error returns the message.
func (e *UsageError) Error() string { return e.Msg }

func (r *runner) run(ctx context.Context, sel func(*Task) bool) (*Outcome, error) {
	type done struct {
		t   *Task
		err error
	}
	sched := NewSchedule(r.p, sel, r.restart, r.opts.Parallel)
	finished := make(chan done)
	var stopErr error
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	for {
		if stopErr == nil && ctx.Err() == nil {
			for _, id := range sched.Next() {
				t, _ := r.p.Task(id)
				go func(t *Task) { finished <- done{t, r.runTask(ctx, t)} }(t)
			}
		}
		if sched.Running() == 0 {
			break
		}
		d := <-finished
		if d.err == nil {
			sched.Finish(d.t.ID, true, false)
			continue
		}
		if StopsRun(d.err) || ctx.Err() != nil {
			sched.Finish(d.t.ID, false, false)
			if stopErr == nil {
				stopErr = d.err
			}
			continue
		}
		sched.Finish(d.t.ID, false, true)
	}
	if stopErr == nil && ctx.Err() != nil {
		stopErr = context.Cause(ctx)
	}
	r.mu.Lock()
	for _, ns := range sched.NotStarted() {
		if slices.Contains(r.out.Completed, ns.ID) {
			continue
		}
		r.out.NotStarted = append(r.out.NotStarted, ns.ID)
		if stopErr == nil {
			fmt.Fprintf(r.opts.Stderr, "plan: %s not started (%s)\n", ns.ID, ns.Why)
		}
	}
	if len(r.out.Completed) == 0 && len(r.out.Failed) == 0 && len(r.out.NotStarted) == 0 && stopErr == nil {
		fmt.Fprintf(r.opts.Stderr, "plan: nothing to run: every selected task is completed\n")
	}
	r.mu.Unlock()
	if stopErr != nil {
		return r.out, stopErr
	}
	if len(r.out.Failed) > 0 {
		return r.out, &FailedError{Failed: r.out.Failed}
	}
	return r.out, nil
}

// StopsRun reports whether the error of a task's step stops the whole
// run rather than failing the task: a step that needs a person
// (*ManualError) or a plan file changed by someone else (*ChangedError).
func StopsRun(err error) bool {
	var me *ManualError
	var ce *ChangedError
	return errors.As(err, &me) || errors.As(err, &ce)
}

// dryRun prints the waves and sends each task's prompt with placeholder
// step outputs.
func (r *runner) dryRun(ctx context.Context, sel func(*Task) bool) (*Outcome, error) {
	waves, unreachable := r.p.Waves(r.opts.Parallel, sel)
	for i, w := range waves {
		ids := make([]string, len(w))
		for j, t := range w {
			ids[j] = t.ID
		}
		r.out.Waves = append(r.out.Waves, ids)
		fmt.Fprintf(r.opts.Stdout, "wave %d: %s\n", i+1, strings.Join(ids, " "))
	}
	if len(unreachable) > 0 {
		fmt.Fprintf(r.opts.Stdout, "not reachable (blocked dependencies): %s\n", strings.Join(unreachable, " "))
	}
	for _, w := range waves {
		for _, t := range w {
			if _, err := r.execute(ctx, t); err != nil {
				return r.out, err
			}
		}
	}
	return r.out, nil
}

// runTask runs one leaf task end to end, writing its status, summary and
// the plan's progress.
func (r *runner) runTask(ctx context.Context, t *Task) (err error) {
	ctx, end := r.exec.Begin(ctx, "task", t.ID)
	var answer string
	defer func() { end(answer, err) }()
	agent := r.executorOf(t)
	if err := r.update(func() error {
		if err := r.p.SetStatus(t, StatusActive); err != nil {
			return err
		}
		r.recs[t.Key] = &RunRecord{Agent: agentLabel(t, agent), StartedAt: r.opts.now().UTC().Format(time.RFC3339), Run: r.opts.RunID}
		return nil
	}); err != nil {
		return err
	}
	fmt.Fprintf(r.opts.Stderr, "plan: %s started (%s)\n", t.ID, agentLabel(t, agent))
	ans, err := r.execute(ctx, t)
	var me *ManualError
	if errors.As(err, &me) || ctx.Err() != nil {
		return err
	}
	if err != nil {
		fmt.Fprintf(r.opts.Stderr, "plan: %s failed: %v\n", t.ID, err)
		if uerr := r.update(func() error {
			rec := r.recs[t.Key]
			rec.Reason = firstLine(err.Error())
			rec.FinishedAt = r.opts.now().UTC().Format(time.RFC3339)
			r.out.Failed = append(r.out.Failed, t.ID)
			r.out.Reasons[t.ID] = rec.Reason
			return r.p.SetStatus(t, StatusBlocked)
		}); uerr != nil {
			return uerr
		}
		return err
	}
	answer = ans.Text
	if err := r.writeSummary(t, agent, ans); err != nil {
		return err
	}
	var container *Task
	err = r.update(func() error {
		rec := r.recs[t.Key]
		rec.Reason = ""
		rec.FinishedAt = r.opts.now().UTC().Format(time.RFC3339)
		rec.Tokens, rec.CostUSD = ans.Tokens, ans.CostUSD
		if err := r.p.SetStatus(t, StatusCompleted); err != nil {
			return err
		}
		r.out.Completed = append(r.out.Completed, t.ID)
		r.out.Answers[t.ID] = ans.Text
		r.out.Usage[t.ID] = Answer{Tokens: ans.Tokens, CostUSD: ans.CostUSD}
		if c := t.Parent; c != nil && r.p.Completed(c) && c.Status != StatusCompleted {
			if err := r.p.SetStatus(c, StatusCompleted); err != nil {
				return err
			}
			container = c
		}
		return nil
	})
	if err == nil {
		fmt.Fprintf(r.opts.Stderr, "plan: %s completed\n", t.ID)
		if container != nil {
			fmt.Fprintf(r.opts.Stderr, "plan: %s completed (all subtasks done)\n", container.ID)
		}
	}
	return err
}

// update changes plan files under the run's lock, then rewrites the run
// records, TODO_LIST.md and the session's progress.
func (r *runner) update(change func() error) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.step != nil {
		unlock, err := r.refreshShared()
		if err != nil {
			return err
		}
		defer unlock()
	}
	if err := change(); err != nil {
		return err
	}
	if err := r.p.WriteState(r.recs); err != nil {
		return err
	}
	if err := WriteAtomic(filepath.Join(r.p.Dir, "TODO_LIST.md"), []byte(r.p.TodoList(r.recs))); err != nil {
		return err
	}
	return r.p.WriteSession(r.opts.now())
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(s, "\n")
	return s
}

// executorOf chooses the agent of a task (SPEC §23.3, §23.7):
// [plan.agents] for its meta.agent, meta.tool, --agent, default_agent;
// "" means the provider.
func (r *runner) executorOf(t *Task) string {
	if a, ok := r.opts.AgentMap[t.Agent]; ok && t.Agent != "" {
		return a
	}
	for _, a := range []string{t.Tool, r.opts.Agent, r.opts.DefaultAgent} {
		if a != "" && a != "none" {
			return a
		}
		if a == "none" {
			return ""
		}
	}
	return ""
}

func agentLabel(t *Task, agent string) string {
	role := t.Agent
	if role == "" {
		role = "@universal-executor"
	}
	if agent == "" {
		return role
	}
	return role + " via " + agent
}

// roleTemplate is plan/ROLE for the task's meta.agent, or
// plan/universal-executor when no such template exists.
func (r *runner) roleTemplate(t *Task) string {
	name := TemplateFor(t.Agent)
	if slices.Contains(Roles, t.Agent) || (r.opts.HasTemplate != nil && r.opts.HasTemplate(name)) {
		return name
	}
	return TemplateFor("")
}

var varRef = regexp.MustCompile(`\[([A-Za-z_][A-Za-z0-9_]*)\]`)

// substitute replaces [var] by the output of an earlier step; quote, when
// not nil, is applied to each value with the text before it (inside
// bash(…), shellwords.QuoteAt: one shell word, or escaped for the quotes
// the command has open around [var]); its error names the variable.
func substitute(s string, vars map[string]string, quote func(prefix, v string) (string, error)) (string, error) {
	var b strings.Builder
	last := 0
	for _, m := range varRef.FindAllStringSubmatchIndex(s, -1) {
		name := s[m[2]:m[3]]
		v, ok := vars[name]
		if !ok {
			continue
		}
		b.WriteString(s[last:m[0]])
		if quote != nil {
			var err error
			if v, err = quote(b.String(), v); err != nil {
				return "", fmt.Errorf("[%s]: %w", name, err)
			}
		}
		b.WriteString(v)
		last = m[1]
	}
	b.WriteString(s[last:])
	return b.String(), nil
}

// replace is substitute without quoting, which cannot fail.
func replace(s string, vars map[string]string) string {
	out, _ := substitute(s, vars, nil)
	return out
}

// execute runs the steps and the agent calls of a task and returns the
// answer: pre_analysis, then implementation_approach in step order.
func (r *runner) execute(ctx context.Context, t *Task) (Answer, error) {
	vars := map[string]string{}
	var order []string
	for _, s := range t.PreAnalysis {
		out, err := r.preStep(ctx, t, s, vars)
		if err != nil {
			return Answer{}, err
		}
		if s.OutputTo != "" {
			if _, seen := vars[s.OutputTo]; !seen {
				order = append(order, s.OutputTo)
			}
			vars[s.OutputTo] = out
		}
	}
	agent := r.executorOf(t)
	var total Answer
	var parts []string
	call := func(group []ApproachStep) error {
		inputs := r.inputs(t, group, vars, order)
		ans, err := r.exec.RunTask(ctx, TaskCall{TaskID: t.ID, Template: r.roleTemplate(t), Agent: agent, Inputs: inputs, Optional: []string{"sections"}})
		if err != nil {
			return err
		}
		parts = append(parts, ans.Text)
		total.Tokens += ans.Tokens
		total.CostUSD += ans.CostUSD
		return nil
	}
	var group []ApproachStep
	steps := slices.Clone(t.Approach)
	slices.SortStableFunc(steps, func(a, b ApproachStep) int { return a.Number - b.Number })
	for _, s := range steps {
		if s.Command == "" {
			group = append(group, s)
			continue
		}
		if len(group) > 0 {
			if err := call(group); err != nil {
				return Answer{}, err
			}
			group = nil
		}
		name := fmt.Sprintf("step %d", s.Number)
		res, ans, err := r.commandStep(ctx, t, name, s.Command, vars)
		if err != nil {
			return Answer{}, fmt.Errorf("implementation step %d: %w", s.Number, err)
		}
		out := res.Output
		total.Tokens += ans.Tokens
		total.CostUSD += ans.CostUSD
		if s.Output != "" {
			if _, seen := vars[s.Output]; !seen {
				order = append(order, s.Output)
			}
			vars[s.Output] = out
		}
		parts = append(parts, out)
	}
	if len(group) > 0 || len(parts) == 0 {
		if err := call(group); err != nil {
			return Answer{}, err
		}
	}
	total.Text = strings.Join(parts, "\n\n")
	return total, nil
}

// preStep runs one pre_analysis step with its on_error policy.
func (r *runner) preStep(ctx context.Context, t *Task, s PreStep, vars map[string]string) (string, error) {
	name := s.Name
	sctx, end := r.exec.Begin(ctx, "step", t.ID+" "+name)
	attempt := func() (string, error) {
		var outs []string
		for _, c := range s.Commands {
			res, _, err := r.command(sctx, t, name, c, vars, false)
			if err != nil {
				return "", err
			}
			outs = append(outs, res.Output)
		}
		if len(s.Commands) == 0 && s.Action != "" {
			// A step of the flat schema with an action and no command:
			// the executor carries the action out.
			res, _, err := r.run1(sctx, t, name, Command{Kind: CmdInstruction, Text: s.Action, Raw: s.Action}, vars, false)
			if err != nil {
				return "", err
			}
			outs = append(outs, res.Output)
		}
		return strings.Join(outs, "\n\n"), nil
	}
	out, err := attempt()
	if err != nil && s.OnError == "retry_once" && ctx.Err() == nil {
		fmt.Fprintf(r.opts.Stderr, "plan: %s: pre_analysis step %q failed, running it once more: %v\n", t.ID, name, err)
		out, err = attempt()
	}
	end(out, err)
	if err == nil {
		return out, nil
	}
	if ctx.Err() != nil {
		return "", err
	}
	switch s.OnError {
	case "skip_optional", "continue":
		fmt.Fprintf(r.opts.Stderr, "warning: %s: pre_analysis step %q failed and is skipped (on_error %s): %v\n", t.ID, name, s.OnError, err)
		return "", nil
	case "manual_intervention":
		return "", &ManualError{TaskID: t.ID, Step: name, Err: err}
	}
	return "", fmt.Errorf("pre_analysis step %q: %w", name, err)
}

// commandStep runs the command of an implementation step in a journal
// node of its own, "ID step N" (CommandExecutor), so that the run's tree
// shows the command with its output and exit status.
func (r *runner) commandStep(ctx context.Context, t *Task, step, raw string, vars map[string]string) (CommandResult, Answer, error) {
	var end func(CommandResult, error)
	if ce, ok := r.exec.(CommandExecutor); ok {
		ctx, end = ce.BeginCommand(ctx, t.ID+" "+step, raw)
	} else {
		var endStep func(string, error)
		ctx, endStep = r.exec.Begin(ctx, "step", t.ID+" "+step)
		end = func(res CommandResult, err error) { endStep(res.Output, err) }
	}
	res, ans, err := r.command(ctx, t, step, raw, vars, true)
	end(res, err)
	return res, ans, err
}

// command runs one command: a shell command with sh -c in the project
// root, or an agent call.
func (r *runner) command(ctx context.Context, t *Task, step, raw string, vars map[string]string, bare bool) (CommandResult, Answer, error) {
	c, err := ParseCommand(raw, r.opts.agents(), bare)
	if err != nil {
		return CommandResult{ExitCode: -1}, Answer{}, err
	}
	return r.run1(ctx, t, step, c, vars, bare)
}

// run1 runs a command read.
func (r *runner) run1(ctx context.Context, t *Task, step string, c Command, vars map[string]string, bare bool) (CommandResult, Answer, error) {
	res := CommandResult{ExitCode: -1}
	raw := c.Raw
	var err error
	if c.Kind == CmdAgent {
		res.Agent = c.Agent
	}
	if r.opts.DryRun {
		res.Output = "[dry run: " + raw + "]"
		return res, Answer{}, nil
	}
	if c.Expand != "" {
		if c, err = r.expandCCW(ctx, c); err != nil {
			return res, Answer{}, err
		}
	}
	switch c.Kind {
	case CmdRead:
		return r.readCommand(c, vars)
	case CmdInstruction:
		// A tool call of the executing agent: the task's executor carries
		// it out, read-only in pre_analysis, which gathers context.
		c.Kind, c.Agent, c.ReadOnly = CmdAgent, r.executorOf(t), !bare
		c.Text = fmt.Sprintf("Carry out this step of task %s (%s) with your tools and answer with its result only:\n\n%s", t.ID, step, c.Text)
		res.Agent = c.Agent
	}
	if c.Kind == CmdAgent {
		prompt := replace(c.Text, vars)
		dir, err := r.agentDir(c)
		if err != nil {
			return res, Answer{}, err
		}
		ans, err := r.exec.RunAgent(ctx, AgentCall{TaskID: t.ID, Step: step, Agent: c.Agent, Prompt: prompt, Dir: dir, ReadOnly: c.ReadOnly})
		res.Output = ans.Text
		return res, ans, err
	}
	text, err := substitute(c.Text, vars, shellwords.QuoteAt)
	if err != nil {
		return res, Answer{}, fmt.Errorf("%s: %w", short(c.Raw), err)
	}
	cmd := exec.CommandContext(ctx, "sh", "-c", text)
	cmd.Dir = r.p.Root
	cmd.Env = r.opts.Env
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err = cmd.Run()
	if cmd.ProcessState != nil {
		res.ExitCode = cmd.ProcessState.ExitCode()
	}
	res.Output, res.Stderr = strings.TrimSuffix(stdout.String(), "\n"), stderr.String()
	if err != nil {
		msg := lastLine(stderr.String())
		if msg == "" {
			return res, Answer{}, fmt.Errorf("%s: %w", short(text), err)
		}
		return res, Answer{}, fmt.Errorf("%s: %w: %s", short(text), err, msg)
	}
	return res, Answer{}, nil
}

// expandCCW lets the shell expand the words of a ccw cli command
// (Command.Expand) in the project root, as it would have before running
// ccw, and reads the command from them.
func (r *runner) expandCCW(ctx context.Context, c Command) (Command, error) {
	cmd := exec.CommandContext(ctx, "sh", "-c", `printf '%s\0' `+c.Expand)
	cmd.Dir = r.p.Root
	cmd.Env = r.opts.Env
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return c, fmt.Errorf("%s: expanding the words: %w: %s", short(c.Raw), err, lastLine(stderr.String()))
	}
	words := strings.Split(stdout.String(), "\x00")
	return ExpandCCW(c, words[:len(words)-1])
}

// agentDir is the directory an agent call runs in: the project root, or
// `ccw cli --cd DIR` relative to it, which must lie inside the root once
// its symbolic links are resolved (SPEC §19).
func (r *runner) agentDir(c Command) (string, error) {
	if c.Dir == "" {
		return r.p.Root, nil
	}
	dir := filepath.Join(r.p.Root, c.Dir)
	outside := fmt.Errorf("%s: --cd %s: path outside the project root", short(c.Raw), c.Dir)
	if filepath.IsAbs(c.Dir) {
		return "", outside
	}
	root, err := filepath.EvalSymlinks(r.p.Root)
	if err != nil {
		return "", err
	}
	real, err := filepath.EvalSymlinks(dir)
	if err != nil {
		// A directory that does not exist fails when the agent starts.
		if _, in := rootfs.Rel(filepath.Clean(r.p.Root), dir); !in {
			return "", outside
		}
		return dir, nil
	}
	if _, in := rootfs.Rel(root, real); !in {
		return "", outside
	}
	return dir, nil
}

// readCommand runs Read(PATH): the file's content, PATH relative to the
// project root, else to the session directory ("~/" is the home
// directory), [var] replaced. The file must lie inside the project root
// once its symbolic links are resolved (SPEC §19): a task file cannot make
// evalrun read ~/.ssh/id_rsa or ../other-project/.env into a prompt. It is
// opened through rootfs, so that a link swapped in after the check cannot
// lead outside either.
func (r *runner) readCommand(c Command, vars map[string]string) (CommandResult, Answer, error) {
	res := CommandResult{ExitCode: -1}
	path := replace(c.Text, vars)
	if rest, ok := strings.CutPrefix(path, "~/"); ok {
		if home, err := os.UserHomeDir(); err == nil {
			path = filepath.Join(home, rest)
		}
	}
	root, err := filepath.Abs(r.p.Root)
	if err != nil {
		return res, Answer{}, fmt.Errorf("Read(%s): %w", c.Text, err)
	}
	if !filepath.IsAbs(path) {
		rel := path
		path = filepath.Join(root, rel)
		// CCW's fix tasks name session files relative to the session
		// (.process/iteration-1-analysis.md).
		if _, err := os.Stat(path); err != nil {
			if dir, err := filepath.Abs(filepath.Join(r.p.Dir, rel)); err == nil {
				if _, err := os.Stat(dir); err == nil {
					path = dir
				}
			}
		}
	}
	path = filepath.Clean(path)
	outside := fmt.Errorf("Read(%s): path outside the project root: %s", c.Text, path)
	rootReal, err := filepath.EvalSymlinks(root)
	if err != nil {
		return res, Answer{}, fmt.Errorf("Read(%s): %w", c.Text, errors.Unwrap(err))
	}
	real, err := filepath.EvalSymlinks(path)
	if err != nil {
		if _, in := rootfs.Rel(root, path); !in {
			return res, Answer{}, outside
		}
		return res, Answer{}, fmt.Errorf("Read(%s): %w", c.Text, errors.Unwrap(err))
	}
	if _, in := rootfs.Rel(rootReal, real); !in {
		return res, Answer{}, outside
	}
	data, err := rootfs.ReadFile(rootReal, real)
	if err != nil {
		if u := errors.Unwrap(err); u != nil {
			err = u
		}
		return res, Answer{}, fmt.Errorf("Read(%s): %w", c.Text, err)
	}
	res.ExitCode, res.Output = 0, string(data)
	return res, Answer{}, nil
}

func lastLine(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return strings.TrimSpace(lines[len(lines)-1])
}

// writeSummary writes .summaries/ID-summary.md.
func (r *runner) writeSummary(t *Task, agent string, ans Answer) error {
	var b strings.Builder
	fmt.Fprintf(&b, "# %s: %s\n\n", t.ID, t.Title)
	fmt.Fprintf(&b, "- Agent: %s\n", agentLabel(t, agent))
	fmt.Fprintf(&b, "- Date: %s\n", r.opts.now().UTC().Format(time.RFC3339))
	if r.opts.RunID != "" {
		fmt.Fprintf(&b, "- Run: %s\n", r.opts.RunID)
	}
	fmt.Fprintf(&b, "\n## Answer\n\n%s\n", strings.TrimRight(ans.Text, "\n"))
	if len(t.TargetFiles) > 0 {
		b.WriteString("\n## Files\n\n")
		for _, f := range t.TargetFiles {
			fmt.Fprintf(&b, "- %s\n", f)
		}
	}
	return WriteAtomic(filepath.Join(r.p.Dir, ".summaries", t.ID+"-summary.md"), []byte(b.String()))
}

// inputs builds the inputs of a task's template: task, session, parent,
// analysis, dependency_summaries and sections.
func (r *runner) inputs(t *Task, group []ApproachStep, vars map[string]string, order []string) []KV {
	// The session file and the container's file are rewritten by other
	// tasks' goroutines under the lock.
	r.mu.Lock()
	defer r.mu.Unlock()
	task := []KV{}
	if m, ok := t.File.Root.Any().([]KV); ok {
		task = m
	}
	set := func(k string, v any) {
		for i := range task {
			if task[i].Key == k {
				task[i].Value = v
				return
			}
		}
		task = append(task, KV{k, v})
	}
	ctxMembers, _ := t.File.Root.Get("context").Any().([]KV)
	metaMembers, _ := t.File.Root.Get("meta").Any().([]KV)
	set("meta", orEmpty(metaMembers))
	set("context", orEmpty(ctxMembers))
	set("type", t.Type)
	set("agent", t.Agent)
	set("requirements", strs(t.Requirements))
	set("acceptance", strs(t.Acceptance))
	set("focus_paths", strs(t.FocusPaths))
	set("target_files", strs(t.TargetFiles))
	shared, steps, tests := sharedContext(t), stepsText(group), testCommands(t)
	set("shared_context", shared)
	set("implementation", steps)
	set("test_commands", strs(tests))
	session := []KV{}
	if r.p.Session != nil {
		if m, ok := r.p.Session.Root.Any().([]KV); ok {
			session = m
		}
	}
	planDoc := r.planDocument()
	session = append(session, KV{"plan_document", planDoc})
	parent := []KV{}
	if t.Parent != nil {
		if m, ok := t.Parent.File.Root.Get("context").Any().([]KV); ok {
			parent = m
		}
		parent = append([]KV{{"id", t.Parent.ID}, {"title", t.Parent.Title}}, parent...)
	}
	analysis := []KV{}
	for _, k := range order {
		analysis = append(analysis, KV{k, vars[k]})
	}
	deps := r.dependencySummaries(t)
	return []KV{
		{"task", task},
		{"session", session},
		{"parent", parent},
		{"analysis", analysis},
		{"dependency_summaries", deps},
		{"sections", promptSections(t, steps, shared, tests, analysis, deps, planDoc)},
	}
}

func orEmpty(m []KV) []KV {
	if m == nil {
		return []KV{}
	}
	return m
}

func strs(s []string) []any {
	out := make([]any, len(s))
	for i, v := range s {
		out[i] = v
	}
	return out
}

// sharedContext renders context.shared_context and context.inherited as
// text lines.
func sharedContext(t *Task) string {
	var b strings.Builder
	ctx := t.File.Root.Get("context")
	if t.Flat {
		ctx = t.File.Root
	}
	for _, key := range []string{"shared_context", "inherited"} {
		n := ctx.Get(key)
		if n == nil {
			continue
		}
		// Laid out afresh: the value sat indented inside the file.
		var compact, out bytes.Buffer
		if json.Compact(&compact, t.File.Src[n.Start:n.End]) != nil || json.Indent(&out, compact.Bytes(), "", "  ") != nil {
			out.Reset()
			out.Write(t.File.Src[n.Start:n.End])
		}
		fmt.Fprintf(&b, "%s: %s\n", key, out.String())
	}
	return strings.TrimSuffix(b.String(), "\n")
}

// stepsText lists implementation steps for a prompt.
func stepsText(steps []ApproachStep) string {
	var b strings.Builder
	for _, s := range steps {
		title := s.Title
		if title == "" {
			title = s.Description
		}
		fmt.Fprintf(&b, "%d. %s\n", s.Number, title)
		if s.Title != "" && s.Description != "" {
			fmt.Fprintf(&b, "   %s\n", s.Description)
		}
		for _, p := range s.Points {
			fmt.Fprintf(&b, "   - %s\n", p)
		}
	}
	return strings.TrimSuffix(b.String(), "\n")
}

var verifyBy = regexp.MustCompile(`verify by (.+?)(?: \(|$)`)

// testCommands are the task's test commands — context.test_commands,
// flow_control.test_commands or test.commands (a list, or an object of
// named commands such as {"run_tests": "npm test"}), else
// convergence.verification — else the commands of the acceptance
// criteria written "… verify by CMD (exit code 0)".
func testCommands(t *Task) []string {
	root := t.File.Root
	for _, tc := range []*Node{root.Get("context").Get("test_commands"), root.Get("flow_control").Get("test_commands"), root.Get("test").Get("commands")} {
		if tc == nil {
			continue
		}
		if tc.Kind == Object {
			var out []string
			for _, m := range tc.Members {
				if m.Value.Kind == String {
					out = append(out, m.Value.Str)
				}
			}
			return out
		}
		return listOrString(tc)
	}
	if v := root.Get("convergence").Get("verification"); v != nil && v.Kind == String && v.Str != "" {
		return []string{v.Str}
	}
	var out []string
	for _, a := range t.Acceptance {
		if m := verifyBy.FindStringSubmatch(a); m != nil {
			out = append(out, strings.TrimSpace(m[1]))
		}
	}
	return out
}

// planDocument returns IMPL_PLAN.md, or "".
func (r *runner) planDocument() string {
	data, err := os.ReadFile(filepath.Join(r.p.Dir, "IMPL_PLAN.md"))
	if err != nil {
		return ""
	}
	return string(data)
}

// dependencySummaries joins the summaries of the tasks a task depends on
// (through its container too; a container's subtasks' summaries stand
// for it).
func (r *runner) dependencySummaries(t *Task) string {
	deps := slices.Clone(t.DependsOn)
	if t.Parent != nil {
		deps = append(deps, t.Parent.DependsOn...)
	}
	var parts []string
	var add func(u *Task)
	add = func(u *Task) {
		if u.IsContainer() {
			for _, s := range u.Subtasks {
				add(s)
			}
			return
		}
		data, err := os.ReadFile(filepath.Join(r.p.Dir, ".summaries", u.ID+"-summary.md"))
		if err == nil {
			parts = append(parts, strings.TrimRight(string(data), "\n"))
		}
	}
	for _, d := range deps {
		if u := r.p.byKey[d]; u != nil {
			add(u)
		}
	}
	return strings.Join(parts, "\n\n")
}
