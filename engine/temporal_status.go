//go:build temporal

package engine

import (
	"context"
	"io"
	"strings"

	"github.com/evalrun/evalrun/evaluator"
	"github.com/evalrun/evalrun/journal"
	"github.com/evalrun/evalrun/progress"
	"github.com/evalrun/evalrun/sexp"
	"github.com/evalrun/evalrun/temporal"
	"github.com/evalrun/evalrun/value"
)

// WriteTemporalStatus writes `evalrun status` of the run id on Temporal in
// the format f, in the form WriteStatus gives a journaled run: the header,
// and the tree of its steps, task, tool and plan calls with their status,
// turns, tokens, cost and failures and the current position.
//
// The tree is the run's progress events (the progress query, answered by
// a worker from the workflow's state, also for a closed workflow whose
// history it replays) with the inputs and results of the calls from the
// workflow's history. When no worker answers, the tree is the history's
// calls alone, at the top level without the steps around them, and
// fromHistory is true. st is the workflow's state on the server.
func WriteTemporalStatus(ctx context.Context, t Temporal, id string, w io.Writer, f StatusFormat) (st TemporalStatus, fromHistory bool, err error) {
	rs, err := temporal.Inspect(ctx, t.conn(), id)
	if err != nil {
		return st, false, err
	}
	rec, tree := TemporalJournal(rs)
	return rs.Status, !rs.Answered, writeStatus(w, rec, tree, f)
}

// TemporalRunsLimit is how many workflows `evalrun runs --temporal` lists:
// the newest.
const TemporalRunsLimit = 50

// WriteTemporalRuns writes `evalrun runs` of the runs on Temporal: the
// newest TemporalRunsLimit evalrun.Run workflows of the namespace, in the
// columns (or the JSON) of the journal's runs, each read from its history
// (CALLS counts its task, tool and plan step calls).
func WriteTemporalRuns(ctx context.Context, t Temporal, w io.Writer, asJSON bool) error {
	states, err := temporal.ListRuns(ctx, t.conn(), TemporalRunsLimit)
	if err != nil {
		return err
	}
	runs := make([]*journal.RunRecord, len(states))
	for i, rs := range states {
		runs[i], _ = TemporalJournal(rs)
	}
	return writeRuns(w, runs, asJSON, "no runs on Temporal: the server lists no evalrun workflow (evalrun run --temporal starts one)")
}

// TemporalJournal builds the journal's view of a run on Temporal from
// what it tells of itself (temporal.Inspect): its record and its tree of
// calls, as Store.Tree reads a journaled run's.
func TemporalJournal(rs *temporal.RunState) (*journal.RunRecord, []*journal.Node) {
	var tree []*journal.Node
	if rs.Answered {
		tree = treeFromEvents(rs.Events, rs.Calls, workflowSteps(rs.Sources))
	} else {
		tree = treeFromCalls(rs.Calls, rs.Status.Closed.IsZero())
	}
	names := make([]string, len(rs.Sources))
	for i, s := range rs.Sources {
		names[i] = s.Name
	}
	rec := &journal.RunRecord{
		ID:           rs.Status.ID,
		WorkflowPath: strings.Join(names, " "),
		Status:       journal.StatusRunning,
		StartedAt:    rs.Status.Start.Local(),
		LastActivity: rs.LastEvent.Local(),
		Final:        rs.Value,
		Error:        rs.Error,
	}
	if !rs.Status.Closed.IsZero() {
		rec.FinishedAt = rs.Status.Closed.Local()
		rec.Status = journal.StatusCompleted
		if r, ok := rs.Value.(*value.TaskResult); rs.Error != "" || rs.Value == nil || ok && r.Status == value.StatusFailed {
			rec.Status = journal.StatusFailed
		}
	}
	stepErrors(tree, rs.Error)
	journal.Walk(tree, func(n *journal.Node, _ int) bool {
		if n.Status != journal.StatusPending {
			rec.Calls++
		}
		if n.Kind != journal.KindTask {
			return true
		}
		rec.Tokens += n.Usage.Tokens()
		switch c := n.Usage.CostUSD; {
		case c == nil:
			if n.Usage.Turns > 0 || n.Usage.Tokens() > 0 {
				rec.CostUnknown++
			}
		case n.Replayed:
			rec.ReplayedCostUSD += *c
		default:
			rec.CostUSD += *c
		}
		return true
	})
	return rec, tree
}

