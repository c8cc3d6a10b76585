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
	"sync/atomic"
	"time"

	"github.com/evalrun/evalrun/value"

	_ "modernc.org/sqlite" // the pure-Go SQLite driver, registered as "sqlite"
)

// DefaultPath is where a project's journal lives, relative to its root
// (SPEC §16.1).
const DefaultPath = ".evalrun/journal.db"

// SchemaVersion is the version of the tables this package writes, stored in
// the schema_version table.
//
// Version 2 added calls.cost_usd (REAL, NULL when the cost is unknown,
// SPEC §14.9) and the budgets given for a run, runs.max_cost_usd and
// runs.max_tokens (0 when none); a version 1 journal is migrated when it
// is opened.
//
// Version 3 added the process running a run (Owner): runs.owner_pid,
// owner_host and owner_start (0 and "" for the runs of older versions,
// whose process is unknown), and what a call's start knows of it:
// calls.executor, template_source and label; a version 1 or 2 journal is
// migrated when it is opened.
const SchemaVersion = 3

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
	error         TEXT NOT NULL DEFAULT '',
	max_cost_usd  REAL NOT NULL DEFAULT 0,
	max_tokens    INTEGER NOT NULL DEFAULT 0,
	owner_pid     INTEGER NOT NULL DEFAULT 0,
	owner_host    TEXT NOT NULL DEFAULT '',
	owner_start   TEXT NOT NULL DEFAULT ''
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
	cost_usd      REAL,
	replayed      INTEGER NOT NULL DEFAULT 0,
	started_at    INTEGER,
	finished_at   INTEGER,
	UNIQUE (run_id, seq)
);
CREATE INDEX IF NOT EXISTS calls_replay ON calls (run_id, kind, name, input_hash, status);
CREATE INDEX IF NOT EXISTS runs_started ON runs (started_at);
`

// Store is a journal database. It is safe for concurrent use: writes are
// queued and committed in batches by one connection (see writer.go), reads
// run in parallel on others and first commit what is queued.
type Store struct {
	path string
	lazy bool

	openMu  sync.Mutex // guards the fields below
	db      *sql.DB
	w       *stmts
	openErr error
	closed  bool

	q writeQueue
	// log is the call log (calllog.go), made by the first End; nil before,
	// or when files cannot be locked.
	log     atomic.Pointer[callLog]
	logOnce sync.Once

	// owner is the process recorded as running the runs it starts.
	owner Owner

	// now, random and flushDelay are replaced by tests.
	now        func() time.Time
	random     func() string
	flushDelay time.Duration
}

// Open opens the journal database at path (normally DefaultPath below the
// project root), creating it and its directory when absent. The database
// uses the WAL journal with synchronous=NORMAL and a busy timeout, like the
// memory index.
func Open(path string) (*Store, error) {
	s := newStore(path)
	if _, err := s.writer(); err != nil {
		return nil, err
	}
	return s, nil
}

// OpenLazy returns a store for the journal at path that opens (and
// creates) the database only when something must be written to it or read
// from it. A run started on it is held in memory until its first call
// begins, or until it finishes when it makes none (except a run started
// with RunInfo.OmitWithoutCalls that completes: it is not recorded and
// leaves no file behind). Errors opening the database are returned by the
// first write or read.
func OpenLazy(path string) *Store {
	s := newStore(path)
	s.lazy = true
	return s
}

func newStore(path string) *Store {
	return &Store{path: path, owner: CurrentOwner(), now: time.Now, random: randomHex4, flushDelay: flushDelay}
}

// writer returns the write statements, opening the database on first use.
func (s *Store) writer() (*stmts, error) {
	s.openMu.Lock()
	defer s.openMu.Unlock()
	if s.closed {
		return nil, errClosed
	}
	if s.w != nil || s.openErr != nil {
		return s.w, s.openErr
	}
	s.w, s.openErr = s.open()
	return s.w, s.openErr
}

// reader commits the queued writes and returns the database to read from.
func (s *Store) reader() (*sql.DB, error) {
	if err := s.flush(); err != nil {
		return nil, err
	}
	if _, err := s.writer(); err != nil {
		return nil, err
	}
	return s.db, nil
}

// open opens the database, creates or checks its tables and prepares the
// write statements on a connection of their own.
func (s *Store) open() (*stmts, error) {
	path := s.path
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
	ctx := context.Background()
	if err := initSchema(ctx, db); err != nil {
		db.Close()
		return nil, fmt.Errorf("journal %s: %w", path, err)
	}
	if err := recoverCallLogs(ctx, db, abs); err != nil {
		db.Close()
		return nil, fmt.Errorf("journal %s: %w", path, err)
	}

	conn, err := db.Conn(ctx)
	if err != nil {
		db.Close()
		return nil, fmt.Errorf("journal %s: %w", path, err)
	}
	w, err := prepareStmts(ctx, conn)
	if err != nil {
		conn.Close()
		db.Close()
		return nil, fmt.Errorf("journal %s: %w", path, err)
	}
	s.db = db
	return w, nil
}

func initSchema(ctx context.Context, db *sql.DB) error {
	tx, err := db.BeginTx(ctx, nil)
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
	// Version 2 added the cost of a call (SPEC §14.9) and a run's budgets;
	// the calls of older runs have none (NULL, unknown). The columns are
	// added wherever they are missing, whatever version the file says.
	if err := addMissingColumns(ctx, tx, []columnDef{
		{"calls", "cost_usd", "REAL"},
		{"runs", "max_cost_usd", "REAL NOT NULL DEFAULT 0"},
		{"runs", "max_tokens", "INTEGER NOT NULL DEFAULT 0"},
	}); err != nil {
		return fmt.Errorf("migrating the journal to schema version 2: %w", err)
	}
	// Version 3 added the process running a run (Owner); older runs have
	// none (0, ''), so that no reader takes their process for gone.
	if err := addMissingColumns(ctx, tx, []columnDef{
		{"runs", "owner_pid", "INTEGER NOT NULL DEFAULT 0"},
		{"runs", "owner_host", "TEXT NOT NULL DEFAULT ''"},
		{"runs", "owner_start", "TEXT NOT NULL DEFAULT ''"},
	}); err != nil {
		return fmt.Errorf("migrating the journal to schema version 3: %w", err)
	}
	// Version 3 also added what executes a call and its template's
	// provenance, known when the call starts (Call.SetExecutor); '' for
	// calls recorded before the columns existed (their results' notes
	// hold them) and for steps.
	if err := addMissingColumns(ctx, tx, []columnDef{
		{"calls", "executor", "TEXT NOT NULL DEFAULT ''"},
		{"calls", "template_source", "TEXT NOT NULL DEFAULT ''"},
		// A task's or tool's short label (CallLabel), recorded with its
		// inputs.
		{"calls", "label", "TEXT NOT NULL DEFAULT ''"},
	}); err != nil {
		return fmt.Errorf("migrating the journal to schema version 3: %w", err)
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
	case version == 1 || version == 2:
		if _, err := tx.ExecContext(ctx, "UPDATE schema_version SET version = ?", SchemaVersion); err != nil {
			return err
		}
	case version != SchemaVersion:
		return fmt.Errorf("schema version %d, this evalrun reads version %d", version, SchemaVersion)
	}
	return tx.Commit()
}

// columnDef is a column a journal written by an older evalrun may lack.
type columnDef struct {
	table, name, decl string
}

// addMissingColumns adds each column its table lacks.
func addMissingColumns(ctx context.Context, tx *sql.Tx, cols []columnDef) error {
	have := map[string]map[string]bool{}
	for _, c := range cols {
		if have[c.table] == nil {
			names, err := tableColumns(ctx, tx, c.table)
			if err != nil {
				return err
			}
			have[c.table] = names
		}
		if have[c.table][c.name] {
			continue
		}
		if _, err := tx.ExecContext(ctx, "ALTER TABLE "+c.table+" ADD COLUMN "+c.name+" "+c.decl); err != nil {
			return err
		}
		have[c.table][c.name] = true
	}
	return nil
}

// Path returns the path Open was given.
func (s *Store) Path() string { return s.path }

// Close commits what is queued and closes the database (if it was ever
// opened).
func (s *Store) Close() error {
	if s == nil {
		return nil
	}
	err := s.closeQueue()
	if l := s.log.Load(); l != nil {
		if e := l.close(err == nil); err == nil {
			err = e
		}
	}
	s.openMu.Lock()
	defer s.openMu.Unlock()
	s.closed = true
	if s.w != nil {
		s.w.close()
		if e := s.w.conn.Close(); err == nil {
			err = e
		}
		s.w = nil
	}
	if s.db != nil {
		if e := s.db.Close(); err == nil {
			err = e
		}
		s.db = nil
	}
	return err
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
	// CostUSD sums the known costs of its task calls that it paid for
	// (SPEC §14.9); ReplayedCostUSD sums the recorded costs of the task
	// calls it replayed from the runs it resumed, which it did not pay
	// again. CostUnknown counts its task calls (replayed or not) that used
	// a model (tokens or turns) but whose cost is unknown.
	CostUSD         float64
	ReplayedCostUSD float64
	CostUnknown     int
	// MaxCostUSD and MaxTokens are the budgets given for the run (0 when
	// none; RunInfo).
	MaxCostUSD float64
	MaxTokens  int64
	// LastActivity is the latest start or end time of any of its calls (or
	// StartedAt), used as the end of a run that never finished.
	LastActivity time.Time
	// Owner is the process that ran it (its PID is 0 for runs recorded
	// before schema version 3).
	Owner Owner
	// Ended is set for a run recorded as running whose process is gone
	// (Owner.Gone): it will never finish, and the record shows it as
	// failed with Owner.EndedError (the row is not changed).
	Ended bool
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
	r.max_cost_usd, r.max_tokens, r.owner_pid, r.owner_host, r.owner_start,
	(SELECT COUNT(*) FROM calls c WHERE c.run_id = r.id AND c.status <> 'pending'),
	(SELECT COALESCE(SUM(c.input_tokens + c.output_tokens), 0) FROM calls c WHERE c.run_id = r.id AND c.kind = 'task'),
	(SELECT COALESCE(SUM(c.cost_usd), 0) FROM calls c WHERE c.run_id = r.id AND c.kind = 'task' AND c.replayed = 0),
	(SELECT COALESCE(SUM(c.cost_usd), 0) FROM calls c WHERE c.run_id = r.id AND c.kind = 'task' AND c.replayed <> 0),
	(SELECT COUNT(*) FROM calls c WHERE c.run_id = r.id AND c.kind = 'task' AND c.cost_usd IS NULL
		AND (c.turns > 0 OR c.input_tokens + c.output_tokens > 0)),
	(SELECT MAX(COALESCE(c.finished_at, c.started_at)) FROM calls c WHERE c.run_id = r.id)`

