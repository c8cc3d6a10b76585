package engine

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/evalrun/evalrun/evaluator"
	"github.com/evalrun/evalrun/handler"
	"github.com/evalrun/evalrun/journal"
	"github.com/evalrun/evalrun/sexp"
	"github.com/evalrun/evalrun/tasksystem"
	"github.com/evalrun/evalrun/value"
)

// JournalInfo asks Open to record the run in the project's journal,
// .evalrun/journal.db under the project root (SPEC §16). Dry runs are never
// journaled.
type JournalInfo struct {
	// WorkflowPath is the workflow file as given on the command line
	// ("<eval>" for an expression).
	WorkflowPath string
	// WorkflowText is the workflow's text, whose SHA-256 is recorded.
	WorkflowText string
	// Args holds the --set values as a dict, or nil.
	Args value.Value
	// ResumedFrom is the full id of the run this one resumes (--resume,
	// SPEC §16.4), or "": completed task calls and workflow-level tool
	// calls of that run (and of the runs it resumed from) are replayed,
	// and {{date}} is the start time of the first run of that chain.
	ResumedFrom string
}

// runJournal is the run's journal: the store, the run, and the
// implementations of the task system's and the evaluator's journal
// interfaces. A failed write is reported once on stderr and does not stop
// the run.
type runJournal struct {
	store  *journal.Store
	run    *journal.Run
	stderr *lockedWriter
	// replay hands out the results of the resumed runs; nil when the run
	// resumes none.
	replay *journal.Replayer
	// start is the time of {{date}}: the run's, or the first resumed
	// run's.
	start time.Time

	warnOnce sync.Once
	finished sync.Once
	planOnce sync.Once
}

// openJournal opens the journal of the project at root and starts a run.
func openJournal(root string, info *JournalInfo, start time.Time, stderr *lockedWriter) (*runJournal, error) {
	path := filepath.Join(root, journal.DefaultPath)
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return nil, errorf(KindConfig, "journal: %v", err)
	}
	s, err := journal.Open(path)
	if err != nil {
		return nil, errorf(KindConfig, "%v", err)
	}
	j := &runJournal{store: s, stderr: stderr, start: start}
	if info.ResumedFrom != "" {
		if j.replay, err = s.NewReplayer(info.ResumedFrom); err != nil {
			s.Close()
			return nil, errorf(KindUsage, "--resume %s: %v", info.ResumedFrom, err)
		}
		chain := j.replay.Chain()
		first, err := s.GetRun(chain[len(chain)-1])
		if err != nil {
			s.Close()
			return nil, errorf(KindUsage, "--resume %s: %v", info.ResumedFrom, err)
		}
		j.start = first.StartedAt
	}
	j.run, err = s.StartRun(journal.RunInfo{
		WorkflowPath:   info.WorkflowPath,
		WorkflowSHA256: journal.HashWorkflow([]byte(info.WorkflowText)),
		Args:           info.Args,
		ResumedFrom:    info.ResumedFrom,
		StartedAt:      start,
	})
	if err != nil {
		s.Close()
		return nil, errorf(KindConfig, "%v", err)
	}
	return j, nil
}

// Replay implements tasksystem.Journal.
func (j *runJournal) Replay(template, hash string) (*value.TaskResult, handler.Usage, int, bool) {
	if j.replay == nil {
		return nil, handler.Usage{}, 0, false
	}
	v, u, ok := j.replay.Next(template, hash)
	r, isResult := v.(*value.TaskResult)
	if !ok || !isResult {
		return nil, handler.Usage{}, 0, false
	}
	return r, handler.Usage{InputTokens: int(u.InputTokens), OutputTokens: int(u.OutputTokens)}, u.Turns, true
}

// replayTool returns the journaled result of a workflow-level tool call of
// a resumed run (SPEC §16.4), recorded as a replayed tool node.
func (j *runJournal) replayTool(ctx context.Context, name string, params *value.Dict) (*value.TaskResult, bool) {
	if j.replay == nil {
		return nil, false
	}
	hash := journal.ToolHash(name, params)
	v, _, ok := j.replay.NextTool(name, hash)
	r, isResult := v.(*value.TaskResult)
	if !ok || !isResult {
		return nil, false
	}
	if c := j.startCall(ctx, journal.KindTool, name, hash, dictValue(params)); c != nil {
		j.warn(c.Running())
		j.warn(c.End(resultStatus(r), r, "", journal.Usage{}, 0, true))
	}
	return r, true
}

// warn reports the first failed journal write.
func (j *runJournal) warn(err error) {
	if err == nil {
		return
	}
	j.warnOnce.Do(func() { j.stderr.printf("warning: %v\n", err) })
}

// finish records the end of the run, once.
func (j *runJournal) finish(final value.Value, err error) {
	j.finished.Do(func() {
		status := journal.StatusCompleted
		if err != nil {
			status = journal.StatusFailed
		} else if r, ok := final.(*value.TaskResult); ok && r.Status == value.StatusFailed {
			status = journal.StatusFailed
		}
		j.warn(j.run.Finish(status, final, err))
	})
}

// close finishes the run if nothing did (as failed) and closes the store.
func (j *runJournal) close() error {
	j.finish(nil, errors.New("the run ended without a result"))
	return j.store.Close()
}

// parent returns the journal call ctx carries, or nil at the top level.
func parent(ctx context.Context) *journal.Call {
	c, _ := tasksystem.ParentOf(ctx).(*journal.Call)
	return c
}

// begin records a call under the parent ctx carries; nil when the write
// failed.
func (j *runJournal) begin(ctx context.Context, kind, name, hash string, inputs value.Value) *journal.Call {
	c, err := j.run.Begin(parent(ctx), kind, name, hash, inputs)
	j.warn(err)
	return c
}

