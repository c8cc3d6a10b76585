package progress

import (
	"time"
)

// Phase says what an Event reports about a call.
type Phase uint8

const (
	// Planned announces a call that will run later (a plan task not yet
	// ready, a journaled step not yet reached).
	Planned Phase = iota
	// Waiting: the call waits for a concurrency slot.
	Waiting
	// Running: the call has its slot and runs.
	Running
	// Progress carries news of a running call: an agent's last output line
	// (Line), or the number of finished items of a group (Done).
	Progress
	// Ended: the call finished with Status, Tokens and Cost.
	Ended
)

// The kinds of call the display knows by name. Any other kind is shown as
// it is spelled.
const (
	KindTask     = "task"
	KindAgent    = "agent"
	KindTool     = "tool"
	KindStep     = "step"
	KindPlanTask = "plan task"
	KindGroup    = "parallel-map"
)

// Event is one change of one call, in the order the run made them.
type Event struct {
	// Time is when it happened.
	Time time.Time
	// Phase is what happened.
	Phase Phase
	// ID names the call for the whole run; Parent is the ID of the call it
	// runs inside (a step, a group, a task whose model called a tool, a
	// plan task), 0 for none.
	ID, Parent uint64
	// Kind is one of the Kind constants (or another kind, shown as is);
	// Name the template, tool, step, agent or plan task id; Executor what
	// runs it ("openai:gpt-4.1", "agent:claude"), "" when nothing does.
	Kind, Name, Executor string
	// Title is a plan task's title, shown after its id.
	Title string
	// Total is the number of items of a group (Planned, Waiting or
	// Running); Done the number finished so far (Progress).
	Total, Done int
	// Line is the last line an agent printed (Progress).
	Line string
	// Status is how the call ended: "completed", "failed", "skipped" or
	// "cancelled" (Ended).
	Status string
	// InputTokens and OutputTokens are the call's usage, Turns its
	// assistant turns (Ended).
	InputTokens, OutputTokens, Turns int
	// Cost is the call's cost in US dollars when CostKnown (Ended).
	Cost      float64
	CostKnown bool
	// Replayed is set for a call answered from the journal of the run a
	// resumed run resumes (Ended): its Cost was paid by that run.
	Replayed bool
}

// Call is the state of one call the display knows about.
type Call struct {
	ID, Parent           uint64
	Kind, Name, Executor string
	Title                string
	Phase                Phase
	Status               string
	Total, Done          int
	Line                 string
	// Since is when the call entered its phase: when it started waiting,
	// started running, or ended.
	Since    time.Time
	Children []*Call
	seq      int
}

// active reports whether the call waits or runs.
func (c *Call) active() bool { return c.Phase == Waiting || c.Phase == Running || c.Phase == Progress }

// leaf reports whether the call is counted in the header: tasks, agents
// and tools are; steps, groups and plan tasks only hold them.
func (c *Call) leaf() bool {
	return c.Kind != KindStep && c.Kind != KindGroup && c.Kind != KindPlanTask
}

// Model is the state of a run as its events describe it. It is not safe
// for concurrent use; Display guards it.
type Model struct {
	start    time.Time
	calls    map[uint64]*Call
	roots    []*Call
	seq      int
	done     int
	failed   int
	tokens   int
	cost     float64
	replayed float64 // the recorded cost of replayed calls, not in cost
	unknown  int
	cancel   bool
	cancelAt time.Time
}

// NewModel returns the model of a run that started at start.
func NewModel(start time.Time) *Model {
	return &Model{start: start, calls: make(map[uint64]*Call)}
}

// Apply folds one event into the model.
func (m *Model) Apply(e Event) {
	c := m.calls[e.ID]
	if c == nil {
		m.seq++
		c = &Call{ID: e.ID, Parent: e.Parent, Kind: e.Kind, Name: e.Name, seq: m.seq, Since: e.Time}
		m.calls[e.ID] = c
		if p := m.calls[e.Parent]; p != nil && e.Parent != 0 {
			p.Children = append(p.Children, c)
		} else {
			m.roots = append(m.roots, c)
		}
	}
	if e.Kind != "" {
		c.Kind = e.Kind // a waiting task turns out to run on an agent
	}
	if e.Name != "" {
		c.Name = e.Name
	}
	if e.Executor != "" {
		c.Executor = e.Executor
	}
	if e.Title != "" {
		c.Title = e.Title
	}
	if e.Total > 0 {
		c.Total = e.Total
	}
	switch e.Phase {
	case Planned:
		c.Phase = Planned
	case Waiting:
		c.Phase, c.Since = Waiting, e.Time
	case Running:
		c.Phase, c.Since = Running, e.Time
	case Progress:
		if c.Phase != Running && c.Phase != Progress {
			c.Phase, c.Since = Running, e.Time
		}
		if e.Line != "" {
			c.Line = e.Line
		}
		if e.Done > c.Done {
			c.Done = e.Done
		}
	case Ended:
		if c.Phase == Ended {
			return
		}
		c.Phase, c.Status, c.Since = Ended, e.Status, e.Time
		if c.leaf() {
			m.done++
			if e.Status == "failed" || e.Status == "cancelled" {
				m.failed++
			}
			m.tokens += e.InputTokens + e.OutputTokens
			used := e.InputTokens+e.OutputTokens > 0 || e.Turns > 0
			switch {
			case e.CostKnown && e.Replayed:
				m.replayed += e.Cost
			case e.CostKnown:
				m.cost += e.Cost
			case used && (c.Kind == KindTask || c.Kind == KindAgent):
				// As the usage line counts them: a call that used a
				// model. One refused by the budget, cancelled while it
				// waited or failed before its request cost nothing.
				m.unknown++
			}
		}
	}
}

// Cancelling records that the run is being cancelled (Ctrl-C): the frame
// then lists the calls being cancelled.
func (m *Model) Cancelling(at time.Time) { m.cancel, m.cancelAt = true, at }

// Counts returns the calls done, running and waiting.
func (m *Model) Counts() (done, running, waiting int) {
	for _, c := range m.calls {
		if !c.leaf() {
			continue
		}
		switch c.Phase {
		case Running, Progress:
			running++
		case Waiting:
			waiting++
		}
	}
	return m.done, running, waiting
}
