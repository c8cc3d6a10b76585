package journal

import (
	"database/sql"
	"path/filepath"
	"strings"
	"testing"
)

// TestCostRecorded: a call's cost is stored in calls.cost_usd (NULL when
// unknown), read back by Tree and the replayer, summed per run with the
// calls of unknown cost counted (SPEC §14.9).
func TestCostRecorded(t *testing.T) {
	s, _ := openTest(t)
	ids(s, "aaaa", "bbbb")
	a := must[*Run](t)(s.StartRun(RunInfo{WorkflowPath: "w.sexp"}))
	record(t, a, nil, KindTask, "t", "h1", StatusCompleted, result("a1"), Usage{InputTokens: 10, OutputTokens: 2, Turns: 1, CostUSD: Cost(0.25, true)})
	record(t, a, nil, KindTask, "t", "h2", StatusCompleted, result("a2"), Usage{InputTokens: 10, OutputTokens: 2, Turns: 1})
	record(t, a, nil, KindTask, "t", "h3", StatusCompleted, result("a3"), Usage{InputTokens: 1, Turns: 1, CostUSD: Cost(0.5, true)})
	check(t, a.Finish(StatusCompleted, nil, nil))

	rec := must[*RunRecord](t)(s.GetRun(a.ID()))
	if rec.CostUSD != 0.75 || rec.CostUnknown != 1 {
		t.Errorf("run cost %v, unknown %d; want 0.75, 1", rec.CostUSD, rec.CostUnknown)
	}
	tree := must[[]*Node](t)(s.Tree(a.ID()))
	if c := tree[0].Usage.CostUSD; c == nil || *c != 0.25 {
		t.Errorf("first call cost %v, want 0.25", c)
	}
	if c := tree[1].Usage.CostUSD; c != nil {
		t.Errorf("second call cost %v, want NULL", *c)
	}

	// A resumed run replays the recorded cost with the result; its
	// replayed calls are not spending again.
	b := must[*Run](t)(s.StartRun(RunInfo{WorkflowPath: "w.sexp", ResumedFrom: a.ID()}))
	rp := must[*Replayer](t)(s.NewReplayer(a.ID()))
	_, u, ok := rp.Next("t", "h1")
	if !ok || u.CostUSD == nil || *u.CostUSD != 0.25 {
		t.Fatalf("replayed usage %+v, %v", u, ok)
	}
	c := must[*Call](t)(b.Begin(nil, KindTask, "t", "h1", nil))
	check(t, c.End(StatusCompleted, result("a1"), "", u, 0, true))
	record(t, b, nil, KindTask, "t", "h4", StatusCompleted, result("a4"), Usage{InputTokens: 100, OutputTokens: 20, Turns: 1, CostUSD: Cost(1, true)})
	check(t, b.Finish(StatusCompleted, nil, nil))

	spent := must[Spent](t)(s.Spending([]string{a.ID(), b.ID()}))
	if spent.CostUSD != 1.75 || spent.Tokens != 10+2+10+2+1+120 {
		t.Errorf("spent %+v, want $1.75 and 145 tokens: each paid call once", spent)
	}
	if rb := must[*RunRecord](t)(s.GetRun(b.ID())); rb.CostUSD != 1 || rb.ReplayedCostUSD != 0.25 {
		t.Errorf("resumed run cost %v + %v replayed, want 1 paid + 0.25 replayed (the replayed call's recorded cost)", rb.CostUSD, rb.ReplayedCostUSD)
	}
}

