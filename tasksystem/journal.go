package tasksystem

import (
	"context"
	"sort"

	"github.com/evalrun/evalrun/handler"
	"github.com/evalrun/evalrun/value"
)

// Journal records the task calls of a run in the run store (SPEC §16.2).
// The task system does not import the journal: the engine plugs an
// implementation in through Options.Journal.
type Journal interface {
	// BeginTask records a task call of the template name with its request
	// hash (SPEC §11.3 step 7, "" when the call failed before one could be
	// computed) and its bound inputs. The call starts pending; its parent
	// is the one ctx carries (WithParent).
	BeginTask(ctx context.Context, name, hash string, inputs value.Value) CallRecord
	// Replay returns, for a run that resumes another (SPEC §16.4), the
	// journaled result of the next call of template with request hash
	// hash, with notes.replayed true, and the usage and turns recorded for
	// it; ok is false when there is nothing to replay.
	Replay(template, hash string) (result *value.TaskResult, usage handler.Usage, turns int, ok bool)
}

// CallRecord is one task call recorded by a Journal.
type CallRecord interface {
	// Running marks the call running.
	Running()
	// End records the call's result with the usage and turns of its
	// session, and whether the result was replayed from an earlier run.
	End(result *value.TaskResult, usage handler.Usage, turns int, replayed bool)
	// TaskID is the call's notes.task_id, RUN-ID/SEQ (SPEC §11.5).
	TaskID() string
	// ToolRecorder records the model's tool calls as children of the call.
	ToolRecorder() handler.ToolRecorder
}

// parentKey is the context key of the journal parent of the calls made
// under a context.
type parentKey struct{}

// WithParent returns ctx carrying parent, an opaque value that the journal
// uses as the parent of the calls made under ctx (a task or a step).
func WithParent(ctx context.Context, parent any) context.Context {
	return context.WithValue(ctx, parentKey{}, parent)
}

// ParentOf returns the parent ctx carries (WithParent), or nil.
func ParentOf(ctx context.Context) any { return ctx.Value(parentKey{}) }

// taskJournal is the journal side of one Execute: its record, begun once
// the request hash is known (or at the end, for a call that failed
// before), and its session.
type taskJournal struct {
	rec     CallRecord
	session *handler.Session
	// replayed is set when the result came from the journal, with the
	// usage and turns recorded for it.
	replayed bool
	usage    handler.Usage
	turns    int
}

// BeginToolCall implements handler.ToolRecorder by delegating to the
// call's record, which exists before the session makes any model request.
func (j *taskJournal) BeginToolCall(ctx context.Context, call handler.ToolCall, params *value.Dict) func(*value.TaskResult) {
	if j.rec == nil {
		return nil
	}
	r := j.rec.ToolRecorder()
	if r == nil {
		return nil
	}
	return r.BeginToolCall(ctx, call, params)
}

// inputsDict returns bound inputs as a dict with sorted keys.
func inputsDict(in map[string]value.Value) *value.Dict {
	keys := make([]string, 0, len(in))
	for k := range in {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	d := value.NewDict(len(keys))
	for _, k := range keys {
		d.Set(k, in[k])
	}
	return d
}

// requestInputs returns the named arguments of a request as a dict, for a
// call that failed before its inputs were bound.
func requestInputs(req Request) value.Value {
	d := value.NewDict(len(req.Named))
	for _, n := range req.Named {
		d.Set(n.Name, n.Value)
	}
	if len(req.Positional) > 0 {
		d.Set("_positional", value.List(append([]value.Value(nil), req.Positional...)))
	}
	return d
}

// toolRecorder returns j as the session's tool recorder, or nil without a
// journal.
func toolRecorder(j *taskJournal) handler.ToolRecorder {
	if j == nil {
		return nil
	}
	return j
}
