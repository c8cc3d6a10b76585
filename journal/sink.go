package journal

import (
	"reflect"
	"sync"

	"github.com/evalrun/evalrun/trace"
	"github.com/evalrun/evalrun/value"
)

// Sink records a run's spans in the journal (SPEC §16.2): it implements
// trace.Sink for the task, tool and step spans, and trace.Gate for replay
// on --resume (SPEC §16.4). Spans of other kinds are not recorded; the
// calls made inside them are recorded under the nearest recorded
// ancestor.
//
// A task or tool span that waits for its slot is a pending node from its
// Waiting event, labelled with the arguments the call was made with
// (trace.Args; CallLabel); its Started event records the input hash and inputs, and
// for a task what executes it and its template's provenance
// (Call.SetExecutor). A
// span's node is its trace ref (Span.Ref, RUN-ID/SEQ, a task's
// notes.task_id). A failed write does not stop the run: it goes to
// OnError.
type Sink struct {
	run *Run
	// replay hands out the results of the resumed runs; nil replays
	// nothing.
	replay *Replayer
	// onError receives every failed write.
	onError func(error)

	mu    sync.Mutex
	calls map[*trace.Span]*Call
}

// NewSink returns the sink that records spans in run, replaying from
// replay (nil for none); onError (nil to ignore them) receives the errors
// of failed writes.
func NewSink(run *Run, replay *Replayer, onError func(error)) *Sink {
	if onError == nil {
		onError = func(error) {}
	}
	return &Sink{run: run, replay: replay, onError: onError, calls: map[*trace.Span]*Call{}}
}

// kindOf is the journal kind of a span kind, "" for the kinds the journal
// does not record.
func kindOf(k trace.Kind) string {
	switch k {
	case trace.Task:
		return KindTask
	case trace.Tool:
		return KindTool
	case trace.Step, trace.PlanTask: // a plan task is a step node (SPEC §23.3)
		return KindStep
	}
	return ""
}

// Observe implements trace.Sink.
func (s *Sink) Observe(e trace.Event) {
	sp := e.Span
	kind := kindOf(sp.Kind())
	if kind == "" {
		return
	}
	switch e.Type {
	case trace.Waiting:
		s.begin(sp, kind, "", nil)
	case trace.Started:
		hash, inputs := s.input(sp, kind)
		if c := s.call(sp); c != nil {
			s.warn(c.SetInput(hash, inputs))
		} else {
			s.begin(sp, kind, hash, inputs)
		}
		if kind == KindTask {
			if c := s.call(sp); c != nil {
				if x, src := sp.Executor(), templateSource(sp); x != "" || src != "" {
					s.warn(c.SetExecutor(x, src))
				}
			}
		}
		if system, user := sp.Prompt(); system != "" || user != "" {
			if c := s.call(sp); c != nil {
				s.warn(c.SetPrompt(system, user))
			}
		}
	case trace.Running:
		if kind == KindStep {
			return // a step node runs from its start
		}
		if c := s.call(sp); c != nil {
			s.warn(c.Running())
		}
	case trace.Ended:
		// A span's calls are all made before it ends, so its node is
		// needed no longer.
		s.mu.Lock()
		c := s.calls[sp]
		delete(s.calls, sp)
		s.mu.Unlock()
		if c == nil {
			return
		}
		r, u := sp.Result(), sp.Usage()
		usage := Usage{InputTokens: int64(u.InputTokens), OutputTokens: int64(u.OutputTokens), Turns: u.Turns,
			CostUSD: Cost(u.CostUSD, u.CostKnown)}
		s.warn(c.End(string(r.Status), r.Value, r.Error, usage, r.Attempts, r.Replayed))
	}
}

// templateSource is the provenance (SCOPE PATH:LINE) of the template a
// task span's Detail holds, "" when it holds none.
func templateSource(sp *trace.Span) string {
	t, ok := sp.Detail().(interface{ Source() string })
	if !ok {
		return ""
	}
	// A call that failed before its template was found holds a nil
	// *templates.Template.
	if v := reflect.ValueOf(t); v.Kind() == reflect.Pointer && v.IsNil() {
		return ""
	}
	return t.Source()
}

// input is the input hash and inputs a span's node records: a tool call is
// keyed by its name and parameters (ToolHash), a task by its request hash.
func (s *Sink) input(sp *trace.Span, kind string) (string, value.Value) {
	in := sp.Inputs()
	if kind == KindTool {
		params, _ := in.(*value.Dict)
		return ToolHash(sp.Name(), params), in
	}
	return sp.Key(), in
}

// begin records a new node for sp under its nearest recorded ancestor.
func (s *Sink) begin(sp *trace.Span, kind, hash string, inputs value.Value) {
	parent, _ := s.parent(sp)
	// A call waiting for its slot has no inputs yet: its arguments label
	// it until it starts.
	label := labelOf(kind, inputs)
	if inputs == nil {
		label = labelOf(kind, sp.Args())
	}
	c, err := s.run.begin(parent, kind, sp.Name(), hash, inputs, label)
	if err != nil {
		s.warn(err)
		return
	}
	s.mu.Lock()
	s.calls[sp] = c
	s.mu.Unlock()
	sp.SetRef(c.TaskID())
}

// call is sp's node, nil when it has none.
func (s *Sink) call(sp *trace.Span) *Call {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.calls[sp]
}

// parent is the node of sp's nearest recorded ancestor and that
// ancestor's kind; nil at the top level.
func (s *Sink) parent(sp *trace.Span) (*Call, trace.Kind) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for p := sp.Parent(); p != nil; p = p.Parent() {
		if c := s.calls[p]; c != nil {
			return c, p.Kind()
		}
	}
	return nil, ""
}

// Before implements trace.Gate: a task call, or a tool call that is not a
// model's inside a task, that has a completed counterpart in the resumed
// runs gets that result, with notes.replayed true (SPEC §16.4).
func (s *Sink) Before(sp *trace.Span) (trace.Answer, bool) {
	if s.replay == nil {
		return trace.Answer{}, false
	}
	var v value.Value
	var u Usage
	var ok bool
	switch sp.Kind() {
	case trace.Task:
		v, u, ok = s.replay.Next(sp.Name(), sp.Key())
	case trace.Tool:
		if _, kind := s.parent(sp); kind == trace.Task {
			return trace.Answer{}, false
		}
		hash, _ := s.input(sp, KindTool)
		v, _, ok = s.replay.NextTool(sp.Name(), hash)
		u = Usage{}
	default:
		return trace.Answer{}, false
	}
	if _, isResult := v.(*value.TaskResult); !ok || !isResult {
		return trace.Answer{}, false
	}
	tu := trace.Usage{InputTokens: int(u.InputTokens), OutputTokens: int(u.OutputTokens), Turns: u.Turns}
	if u.CostUSD != nil {
		tu.CostUSD, tu.CostKnown = *u.CostUSD, true
	}
	return trace.Answer{Value: v, Usage: tu}, true
}

func (s *Sink) warn(err error) {
	if err != nil {
		s.onError(err)
	}
}
