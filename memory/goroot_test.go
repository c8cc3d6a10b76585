package memory

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"
)

// The tests and benchmarks in this file index $(go env GOROOT)/src in
// place (about 10,000 files once vendor and testdata-free walks are
// counted), with the database in a temporary directory.

// gorootSrc returns $(go env GOROOT)/src, or "" when it is missing.
func gorootSrc() string {
	out, err := exec.Command("go", "env", "GOROOT").Output()
	if err != nil {
		return ""
	}
	dir := filepath.Join(strings.TrimSpace(string(out)), "src")
	if st, err := os.Stat(filepath.Join(dir, "net", "url", "url.go")); err != nil || st.IsDir() {
		return ""
	}
	return dir
}

// sharedGoroot is the index of GOROOT/src built once per test binary.
var sharedGoroot struct {
	once  sync.Once
	dir   string
	store *Store
	stats Stats
	err   error
}

// gorootStore returns the shared index of GOROOT/src, building it on first
// use; it skips tb when GOROOT/src is missing.
func gorootStore(tb testing.TB) (*Store, Stats) {
	tb.Helper()
	src := gorootSrc()
	if src == "" {
		tb.Skip("GOROOT/src is missing")
	}
	g := &sharedGoroot
	g.once.Do(func() {
		g.dir, g.err = os.MkdirTemp("", "evalrun-memory-goroot-")
		if g.err != nil {
			return
		}
		g.store, g.err = OpenStore(src, WithDBPath(filepath.Join(g.dir, "index.db")))
		if g.err != nil {
			return
		}
		g.stats, g.err = g.store.Update(context.Background())
	})
	if g.err != nil {
		tb.Fatal(g.err)
	}
	return g.store, g.stats
}

func TestMain(m *testing.M) {
	code := m.Run()
	if g := &sharedGoroot; g.dir != "" {
		if g.store != nil {
			g.store.Close()
		}
		os.RemoveAll(g.dir)
	}
	if h := &benchHalves; h.py.store != nil {
		h.py.store.Close()
	}
	for _, d := range benchHalves.tempDirs {
		os.RemoveAll(d)
	}
	os.Exit(code)
}

// relevanceCase is one query of testdata/relevance.json and the file a Go
// engineer would name.
type relevanceCase struct {
	Query string `json:"query"`
	Want  string `json:"want"`
}

// TestRelevanceGoroot checks that natural-language questions about the
// standard library find the expected file among the top 5 with the content
// strategy: all but two must.
func TestRelevanceGoroot(t *testing.T) {
	if testing.Short() {
		t.Skip("indexes GOROOT/src; skipped with -short")
	}
	if raceEnabled {
		t.Skip("indexing GOROOT/src under the race detector is too slow")
	}
	data, err := os.ReadFile(filepath.Join("testdata", "relevance.json"))
	if err != nil {
		t.Fatal(err)
	}
	var cases []relevanceCase
	if err := json.Unmarshal(data, &cases); err != nil {
		t.Fatal(err)
	}
	s, st := gorootStore(t)
	t.Logf("%s (%v)", st, st.Elapsed.Round(time.Millisecond))
	found := 0
	for _, c := range cases {
		res, err := s.Search(context.Background(), c.Query, StrategyContent, 5)
		if err != nil {
			t.Fatal(err)
		}
		ids := res.IDs()
		ok := slices.Contains(ids, c.Want)
		if ok {
			found++
		}
		t.Logf("%-5v %q → want %s, got %v", ok, c.Query, c.Want, ids)
	}
	if found < len(cases)-2 {
		t.Errorf("%d of %d queries found the expected file in the top 5, want at least %d", found, len(cases), len(cases)-2)
	}
}

// BenchmarkIndexGorootCold indexes GOROOT/src into an empty database.
func BenchmarkIndexGorootCold(b *testing.B) {
	src := gorootSrc()
	if src == "" {
		b.Skip("GOROOT/src is missing")
	}
	for b.Loop() {
		b.StopTimer()
		db := filepath.Join(b.TempDir(), "index.db")
		cpu := cpuTime()
		b.StartTimer()
		st, err := Index(context.Background(), src, WithDBPath(db))
		if err != nil {
			b.Fatal(err)
		}
		b.StopTimer()
		// CPU time tells the cost apart from the load of a shared machine.
		b.ReportMetric((cpuTime() - cpu).Seconds(), "cpu-s")
		b.ReportMetric(float64(st.Files), "files")
		b.ReportMetric(float64(dbSize(db))/(1<<20), "MiB")
		b.StartTimer()
	}
}