// journalKind is the journal's kind of a display call, "" for the calls
// the journal does not record (a parallel-map's group): the calls inside
// those hang under their nearest recorded ancestor, as in a local run's
// journal. An agent call is a task, a plan task a step.
func journalKind(kind string) string {
	switch kind {
	case progress.KindTask, progress.KindAgent:
		return journal.KindTask
	case progress.KindTool:
		return journal.KindTool
	case progress.KindStep, progress.KindPlanTask:
		return journal.KindStep
	}
	return ""
}

// workflowSteps are the steps a local run of the workflow files would
// announce in its journal before it starts (SPEC §16.3): the literal
// top-level step names of all the files, nil when one does not parse.
func workflowSteps(srcs []temporal.Source) []string {
	var forms []*sexp.Node
	for _, s := range srcs {
		f, err := sexp.Parse(sexp.NewSource(s.Name, s.Text))
		if err != nil {
			return nil
		}
		forms = append(forms, f...)
	}
	return evaluator.PlannedSteps(forms)
}

// treeFromEvents builds the tree of a run from its progress events, and
// gives each task, tool and plan task node the inputs and result of its
// activity: the n-th task call that started is the task activity of Seq
// n, the n-th tool call the n-th tool activity, a plan task the next plan
// step activity of its id. The planned steps are pending nodes at the top
// from the start, as in a local run's journal: a top-level step takes the
// first one of its name not yet taken.
func treeFromEvents(events []temporal.ProgressEvent, calls []temporal.ActivityCall, planned []string) []*journal.Node {
	tasks := map[int]*temporal.ActivityCall{}
	var tools []*temporal.ActivityCall
	steps := map[string][]*temporal.ActivityCall{}
	for i := range calls {
		c := &calls[i]
		switch c.Activity {
		case temporal.TaskActivityName:
			tasks[c.Seq] = c
		case temporal.ToolActivityName:
			tools = append(tools, c)
		case temporal.PlanStepActivityName:
			steps[c.Name] = append(steps[c.Name], c)
		}
	}
	var (
		roots        []*journal.Node
		nodes        = map[uint64]*journal.Node{}
		hidden       = map[uint64]*journal.Node{} // a group: its nearest recorded ancestor (nil at the top)
		planTask     = map[*journal.Node]bool{}
		seq          int
		taskN, toolN int
		pending      []*journal.Node
	)
	for _, name := range planned {
		seq++
		n := &journal.Node{ID: int64(seq), Seq: seq, Kind: journal.KindStep, Name: name, Status: journal.StatusPending}
		roots, pending = append(roots, n), append(pending, n)
	}
	parentOf := func(id uint64) *journal.Node {
		if n := nodes[id]; n != nil {
			return n
		}
		return hidden[id]
	}
	for _, e := range events {
		if e.Print != "" {
			continue
		}
		if _, ok := hidden[e.ID]; ok {
			continue
		}
		n := nodes[e.ID]
		if n == nil && (e.Phase == progress.Planned || e.Phase == progress.Ended && e.Kind == progress.KindPlanTask) {
			// A plan's task announced before it starts (or finished by an
			// earlier run) is no node of a local run's journal until it
			// starts.
			continue
		}
		if n == nil {
			kind := journalKind(e.Kind)
			if kind == "" {
				hidden[e.ID] = parentOf(e.Parent)
				continue
			}
			p := parentOf(e.Parent)
			if p == nil && kind == journal.KindStep {
				for i, c := range pending {
					if c.Name == e.Name {
						n, pending = c, append(pending[:i:i], pending[i+1:]...)
						break
					}
				}
			}
			if n == nil {
				seq++
				n = &journal.Node{ID: int64(seq), Seq: seq, Kind: kind, Name: e.Name, Status: journal.StatusPending}
				if p != nil {
					n.ParentID = p.ID
					p.Children = append(p.Children, n)
				} else {
					roots = append(roots, n)
				}
			}
			nodes[e.ID] = n
			planTask[n] = e.Kind == progress.KindPlanTask
		}
		switch e.Phase {
		case progress.Running:
			n.Status, n.StartedAt = journal.StatusRunning, e.Time.Local()
			var c *temporal.ActivityCall
			switch {
			case planTask[n]:
				if l := steps[n.Name]; len(l) > 0 {
					c, steps[n.Name] = l[0], l[1:]
				}
			case n.Kind == journal.KindTask:
				taskN++
				c = tasks[taskN]
			case n.Kind == journal.KindTool:
				if toolN < len(tools) {
					c = tools[toolN]
				}
				toolN++
			}
			if c != nil {
				withActivity(n, c)
			}
		case progress.Ended:
			n.Status, n.FinishedAt = e.Status, e.Time.Local()
			if n.StartedAt.IsZero() {
				n.StartedAt = n.FinishedAt
			}
			n.Usage = journal.Usage{InputTokens: int64(e.InputTokens), OutputTokens: int64(e.OutputTokens), Turns: e.Turns,
				CostUSD: journal.Cost(e.Cost, e.CostKnown)}
			n.Replayed = e.Replayed
		}
	}
	return roots
}

