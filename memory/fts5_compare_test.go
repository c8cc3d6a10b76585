package memory

import (
	"cmp"
	"context"
	"database/sql"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
)

// This file keeps the measurement behind the package's storage decision
// (see doc.go): the same BM25 ranking of SPEC §15.2 over GOROOT/src served
// by an SQLite FTS5 table of pre-tokenised text instead of the posting-list
// BLOBs the package uses.
//
//	go test -run XXX -bench 'FTS5|QueryGoroot$|IndexGorootCold' -benchtime 20x ./memory/

// fts5Index is a contentless FTS5 table holding each file's BM25 tokens
// (path plus text), space-separated, with a side table of paths.
type fts5Index struct {
	db    *sql.DB
	files int
}

// buildFTS5 indexes root into a new FTS5 database at dbPath, reading and
// tokenising files with the package's own parallel reader.
func buildFTS5(tb testing.TB, root, dbPath string) *fts5Index {
	tb.Helper()
	s := &Store{root: root}
	l, err := listFiles(context.Background(), root, func(string) bool { return false }, false, nil)
	listed := l.files
	if err != nil {
		tb.Fatal(err)
	}
	var jobs []readJob
	for _, f := range listed {
		if f.regular && f.size <= maxFileSize {
			jobs = append(jobs, readJob{f: f})
		}
	}
	db, err := sql.Open("sqlite", "file:"+dbPath+"?_pragma=journal_mode(WAL)&_pragma=synchronous(NORMAL)")
	if err != nil {
		tb.Fatal(err)
	}
	for _, q := range []string{
		"CREATE TABLE docs(id INTEGER PRIMARY KEY, path TEXT NOT NULL UNIQUE)",
		"CREATE VIRTUAL TABLE f USING fts5(body, content='', contentless_delete=1, tokenize='unicode61 remove_diacritics 0')",
	} {
		if _, err := db.Exec(q); err != nil {
			tb.Fatal(err)
		}
	}
	tx, err := db.Begin()
	if err != nil {
		tb.Fatal(err)
	}
	insDoc, _ := tx.Prepare("INSERT INTO docs(id, path) VALUES (?, ?)")
	insFTS, _ := tx.Prepare("INSERT INTO f(rowid, body) VALUES (?, ?)")
	id := int64(0)
	var b strings.Builder
	for r := range s.readAll(context.Background(), jobs) {
		if r.doc == nil {
			continue
		}
		id++
		b.Reset()
		// The plain BM25 sees the Tokens of path and text.
		data, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(r.doc.path)))
		if err != nil {
			tb.Fatal(err)
		}
		for _, part := range []string{r.doc.path, string(data)} {
			scanTokens(part, nil, func(t []byte) {
				b.Write(t)
				b.WriteByte(' ')
			})
		}
		if _, err := insDoc.Exec(id, r.doc.path); err != nil {
			tb.Fatal(err)
		}
		if _, err := insFTS.Exec(id, b.String()); err != nil {
			tb.Fatal(err)
		}
	}
	if err := tx.Commit(); err != nil {
		tb.Fatal(err)
	}
	db.Exec("PRAGMA wal_checkpoint(TRUNCATE)")
	return &fts5Index{db: db, files: int(id)}
}

// rankExact returns the k best paths by the BM25 of SPEC §15.2. FTS5's
// bm25() uses idf = ln((N−n+0.5)/(n+0.5)) (floored at 1e-6), so each term
// is queried alone and its score rescaled to idf = ln(1 + (N−n+0.5)/(n+0.5)).
func (x *fts5Index) rankExact(tb testing.TB, query string, k int) []string {
	terms := Tokens(query)
	slices.Sort(terms)
	terms = slices.Compact(terms)
	n := float64(x.files)
	scores := make(map[int64]float64)
	type row struct {
		id int64
		s  float64
	}
	var rows []row
	for _, t := range terms {
		rows = rows[:0]
		rs, err := x.db.Query(`SELECT rowid, bm25(f) FROM f WHERE f MATCH ?`, `"`+t+`"`)
		if err != nil {
			tb.Fatal(err)
		}
		for rs.Next() {
			var r row
			if err := rs.Scan(&r.id, &r.s); err != nil {
				tb.Fatal(err)
			}
			rows = append(rows, r)
		}
		rs.Close()
		df := float64(len(rows))
		ftsIDF := math.Log((n - df + 0.5) / (df + 0.5))
		if ftsIDF <= 0 {
			ftsIDF = 1e-6
		}
		w := idf(n, df) / ftsIDF
		for _, r := range rows {
			scores[r.id] += -r.s * w
		}
	}
	return x.top(tb, scores, k)
}