// BenchmarkIndexGorootUnchanged re-indexes GOROOT/src when nothing changed.
func BenchmarkIndexGorootUnchanged(b *testing.B) {
	s, _ := gorootStore(b)
	cpu := cpuTime()
	defer func() { b.ReportMetric((cpuTime()-cpu).Seconds()/float64(b.N), "cpu-s/op") }()
	for b.Loop() {
		st, err := s.Update(context.Background())
		if err != nil {
			b.Fatal(err)
		}
		if st.Added+st.Updated+st.Removed != 0 {
			b.Fatalf("unchanged tree: %s", st)
		}
	}
}

// benchQueries are typical lookups.
var benchQueries = []string{
	"parse a URL query string",
	"retry policy with exponential backoff",
	"HTTP server graceful shutdown",
	"gzip compression writer",
	"sort a slice with a custom comparison",
	"JSON decoder streaming tokens",
	"TLS handshake client certificate",
	"goroutine scheduler work stealing",
	"read a file line by line",
	"SHA-256 hash of a byte slice",
}

// BenchmarkQueryGoroot measures content-strategy lookups on GOROOT/src and
// reports the median (p50) and p90 latency.
func BenchmarkQueryGoroot(b *testing.B) {
	s, _ := gorootStore(b)
	b.ReportMetric(float64(dbSize(s.dbPath))/(1<<20), "db-MiB")
	benchQueryLatency(b, func(q string) {
		if _, err := s.Search(context.Background(), q, StrategyContent, 10); err != nil {
			b.Fatal(err)
		}
	})
}

// BenchmarkQueryGorootMetadata is BenchmarkQueryGoroot for metadata.
func BenchmarkQueryGorootMetadata(b *testing.B) {
	s, _ := gorootStore(b)
	benchQueryLatency(b, func(q string) {
		if _, err := s.Search(context.Background(), q, StrategyMetadata, 10); err != nil {
			b.Fatal(err)
		}
	})
}

func benchQueryLatency(b *testing.B, run func(string)) {
	var times []time.Duration
	i := 0
	for b.Loop() {
		start := time.Now()
		run(benchQueries[i%len(benchQueries)])
		times = append(times, time.Since(start))
		i++
	}
	sort.Slice(times, func(i, j int) bool { return times[i] < times[j] })
	b.ReportMetric(float64(times[len(times)/2].Microseconds())/1000, "p50-ms")
	b.ReportMetric(float64(times[len(times)*9/10].Microseconds())/1000, "p90-ms")
}

// dbSize is the size of a database with its write-ahead log.
func dbSize(path string) int64 {
	var n int64
	for _, p := range []string{path, path + "-wal"} {
		if st, err := os.Stat(p); err == nil {
			n += st.Size()
		}
	}
	return n
}

// BenchmarkUpdateOneFile re-indexes a generated tree of 10,000 files
// (Zipf-distributed words, so common terms have long posting lists) after
// one file changed: the cost of rewriting the posting lists of its terms.
func BenchmarkUpdateOneFile(b *testing.B) {
	root := b.TempDir()
	rng := rand.New(rand.NewPCG(7, 7))
	zipf := rand.NewZipf(rng, 1.1, 2, 50000)
	word := func() string { return fmt.Sprintf("w%dx", zipf.Uint64()) }
	for i := range 10000 {
		var sb strings.Builder
		for range 400 {
			sb.WriteString(word())
			sb.WriteByte(' ')
		}
		p := filepath.Join(root, fmt.Sprintf("d%02d", i%100), fmt.Sprintf("f%05d.txt", i))
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(sb.String()), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	s, err := OpenStore(root, WithDBPath(filepath.Join(b.TempDir(), "index.db")))
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	if _, err := s.Update(context.Background()); err != nil {
		b.Fatal(err)
	}
	i := 0
	for b.Loop() {
		b.StopTimer()
		p := filepath.Join(root, fmt.Sprintf("d%02d", i%100), fmt.Sprintf("f%05d.txt", i))
		f, _ := os.OpenFile(p, os.O_APPEND|os.O_WRONLY, 0)
		fmt.Fprintf(f, "%s %s\n", word(), word())
		f.Close()
		i++
		b.StartTimer()
		st, err := s.Update(context.Background())
		if err != nil || st.Updated != 1 {
			b.Fatalf("%s, %v", st, err)
		}
	}
}
