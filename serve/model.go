package serve

import (
	"cmp"
	"encoding/json"
	"strings"
	"time"

	"github.com/evalrun/evalrun/journal"
)

// RunJSON is a run as `evalrun runs --json` and `status --json` print it,
// with the viewer's additions: the cost, the number of calls of unknown
// cost (SPEC §14.9) and the error's source line and caret (SPEC §4.7).
type RunJSON struct {
	ID              string          `json:"id"`
	Workflow        string          `json:"workflow"`
	WorkflowSHA256  string          `json:"workflow_sha256"`
	Args            json.RawMessage `json:"args"`
	Status          string          `json:"status"`
	ResumedFrom     string          `json:"resumed_from"`
	StartedAt       *string         `json:"started_at"`
	FinishedAt      *string         `json:"finished_at"`
	DurationSeconds float64         `json:"duration_seconds"`
	Calls           int             `json:"calls"`
	Tokens          int64           `json:"tokens"`
	Final           json.RawMessage `json:"final"`
	Error           string          `json:"error"`
	// CostUSD is what the run paid: the summed cost of its calls of known
	// cost that it did not replay, 0 when no call's cost is known (as
	// `runs --json` prints it; CostUnknownCalls tells the two apart).
	CostUSD float64 `json:"cost_usd"`
	// ReplayedCostUSD is the recorded cost of the calls it replayed from
	// the runs it resumed, which it did not pay again (0 when none).
	ReplayedCostUSD float64 `json:"replayed_cost_usd"`
	// CostUnknownCalls counts the finished task calls whose cost is unknown.
	CostUnknownCalls int `json:"cost_unknown_calls"`
	// ErrorDisplay is the run's error with its source line and caret, when
	// the error names a position in a readable workflow file.
	ErrorDisplay *ErrorDisplay `json:"error_display,omitempty"`
}

// NodeJSON is a call as `status --json` prints it, with the viewer's
// additions: the parent's seq, the template's provenance, the executor,
// the cost, the failure summary, start and end in milliseconds from the
// run's start, and (for /api/runs/ID/calls/SEQ) the prompts.
type NodeJSON struct {
	Seq          int             `json:"seq"`
	Kind         string          `json:"kind"`
	Name         string          `json:"name"`
	Label        string          `json:"label"`
	Status       string          `json:"status"`
	InputHash    string          `json:"input_hash"`
	Inputs       json.RawMessage `json:"inputs"`
	Result       json.RawMessage `json:"result"`
	Error        string          `json:"error"`
	Attempts     int             `json:"attempts"`
	InputTokens  int64           `json:"input_tokens"`
	OutputTokens int64           `json:"output_tokens"`
	Turns        int             `json:"turns"`
	Replayed     bool            `json:"replayed"`
	StartedAt    *string         `json:"started_at"`
	FinishedAt   *string         `json:"finished_at"`
	Children     []*NodeJSON     `json:"children"`

	// Parent is the parent's seq, 0 at the top level.
	Parent int `json:"parent"`
	// TemplateSource is notes.template_source: SCOPE PATH:LINE; while
	// the call runs, what the journal recorded at its start.
	TemplateSource string `json:"template_source"`
	// Executor is notes.executor (agent:claude), else provider:model;
	// while the call runs, what the journal recorded at its start.
	Executor string `json:"executor"`
	// CostUSD is the call's cost, null when unknown.
	CostUSD *float64 `json:"cost_usd"`
	// Summary is the one-line failure summary of a failed call.
	Summary string `json:"summary"`
	// StartMS and EndMS are the start and end in milliseconds from the
	// run's start; null when not started (or not finished). QueuedMS is
	// when the call was begun, before it waited for a concurrency slot
	// (null when the journal does not record it).
	StartMS  *float64 `json:"start_ms"`
	EndMS    *float64 `json:"end_ms"`
	QueuedMS *float64 `json:"queued_ms"`
}