// withActivity gives n what the history says of its call: its inputs (and
// a task's or tool's label, as the journal records it) and
// result (a task's or tool's TaskResult; a plan step's failure). The
// activity's attempts are not a node's (the attempts of a step's retry
// policy).
func withActivity(n *journal.Node, c *temporal.ActivityCall) {
	n.Inputs = c.Inputs
	if n.Kind == journal.KindTask || n.Kind == journal.KindTool {
		n.Label = journal.CallLabel(c.Inputs)
	}
	if c.Result != nil {
		n.Result = c.Result
		n.FromResultNotes()
	}
	switch {
	case c.StepError != "":
		n.Error = c.StepError
	case c.Step != nil && c.Step.Failed:
		n.Error = c.Step.Reason
		if n.Error == "" {
			n.Error = c.Step.Error
		}
	}
}

// treeFromCalls is the tree of a run whose progress events are not to be
// had: its task, tool and plan step activities at the top level, in the
// order they were scheduled. A call that has not ended is running while
// the run runs, else cancelled.
func treeFromCalls(calls []temporal.ActivityCall, running bool) []*journal.Node {
	var tree []*journal.Node
	for i := range calls {
		c := &calls[i]
		kind := journal.KindTask
		switch c.Activity {
		case temporal.TaskActivityName:
		case temporal.ToolActivityName:
			kind = journal.KindTool
		case temporal.PlanStepActivityName:
			kind = journal.KindStep
		default:
			continue
		}
		n := &journal.Node{ID: int64(len(tree) + 1), Seq: len(tree) + 1, Kind: kind, Name: c.Name, StartedAt: c.ScheduledAt.Local()}
		if c.Started {
			n.StartedAt = c.StartedAt.Local()
		}
		withActivity(n, c)
		switch {
		case !c.Closed && running:
			n.Status = journal.StatusRunning
		case !c.Closed:
			n.Status = "cancelled"
		case n.Error != "" || c.Result != nil && c.Result.Status == value.StatusFailed:
			n.Status = journal.StatusFailed
		default:
			n.Status = journal.StatusCompleted
		}
		if c.Closed {
			n.FinishedAt = c.ClosedAt.Local()
		}
		if u := c.Usage; u != nil {
			if kind == journal.KindStep {
				n.Usage = journal.Usage{InputTokens: int64(u.Run.InputTokens), OutputTokens: int64(u.Run.OutputTokens), Turns: u.Run.Turns}
				if u.Run.CostUnknown == 0 {
					n.Usage.CostUSD = journal.Cost(u.Run.CostUSD, true)
				}
			} else {
				n.Usage = journal.Usage{InputTokens: int64(u.Call.InputTokens), OutputTokens: int64(u.Call.OutputTokens), Turns: u.Call.Turns,
					CostUSD: journal.Cost(u.Call.CostUSD, u.Call.CostKnown)}
			}
		}
		tree = append(tree, n)
	}
	return tree
}

// stepErrors gives the failed steps of tree their error, which the
// progress events do not carry: for the step that ended the run, the
// message of the run's error after "step 'NAME' failed: " (the error the
// step raised, as a local run's journal records it); for another, the
// error of its first failed call.
func stepErrors(tree []*journal.Node, runError string) {
	journal.Walk(tree, func(n *journal.Node, _ int) bool {
		if n.Kind != journal.KindStep || n.Status != journal.StatusFailed || n.Error != "" {
			return true
		}
		if _, msg, ok := strings.Cut(runError, "step '"+n.Name+"' failed: "); ok {
			n.Error = msg
			return true
		}
		journal.Walk(n.Children, func(c *journal.Node, _ int) bool {
			if c.Status == journal.StatusFailed {
				if msg := journal.ErrorMessage(c); msg != "" {
					n.Error = msg
					return false
				}
			}
			return true
		})
		return true
	})
}
