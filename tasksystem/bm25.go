package tasksystem

import (
	"math"
	"slices"
	"strings"
	"unicode"
)

// BM25 parameters of SPEC §15.2.
const (
	bm25K1 = 1.2
	bm25B  = 0.75
)

// bm25Tokens splits text for BM25 ranking (SPEC §15.2): at every character
// that is not a letter or digit and at every change from a lowercase to an
// uppercase letter, lowercased. "retryPolicy_v2" → retry, policy, v2.
func bm25Tokens(text string) []string {
	var toks []string
	var cur strings.Builder
	flush := func() {
		if cur.Len() > 0 {
			toks = append(toks, cur.String())
			cur.Reset()
		}
	}
	prevLower := false
	for _, r := range text {
		if !unicode.IsLetter(r) && !unicode.IsDigit(r) {
			flush()
			prevLower = false
			continue
		}
		if prevLower && unicode.IsUpper(r) {
			flush()
		}
		prevLower = unicode.IsLower(r)
		cur.WriteRune(unicode.ToLower(r))
	}
	flush()
	return toks
}

// bm25Scores scores each document against the query with BM25 (SPEC §15.2):
// k1 = 1.2, b = 0.75, idf = ln(1 + (N − n + 0.5)/(n + 0.5)), summed over the
// distinct query tokens.
func bm25Scores(query string, docs []string) []float64 {
	scores := make([]float64, len(docs))
	q := bm25Tokens(query)
	slices.Sort(q)
	q = slices.Compact(q)
	if len(q) == 0 || len(docs) == 0 {
		return scores
	}
	tf := make([]map[string]int, len(docs))
	lens := make([]float64, len(docs))
	df := map[string]int{}
	total := 0.0
	for i, d := range docs {
		toks := bm25Tokens(d)
		m := make(map[string]int, len(toks))
		for _, t := range toks {
			m[t]++
		}
		for t := range m {
			df[t]++
		}
		tf[i], lens[i] = m, float64(len(toks))
		total += lens[i]
	}
	avg := total / float64(len(docs))
	n := float64(len(docs))
	for _, t := range q {
		nt := float64(df[t])
		if nt == 0 {
			continue
		}
		idf := math.Log(1 + (n-nt+0.5)/(nt+0.5))
		for i := range docs {
			f := float64(tf[i][t])
			if f == 0 {
				continue
			}
			norm := 1.0
			if avg > 0 {
				norm = 1 - bm25B + bm25B*lens[i]/avg
			}
			scores[i] += idf * f * (bm25K1 + 1) / (f + bm25K1*norm)
		}
	}
	return scores
}

// topByBM25 returns the indexes of the k documents that score highest
// against query, best first, ties in document order; documents scoring zero
// are left out (SPEC §13.4, §15.2).
func topByBM25(query string, docs []string, k int) []int {
	scores := bm25Scores(query, docs)
	var idx []int
	for i, s := range scores {
		if s > 0 {
			idx = append(idx, i)
		}
	}
	slices.SortStableFunc(idx, func(a, b int) int {
		switch {
		case scores[a] > scores[b]:
			return -1
		case scores[a] < scores[b]:
			return 1
		}
		return 0
	})
	if len(idx) > k {
		idx = idx[:k]
	}
	return idx
}