// CallJSON is one call with everything the viewer shows of it
// (/api/runs/ID/calls/SEQ): the node, the prompts, the answer, the parsed
// content and notes, and the error with its caret.
type CallJSON struct {
	RunID string `json:"run_id"`
	*NodeJSON
	// SystemPrompt and UserPrompt are the prompt the call sent, null when
	// the journal does not have it.
	SystemPrompt *string `json:"system_prompt"`
	UserPrompt   *string `json:"user_prompt"`
	// Answer is the result's content; ParsedContent and Notes its parts.
	Answer        *string         `json:"answer"`
	ParsedContent json.RawMessage `json:"parsed_content"`
	Notes         json.RawMessage `json:"notes"`
	// ErrorDisplay is the error with its source line and caret.
	ErrorDisplay *ErrorDisplay `json:"error_display,omitempty"`
}

// RunPageJSON is /api/runs/ID: the shape of `status --json` ({run, nodes,
// current}); with ?view=flat the nodes are one list in depth-first order
// without inputs, results or children, for the page.
type RunPageJSON struct {
	Run     *RunJSON    `json:"run"`
	Nodes   []*NodeJSON `json:"nodes"`
	Current *int        `json:"current"`
}

// timeJSON is UnixNano t as RFC 3339 in local time, nil when absent.
func timeJSON(ns int64, valid bool) *string {
	if !valid {
		return nil
	}
	s := time.Unix(0, ns).Local().Format(time.RFC3339Nano)
	return &s
}

func runJSON(x *runRow) *RunJSON {
	out := &RunJSON{
		ID: x.ID, Workflow: x.Workflow, WorkflowSHA256: x.SHA, Args: orNull(x.Args), Status: x.Status,
		ResumedFrom: x.ResumedFrom, StartedAt: timeJSON(x.Started, true),
		FinishedAt: timeJSON(x.Finished.Int64, x.Finished.Valid), Calls: x.Calls, Tokens: x.Tokens,
		Final: orNull(x.Final), Error: x.Error, CostUnknownCalls: x.CostUnknown,
		ReplayedCostUSD: x.ReplayedCost,
	}
	end := x.Started
	switch {
	case x.Finished.Valid:
		end = x.Finished.Int64
	case x.Last.Valid:
		end = x.Last.Int64
	}
	if end > x.Started {
		out.DurationSeconds = time.Duration(end - x.Started).Seconds()
	}
	if x.Cost.Valid {
		out.CostUSD = x.Cost.Float64
	}
	return out
}

var jsonNull = json.RawMessage("null")

func orNull(m json.RawMessage) json.RawMessage {
	if m == nil {
		return jsonNull
	}
	return m
}

// nodeJSON converts a call; runStart is the run's start (UnixNano).
func nodeJSON(c *callRow, runStart int64) *NodeJSON {
	n := &NodeJSON{
		Seq: c.Seq, Kind: c.Kind, Name: c.Name, Label: c.Label.String, Status: c.Status, InputHash: c.InputHash,
		Inputs: orNull(c.Inputs), Result: orNull(c.Result), Error: strings.TrimSpace(c.Error), Attempts: c.Attempts,
		InputTokens: c.InputTokens, OutputTokens: c.OutputTokens, Turns: c.Turns, Replayed: c.Replayed,
		StartedAt: timeJSON(c.Started.Int64, c.Started.Valid), FinishedAt: timeJSON(c.Finished.Int64, c.Finished.Valid),
		Children: []*NodeJSON{}, Parent: c.ParentSeq,
	}
	// The result's notes once the call has ended, else what was recorded
	// when it started: as `status --json` has them.
	notes := &c.Info.Notes
	n.Executor = cmp.Or(journal.ExecutorName(notes.Executor, notes.Provider, notes.Model), c.Executor.String)
	n.TemplateSource = cmp.Or(notes.TemplateSource, c.TemplateSource.String)
	if notes.CostUSD != nil {
		v := *notes.CostUSD
		n.CostUSD = &v
	}
	if c.Status == journal.StatusFailed {
		n.Summary = failureSummary(c)
	}
	ms := func(ns int64) *float64 {
		v := float64(ns-runStart) / 1e6
		return &v
	}
	if c.Started.Valid {
		n.StartMS = ms(c.Started.Int64)
	}
	if c.Finished.Valid {
		n.EndMS = ms(c.Finished.Int64)
	}
	if c.Queued.Valid && (!c.Started.Valid || c.Queued.Int64 <= c.Started.Int64) {
		n.QueuedMS = ms(c.Queued.Int64)
	}
	return n
}

