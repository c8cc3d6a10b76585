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
	// planned maps a plan task, by the span its plan was announced under
	// and its id, to the call announced by Plan, which the task's span
	// takes over when it starts.
	planned map[plannedKey]uint64
}

// plannedKey names an announced plan task: the span of the plan run that
// announced it (nil for a plan run that is the whole run) and its id. Two
// plan runs of one workflow may share task ids.
type plannedKey struct {
	scope *trace.Span
	id    string
}

// NewSink returns a sink that reports to r.
func NewSink(r Receiver) *Sink {
	return &Sink{to: r, ids: make(map[*trace.Span]uint64), planned: make(map[plannedKey]uint64)}
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
// (trace.PlanTask) below under become these calls when they start. under
// is the span of the plan run — the step of a workflow's (plan-run) — and
// the announced tasks are drawn below it (below its nearest shown
// ancestor); nil, for `evalrun plan run`, puts them at the top.
func (s *Sink) Plan(under *trace.Span, tasks []PlannedTask) {
	s.mu.Lock()
	top := s.shownLocked(under)
	evs := make([]Event, 0, len(tasks))
	for _, t := range tasks {
		s.next++
		id := s.next
		s.planned[plannedKey{under, t.ID}] = id
		e := Event{Phase: Planned, ID: id, Parent: top, Kind: KindPlanTask, Name: t.ID, Title: t.Title, Executor: t.Agent}
		if t.Parent != "" {
			e.Parent = s.planned[plannedKey{under, t.Parent}]
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
		ev.InputTokens, ev.OutputTokens, ev.Turns = u.InputTokens, u.OutputTokens, u.Turns
		ev.Cost, ev.CostKnown, ev.Replayed = u.CostUSD, u.CostKnown, r.Replayed
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
		s.forgetPlannedLocked(sp)
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
		// The plan run that announced the task is the nearest ancestor
		// under which its id was announced; nil is a plan run at the top.
		for a := sp.Parent(); ; a = a.Parent() {
			k := plannedKey{a, sp.Name()}
			if p, ok := s.planned[k]; ok {
				id = p
				delete(s.planned, k)
				break
			}
			if a == nil {
				break
			}
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
func (s *Sink) parentLocked(sp *trace.Span) uint64 { return s.shownLocked(sp.Parent()) }

// shownLocked is the number of sp or of its nearest shown ancestor, 0 for
// none.
func (s *Sink) shownLocked(sp *trace.Span) uint64 {
	for p := sp; p != nil; p = p.Parent() {
		if id, ok := s.ids[p]; ok {
			return id
		}
	}
	return 0
}

// forgetPlannedLocked drops the tasks announced under sp that never
// started: sp has ended, so none of them will.
func (s *Sink) forgetPlannedLocked(sp *trace.Span) {
	for k := range s.planned {
		if k.scope == sp {
			delete(s.planned, k)
		}
	}
}

// lastLine is the last non-empty line of text, trimmed.
func lastLine(text string) string {
	text = strings.TrimRight(text, " \t\r\n")
	if i := strings.LastIndexByte(text, '\n'); i >= 0 {
		text = text[i+1:]
	}
	return strings.TrimSpace(text)
}
