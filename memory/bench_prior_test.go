package memory

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// The reference prior of SPEC §15.2, evaluated before it is built into the
// index: a file whose defined symbols many other files mention (as aider's
// repository map ranks files) gets its content score multiplied by
//
//	1 + beta · min(1, ln(1 + refs) / ln(1 + priorCap))
//
// where refs counts the files of other directories that mention, as an
// identifier, at least one symbol of three characters or more that the
// file defines and at most priorMaxDefiners files define. The benchmark
// reranks the content ranking's 100 best files per query by the prior and
// reports both halves for several beta; beta 0 is the content ranking.
//
//	go test -run '^$' -bench ReferencePrior -benchtime 1x -v ./memory/

const (
	priorCap         = 100
	priorMaxDefiners = 3
)

// mentionedIdents returns the distinct identifiers (runs of letters,
// digits and underscores not starting with a digit) of text.
func mentionedIdents(text string) map[string]bool {
	out := make(map[string]bool)
	isStart := func(c byte) bool { return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }
	for i := 0; i < len(text); {
		if !isStart(text[i]) {
			if text[i] >= '0' && text[i] <= '9' {
				for i < len(text) && (isStart(text[i]) || text[i] >= '0' && text[i] <= '9') {
					i++
				}
				continue
			}
			i++
			continue
		}
		j := i + 1
		for j < len(text) && (isStart(text[j]) || text[j] >= '0' && text[j] <= '9') {
			j++
		}
		out[text[i:j]] = true
		i = j
	}
	return out
}

// referenceCounts returns refs (above) for every path of a tree.
func referenceCounts(tb testing.TB, root string, paths []string) map[string]int {
	definers := make(map[string][]int)
	mentions := make([]map[string]bool, len(paths))
	for i, p := range paths {
		switch languageOf(path.Base(p)) {
		case langOther, langHash, langMarkdown:
			continue
		}
		b, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(p)))
		if err != nil {
			tb.Fatal(err)
		}
		text := string(b)
		for _, s := range scanFields(p, text).symbols {
			if l := definers[s]; len(s) >= 3 && (len(l) == 0 || l[len(l)-1] != i) {
				definers[s] = append(l, i)
			}
		}
		mentions[i] = mentionedIdents(text)
	}
	refs := make([]int, len(paths))
	last := make([]int, len(paths)) // the last referring file counted, +1
	for g, m := range mentions {
		for id := range m {
			fs := definers[id]
			if len(fs) > priorMaxDefiners {
				continue
			}
			for _, f := range fs {
				if last[f] != g+1 && path.Dir(paths[f]) != path.Dir(paths[g]) {
					last[f] = g + 1
					refs[f]++
				}
			}
		}
	}
	out := make(map[string]int, len(paths))
	for i, p := range paths {
		out[p] = refs[i]
	}
	return out
}

// BenchmarkReferencePrior prints recall@1, recall@5 and MRR of the content
// ranking reranked by the reference prior for several beta, per half.
func BenchmarkReferencePrior(b *testing.B) {
	if raceEnabled {
		b.Skip("indexing under the race detector is too slow")
	}
	goHalf, pyHalf := retrievalHalves(b)
	var tbl strings.Builder
	for b.Loop() {
		tbl.Reset()
		priorTable(b, &tbl, goHalf, pyHalf)
	}
	b.Logf("reference prior\n%s", tbl.String())
}

// priorTable writes the table of BenchmarkReferencePrior.
func priorTable(b *testing.B, tbl *strings.Builder, goHalf, pyHalf *benchHalf) {
	betas := []float64{0, 0.02, 0.05, 0.1, 0.2}
	type cand struct {
		path  string
		score float64
		refs  int
	}
	tbl.WriteString("| half | beta | recall@1 | recall@5 | MRR |\n|---|---|---|---|---|\n")
	for hi, h := range []*benchHalf{goHalf, pyHalf} {
		if h.skip != "" {
			fmt.Fprintf(tbl, "| %s | skipped: %s | | | |\n", h.name, h.skip)
			continue
		}
		root := gorootSrc()
		if hi == 1 {
			root = pythonStdlib()
		}
		refs := referenceCounts(b, root, h.base.paths)
		var cands [][]cand
		for _, c := range h.cases {
			hits, _, err := h.store.rankWith(context.Background(), &contentWeights, c.Query, 100)
			if err != nil {
				b.Fatal(err)
			}
			cs := make([]cand, len(hits))
			for j, x := range hits {
				cs[j] = cand{x.info.Path, x.score, refs[x.info.Path]}
			}
			cands = append(cands, cs)
		}
		for _, beta := range betas {
			var sc benchScore
			for i, c := range h.cases {
				cs := slices.Clone(cands[i])
				for j := range cs {
					cs[j].score *= 1 + beta*min(1, math.Log1p(float64(cs[j].refs))/math.Log1p(priorCap))
				}
				slices.SortStableFunc(cs, func(a, b cand) int {
					if c := cmp.Compare(b.score, a.score); c != 0 {
						return c
					}
					return cmp.Compare(a.path, b.path)
				})
				got := make([]string, 0, 10)
				for _, x := range cs[:min(10, len(cs))] {
					got = append(got, x.path)
				}
				sc.add(got, c.Want)
			}
			fmt.Fprintf(tbl, "| %s | %.2f | %.1f %% | %.1f %% | %.3f |\n", h.name, beta, sc.r1(), sc.r5(), sc.mrr())
		}
	}
}
