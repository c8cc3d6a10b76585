package memory

import (
	"bufio"
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
)

// The retrieval benchmark of SPEC §15.5: queries made from the doc comments
// of documented top-level definitions in GOROOT/src and in the Python
// standard library, each expecting the file that defines the name.
//
//	make bench-retrieval
//	go test -run '^$' -bench Retrieval -benchtime 1x ./memory/
//
// It reports recall@1, recall@5 and MRR (over the top 10) of three rankers
// side by side: the plain BM25 of the previous version (baselineIndex, the
// whole text and path as one document, no stemming, no fields), the content
// strategy and the metadata strategy.

// benchSample is how many definitions each half samples.
const benchSample = 600

// benchCase is one query of the benchmark and the file expected.
type benchCase struct {
	Name  string // the definition's name
	Query string
	Want  string // the defining file, relative to the root
}

// firstSentence returns the first sentence of a doc comment: up to the
// first period followed by white space or the end, or the first blank line.
func firstSentence(doc string) string {
	if i := strings.Index(doc, "\n\n"); i >= 0 {
		doc = doc[:i]
	}
	doc = strings.Join(strings.Fields(doc), " ")
	for i := 0; i < len(doc); i++ {
		if doc[i] == '.' && (i+1 == len(doc) || doc[i+1] == ' ') {
			// "e.g. " and "i.e. " do not end a sentence.
			if i >= 3 && (doc[i-3:i] == "e.g" || doc[i-3:i] == "i.e") {
				continue
			}
			return doc[:i+1]
		}
	}
	return doc
}

// queryFromDoc turns a doc comment into a query: its first sentence with
// every whole-word occurrence of the definition's name (any case, with a
// possessive 's or in backquotes) removed. The name's parts stay: they are
// ordinary words of the description ("NewReader returns a new Reader"
// keeps "new" and "Reader", which describe the result).
func queryFromDoc(name, doc string) string {
	s := firstSentence(doc)
	re := regexp.MustCompile(`(?i)(^|[^\pL\pN_.])[` + "`" + `'"]?` + regexp.QuoteMeta(name) + `(\(\))?[` + "`" + `'"]?('s)?($|[^\pL\pN_])`)
	for {
		loc := re.FindStringSubmatchIndex(s)
		if loc == nil {
			break
		}
		// Keep the delimiters on each side.
		s = s[:loc[3]] + " " + s[loc[len(loc)-2]:]
	}
	return strings.Join(strings.Fields(s), " ")
}

// goDefRe matches a top-level function (no receiver) or type of Go.
var goDefRe = regexp.MustCompile(`^(?:func ([A-Z]\w*)\s*[\[(]|type ([A-Z]\w*)\s)`)

// goCases returns every documented exported top-level function and type of
// the non-test Go files among paths (relative to root), with names defined
// in one file of their directory only.
func goCases(tb testing.TB, root string, paths []string) []benchCase {
	type def struct{ dir, name string }
	var all []benchCase
	count := make(map[def]int)
	for _, p := range paths {
		if !strings.HasSuffix(p, ".go") || kindFlags(p, "")&(flagTest|flagExample) != 0 {
			continue
		}
		f, err := os.Open(filepath.Join(root, filepath.FromSlash(p)))
		if err != nil {
			tb.Fatal(err)
		}
		sc := bufio.NewScanner(f)
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		var doc []string
		seen := make(map[string]bool)
		for sc.Scan() {
			line := sc.Text()
			if c, ok := strings.CutPrefix(line, "//"); ok {
				if strings.HasPrefix(c, "go:") || strings.HasPrefix(c, "line ") {
					continue
				}
				doc = append(doc, strings.TrimPrefix(c, " "))
				continue
			}
			if m := goDefRe.FindStringSubmatch(line); m != nil {
				name := m[1] + m[2]
				if !seen[name] {
					seen[name] = true
					count[def{path.Dir(p), name}]++
					if len(doc) > 0 {
						all = append(all, benchCase{Name: name, Query: strings.Join(doc, "\n"), Want: p})
					}
				}
			}
			doc = doc[:0]
		}
		f.Close()
	}
	out := all[:0]
	for _, c := range all {
		if count[def{path.Dir(c.Want), c.Name}] == 1 {
			out = append(out, c)
		}
	}
	return out
}

