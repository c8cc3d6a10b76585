package progress

import (
	"strings"
	"sync"

	"github.com/evalrun/evalrun/trace"
)

// Receiver takes the events a Sink makes: a *Display, or a test's
// recorder.
type Receiver interface {
	Event(e Event)
}

// Sink is the trace sink of the live display: it turns the call events of
// the trace seam — the same events that feed the run journal — into
// Events for a Receiver. Model requests and memory lookups are not shown;
// the calls made inside them hang under their nearest shown ancestor.
//
// A Sink numbers the calls itself (span ids restart with each traced entry
// point) and is safe for concurrent use.
type Sink struct {
	to Receiver

	mu   sync.Mutex
	next uint64
	ids  map[*trace.Span]uint64
	// planned maps a plan task's id to the call announced by Plan, which
	// the task's span takes over when it starts.
	planned map[string]uint64
}

// NewSink returns a sink that reports to r.
func NewSink(r Receiver) *Sink {
	return &Sink{to: r, ids: make(map[*trace.Span]uint64), planned: make(map[string]uint64)}
}

// PlannedTask is a task of a plan announced before the run reaches it.
type PlannedTask struct {
	// ID is the task's id (IMPL-2.1), Parent its container's id ("" at
	// the top), Title its title, Agent its meta.agent.
	ID, Parent, Title, Agent string
	// Completed is set for a task finished by an earlier run.
	Completed bool
}

// Plan announces the tasks of a plan, in id order, so that the display
// shows the whole tree from the start: the task spans of the same ids
// (trace.PlanTask) become these calls when they start.
func (s *Sink) Plan(tasks []PlannedTask) {
	s.mu.Lock()
	evs := make([]Event, 0, len(tasks))
	for _, t := range tasks {
		s.next++
		id := s.next
		s.planned[t.ID] = id
		e := Event{Phase: Planned, ID: id, Parent: s.planned[t.Parent], Kind: KindPlanTask, Name: t.ID, Title: t.Title, Executor: t.Agent}
		if t.Parent == "" {
			e.Parent = 0
		}
		if t.Completed {
			e.Phase, e.Status = Ended, "completed"
		}
		evs = append(evs, e)
	}
	s.mu.Unlock()
	for _, e := range evs {
		s.to.Event(e)
	}
}

// kindOf is the display's kind of a span, "" for spans not shown.
func kindOf(sp *trace.Span) string {
	switch sp.Kind() {
	case trace.Task:
		if strings.HasPrefix(sp.Executor(), "agent:") {
			return KindAgent
		}
		return KindTask
	case trace.Tool:
		return KindTool
	case trace.Step:
		return KindStep
	case trace.PlanTask:
		return KindPlanTask
	case trace.ParallelMap:
		return KindGroup
	case trace.Model, trace.GetContext:
		return ""
	}
	return string(sp.Kind())
}

// Observe implements trace.Sink.
func (s *Sink) Observe(e trace.Event) {
	sp := e.Span
	kind := kindOf(sp)
	if kind == "" {
		return
	}
	ev := Event{Time: e.Time}
	switch e.Type {
	case trace.Waiting:
		ev.Phase = Waiting
	case trace.Started:
		// A call that starts has its slot: task and tool calls wait
		// before they start (trace.Wait), never after.
		ev.Phase = Running
		ev.Executor, ev.Title, ev.Total = sp.Executor(), sp.Title(), sp.Total()
	case trace.Progress:
		ev.Phase, ev.Line, ev.Done = Progress, lastLine(e.Text), e.Done
	case trace.Ended:
		ev.Phase = Ended
		r, u := sp.Result(), sp.Usage()
		ev.Status = string(r.Status)
		ev.InputTokens, ev.OutputTokens = u.InputTokens, u.OutputTokens
		ev.Cost, ev.CostKnown = u.CostUSD, u.CostKnown
	default:
		return // Running: the call has run since it started
	}
	ev.Kind, ev.Name = kind, sp.Name()
	if kind == KindAgent && ev.Name == sp.Executor() {
		// A plan's agent call is named by its executor: show the agent.
		ev.Name = strings.TrimPrefix(ev.Name, "agent:")
	}
	s.mu.Lock()
	ev.ID, ev.Parent = s.idLocked(sp, kind), s.parentLocked(sp)
	if e.Type == trace.Ended {
		delete(s.ids, sp)
	}
	s.mu.Unlock()
	s.to.Event(ev)
}

// idLocked is the display's number of sp, made on first sight.
func (s *Sink) idLocked(sp *trace.Span, kind string) uint64 {
	if id, ok := s.ids[sp]; ok {
		return id
	}
	var id uint64
	if kind == KindPlanTask {
		if p, ok := s.planned[sp.Name()]; ok {
			id = p
			delete(s.planned, sp.Name())
		}
	}
	if id == 0 {
		s.next++
		id = s.next
	}
	s.ids[sp] = id
	return id
}

// parentLocked is the number of sp's nearest shown ancestor, 0 for none.
// A planned plan task keeps the parent Plan gave it (the model ignores the
// parent of a call it knows).
func (s *Sink) parentLocked(sp *trace.Span) uint64 {
	for p := sp.Parent(); p != nil; p = p.Parent() {
		if id, ok := s.ids[p]; ok {
			return id
		}
	}
	return 0
}

// lastLine is the last non-empty line of text, trimmed.
func lastLine(text string) string {
	text = strings.TrimRight(text, " \t\r\n")
	if i := strings.LastIndexByte(text, '\n'); i >= 0 {
		text = text[i+1:]
	}
	return strings.TrimSpace(text)
}
