package temporal

import (
	"fmt"
	"strings"
	"sync"

	"github.com/evalrun/evalrun/progress"
	"github.com/evalrun/evalrun/tasksystem"
	"github.com/evalrun/evalrun/trace"
	"go.temporal.io/sdk/workflow"
)

// ProgressQuery is the name of the workflow's query handler that reports
// the run's progress: its argument is the sequence number of the last
// event the caller has (0 at first), its answer a ProgressPage.
//
// A query is answered by a worker from the workflow's state and adds no
// event to the history, so a client may poll it as often as it likes
// without growing the history (a signal or an update would add events,
// a search attribute or memo a command per change; heartbeat details
// are not visible to the workflow).
const ProgressQuery = "evalrun.progress"

// The bounds of one ProgressPage: a page holds at most maxPageEvents
// events and about maxPageBytes of encoded events, far below the
// payload limit; a caller behind by more asks again (ProgressPage.More).
const (
	maxPageEvents = 1000
	maxPageBytes  = 512 << 10
)

// ProgressEvent is one event of the live display (progress.Event) as the
// workflow recorded it, or a line the run printed: Seq numbers the events
// of the run from 1, and Time is the workflow's clock when it happened.
type ProgressEvent struct {
	Seq int
	// Print, when not "", is text the evaluation wrote on its stderr
	// (log-message lines, warnings), whole lines, for the follower's
	// stderr; the event is then no display event.
	Print string `json:",omitempty"`
	progress.Event
}

// ProgressPage is the answer of the progress query: the events after the
// one the caller asked for, and the run's usage so far.
type ProgressPage struct {
	// Events are the next events, in order; Next is the Seq of the last
	// one (the argument of the next query), or the caller's when none.
	Events []ProgressEvent
	Next   int
	// More is set when events were left out to bound the page.
	More bool
	// Usage is the run's model use so far: what (run-usage) returns and
	// the usage line prints.
	Usage tasksystem.RunUsage
}

// progressLog records the display events of a run inside the workflow.
// It is fed by a progress.Sink on the evaluator's trace seam, so that the
// events are those a local run's display gets; they depend only on the
// workflow's history (the evaluation and the calls' results), so a
// replay records the same ones, stamped with the workflow's clock.
type progressLog struct {
	root   workflow.Context
	events []ProgressEvent
}

// Event implements progress.Receiver.
func (l *progressLog) Event(e progress.Event) {
	e.Time = workflow.Now(l.root)
	l.events = append(l.events, ProgressEvent{Seq: len(l.events) + 1, Event: e})
}

// maxPrint bounds the text of one Print event, so that a page stays far
// below the payload limit: a longer text keeps its first maxPrint bytes
// and says how much was cut.
const maxPrint = 256 << 10

// print records text the evaluation wrote on its stderr.
func (l *progressLog) print(text string) {
	if len(text) > maxPrint {
		text = fmt.Sprintf("%s… (%d bytes cut)\n", strings.ToValidUTF8(text[:maxPrint], ""), len(text)-maxPrint)
	}
	l.events = append(l.events, ProgressEvent{Seq: len(l.events) + 1, Print: text, Event: progress.Event{Time: workflow.Now(l.root)}})
}

// page returns the events after seq after, bounded, with usage.
func (l *progressLog) page(after int, usage tasksystem.RunUsage) ProgressPage {
	if after < 0 {
		after = 0
	}
	p := ProgressPage{Next: after, Usage: usage}
	size := 0
	for i := after; i < len(l.events); i++ {
		e := l.events[i]
		size += eventSize(e)
		if len(p.Events) == maxPageEvents || (len(p.Events) > 0 && size > maxPageBytes) {
			p.More = true
			break
		}
		p.Events = append(p.Events, e)
		p.Next = e.Seq
	}
	return p
}

// eventSize is a generous estimate of e's encoded size: its strings and
// the JSON of its other fields.
func eventSize(e ProgressEvent) int {
	return 320 + len(e.Print) + len(e.Kind) + len(e.Name) + len(e.Executor) + len(e.Title) + len(e.Line) + len(e.Status)
}

