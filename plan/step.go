package plan

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// A plan run can also be driven from elsewhere, one task at a time: a run
// on Temporal keeps the Schedule in its workflow and runs each task as an
// activity on some worker (package temporal). Prepare checks the request
// and returns the Schedule; RunStep runs one task end to end as Run's
// goroutines do — pre-steps, the agent or task calls through the
// Executor, the summary, the task's status, the run records,
// TODO_LIST.md and the session's progress.
//
// Steps of one run may run at the same time in different processes on a
// shared plan directory. Each step writes only its own task file (and its
// container's when it completes the last subtask); the files every step
// rewrites — .process/evalrun-state.json, TODO_LIST.md and the progress
// of workflow-session.json — are read again and rewritten under an
// exclusive lock of .process/evalrun-step.lock, so that no step loses
// another's change. A step's task file must be as the run read it (or as
// an earlier attempt of the same step left it, status active); otherwise
// the step stops the run with *ChangedError, as Run does.

// Prepare checks a run of p as Run does (the --task patterns, active
// tasks without --resume) and returns its Schedule, with the sums of each
// task's file and the agents of each leaf's step (the executor of its
// task calls and the agents of its NAME(…) commands). Dry runs are Run's
// alone.
func Prepare(p *Plan, opts RunOptions) (*Schedule, error) {
	sel, bad := p.Select(opts.Tasks)
	if len(bad) > 0 {
		return nil, &UsageError{Msg: strings.Join(bad, "; ")}
	}
	restart := map[*Task]bool{}
	for _, t := range p.Leaves() {
		if t.Status != StatusActive || (sel != nil && !sel(t)) {
			continue
		}
		if !opts.Resume {
			return nil, &UsageError{Msg: fmt.Sprintf("%s is active: an earlier run stopped in it; continue with evalrun plan run --resume", t.ID)}
		}
		restart[t] = true
	}
	s := NewSchedule(p, sel, restart, opts.Parallel)
	r := &runner{p: p, opts: opts}
	for i, t := range p.Tasks {
		if t.IsContainer() {
			continue
		}
		s.Tasks[i].Sums = fileSums(t)
		s.Tasks[i].Agents = r.agentsOf(t)
	}
	return s, nil
}

// agentsOf returns the agents a step of t starts, sorted: its executor
// (none for a provider) and the agents its commands name.
func (r *runner) agentsOf(t *Task) []string {
	var out []string
	if a := r.executorOf(t); a != "" {
		out = append(out, a)
	}
	var cmds []string
	for _, s := range t.PreAnalysis {
		cmds = append(cmds, s.Commands...)
	}
	for _, s := range t.Approach {
		if s.Command != "" {
			cmds = append(cmds, s.Command)
		}
	}
	for _, raw := range cmds {
		if c, err := ParseCommand(raw, r.opts.agents(), false); err == nil && c.Kind == CmdAgent && c.Agent != "" {
			out = append(out, c.Agent)
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// StepResult is what one step of a driven run did. Completed and Failed
// say whether the task joined the run's completed or failed tasks; Err is
// the step's error (a failed task's, or one that stops the run).
type StepResult struct {
	Completed, Failed bool
	// Answer, Tokens and CostUSD are a completed task's.
	Answer  string
	Tokens  int64
	CostUSD float64
	// Reason is the first line of a failed task's error.
	Reason string
	// Err is the error of the step, nil when it completed.
	Err error
}

// RunStep runs the task id of p — a leaf the Schedule of Prepare started —
// end to end as Run runs each task, and returns what it did. sums are the
// sums its file may have (ScheduledTask.Sums); another is a *ChangedError
// in StepResult.Err. opts are the run's options (Parallel, Tasks and
// Resume are Prepare's business and ignored).
func RunStep(ctx context.Context, p *Plan, exec Executor, opts RunOptions, id string, sums []string) StepResult {
	if opts.Stderr == nil {
		opts.Stderr = io.Discard
	}
	t, ok := p.Task(id)
	if !ok || t.IsContainer() {
		return StepResult{Err: fmt.Errorf("%s is not a task of %s without subtasks", id, p.Dir)}
	}
	h := sha256.Sum256(t.File.Src)
	if !slices.Contains(sums, hex.EncodeToString(h[:])) {
		return StepResult{Err: &ChangedError{Path: t.File.Path}}
	}
	recs, err := p.ReadState()
	if err != nil {
		return StepResult{Err: err}
	}
	r := &runner{p: p, exec: exec, opts: opts, recs: recs, step: t,
		out: &Outcome{Answers: map[string]string{}, Usage: map[string]Answer{}, Reasons: map[string]string{}}}
	err = r.runTask(ctx, t)
	res := StepResult{Err: err, Completed: slices.Contains(r.out.Completed, id), Failed: slices.Contains(r.out.Failed, id)}
	if res.Completed {
		res.Answer = r.out.Answers[id]
		res.Tokens, res.CostUSD = r.out.Usage[id].Tokens, r.out.Usage[id].CostUSD
	}
	res.Reason = r.out.Reasons[id]
	return res
}

// refreshShared takes the step lock, then reads again what other steps
// may have written since this one read the plan: the other tasks' files
// and statuses, the session file and the other tasks' run records. It
// returns the function that releases the lock.
func (r *runner) refreshShared() (func(), error) {
	unlock, err := r.p.stepLock()
	if err != nil {
		return nil, err
	}
	fail := func(err error) (func(), error) { unlock(); return nil, err }
	for _, u := range r.p.Tasks {
		if u == r.step {
			continue
		}
		f, err := readJSONFile(u.File.Path)
		if err != nil {
			return fail(err)
		}
		u.File = f
		if st := f.Root.Get("status"); st != nil {
			u.Status = st.Text()
		}
	}
	if r.p.Session != nil {
		f, err := readJSONFile(r.p.Session.Path)
		if err != nil {
			return fail(err)
		}
		r.p.Session = f
	} else if _, err := os.Stat(filepath.Join(r.p.Dir, "workflow-session.json")); err == nil {
		f, err := readFile(filepath.Join(r.p.Dir, "workflow-session.json"))
		if err != nil {
			return fail(err)
		}
		if root, err := parseJSON(f.Src); err == nil {
			f.Root = root
			r.p.Session = f
		}
	}
	recs, err := r.p.ReadState()
	if err != nil {
		return fail(err)
	}
	for k, v := range recs {
		if k != r.step.Key {
			r.recs[k] = v
		}
	}
	for k := range r.recs {
		if _, ok := recs[k]; !ok && k != r.step.Key {
			delete(r.recs, k)
		}
	}
	return unlock, nil
}

// readJSONFile reads the JSON file at path again, with its parsed root; a
// file that is not JSON any more is an error naming it.
func readJSONFile(path string) (*File, error) {
	f, err := readFile(path)
	if err != nil {
		return nil, err
	}
	root, err := parseJSON(f.Src)
	if err != nil {
		return nil, positioned(f.Path, f.Src, err)
	}
	f.Root = root
	return f, nil
}