// summaryWidth is how many code points of a message's first line a summary
// shows, as `evalrun status` does.
const summaryWidth = 60

// failureSummary is what `evalrun status` shows after a failed call (SPEC
// §16.3): `RESOURCE_EXHAUSTION turns (10/10)`, `REASON: MESSAGE`, else the
// error's first line.
func failureSummary(c *callRow) string {
	e := c.Info.Notes.Error
	if e == nil {
		e = &struct {
			Type     string `json:"type"`
			Reason   string `json:"reason"`
			Message  string `json:"message"`
			Resource string `json:"resource"`
			Metrics  *struct {
				Used  json.RawMessage `json:"used"`
				Limit json.RawMessage `json:"limit"`
			} `json:"metrics"`
		}{}
	}
	if e.Type == "RESOURCE_EXHAUSTION" {
		s := "RESOURCE_EXHAUSTION " + e.Resource
		if m := e.Metrics; m != nil && m.Used != nil && m.Limit != nil {
			s += " (" + jsonText(m.Used) + "/" + jsonText(m.Limit) + ")"
		}
		return s
	}
	if e.Reason != "" && c.Error == "" {
		return e.Reason + ": " + journal.FirstLine(e.Message, summaryWidth)
	}
	switch {
	case c.Error != "":
		return journal.FirstLine(c.Error, summaryWidth)
	case e.Message != "":
		return journal.FirstLine(e.Message, summaryWidth)
	}
	return journal.FirstLine(c.Info.Content, summaryWidth)
}

// jsonText is a JSON scalar as text: a string without its quotes.
func jsonText(m json.RawMessage) string {
	var s string
	if json.Unmarshal(m, &s) == nil {
		return s
	}
	return string(m)
}

// buildTree nests flat nodes (in seq order) under their parents and
// returns the top-level ones.
func buildTree(flat []*NodeJSON) []*NodeJSON {
	bySeq := make(map[int]*NodeJSON, len(flat))
	roots := []*NodeJSON{}
	for _, n := range flat {
		bySeq[n.Seq] = n
	}
	for _, n := range flat {
		if p := bySeq[n.Parent]; p != nil && n.Parent != 0 {
			p.Children = append(p.Children, n)
		} else {
			roots = append(roots, n)
		}
	}
	return roots
}

// depthFirst returns the nodes of a tree in depth-first order.
func depthFirst(roots []*NodeJSON) []*NodeJSON {
	out := []*NodeJSON{} // a run without calls has [] (not null) nodes
	var walk func([]*NodeJSON)
	walk = func(ns []*NodeJSON) {
		for _, n := range ns {
			out = append(out, n)
			walk(n.Children)
		}
	}
	walk(roots)
	return out
}

// currentSeq finds the current position (SPEC §16.3) of calls given as
// (id, parent id, seq, status) with journal.CurrentPosition; nil when there
// is none.
func currentSeq(rows []*callRow) *int {
	nodes := make([]*journal.Node, len(rows))
	byID := make(map[int64]*journal.Node, len(rows))
	for i, c := range rows {
		nodes[i] = &journal.Node{ID: c.ID, ParentID: c.Parent, Seq: c.Seq, Status: c.Status}
		byID[c.ID] = nodes[i]
	}
	var roots []*journal.Node
	for _, n := range nodes {
		if p := byID[n.ParentID]; p != nil {
			p.Children = append(p.Children, n)
		} else {
			roots = append(roots, n)
		}
	}
	if cur := journal.CurrentPosition(roots); cur != nil {
		s := cur.Seq
		return &s
	}
	return nil
}