// usageSink adds up what the calls made inside one activity used, from
// the task spans of the trace seam, with the rules of the task system's
// run usage (tasksystem.RunUsage): a task call counts when it made a
// model request (it had turns, or a model request started in it); its
// cost is unknown when its span says so. It also keeps the usage and
// executor of the activity's own span (the first top-level span of kind
// top), which the workflow's span of the call ends with.
type usageSink struct {
	top trace.Kind

	mu        sync.Mutex
	requested map[*trace.Span]bool
	run       tasksystem.RunUsage
	call      trace.Usage
	executor  string
	seen      bool
}

func newUsageSink(top trace.Kind) *usageSink {
	return &usageSink{top: top, requested: map[*trace.Span]bool{}}
}

// Observe implements trace.Sink.
func (s *usageSink) Observe(e trace.Event) {
	sp := e.Span
	switch {
	case e.Type == trace.Started && sp.Kind() == trace.Model:
		for p := sp.Parent(); p != nil; p = p.Parent() {
			if p.Kind() == trace.Task {
				s.mu.Lock()
				s.requested[p] = true
				s.mu.Unlock()
				break
			}
		}
	case e.Type == trace.Ended:
		s.mu.Lock()
		defer s.mu.Unlock()
		if sp.Kind() == trace.Task {
			u := sp.Usage()
			if u.Turns > 0 || s.requested[sp] {
				s.run.Calls++
				s.run.InputTokens += u.InputTokens
				s.run.OutputTokens += u.OutputTokens
				s.run.Turns += u.Turns
				s.run.CostUSD += u.CostUSD
				if !u.CostKnown {
					s.run.CostUnknown++
				}
				if sp.Result().Replayed {
					s.run.Replayed++
					s.run.ReplayedCostUSD += u.CostUSD
				}
			}
			delete(s.requested, sp)
		}
		if !s.seen && sp.Parent() == nil && sp.Kind() == s.top {
			s.seen = true
			s.call, s.executor = sp.Usage(), sp.Executor()
		}
	}
}

// usage is what the activity's calls used.
func (s *usageSink) usage() *CallUsage {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.seen && s.run == (tasksystem.RunUsage{}) {
		return nil
	}
	return &CallUsage{Run: s.run, Call: s.call, Executor: s.executor}
}

// CallUsage is what one call activity used of models, returned with its
// result (CallResult).
type CallUsage struct {
	// Run is what the call adds to the run's usage: its own task call and
	// any task calls made inside it (a memory lookup's llm strategies).
	Run tasksystem.RunUsage
	// Call is the usage the call's own span ended with on the worker (the
	// tokens and cost the live display shows for it), and Executor what
	// executed it ("openai:gpt-4.1", "agent:claude"; "" when unknown).
	Call     trace.Usage
	Executor string `json:",omitempty"`
}

// CallResult is the result of a call activity: the encoded value (a
// TaskResult, or a get-context dict) and, when the worker traced it, what
// the call used. Value's fields are its own, so a result recorded before
// Usage existed decodes as a CallResult without usage.
type CallResult struct {
	Value
	Usage *CallUsage `json:"usage,omitempty"`
}

// addUsage adds b to a.
func addUsage(a *tasksystem.RunUsage, b tasksystem.RunUsage) {
	a.Calls += b.Calls
	a.Replayed += b.Replayed
	a.InputTokens += b.InputTokens
	a.OutputTokens += b.OutputTokens
	a.Turns += b.Turns
	a.CostUSD += b.CostUSD
	a.CostUnknown += b.CostUnknown
	a.ReplayedCostUSD += b.ReplayedCostUSD
}

// TraceSinker is an optional interface of the evaluator.Tasks a worker
// executes calls with: the trace sinks its calls are observed by (the
// engine's provenance lines, echo notice). An activity installs
// them together with its own usage sink, since a call's context can carry
// only one set of sinks.
type TraceSinker interface {
	TraceSinks() []trace.Sink
}
