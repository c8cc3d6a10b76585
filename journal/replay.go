package journal

import (
	"bytes"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"sync"

	"github.com/evalrun/evalrun/value"
)

// ToolHash returns the key under which a workflow-level tool call is
// replayed (SPEC §16.4): the lowercase hex SHA-256 of the canonical JSON
// (sorted keys, no white space, no HTML escaping) of {"name", "params"}.
// A nil params counts as {}.
func ToolHash(name string, params *value.Dict) string {
	var p value.Value = value.NewDict(0)
	if params != nil {
		p = params
	}
	text := CanonicalJSON(value.DictOf("name", value.String(name), "params", p))
	sum := sha256.Sum256([]byte(text))
	return hex.EncodeToString(sum[:])
}

// CanonicalJSON returns v's JSON with object keys sorted at every level and
// no white space; numbers keep their text.
func CanonicalJSON(v value.Value) string {
	dec := json.NewDecoder(bytes.NewReader([]byte(value.JSON(v))))
	dec.UseNumber()
	var x any
	if err := dec.Decode(&x); err != nil {
		return value.JSON(v) // value.JSON always writes valid JSON; not reached
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(x) // maps are written with sorted keys
	return string(bytes.TrimRight(b.Bytes(), "\n"))
}

type replayKey struct{ kind, name, hash string }

type replayEntry struct {
	result value.Value
	usage  Usage
}

// Replayer hands out the results of completed calls of earlier runs for
// --resume (SPEC §16.4). It is safe for concurrent use.
type Replayer struct {
	chain []string // the resumed run first, then the runs it resumed from
	// calls holds, per run of the chain, the completed calls per key in seq order.
	calls []map[replayKey][]replayEntry

	mu    sync.Mutex
	count map[replayKey]int
}

// NewReplayer loads the completed task calls and workflow-level tool calls
// of run runID and, transitively, of the runs it resumed from.
func (s *Store) NewReplayer(runID string) (*Replayer, error) {
	db, err := s.reader()
	if err != nil {
		return nil, err
	}
	rp := &Replayer{count: map[replayKey]int{}}
	seen := map[string]bool{}
	for id := runID; id != "" && !seen[id]; {
		seen[id] = true
		var next string
		err := db.QueryRow("SELECT resumed_from FROM runs WHERE id = ?", id).Scan(&next)
		if err == sql.ErrNoRows {
			return nil, fmt.Errorf("no run %s in the journal", id)
		}
		if err != nil {
			return nil, fmt.Errorf("journal: %w", err)
		}
		m, err := s.replayCalls(id)
		if err != nil {
			return nil, err
		}
		rp.chain = append(rp.chain, id)
		rp.calls = append(rp.calls, m)
		id = next
	}
	return rp, nil
}

func (s *Store) replayCalls(runID string) (map[replayKey][]replayEntry, error) {
	rows, err := s.db.Query(`SELECT c.kind, c.name, c.input_hash, c.result, c.input_tokens, c.output_tokens, c.turns, c.cost_usd
		FROM calls c LEFT JOIN calls p ON p.id = c.parent_id
		WHERE c.run_id = ? AND c.status = 'completed' AND c.input_hash <> '' AND c.result IS NOT NULL
		  AND (c.kind = 'task' OR (c.kind = 'tool' AND (p.kind IS NULL OR p.kind <> 'task')))
		ORDER BY c.seq`, runID)
	if err != nil {
		return nil, fmt.Errorf("journal: %w", err)
	}
	defer rows.Close()
	m := map[replayKey][]replayEntry{}
	for rows.Next() {
		var k replayKey
		var text string
		var e replayEntry
		var cost sql.NullFloat64
		if err := rows.Scan(&k.kind, &k.name, &k.hash, &text, &e.usage.InputTokens, &e.usage.OutputTokens, &e.usage.Turns, &cost); err != nil {
			return nil, fmt.Errorf("journal: %w", err)
		}
		if cost.Valid {
			e.usage.CostUSD = &cost.Float64
		}
		if e.result, err = decodeResult(k.kind, text); err != nil {
			return nil, fmt.Errorf("journal: run %s: %w", runID, err)
		}
		m[k] = append(m[k], e)
	}
	return m, rows.Err()
}

// Chain returns the runs results are taken from: the resumed run first,
// then, transitively, the runs it resumed from.
func (rp *Replayer) Chain() []string { return append([]string(nil), rp.chain...) }

// Next returns, for the n-th call of template with request hash hash in
// this run, the result of the n-th completed call with the same template
// and hash in the resumed run, or when it has fewer, in the first run of
// the chain that has an n-th one. A TaskResult comes back as a copy with
// notes.replayed true (the caller sets the new notes.task_id). ok is false
// when there is nothing to replay; the call then runs normally (and still
// counts towards n).
func (rp *Replayer) Next(template, hash string) (result value.Value, usage Usage, ok bool) {
	return rp.next(replayKey{KindTask, template, hash})
}

// NextTool is Next for a workflow-level tool call, keyed by
// ToolHash(name, params).
func (rp *Replayer) NextTool(name, hash string) (result value.Value, usage Usage, ok bool) {
	return rp.next(replayKey{KindTool, name, hash})
}

func (rp *Replayer) next(k replayKey) (value.Value, Usage, bool) {
	if rp == nil {
		return nil, Usage{}, false
	}
	rp.mu.Lock()
	n := rp.count[k]
	rp.count[k] = n + 1
	rp.mu.Unlock()
	for _, m := range rp.calls {
		if l := m[k]; n < len(l) {
			return markReplayed(l[n].result), l[n].usage, true
		}
	}
	return nil, Usage{}, false
}

func markReplayed(v value.Value) value.Value {
	tr, ok := v.(*value.TaskResult)
	if !ok {
		return v
	}
	c := *tr
	c.Notes = tr.NotesOrEmpty().With("replayed", value.Bool(true))
	return &c
}
