package journal

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/evalrun/evalrun/value"

	_ "modernc.org/sqlite" // the pure-Go SQLite driver, registered as "sqlite"
)

// DefaultPath is where a project's journal lives, relative to its root
// (SPEC §16.1).
const DefaultPath = ".evalrun/journal.db"

// SchemaVersion is the version of the tables this package writes, stored in
// the schema_version table.
const SchemaVersion = 1

// The statuses of runs and calls (SPEC §16.2).
const (
	StatusPending   = "pending"
	StatusRunning   = "running"
	StatusCompleted = "completed"
	StatusFailed    = "failed"
	StatusSkipped   = "skipped"
)

// The kinds of calls.
const (
	KindTask = "task"
	KindTool = "tool"
	KindStep = "step"
)

const schema = `
CREATE TABLE IF NOT EXISTS schema_version (version INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS runs (
	id            TEXT PRIMARY KEY,
	workflow      TEXT NOT NULL,
	workflow_sha  TEXT NOT NULL,
	arguments     TEXT,
	status        TEXT NOT NULL,
	resumed_from  TEXT NOT NULL DEFAULT '',
	started_at    INTEGER NOT NULL,
	finished_at   INTEGER,
	final         TEXT,
	error         TEXT NOT NULL DEFAULT ''
);
CREATE TABLE IF NOT EXISTS calls (
	id            INTEGER PRIMARY KEY,
	run_id        TEXT NOT NULL,
	parent_id     INTEGER,
	seq           INTEGER NOT NULL,
	kind          TEXT NOT NULL,
	name          TEXT NOT NULL,
	status        TEXT NOT NULL,
	input_hash    TEXT NOT NULL DEFAULT '',
	inputs        TEXT,
	result        TEXT,
	error         TEXT NOT NULL DEFAULT '',
	attempts      INTEGER NOT NULL DEFAULT 0,
	input_tokens  INTEGER NOT NULL DEFAULT 0,
	output_tokens INTEGER NOT NULL DEFAULT 0,
	turns         INTEGER NOT NULL DEFAULT 0,
	replayed      INTEGER NOT NULL DEFAULT 0,
	started_at    INTEGER,
	finished_at   INTEGER,
	UNIQUE (run_id, seq)
);
CREATE INDEX IF NOT EXISTS calls_replay ON calls (run_id, kind, name, input_hash, status);
CREATE INDEX IF NOT EXISTS runs_started ON runs (started_at);
`

// Store is an open journal database. It is safe for concurrent use: writes
// are serialised by one mutex (SPEC §6.8), reads run in parallel.
type Store struct {
	db   *sql.DB
	path string
	wmu  sync.Mutex // serialises every write

	// now and random are replaced by tests.
	now    func() time.Time
	random func() string
}

// Open opens the journal database at path (normally DefaultPath below the
// project root), creating it and its directory when absent. The database
// uses the WAL journal and a busy timeout, like the memory index.
func Open(path string) (*Store, error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return nil, fmt.Errorf("journal: %w", err)
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, fmt.Errorf("journal: %w", err)
	}
	q := url.Values{}
	for _, p := range []string{"busy_timeout(60000)", "journal_mode(WAL)", "synchronous(NORMAL)", "foreign_keys(OFF)"} {
		q.Add("_pragma", p)
	}
	dsn := "file:" + (&url.URL{Path: filepath.ToSlash(abs)}).EscapedPath() + "?" + q.Encode()
	db, err := sql.Open("sqlite", dsn)
	if err != nil {
		return nil, fmt.Errorf("journal %s: %w", path, err)
	}
	db.SetMaxIdleConns(4)
	s := &Store{db: db, path: path, now: time.Now, random: randomHex4}
	if err := s.init(); err != nil {
		db.Close()
		return nil, fmt.Errorf("journal %s: %w", path, err)
	}
	return s, nil
}

func (s *Store) init() error {
	s.wmu.Lock()
	defer s.wmu.Unlock()
	ctx := context.Background()
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if _, err := tx.ExecContext(ctx, schema); err != nil {
		return err
	}
	if err := addPromptColumns(ctx, tx); err != nil {
		return err
	}
	var version int
	err = tx.QueryRowContext(ctx, "SELECT version FROM schema_version").Scan(&version)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		if _, err := tx.ExecContext(ctx, "INSERT INTO schema_version (version) VALUES (?)", SchemaVersion); err != nil {
			return err
		}
	case err != nil:
		return err
	case version != SchemaVersion:
		return fmt.Errorf("schema version %d, this evalrun reads version %d", version, SchemaVersion)
	}
	return tx.Commit()
}

// Path returns the path Open was given.
func (s *Store) Path() string { return s.path }

// Close closes the database.
func (s *Store) Close() error {
	if s == nil || s.db == nil {
		return nil
	}
	return s.db.Close()
}

// exec runs one write statement under the write mutex.
func (s *Store) exec(query string, args ...any) (sql.Result, error) {
	s.wmu.Lock()
	defer s.wmu.Unlock()
	return s.db.Exec(query, args...)
}

