package journal

import (
	"database/sql"
	"path/filepath"
	"testing"
	"time"
)

func TestSetPromptStoresBothParts(t *testing.T) {
	s, _ := openTest(t)
	run, err := s.StartRun(RunInfo{WorkflowPath: "w.sexp"})
	if err != nil {
		t.Fatal(err)
	}
	c, err := run.Begin(nil, KindTask, "greet", "h", nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := c.SetPrompt("You are terse.", "Say hello to Ada."); err != nil {
		t.Fatal(err)
	}
	var system, user sql.NullString
	if err := s.db.QueryRow("SELECT system_prompt, user_prompt FROM calls WHERE id = ?", c.ID()).Scan(&system, &user); err != nil {
		t.Fatal(err)
	}
	if system.String != "You are terse." || user.String != "Say hello to Ada." {
		t.Fatalf("prompt = %q, %q", system.String, user.String)
	}
	// A call whose insert is already committed gets the prompt by an update.
	later, err := run.Begin(nil, KindTask, "greet", "h2", nil)
	if err != nil {
		t.Fatal(err)
	}
	id := later.ID() // commits the insert
	if err := later.SetPrompt("Be brief.", "Say hello to Bo."); err != nil {
		t.Fatal(err)
	}
	if err := s.flush(); err != nil {
		t.Fatal(err)
	}
	if err := s.db.QueryRow("SELECT system_prompt, user_prompt FROM calls WHERE id = ?", id).Scan(&system, &user); err != nil {
		t.Fatal(err)
	}
	if system.String != "Be brief." || user.String != "Say hello to Bo." {
		t.Fatalf("prompt after the insert = %q, %q", system.String, user.String)
	}
}

func TestOpenAddsPromptColumnsToAnOlderJournal(t *testing.T) {
	path := filepath.Join(t.TempDir(), "journal.db")
	db, err := sql.Open("sqlite", "file:"+path)
	if err != nil {
		t.Fatal(err)
	}
	// The calls table as the first schema wrote it, without the prompts.
	if _, err := db.Exec(`CREATE TABLE calls (id INTEGER PRIMARY KEY, run_id TEXT NOT NULL, parent_id INTEGER,
		seq INTEGER NOT NULL, kind TEXT NOT NULL, name TEXT NOT NULL, status TEXT NOT NULL,
		input_hash TEXT NOT NULL DEFAULT '', inputs TEXT, result TEXT, error TEXT NOT NULL DEFAULT '',
		attempts INTEGER NOT NULL DEFAULT 0, input_tokens INTEGER NOT NULL DEFAULT 0,
		output_tokens INTEGER NOT NULL DEFAULT 0, turns INTEGER NOT NULL DEFAULT 0,
		replayed INTEGER NOT NULL DEFAULT 0, started_at INTEGER, finished_at INTEGER, UNIQUE (run_id, seq))`); err != nil {
		t.Fatal(err)
	}
	db.Close()
	s, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	cols, err := tableColumns(t.Context(), s.db, "calls")
	if err != nil {
		t.Fatal(err)
	}
	if !cols["system_prompt"] || !cols["user_prompt"] || !cols["queued_at"] {
		t.Fatalf("columns after Open: %v", cols)
	}
}

func TestBeginRecordsWhenACallWasQueued(t *testing.T) {
	s, clk := openTest(t)
	run, err := s.StartRun(RunInfo{WorkflowPath: "w.sexp"})
	if err != nil {
		t.Fatal(err)
	}
	queuedAt := t0.Add(3 * time.Second)
	clk.set(queuedAt)
	c, err := run.Begin(nil, KindTask, "greet", "h", nil)
	if err != nil {
		t.Fatal(err)
	}
	clk.set(queuedAt.Add(2 * time.Second))
	var queued, started sql.NullInt64
	if err := s.db.QueryRow("SELECT queued_at, started_at FROM calls WHERE id = ?", c.ID()).Scan(&queued, &started); err != nil {
		t.Fatal(err)
	}
	if !queued.Valid || queued.Int64 != queuedAt.UnixNano() || started.Valid {
		t.Errorf("queued_at %v (want %d), started_at %v", queued, queuedAt.UnixNano(), started)
	}
	// A row inserted by other means (a recovered call log) gets queued_at
	// from the trigger.
	before := time.Now().Add(-time.Second).UnixNano()
	if _, err := s.db.Exec("INSERT INTO calls (run_id, seq, kind, name, status) VALUES ('r', 1, 'task', 'x', 'completed')"); err != nil {
		t.Fatal(err)
	}
	after := time.Now().Add(time.Second).UnixNano()
	if err := s.db.QueryRow("SELECT queued_at FROM calls WHERE run_id = 'r'").Scan(&queued); err != nil {
		t.Fatal(err)
	}
	if !queued.Valid || queued.Int64 < before || queued.Int64 > after {
		t.Errorf("trigger: queued_at %v (want within [%d, %d])", queued, before, after)
	}
}
