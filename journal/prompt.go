package journal

import (
	"context"
	"database/sql"
)

// The prompt columns are added to the calls table of a journal that lacks
// them (a journal written before they existed); both are NULL for calls
// that sent no prompt (steps, tools, calls that failed before rendering).
var promptColumns = []string{"system_prompt", "user_prompt"}

// queuedTrigger records when a call was begun (queued_at, Unix
// nanoseconds): a task or tool begins pending while it waits for a
// concurrency slot, so queued_at to started_at is its wait, which the run
// viewer's timeline shows (SPEC §24.1). This package's inserts set it
// themselves (the trigger then does nothing, which saves an UPDATE per
// call); the trigger sets it for rows inserted otherwise, such as those
// recovered from a call log.
const queuedTrigger = `CREATE TRIGGER IF NOT EXISTS calls_queued_at AFTER INSERT ON calls WHEN NEW.queued_at IS NULL
BEGIN
	UPDATE calls SET queued_at = CAST((julianday('now') - 2440587.5) * 86400000000000.0 AS INTEGER) WHERE id = NEW.id;
END`

// addPromptColumns adds the prompt columns and queued_at when the calls
// table lacks them, and the trigger that sets queued_at. It runs inside
// init's transaction.
func addPromptColumns(ctx context.Context, tx *sql.Tx) error {
	have, err := tableColumns(ctx, tx, "calls")
	if err != nil {
		return err
	}
	for _, c := range promptColumns {
		if have[c] {
			continue
		}
		if _, err := tx.ExecContext(ctx, "ALTER TABLE calls ADD COLUMN "+c+" TEXT"); err != nil {
			return err
		}
	}
	if !have["queued_at"] {
		if _, err := tx.ExecContext(ctx, "ALTER TABLE calls ADD COLUMN queued_at INTEGER"); err != nil {
			return err
		}
	}
	_, err = tx.ExecContext(ctx, queuedTrigger)
	return err
}

// tableColumns returns the names of the columns of table.
func tableColumns(ctx context.Context, q interface {
	QueryContext(context.Context, string, ...any) (*sql.Rows, error)
}, table string) (map[string]bool, error) {
	rows, err := q.QueryContext(ctx, "SELECT name FROM pragma_table_info(?)", table)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	cols := map[string]bool{}
	for rows.Next() {
		var name string
		if err := rows.Scan(&name); err != nil {
			return nil, err
		}
		cols[name] = true
	}
	return cols, rows.Err()
}

// SetPrompt records the prompt a task call sent to its model or agent:
// the system prompt and the user message of its first request (SPEC §24.1
// shows them). It may be called once the call has begun.
// While the call's insert is queued the prompt is written by that insert;
// otherwise the update is queued and written with the next batch. A
// prompt is for reading, so it is not written to the call log that keeps
// a finished call durable.
func (c *Call) SetPrompt(system, user string) error {
	r := c.run
	r.mu.Lock()
	defer r.mu.Unlock()
	c.cur.system, c.cur.user = system, user
	if c.queued {
		return nil
	}
	r.queue(func(w *stmts) error {
		_, err := w.setPrompt.ExecContext(w.ctx, system, user, c.id)
		return err
	})
	return nil
}