// TestMigrateSchema1: a journal written by schema version 1 (no
// cost_usd) is migrated when opened: its calls' cost is unknown, new
// calls store theirs.
func TestMigrateSchema1(t *testing.T) {
	path := filepath.Join(t.TempDir(), "journal.db")
	db, err := sql.Open("sqlite", path)
	check(t, err)
	for _, q := range []string{
		`CREATE TABLE schema_version (version INTEGER NOT NULL)`,
		`INSERT INTO schema_version VALUES (1)`,
		`CREATE TABLE runs (id TEXT PRIMARY KEY, workflow TEXT NOT NULL, workflow_sha TEXT NOT NULL, arguments TEXT,
			status TEXT NOT NULL, resumed_from TEXT NOT NULL DEFAULT '', started_at INTEGER NOT NULL, finished_at INTEGER,
			final TEXT, error TEXT NOT NULL DEFAULT '')`,
		`CREATE TABLE calls (id INTEGER PRIMARY KEY, run_id TEXT NOT NULL, parent_id INTEGER, seq INTEGER NOT NULL,
			kind TEXT NOT NULL, name TEXT NOT NULL, status TEXT NOT NULL, input_hash TEXT NOT NULL DEFAULT '', inputs TEXT,
			result TEXT, error TEXT NOT NULL DEFAULT '', attempts INTEGER NOT NULL DEFAULT 0,
			input_tokens INTEGER NOT NULL DEFAULT 0, output_tokens INTEGER NOT NULL DEFAULT 0,
			turns INTEGER NOT NULL DEFAULT 0, replayed INTEGER NOT NULL DEFAULT 0, started_at INTEGER, finished_at INTEGER,
			UNIQUE (run_id, seq))`,
		`INSERT INTO runs (id, workflow, workflow_sha, status, started_at) VALUES ('20250101-000000-aaaa', 'w.sexp', '', 'completed', 1)`,
		`INSERT INTO calls (run_id, seq, kind, name, status, input_tokens, turns) VALUES ('20250101-000000-aaaa', 1, 'task', 't', 'completed', 5, 1)`,
	} {
		if _, err := db.Exec(q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	check(t, db.Close())

	s := must[*Store](t)(Open(path))
	defer s.Close()
	old := must[*RunRecord](t)(s.GetRun("20250101-000000-aaaa"))
	if old.CostUSD != 0 || old.CostUnknown != 1 || old.Tokens != 5 {
		t.Errorf("old run: %+v", old)
	}
	ids(s, "bbbb")
	r := must[*Run](t)(s.StartRun(RunInfo{WorkflowPath: "w.sexp"}))
	record(t, r, nil, KindTask, "t", "h", StatusCompleted, result("x"), Usage{Turns: 1, CostUSD: Cost(0.5, true)})
	check(t, r.Finish(StatusCompleted, nil, nil))
	if got := must[*RunRecord](t)(s.GetRun(r.ID())); got.CostUSD != 0.5 {
		t.Errorf("new run cost %v", got.CostUSD)
	}
	var version int
	rdb := must[*sql.DB](t)(s.reader())
	check(t, rdb.QueryRow("SELECT version FROM schema_version").Scan(&version))
	if version != SchemaVersion {
		t.Errorf("schema version %d, want %d", version, SchemaVersion)
	}
}

// TestMigrateSchema2: a journal written by schema version 2 (no owner
// columns) is migrated when opened; its running run, of an unknown
// process, still reads as running, and a new run records its process.
func TestMigrateSchema2(t *testing.T) {
	path := filepath.Join(t.TempDir(), "journal.db")
	db, err := sql.Open("sqlite", path)
	check(t, err)
	v2 := strings.NewReplacer(`,
	owner_pid     INTEGER NOT NULL DEFAULT 0,
	owner_host    TEXT NOT NULL DEFAULT '',
	owner_start   TEXT NOT NULL DEFAULT ''`, "").Replace(schema)
	if v2 == schema {
		t.Fatal("the owner columns are not where the test looks for them")
	}
	for _, q := range []string{v2, `INSERT INTO schema_version VALUES (2)`,
		`INSERT INTO runs (id, workflow, workflow_sha, status, started_at) VALUES ('20250101-000000-aaaa', 'w.sexp', '', 'running', 1)`,
	} {
		if _, err := db.Exec(q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	check(t, db.Close())

	s := must[*Store](t)(Open(path))
	defer s.Close()
	if old := must[*RunRecord](t)(s.GetRun("20250101-000000-aaaa")); old.Status != StatusRunning || old.Owner != (Owner{}) {
		t.Errorf("old run: %q, owner %+v", old.Status, old.Owner)
	}
	r := must[*Run](t)(s.StartRun(RunInfo{WorkflowPath: "w.sexp"}))
	if got := must[*RunRecord](t)(s.GetRun(r.ID())); got.Owner != CurrentOwner() {
		t.Errorf("new run's owner %+v, want %+v", got.Owner, CurrentOwner())
	}
	var version int
	check(t, must[*sql.DB](t)(s.reader()).QueryRow("SELECT version FROM schema_version").Scan(&version))
	if version != SchemaVersion {
		t.Errorf("schema version %d, want %d", version, SchemaVersion)
	}
}