// pyScript prints one JSON line per documented public top-level function
// or class of the Python files named on stdin (relative to argv[1]).
const pyScript = `
import ast, json, sys
root = sys.argv[1]
for rel in sys.stdin.read().split("\n"):
    if not rel:
        continue
    try:
        with open(root + "/" + rel, encoding="utf-8") as f:
            tree = ast.parse(f.read())
    except Exception:
        continue
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and not node.name.startswith("_"):
            doc = ast.get_docstring(node)
            if doc:
                print(json.dumps({"Name": node.name, "Query": doc, "Want": rel}))
`

// pythonCases returns the documented public top-level functions and
// classes of the non-test Python files among paths, names defined in one
// file of their directory only.
func pythonCases(tb testing.TB, root string, paths []string) []benchCase {
	var py []string
	for _, p := range paths {
		if strings.HasSuffix(p, ".py") && kindFlags(p, "")&(flagTest|flagExample) == 0 {
			py = append(py, p)
		}
	}
	cmd := exec.Command("python3", "-c", pyScript, root)
	cmd.Stdin = strings.NewReader(strings.Join(py, "\n"))
	out, err := cmd.Output()
	if err != nil {
		tb.Fatalf("python3: %v", err)
	}
	type def struct{ dir, name string }
	count := make(map[def]int)
	var all []benchCase
	for line := range strings.Lines(string(out)) {
		var c benchCase
		if err := json.Unmarshal([]byte(line), &c); err != nil {
			tb.Fatal(err)
		}
		count[def{path.Dir(c.Want), c.Name}]++
		all = append(all, c)
	}
	res := all[:0]
	for _, c := range all {
		if count[def{path.Dir(c.Want), c.Name}] == 1 {
			res = append(res, c)
		}
	}
	return res
}

// sampleCases turns the doc comments of cases into queries, drops those
// left with fewer than three words, sorts them by file and name and takes
// n by a fixed-seed shuffle.
func sampleCases(cases []benchCase, n int) []benchCase {
	var out []benchCase
	for _, c := range cases {
		c.Query = queryFromDoc(c.Name, c.Query)
		if len(strings.Fields(c.Query)) >= 3 {
			out = append(out, c)
		}
	}
	slices.SortFunc(out, func(a, b benchCase) int {
		return cmp.Or(cmp.Compare(a.Want, b.Want), cmp.Compare(a.Name, b.Name))
	})
	out = slices.CompactFunc(out, func(a, b benchCase) bool { return a.Want == b.Want && a.Name == b.Name })
	rng := rand.New(rand.NewPCG(2026, 15))
	rng.Shuffle(len(out), func(i, j int) { out[i], out[j] = out[j], out[i] })
	return out[:min(n, len(out))]
}

// baselineIndex is the ranking of the previous version, kept for
// comparison: BM25 (k1 = 1.2, b = 0.75) over one document per file made of
// the Tokens of its path and text, summed over the query's distinct
// tokens, ties by path.
type baselineIndex struct {
	paths    []string
	dl       []float64
	avg      float64
	postings map[string][]basePosting
}

type basePosting struct {
	doc int32
	tf  uint32
}

// newBaseline indexes the files at paths (relative to root).
func newBaseline(tb testing.TB, root string, paths []string) *baselineIndex {
	x := &baselineIndex{paths: paths, dl: make([]float64, len(paths)), postings: make(map[string][]basePosting)}
	type docTerms struct {
		terms map[string]uint32
		n     int
	}
	docs := make([]docTerms, len(paths))
	var wg sync.WaitGroup
	workers := 2
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := w; i < len(paths); i += workers {
				data, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(paths[i])))
				if err != nil {
					continue
				}
				m := make(map[string]uint32)
				n := 0
				for _, part := range []string{paths[i], string(data)} {
					scanTokens(part, nil, func(b []byte) { m[string(b)]++; n++ })
				}
				docs[i] = docTerms{m, n}
			}
		}()
	}
	wg.Wait()
	total := 0.0
	for i, d := range docs {
		x.dl[i] = float64(d.n)
		total += float64(d.n)
		for t, tf := range d.terms {
			x.postings[t] = append(x.postings[t], basePosting{int32(i), tf})
		}
	}
	x.avg = total / float64(len(paths))
	return x
}

