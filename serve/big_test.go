package serve

import (
	"database/sql"
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/evalrun/evalrun/journal"
)

// The budget of SPEC §24.3: a journal with 10,000 runs and a run with
// 10,000 calls open in under 300 ms. The figures come from the benchmarks
// below (go test -bench . ./serve/); the tests check that the answers are
// complete. The journals are written with one transaction of INSERTs in
// the journal's own schema, which is what 10,000 calls of a run leave.

const bigCalls = 10000
const bigRuns = 10000

// bigJournal creates, in dir, a journal with one run of bigCalls calls
// (100 steps of 99 tasks each, with results as a provider writes them)
// and returns its path and the run's id.
func bigJournal(tb testing.TB, dir string, runs int) (string, string) {
	tb.Helper()
	path := filepath.Join(dir, journal.DefaultPath)
	s, err := journal.Open(path)
	if err != nil {
		tb.Fatal(err)
	}
	s.Close()
	db, err := sql.Open("sqlite", "file:"+path+"?_pragma=busy_timeout(5000)")
	if err != nil {
		tb.Fatal(err)
	}
	defer db.Close()
	tx, err := db.Begin()
	if err != nil {
		tb.Fatal(err)
	}
	start := time.Date(2026, 1, 6, 14, 3, 0, 0, time.UTC)
	big := "20260106-140300-b16a"
	insRun, _ := tx.Prepare(`INSERT INTO runs (id, workflow, workflow_sha, arguments, status, resumed_from, started_at, finished_at, final, error)
		VALUES (?, 'big.sexp', 'abc', '{"n":1}', ?, '', ?, ?, '"ok"', '')`)
	insCall, _ := tx.Prepare(`INSERT INTO calls (id, run_id, parent_id, seq, kind, name, status, input_hash, inputs, result, input_tokens,
		output_tokens, turns, started_at, finished_at, label, executor, template_source)
		VALUES (?, ?, ?, ?, ?, ?, 'completed', 'h', ?, ?, ?, ?, 1, ?, ?, ?, ?, ?)`)
	if _, err := insRun.Exec(big, "completed", start.UnixNano(), start.Add(time.Hour).UnixNano()); err != nil {
		tb.Fatal(err)
	}
	id := int64(0)
	seq := 0
	var stepID int64
	for i := 0; i < bigCalls; i++ {
		id++
		seq++
		at := start.Add(time.Duration(i) * 300 * time.Millisecond)
		if i%100 == 0 {
			stepID = id
			_, err = insCall.Exec(id, big, nil, seq, "step", fmt.Sprintf("batch %d", i/100), nil, `"done"`, 0, 0, at.UnixNano(), at.Add(30*time.Second).UnixNano(),
				"", "", "")
		} else {
			result := fmt.Sprintf(`{"status":"COMPLETE","content":"Summary of file %d: it defines two functions and a type.","parsedContent":null,"notes":{"template_used":"summarise","template_source":"local .evalrun/templates/summarise.xml:1","provider":"openai","model":"gpt-4.1-mini","cost_usd":0.00031,"usage":{"input_tokens":900,"output_tokens":60,"turns":1}}}`, i)
			_, err = insCall.Exec(id, big, stepID, seq, "task", "summarise", fmt.Sprintf(`{"path":"src/file%d.go"}`, i), result, 900, 60, at.UnixNano(), at.Add(2*time.Second).UnixNano(),
				fmt.Sprintf("src/file%d.go", i), "openai:gpt-4.1-mini", "local .evalrun/templates/summarise.xml:1")
		}
		if err != nil {
			tb.Fatal(err)
		}
	}
	for r := 1; r < runs; r++ {
		rid := fmt.Sprintf("%s-%04x", start.Add(-time.Duration(r)*time.Minute).Format("20060102-150405"), r%65536)
		at := start.Add(-time.Duration(r) * time.Minute)
		status := []string{"completed", "failed", "completed"}[r%3]
		if _, err := insRun.Exec(rid, status, at.UnixNano(), at.Add(20*time.Second).UnixNano()); err != nil {
			tb.Fatal(err)
		}
		for k := 1; k <= 3; k++ {
			id++
			if _, err := insCall.Exec(id, rid, nil, k, "task", "review", `{}`, `{"status":"COMPLETE","content":"ok","parsedContent":null,"notes":{"model":"m"}}`,
				100, 10, at.UnixNano(), at.Add(time.Second).UnixNano(), "", "m", ""); err != nil {
				tb.Fatal(err)
			}
		}
	}
	if err := tx.Commit(); err != nil {
		tb.Fatal(err)
	}
	return path, big
}