// waitingKey is the context key of a call that waited for its concurrency
// slot as a pending node (runTasks.Waiting).
type waitingKey struct{}

// waitingCall is a pending node made before its call's inputs were known.
type waitingCall struct {
	mu         sync.Mutex
	c          *journal.Call
	kind, name string
	claimed    bool
}

// startCall records a call: the pending node ctx carries for kind and name
// when there is one (it gets hash and inputs), else a new node under the
// parent ctx carries. nil when the write failed.
func (j *runJournal) startCall(ctx context.Context, kind, name, hash string, inputs value.Value) *journal.Call {
	if w, ok := ctx.Value(waitingKey{}).(*waitingCall); ok && w.kind == kind && w.name == name {
		w.mu.Lock()
		claim := !w.claimed
		w.claimed = true
		w.mu.Unlock()
		if claim {
			j.warn(w.c.SetInput(hash, inputs))
			return w.c
		}
	}
	return j.begin(ctx, kind, name, hash, inputs)
}

// waiting records a task or tool call that waits for its slot as pending
// and returns ctx carrying it.
func (j *runJournal) waiting(ctx context.Context, kind, name string) context.Context {
	c := j.begin(ctx, kind, name, "", nil)
	if c == nil {
		return ctx
	}
	return context.WithValue(ctx, waitingKey{}, &waitingCall{c: c, kind: kind, name: name})
}

// resultStatus is the journal status of a task or tool result.
func resultStatus(r *value.TaskResult) string {
	if r != nil && r.Status == value.StatusComplete {
		return journal.StatusCompleted
	}
	return journal.StatusFailed
}

// BeginTask implements tasksystem.Journal.
func (j *runJournal) BeginTask(ctx context.Context, name, hash string, inputs value.Value) tasksystem.CallRecord {
	return &callRecord{j: j, c: j.startCall(ctx, journal.KindTask, name, hash, inputs)}
}

// tool records a workflow-level tool call (the pending node ctx carries,
// else a new node under the parent ctx carries) and returns the function
// that ends it.
func (j *runJournal) tool(ctx context.Context, name string, params *value.Dict) func(*value.TaskResult) {
	return j.running(j.startCall(ctx, journal.KindTool, name, journal.ToolHash(name, params), dictValue(params)))
}

// modelTool records a tool call the model makes under the task parent and
// returns the function that ends it.
func (j *runJournal) modelTool(parent *journal.Call, name string, params *value.Dict) func(*value.TaskResult) {
	c, err := j.run.Begin(parent, journal.KindTool, name, journal.ToolHash(name, params), dictValue(params))
	j.warn(err)
	return j.running(c)
}

// running marks a tool call running and returns the function that ends
// it; nil for a call that could not be recorded.
func (j *runJournal) running(c *journal.Call) func(*value.TaskResult) {
	if c == nil {
		return nil
	}
	j.warn(c.Running())
	return func(r *value.TaskResult) {
		j.warn(c.End(resultStatus(r), r, "", journal.Usage{}, 0, false))
	}
}

// dictValue is d as a value, nil for a nil dict.
func dictValue(d *value.Dict) value.Value {
	if d == nil {
		return nil
	}
	return d
}

// callRecord is a task call in the journal (tasksystem.CallRecord); c is
// nil when it could not be recorded.
type callRecord struct {
	j *runJournal
	c *journal.Call
}

func (r *callRecord) Running() {
	if r.c != nil {
		r.j.warn(r.c.Running())
	}
}

func (r *callRecord) End(res *value.TaskResult, u handler.Usage, turns int, replayed bool) {
	if r.c == nil {
		return
	}
	usage := journal.Usage{InputTokens: int64(u.InputTokens), OutputTokens: int64(u.OutputTokens), Turns: turns}
	r.j.warn(r.c.End(resultStatus(res), res, "", usage, 0, replayed))
}

func (r *callRecord) TaskID() string {
	if r.c == nil {
		return ""
	}
	return r.c.TaskID()
}

func (r *callRecord) ToolRecorder() handler.ToolRecorder {
	if r.c == nil {
		return nil
	}
	return r
}

// BeginToolCall implements handler.ToolRecorder: the model's tool calls
// are children of their task (SPEC §14.3).
func (r *callRecord) BeginToolCall(ctx context.Context, call handler.ToolCall, params *value.Dict) func(*value.TaskResult) {
	return r.j.modelTool(r.c, call.Name, params)
}

// BeginStep implements evaluator.StepJournal: the step claims its pending
// node (or gets a new one) under the parent ctx carries, and ctx of its
// attempts carries it as the parent of the calls made inside.
func (j *runJournal) BeginStep(ctx context.Context, name string) (context.Context, func(string, value.Value, string, int)) {
	c := j.begin(ctx, journal.KindStep, name, "", nil)
	if c == nil {
		return ctx, func(string, value.Value, string, int) {}
	}
	return tasksystem.WithParent(ctx, c), func(status string, v value.Value, reason string, attempts int) {
		j.warn(c.End(status, v, reason, journal.Usage{}, attempts, false))
	}
}

// plan creates the pending steps of a program once per run (SPEC §16.2).
func (j *runJournal) plan(forms []*sexp.Node) {
	j.planOnce.Do(func() {
		if names := plannedSteps(forms); len(names) > 0 {
			_, err := j.run.AddPendingSteps(names)
			j.warn(err)
		}
	})
}

// plannedSteps returns the names of the steps of a program that are
// created as pending when a run starts (SPEC §16.2), as the evaluator's
// Program.PlannedSteps finds them.
func plannedSteps(forms []*sexp.Node) []string { return evaluator.PlannedSteps(forms) }