// rank returns the k best paths for query.
func (x *baselineIndex) rank(query string, k int) []string {
	terms := Tokens(query)
	slices.Sort(terms)
	terms = slices.Compact(terms)
	scores := make(map[int32]float64)
	n := float64(len(x.paths))
	for _, t := range terms {
		ps := x.postings[t]
		if len(ps) == 0 {
			continue
		}
		w := idf(n, float64(len(ps)))
		for _, p := range ps {
			norm := 1 - bm25B + bm25B*x.dl[p.doc]/x.avg
			tf := float64(p.tf)
			scores[p.doc] += w * tf * (bm25K1 + 1) / (tf + bm25K1*norm)
		}
	}
	ids := make([]int32, 0, len(scores))
	for id, s := range scores {
		if s > 0 {
			ids = append(ids, id)
		}
	}
	slices.SortFunc(ids, func(a, b int32) int {
		return cmp.Or(cmp.Compare(scores[b], scores[a]), cmp.Compare(x.paths[a], x.paths[b]))
	})
	out := make([]string, 0, k)
	for _, id := range ids[:min(k, len(ids))] {
		out = append(out, x.paths[id])
	}
	return out
}

// benchScore accumulates recall@1, recall@5 and MRR over the top 10.
type benchScore struct {
	n, at1, at5 int
	rr          float64
}

func (s *benchScore) add(got []string, want string) {
	s.n++
	if i := slices.Index(got, want); i >= 0 {
		if i == 0 {
			s.at1++
		}
		if i < 5 {
			s.at5++
		}
		s.rr += 1 / float64(i+1)
	}
}

func (s benchScore) r1() float64  { return 100 * float64(s.at1) / float64(max(1, s.n)) }
func (s benchScore) r5() float64  { return 100 * float64(s.at5) / float64(max(1, s.n)) }
func (s benchScore) mrr() float64 { return s.rr / float64(max(1, s.n)) }

// benchHalf is one half of the benchmark: an index, its baseline and its
// sampled queries.
type benchHalf struct {
	name  string
	store *Store
	base  *baselineIndex
	cases []benchCase
	skip  string
}