// rankNative is FTS5's own ranking (ORDER BY bm25 with FTS5's idf): fast,
// but not the formula the specification fixes.
func (x *fts5Index) rankNative(tb testing.TB, query string, k int) []string {
	terms := Tokens(query)
	slices.Sort(terms)
	terms = slices.Compact(terms)
	for i, t := range terms {
		terms[i] = `"` + t + `"`
	}
	rs, err := x.db.Query(`SELECT docs.path FROM f JOIN docs ON docs.id = f.rowid WHERE f MATCH ? ORDER BY bm25(f) LIMIT ?`,
		strings.Join(terms, " OR "), k)
	if err != nil {
		tb.Fatal(err)
	}
	defer rs.Close()
	var out []string
	for rs.Next() {
		var p string
		rs.Scan(&p)
		out = append(out, p)
	}
	return out
}

func (x *fts5Index) top(tb testing.TB, scores map[int64]float64, k int) []string {
	type hp struct {
		path string
		s    float64
	}
	ids := make([]int64, 0, len(scores))
	for id, s := range scores {
		if s > 0 {
			ids = append(ids, id)
		}
	}
	slices.SortFunc(ids, func(a, b int64) int { return cmp.Compare(scores[b], scores[a]) })
	if len(ids) > k+5 {
		ids = ids[:k+5]
	}
	var hs []hp
	for _, id := range ids {
		var p string
		if err := x.db.QueryRow("SELECT path FROM docs WHERE id = ?", id).Scan(&p); err != nil {
			tb.Fatal(err)
		}
		hs = append(hs, hp{p, scores[id]})
	}
	slices.SortFunc(hs, func(a, b hp) int {
		if c := cmp.Compare(b.s, a.s); c != 0 {
			return c
		}
		return cmp.Compare(a.path, b.path)
	})
	out := make([]string, 0, k)
	for _, h := range hs[:min(k, len(hs))] {
		out = append(out, h.path)
	}
	return out
}

var sharedFTS5 struct {
	once sync.Once
	x    *fts5Index
}

func fts5Goroot(b *testing.B) *fts5Index {
	src := gorootSrc()
	if src == "" {
		b.Skip("GOROOT/src is missing")
	}
	sharedFTS5.once.Do(func() {
		sharedFTS5.x = buildFTS5(b, src, filepath.Join(sharedGorootDir(b), "fts5.db"))
	})
	return sharedFTS5.x
}

// sharedGorootDir returns the shared temporary directory of gorootStore.
func sharedGorootDir(tb testing.TB) string {
	gorootStore(tb)
	return sharedGoroot.dir
}

// BenchmarkFTS5BuildGoroot builds the FTS5 variant of the index cold.
func BenchmarkFTS5BuildGoroot(b *testing.B) {
	src := gorootSrc()
	if src == "" {
		b.Skip("GOROOT/src is missing")
	}
	for b.Loop() {
		b.StopTimer()
		db := filepath.Join(b.TempDir(), "fts5.db")
		cpu := cpuTime()
		b.StartTimer()
		x := buildFTS5(b, src, db)
		b.StopTimer()
		b.ReportMetric((cpuTime() - cpu).Seconds(), "cpu-s")
		x.db.Close()
		b.ReportMetric(float64(dbSize(db))/(1<<20), "MiB")
		b.StartTimer()
	}
}

// BenchmarkFTS5QueryExactGoroot ranks with the specification's BM25 on the
// FTS5 index (one MATCH per query term).
func BenchmarkFTS5QueryExactGoroot(b *testing.B) {
	x := fts5Goroot(b)
	base := gorootBaseline(b)
	// FTS5 and the plain BM25 baseline must agree before the speed of
	// FTS5 is measured.
	for _, q := range benchQueries {
		if got, want := x.rankExact(b, q, 5), base.rank(q, 5); !slices.Equal(got, want) {
			b.Fatalf("%q: FTS5 ranks %v, the plain BM25 ranks %v", q, got, want)
		}
	}
	benchQueryLatency(b, func(q string) { x.rankExact(b, q, 10) })
}

// BenchmarkFTS5QueryNativeGoroot ranks with FTS5's own bm25() (a different
// idf), for reference.
func BenchmarkFTS5QueryNativeGoroot(b *testing.B) {
	x := fts5Goroot(b)
	benchQueryLatency(b, func(q string) { x.rankNative(b, q, 10) })
}

// BenchmarkRankOnlyGoroot is the package's ranking without reading the
// matched files' text, the part comparable to the FTS5 benchmarks.
func BenchmarkRankOnlyGoroot(b *testing.B) {
	s, _ := gorootStore(b)
	benchQueryLatency(b, func(q string) {
		if _, _, err := s.rank(context.Background(), fieldContent, q, 10); err != nil {
			b.Fatal(err)
		}
	})
}