func randomHex4() string {
	var b [2]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

func timeFrom(n sql.NullInt64) time.Time {
	if !n.Valid {
		return time.Time{}
	}
	return time.Unix(0, n.Int64).Local()
}

// jsonValue is the stored form of v: its JSON text, NULL for nil.
func jsonValue(v value.Value) any {
	if v == nil {
		return nil
	}
	return value.JSON(v)
}

// RunRecord is a run as read back from the journal.
type RunRecord struct {
	ID             string
	WorkflowPath   string
	WorkflowSHA256 string
	// Args is the arguments dict (the --set values and flags), or nil.
	Args        value.Value
	Status      string
	ResumedFrom string
	StartedAt   time.Time
	// FinishedAt is zero while the run has not finished.
	FinishedAt time.Time
	// Final is the run's final value, or nil.
	Final value.Value
	Error string
	// Calls is the number of call nodes that have left pending; Tokens the
	// input and output tokens of its task calls.
	Calls  int
	Tokens int64
	// LastActivity is the latest start or end time of any of its calls (or
	// StartedAt), used as the end of a run that never finished.
	LastActivity time.Time
}

// Duration is the run's wall time: to FinishedAt, or to its last recorded
// activity while unfinished (an interrupted run does not keep growing).
func (r *RunRecord) Duration() time.Duration {
	end := r.FinishedAt
	if end.IsZero() {
		end = r.LastActivity
	}
	if end.Before(r.StartedAt) {
		return 0
	}
	return end.Sub(r.StartedAt)
}

const runColumns = `r.id, r.workflow, r.workflow_sha, r.arguments, r.status, r.resumed_from, r.started_at, r.finished_at, r.final, r.error,
	(SELECT COUNT(*) FROM calls c WHERE c.run_id = r.id AND c.status <> 'pending'),
	(SELECT COALESCE(SUM(c.input_tokens + c.output_tokens), 0) FROM calls c WHERE c.run_id = r.id AND c.kind = 'task'),
	(SELECT MAX(COALESCE(c.finished_at, c.started_at)) FROM calls c WHERE c.run_id = r.id)`

type scanner interface{ Scan(dest ...any) error }

func scanRun(sc scanner) (*RunRecord, error) {
	var r RunRecord
	var args, final sql.NullString
	var started int64
	var finished, last sql.NullInt64
	if err := sc.Scan(&r.ID, &r.WorkflowPath, &r.WorkflowSHA256, &args, &r.Status, &r.ResumedFrom, &started, &finished,
		&final, &r.Error, &r.Calls, &r.Tokens, &last); err != nil {
		return nil, err
	}
	r.StartedAt = time.Unix(0, started).Local()
	r.FinishedAt = timeFrom(finished)
	r.LastActivity = timeFrom(last)
	if r.LastActivity.IsZero() {
		r.LastActivity = r.StartedAt
	}
	var err error
	if args.Valid {
		if r.Args, err = value.ParseJSON(args.String); err != nil {
			return nil, fmt.Errorf("run %s arguments: %w", r.ID, err)
		}
	}
	if final.Valid {
		if r.Final, err = value.ParseJSON(final.String); err != nil {
			return nil, fmt.Errorf("run %s final value: %w", r.ID, err)
		}
	}
	return &r, nil
}

// Runs returns up to limit runs, newest first (all when limit <= 0).
func (s *Store) Runs(limit int) ([]*RunRecord, error) {
	q := "SELECT " + runColumns + " FROM runs r ORDER BY r.started_at DESC, r.id DESC"
	if limit > 0 {
		q += fmt.Sprintf(" LIMIT %d", limit)
	}
	rows, err := s.db.Query(q)
	if err != nil {
		return nil, fmt.Errorf("journal: %w", err)
	}
	defer rows.Close()
	var out []*RunRecord
	for rows.Next() {
		r, err := scanRun(rows)
		if err != nil {
			return nil, fmt.Errorf("journal: %w", err)
		}
		out = append(out, r)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("journal: %w", err)
	}
	return out, nil
}

// GetRun returns the run with exactly this id.
func (s *Store) GetRun(id string) (*RunRecord, error) {
	r, err := scanRun(s.db.QueryRow("SELECT "+runColumns+" FROM runs r WHERE r.id = ?", id))
	if errors.Is(err, sql.ErrNoRows) {
		return nil, fmt.Errorf("no run %s in the journal", id)
	}
	if err != nil {
		return nil, fmt.Errorf("journal: %w", err)
	}
	return r, nil
}

// Resolve turns a RUN argument (SPEC §16.1) into a run: "last" (or "") is
// the newest run, anything else a full id or a prefix matching exactly one
// run.
func (s *Store) Resolve(ref string) (*RunRecord, error) {
	if ref == "" || ref == "last" {
		runs, err := s.Runs(1)
		if err != nil {
			return nil, err
		}
		if len(runs) == 0 {
			return nil, errors.New("no runs in the journal")
		}
		return runs[0], nil
	}
	var exact int
	if err := s.db.QueryRow("SELECT COUNT(*) FROM runs WHERE id = ?", ref).Scan(&exact); err != nil {
		return nil, fmt.Errorf("journal: %w", err)
	}
	if exact == 1 {
		return s.GetRun(ref)
	}
	// A prefix: escape LIKE's wildcards, then compare case-sensitively.
	esc := strings.NewReplacer(`\`, `\\`, `%`, `\%`, `_`, `\_`).Replace(ref)
	rows, err := s.db.Query(`SELECT id FROM runs WHERE id LIKE ? ESCAPE '\' ORDER BY id`, esc+"%")
	if err != nil {
		return nil, fmt.Errorf("journal: %w", err)
	}
	var ids []string
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			rows.Close()
			return nil, fmt.Errorf("journal: %w", err)
		}
		if strings.HasPrefix(id, ref) {
			ids = append(ids, id)
		}
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("journal: %w", err)
	}
	switch len(ids) {
	case 0:
		return nil, fmt.Errorf("no run matches %q", ref)
	case 1:
		return s.GetRun(ids[0])
	}
	shown := ids
	if len(shown) > 5 {
		shown = append(shown[:5:5], "…")
	}
	return nil, fmt.Errorf("run %q is ambiguous: %s", ref, strings.Join(shown, ", "))
}