// indexedPathList returns the paths of the indexed files, sorted.
func indexedPathList(tb testing.TB, s *Store) []string {
	rows, err := s.db.Query("SELECT path FROM files ORDER BY path")
	if err != nil {
		tb.Fatal(err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var p string
		if err := rows.Scan(&p); err != nil {
			tb.Fatal(err)
		}
		out = append(out, p)
	}
	return out
}

var sharedBaseline struct {
	once sync.Once
	x    *baselineIndex
}

// gorootBaseline returns the plain BM25 baseline over the files of the
// shared GOROOT/src index, built once.
func gorootBaseline(tb testing.TB) *baselineIndex {
	s, _ := gorootStore(tb)
	sharedBaseline.once.Do(func() {
		sharedBaseline.x = newBaseline(tb, s.Root(), indexedPathList(tb, s))
	})
	return sharedBaseline.x
}

var benchHalves struct {
	once     sync.Once
	go_, py  benchHalf
	tempDirs []string
}

// pythonStdlib returns the directory of the Python standard library, or ""
// when python3 is not installed.
func pythonStdlib() string {
	out, err := exec.Command("python3", "-c", `import sysconfig; print(sysconfig.get_paths()["stdlib"])`).Output()
	if err != nil {
		return ""
	}
	dir := strings.TrimSpace(string(out))
	if st, err := os.Stat(filepath.Join(dir, "os.py")); err != nil || st.IsDir() {
		return ""
	}
	return dir
}

// retrievalHalves builds both halves once per test binary.
func retrievalHalves(tb testing.TB) (*benchHalf, *benchHalf) {
	h := &benchHalves
	h.once.Do(func() {
		h.go_ = benchHalf{name: "Go (GOROOT/src, tuning)"}
		if src := gorootSrc(); src == "" {
			h.go_.skip = "GOROOT/src is missing"
		} else {
			s, _ := gorootStore(tb)
			h.go_.store = s
			h.go_.base = gorootBaseline(tb)
			h.go_.cases = sampleCases(goCases(tb, src, h.go_.base.paths), benchSample)
		}
		h.py = benchHalf{name: "Python (stdlib, held out)"}
		lib := pythonStdlib()
		if lib == "" {
			h.py.skip = "python3 is not installed"
			return
		}
		dir, err := os.MkdirTemp("", "evalrun-memory-python-")
		if err != nil {
			tb.Fatal(err)
		}
		h.tempDirs = append(h.tempDirs, dir)
		// Installed packages are not the standard library.
		noSite := func(p string) bool {
			return strings.HasPrefix(p, "site-packages/") || strings.HasPrefix(p, "dist-packages/")
		}
		s, err := OpenStore(lib, WithDBPath(filepath.Join(dir, "index.db")), func(o *options) { o.exclude, o.walk = noSite, true })
		if err != nil {
			tb.Fatal(err)
		}
		if _, err := s.Update(context.Background()); err != nil {
			tb.Fatal(err)
		}
		paths := indexedPathList(tb, s)
		h.py.store = s
		h.py.base = newBaseline(tb, lib, paths)
		h.py.cases = sampleCases(pythonCases(tb, lib, paths), benchSample)
	})
	return &h.go_, &h.py
}

// evalHalf scores the three rankers on one half: baseline, content,
// metadata.
func evalHalf(tb testing.TB, h *benchHalf, content, metadata *rankWeights) [3]benchScore {
	var sc [3]benchScore
	ctx := context.Background()
	for _, c := range h.cases {
		sc[0].add(h.base.rank(c.Query, 10), c.Want)
		for i, w := range []*rankWeights{content, metadata} {
			hits, _, err := h.store.rankWith(ctx, w, c.Query, 10)
			if err != nil {
				tb.Fatal(err)
			}
			got := make([]string, len(hits))
			for j, x := range hits {
				got[j] = x.info.Path
			}
			sc[i+1].add(got, c.Want)
		}
	}
	return sc
}

// BenchmarkRetrieval runs the retrieval benchmark and reports each
// ranker's figures per half; with -v it prints the table of
// docs/retrieval.md.
func BenchmarkRetrieval(b *testing.B) {
	if raceEnabled {
		b.Skip("indexing under the race detector is too slow")
	}
	goHalf, pyHalf := retrievalHalves(b)
	var results [2][3]benchScore
	for b.Loop() {
		for i, h := range []*benchHalf{goHalf, pyHalf} {
			if h.skip == "" {
				results[i] = evalHalf(b, h, &contentWeights, &metadataWeights)
			}
		}
	}
	var tbl strings.Builder
	tbl.WriteString("| half | queries | ranker | recall@1 | recall@5 | MRR |\n|---|---|---|---|---|---|\n")
	for i, h := range []*benchHalf{goHalf, pyHalf} {
		if h.skip != "" {
			fmt.Fprintf(&tbl, "| %s | skipped: %s | | | | |\n", h.name, h.skip)
			b.Logf("%s: skipped, %s", h.name, h.skip)
			continue
		}
		key := []string{"go", "py"}[i]
		for j, ranker := range []string{"plain BM25 (previous)", "content", "metadata"} {
			s := results[i][j]
			fmt.Fprintf(&tbl, "| %s | %d | %s | %.1f %% | %.1f %% | %.3f |\n", h.name, s.n, ranker, s.r1(), s.r5(), s.mrr())
			tag := []string{"bm25", "content", "metadata"}[j]
			b.ReportMetric(s.r5(), key+"-"+tag+"-r@5")
		}
		b.ReportMetric(results[i][1].r5()-results[i][0].r5(), key+"-gain-r@5")
	}
	b.Logf("retrieval benchmark\n%s", tbl.String())
	if os.Getenv("EVALRUN_BENCH_MISSES") != "" {
		for _, h := range []*benchHalf{goHalf, pyHalf} {
			if h.skip != "" {
				continue
			}
			misses := 0
			for _, c := range h.cases {
				hits, _, _ := h.store.rankWith(context.Background(), &contentWeights, c.Query, 5)
				var got []string
				for _, x := range hits {
					got = append(got, x.info.Path)
				}
				if !slices.Contains(got, c.Want) {
					misses++
					b.Logf("miss %s: %q want %s got %v", c.Name, c.Query, c.Want, got)
				}
			}
			b.Logf("%s: %d of %d queries missed by content at 5", h.name, misses, len(h.cases))
		}
	}
}

// tuneQueries is how many of the Go half's queries tuning scores.
const tuneQueries = 600

// TestTuneRetrieval searches the content and metadata weights on the Go
// half of the benchmark, one parameter at a time over a grid, keeping a
// change when it raises recall@5 (then MRR). It only runs when
// EVALRUN_TUNE_RETRIEVAL is set; the weights it prints are copied into
// search.go by hand. The Python half is never looked at.
func TestTuneRetrieval(t *testing.T) {
	if os.Getenv("EVALRUN_TUNE_RETRIEVAL") == "" {
		t.Skip("set EVALRUN_TUNE_RETRIEVAL=1 to tune the ranking weights on the Go half")
	}
	goHalf, _ := retrievalHalves(t)
	if goHalf.skip != "" {
		t.Skip(goHalf.skip)
	}
	for _, strategy := range []struct {
		name   string
		w      rankWeights
		fields []int
	}{
		{"content", contentWeights, []int{fieldText, fieldComments, fieldSymbols, fieldName, fieldDir}},
		{"metadata", metadataWeights, []int{fieldName, fieldIdents, fieldSummary, fieldDir}},
	} {
		w := strategy.w
		score := func(w rankWeights) benchScore {
			var sc benchScore
			for _, c := range goHalf.cases[:min(len(goHalf.cases), tuneQueries)] {
				hits, _, err := goHalf.store.rankWith(context.Background(), &w, c.Query, 10)
				if err != nil {
					t.Fatal(err)
				}
				got := make([]string, len(hits))
				for j, x := range hits {
					got[j] = x.info.Path
				}
				sc.add(got, c.Want)
			}
			return sc
		}
		best := score(w)
		better := func(s benchScore) bool {
			return s.at5 > best.at5 || s.at5 == best.at5 && s.rr > best.rr+1e-9
		}
		t.Logf("%s start: r@1 %.1f r@5 %.1f MRR %.3f", strategy.name, best.r1(), best.r5(), best.mrr())
		for round := range 2 {
			for _, f := range strategy.fields {
				for _, v := range []float64{0, 0.1, 0.25, 0.5, 1, 2, 4} {
					c := w
					c.weight[f] = v
					if s := score(c); better(s) {
						best, w = s, c
						t.Logf("  weight[%d] = %v: r@5 %.1f MRR %.3f", f, v, best.r5(), best.mrr())
					}
				}
				for _, v := range []float64{0.1, 0.3, 0.5, 0.75, 1} {
					c := w
					c.b[f] = v
					if s := score(c); better(s) {
						best, w = s, c
					}
				}
			}
			for _, v := range []float64{0.2, 0.3, 0.5, 0.7, 1} {
				c := w
				c.test = v
				if s := score(c); better(s) {
					best, w = s, c
				}
				c = w
				c.generated = v
				if s := score(c); better(s) {
					best, w = s, c
				}
			}
			t.Logf("%s round %d: r@1 %.1f r@5 %.1f MRR %.3f weights %v b %v test %v generated %v",
				strategy.name, round, best.r1(), best.r5(), best.mrr(), w.weight, w.b, w.test, w.generated)
		}
	}
}