var (
	bigOnce         sync.Once
	bigDir, bigID   string
	bigHandler      *Server
	bigSetupElapsed time.Duration
)

// bigServer is one viewer over the big journal, shared by the test and
// the benchmarks of a test binary.
func bigServer(tb testing.TB) (*Server, string) {
	bigOnce.Do(func() {
		t0 := time.Now()
		dir, err := mkdirTemp()
		if err != nil {
			tb.Fatal(err)
		}
		bigDir = dir
		_, bigID = bigJournal(tb, dir, bigRuns)
		bigHandler = New(Options{Root: dir})
		bigSetupElapsed = time.Since(t0)
	})
	return bigHandler, bigID
}

func serveGet(tb testing.TB, s *Server, path string) *httptest.ResponseRecorder {
	rec := httptest.NewRecorder()
	s.ServeHTTP(rec, httptest.NewRequest("GET", "http://127.0.0.1"+path, nil))
	if rec.Code != 200 {
		tb.Fatalf("GET %s: %d %s", path, rec.Code, rec.Body.String())
	}
	return rec
}

func TestTenThousandCallsAndRunsAreComplete(t *testing.T) {
	skipBig(t)
	s, id := bigServer(t)
	var flat RunPageJSON
	if err := json.Unmarshal(serveGet(t, s, "/api/runs/"+id+"?view=flat").Body.Bytes(), &flat); err != nil {
		t.Fatal(err)
	}
	if len(flat.Nodes) != bigCalls || flat.Run.Calls != bigCalls || flat.Run.Tokens != 9900*960 {
		t.Fatalf("flat: %d nodes, run %+v", len(flat.Nodes), flat.Run)
	}
	if flat.Nodes[0].Seq != 1 || flat.Nodes[1].Parent != 1 || flat.Nodes[bigCalls-1].Seq != bigCalls || flat.Nodes[bigCalls-1].Executor != "openai:gpt-4.1-mini" {
		t.Errorf("flat nodes: first %+v, last %+v", flat.Nodes[0], flat.Nodes[bigCalls-1])
	}
	if flat.Run.CostUSD < 9900*0.00031-1e-9 || flat.Run.CostUSD > 9900*0.00031+1e-9 {
		t.Errorf("run cost = %v", flat.Run.CostUSD)
	}
	var nested RunPageJSON
	if err := json.Unmarshal(serveGet(t, s, "/api/runs/"+id).Body.Bytes(), &nested); err != nil {
		t.Fatal(err)
	}
	count := 0
	var walk func([]*NodeJSON)
	walk = func(ns []*NodeJSON) {
		for _, n := range ns {
			count++
			if n.Kind == "task" && string(n.Result) == "null" {
				t.Fatalf("node %d has no result", n.Seq)
			}
			walk(n.Children)
		}
	}
	walk(nested.Nodes)
	if len(nested.Nodes) != 100 || count != bigCalls {
		t.Errorf("nested: %d top-level nodes, %d in all", len(nested.Nodes), count)
	}
	var runs []RunJSON
	rec := serveGet(t, s, "/api/runs")
	if err := json.Unmarshal(rec.Body.Bytes(), &runs); err != nil {
		t.Fatal(err)
	}
	if len(runs) != bigRuns || rec.Header().Get("X-Total-Count") != "10000" || runs[0].ID != id || runs[bigRuns-1].Calls != 3 {
		t.Errorf("runs: %d, total %s, first %s", len(runs), rec.Header().Get("X-Total-Count"), runs[0].ID)
	}
	rec = serveGet(t, s, "/api/runs?limit=200")
	if err := json.Unmarshal(rec.Body.Bytes(), &runs); err != nil {
		t.Fatal(err)
	}
	if len(runs) != 200 || rec.Header().Get("X-Total-Count") != "10000" {
		t.Errorf("first page: %d runs, total %s", len(runs), rec.Header().Get("X-Total-Count"))
	}
	t.Logf("built the journal in %v", bigSetupElapsed)
}