type scanner interface{ Scan(dest ...any) error }

func scanRun(sc scanner) (*RunRecord, error) {
	var r RunRecord
	var args, final sql.NullString
	var started int64
	var finished, last sql.NullInt64
	if err := sc.Scan(&r.ID, &r.WorkflowPath, &r.WorkflowSHA256, &args, &r.Status, &r.ResumedFrom, &started, &finished,
		&final, &r.Error, &r.MaxCostUSD, &r.MaxTokens, &r.Owner.PID, &r.Owner.Host, &r.Owner.Start, &r.Calls, &r.Tokens, &r.CostUSD, &r.ReplayedCostUSD, &r.CostUnknown, &last); err != nil {
		return nil, err
	}
	r.StartedAt = time.Unix(0, started).Local()
	r.FinishedAt = timeFrom(finished)
	r.LastActivity = timeFrom(last)
	if r.LastActivity.IsZero() {
		r.LastActivity = r.StartedAt
	}
	if r.Status == StatusRunning && r.Owner.Gone() {
		r.Status, r.Error, r.Ended = StatusFailed, r.Owner.EndedError(), true
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
	db, err := s.reader()
	if err != nil {
		return nil, err
	}
	rows, err := db.Query(q)
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
	db, err := s.reader()
	if err != nil {
		return nil, err
	}
	r, err := scanRun(db.QueryRow("SELECT "+runColumns+" FROM runs r WHERE r.id = ?", id))
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
	db, err := s.reader()
	if err != nil {
		return nil, err
	}
	var exact int
	if err := db.QueryRow("SELECT COUNT(*) FROM runs WHERE id = ?", ref).Scan(&exact); err != nil {
		return nil, fmt.Errorf("journal: %w", err)
	}
	if exact == 1 {
		return s.GetRun(ref)
	}
	// A prefix: escape LIKE's wildcards, then compare case-sensitively.
	esc := strings.NewReplacer(`\`, `\\`, `%`, `\%`, `_`, `\_`).Replace(ref)
	rows, err := db.Query(`SELECT id FROM runs WHERE id LIKE ? ESCAPE '\' ORDER BY id`, esc+"%")
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

// Spent is what the task calls of the runs ids spent that were not
// replayed (SPEC §14.9): a resumed run's budget counts the spending of
// the runs it resumes, each call once.
type Spent struct {
	Tokens  int64
	CostUSD float64
}

// Spending sums the tokens and known costs of the task calls of the runs
// ids that were not replayed from an earlier run.
func (s *Store) Spending(ids []string) (Spent, error) {
	var out Spent
	if len(ids) == 0 {
		return out, nil
	}
	db, err := s.reader()
	if err != nil {
		return out, err
	}
	q := "SELECT COALESCE(SUM(input_tokens + output_tokens), 0), COALESCE(SUM(cost_usd), 0) FROM calls WHERE kind = 'task' AND replayed = 0 AND run_id IN (?" +
		strings.Repeat(", ?", len(ids)-1) + ")"
	args := make([]any, len(ids))
	for i, id := range ids {
		args[i] = id
	}
	if err := db.QueryRow(q, args...).Scan(&out.Tokens, &out.CostUSD); err != nil {
		return out, fmt.Errorf("journal: %w", err)
	}
	return out, nil
}
