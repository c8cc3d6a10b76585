package journal

import (
	"cmp"
	"database/sql"
	"fmt"
	"time"

	"github.com/evalrun/evalrun/value"
)

// Node is one call of a run as read back by Tree.
type Node struct {
	ID       int64
	ParentID int64 // 0 at the top level
	Seq      int
	Kind     string
	Name     string
	Status   string
	// InputHash is the request hash of a task (SPEC §14.6), ToolHash of a
	// tool, "" for steps.
	InputHash string
	// Inputs and Result are decoded from JSON (nil when absent); task and
	// tool results are *value.TaskResult.
	Inputs     value.Value
	Result     value.Value
	Error      string
	Attempts   int
	Usage      Usage
	Replayed   bool
	StartedAt  time.Time
	FinishedAt time.Time
	// Executor is what executed the task ("openai:gpt-4.1",
	// "agent:claude") and TemplateSource its template's provenance (SCOPE
	// PATH:LINE): recorded when the call started (Call.SetExecutor), else
	// read from its result's notes; "" when neither has them.
	Executor       string
	TemplateSource string
	// Label is the call's short label (CallLabel of its inputs), recorded
	// with them; "" for steps and calls recorded before labels were.
	Label    string
	Children []*Node
}

// Tree returns the top-level calls of a run, each with its children, in seq
// order. The calls a run left unfinished when its process died
// (RunRecord.Ended) are shown as Abort fails them: failed, with the error
// "execution_halted: the process running the run ended".
func (s *Store) Tree(runID string) ([]*Node, error) {
	db, err := s.reader()
	if err != nil {
		return nil, err
	}
	var runStatus string
	var owner Owner
	err = db.QueryRow("SELECT status, owner_pid, owner_host, owner_start FROM runs WHERE id = ?", runID).Scan(
		&runStatus, &owner.PID, &owner.Host, &owner.Start)
	if err != nil && err != sql.ErrNoRows {
		return nil, fmt.Errorf("journal: %w", err)
	}
	ended := runStatus == StatusRunning && owner.Gone()
	rows, err := db.Query(`SELECT id, COALESCE(parent_id, 0), seq, kind, name, status, input_hash, inputs, result, error,
		attempts, input_tokens, output_tokens, turns, cost_usd, replayed, started_at, finished_at, executor, template_source,
		label FROM calls WHERE run_id = ? ORDER BY seq`, runID)
	if err != nil {
		return nil, fmt.Errorf("journal: %w", err)
	}
	defer rows.Close()
	var all []*Node
	byID := map[int64]*Node{}
	for rows.Next() {
		var n Node
		var inputs, result sql.NullString
		var started, finished sql.NullInt64
		var cost sql.NullFloat64
		if err := rows.Scan(&n.ID, &n.ParentID, &n.Seq, &n.Kind, &n.Name, &n.Status, &n.InputHash, &inputs, &result,
			&n.Error, &n.Attempts, &n.Usage.InputTokens, &n.Usage.OutputTokens, &n.Usage.Turns, &cost, &n.Replayed,
			&started, &finished, &n.Executor, &n.TemplateSource, &n.Label); err != nil {
			return nil, fmt.Errorf("journal: %w", err)
		}
		if cost.Valid {
			n.Usage.CostUSD = &cost.Float64
		}
		if inputs.Valid {
			if n.Inputs, err = value.ParseJSON(inputs.String); err != nil {
				return nil, fmt.Errorf("journal: call %s/%d inputs: %w", runID, n.Seq, err)
			}
		}
		if result.Valid {
			if n.Result, err = decodeResult(n.Kind, result.String); err != nil {
				return nil, fmt.Errorf("journal: call %s/%d result: %w", runID, n.Seq, err)
			}
		}
		n.StartedAt, n.FinishedAt = timeFrom(started), timeFrom(finished)
		if ended && Halted(n.Status, n.Kind) {
			n.Status, n.Error = StatusFailed, HaltedEndedError
		}
		n.FromResultNotes()
		all = append(all, &n)
		byID[n.ID] = &n
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("journal: %w", err)
	}
	var roots []*Node
	for _, n := range all { // in seq order, so children are appended in seq order
		if p := byID[n.ParentID]; p != nil {
			p.Children = append(p.Children, n)
		} else {
			roots = append(roots, n)
		}
	}
	return roots, nil
}

// FromResultNotes sets n's Executor and TemplateSource from what its
// result's notes name, once the call has ended (a call still running keeps
// what its start recorded).
func (n *Node) FromResultNotes() {
	tr, ok := n.Result.(*value.TaskResult)
	if !ok || tr.Notes == nil {
		return
	}
	x := ExecutorName(dictString(tr.Notes, "executor"), dictString(tr.Notes, "provider"), dictString(tr.Notes, "model"))
	n.Executor = cmp.Or(x, n.Executor)
	n.TemplateSource = cmp.Or(dictString(tr.Notes, "template_source"), n.TemplateSource)
}

// ExecutorName is the executor a task's notes name (SPEC §11.5):
// notes.executor ("agent:claude") when set, else provider:model, else the
// provider; "" when the notes name none. The run viewer shows it too.
func ExecutorName(executor, provider, model string) string {
	switch {
	case executor != "":
		return executor
	case provider != "" && model != "":
		return provider + ":" + model
	}
	return provider
}

// CurrentPosition returns the current position of a tree (SPEC §16.3): the
// first node, in depth-first order with children in seq order, that has no
// children, is neither completed nor skipped, and has no completed or
// skipped ancestor. It returns nil when there is none.
func CurrentPosition(tree []*Node) *Node {
	for _, n := range tree {
		if n.Status == StatusCompleted || n.Status == StatusSkipped {
			continue // neither it nor its descendants qualify
		}
		if len(n.Children) == 0 {
			return n
		}
		if c := CurrentPosition(n.Children); c != nil {
			return c
		}
	}
	return nil
}

// Walk calls f for every node of tree in depth-first order with its depth
// (0 at the top), stopping when f returns false.
func Walk(tree []*Node, f func(n *Node, depth int) bool) {
	walk(tree, 0, f)
}

func walk(tree []*Node, depth int, f func(*Node, int) bool) bool {
	for _, n := range tree {
		if !f(n, depth) || !walk(n.Children, depth+1, f) {
			return false
		}
	}
	return true
}