// BenchmarkRunPage10kCalls is the run page's request for a run of 10,000
// calls (the flat view the page draws).
func BenchmarkRunPage10kCalls(b *testing.B) {
	s, id := bigServer(b)
	b.ResetTimer()
	for b.Loop() {
		serveGet(b, s, "/api/runs/"+id+"?view=flat")
	}
}

// BenchmarkRunJSON10kCalls is /api/runs/ID of a run of 10,000 calls with
// every input and result (the status --json shape).
func BenchmarkRunJSON10kCalls(b *testing.B) {
	s, id := bigServer(b)
	b.ResetTimer()
	for b.Loop() {
		serveGet(b, s, "/api/runs/"+id)
	}
}

// BenchmarkRunsPage10kRuns is the runs page's request (the first 200 runs
// and the total) on a journal of 10,000 runs.
func BenchmarkRunsPage10kRuns(b *testing.B) {
	s, _ := bigServer(b)
	b.ResetTimer()
	for b.Loop() {
		serveGet(b, s, "/api/runs?limit=200")
	}
}

// BenchmarkRunsSearch10kRuns is the runs page's request with a text
// filter that every run must be compared with, in any case (the first 200
// runs whose id, workflow or error contains it, and the total).
func BenchmarkRunsSearch10kRuns(b *testing.B) {
	s, _ := bigServer(b)
	b.ResetTimer()
	for b.Loop() {
		serveGet(b, s, "/api/runs?limit=200&q="+url.QueryEscape("ÜNÏ"))
	}
}

// BenchmarkRunsAll10kRuns is /api/runs without a limit: all 10,000 runs.
func BenchmarkRunsAll10kRuns(b *testing.B) {
	s, _ := bigServer(b)
	b.ResetTimer()
	for b.Loop() {
		serveGet(b, s, "/api/runs")
	}
}

// BenchmarkCallDetail is one call of the 10,000-call run with its prompt
// and result.
func BenchmarkCallDetail(b *testing.B) {
	s, id := bigServer(b)
	b.ResetTimer()
	for b.Loop() {
		serveGet(b, s, "/api/runs/"+id+"/calls/5000")
	}
}

// mkdirTemp makes the big journal's directory; TestMain removes it.
func mkdirTemp() (string, error) { return os.MkdirTemp("", "evalrun-serve-big-") }

// cleanupBig closes the big journal's viewer and removes its directory.
func cleanupBig() {
	if bigHandler != nil {
		bigHandler.Close()
	}
	if bigDir != "" {
		os.RemoveAll(bigDir)
	}
}

// BenchmarkRunPage10kCallsCold is the run page's request on a viewer just
// started (no result read yet, the database not yet open).
func BenchmarkRunPage10kCallsCold(b *testing.B) {
	_, id := bigServer(b)
	b.ResetTimer()
	for b.Loop() {
		s := New(Options{Root: bigDir})
		serveGet(b, s, "/api/runs/"+id+"?view=flat")
		s.Close()
	}
}

// BenchmarkRunsPage10kRunsCold is the runs page's request on a viewer
// just started.
func BenchmarkRunsPage10kRunsCold(b *testing.B) {
	bigServer(b)
	b.ResetTimer()
	for b.Loop() {
		s := New(Options{Root: bigDir})
		serveGet(b, s, "/api/runs?limit=200")
		s.Close()
	}
}

// skipBig skips a test of the big journal in -short mode and under the
// race detector, which makes building and reading 40,000 rows take minutes
// (make test runs these tests once more without -race).
func skipBig(t *testing.T) {
	t.Helper()
	if testing.Short() {
		t.Skip("builds a journal of 40,000 calls")
	}
	if raceDetector {
		t.Skip("the race detector makes the 40,000-call journal take minutes; make test runs this test without -race")
	}
}
