package memory

import (
	"cmp"
	"context"
	"database/sql"
	"errors"
	"math"
	"slices"
	"strings"
)

// BM25 parameters of SPEC §15.2.
const (
	bm25K1 = 1.2
	bm25B  = 0.75
)

// field selects the ranking: the content or the metadata strategy.
type field int

const (
	fieldContent field = iota
	fieldMetadata
)

// rankWeights are the BM25F weights of one strategy: per field a weight
// (0 leaves the field out) and a length normalisation b, and the factors
// of test, generated and example files.
type rankWeights struct {
	weight                   [numFields]float64
	b                        [numFields]float64
	test, generated, example float64
}

// contentWeights and metadataWeights were chosen on the Go half of the
// retrieval benchmark (bench_retrieval_test.go); docs/retrieval.md lists
// them with the figures they give.
var (
	contentWeights = rankWeights{
		weight:    [numFields]float64{fieldDir: 1, fieldName: 2, fieldSymbols: 4, fieldComments: 4, fieldText: 0.1},
		b:         [numFields]float64{fieldDir: 1, fieldName: 0.3, fieldSymbols: 0.3, fieldComments: 0.3, fieldText: 0.75},
		test:      0.5,
		generated: 1,
		example:   0.6,
	}
	metadataWeights = rankWeights{
		weight:    [numFields]float64{fieldDir: 4, fieldName: 4, fieldSummary: 1, fieldIdents: 1},
		b:         [numFields]float64{fieldDir: 0.3, fieldName: 0.75, fieldSummary: 0.75, fieldIdents: 0.75},
		test:      0.3,
		generated: 1,
		example:   0.6,
	}
)

// hit is one ranked file.
type hit struct {
	id    int64
	score float64
	info  FileInfo
}

// idf is the inverse document frequency of SPEC §15.2.
func idf(n, df float64) float64 {
	return math.Log(1 + (n-df+0.5)/(df+0.5))
}

// rank scores every indexed file against query and returns the k best with
// a score above zero, best first, equal scores by path, with their
// metadata. Scores are not normalised.
func (s *Store) rank(ctx context.Context, f field, query string, k int) ([]hit, corpusStats, error) {
	w := &contentWeights
	if f == fieldMetadata {
		w = &metadataWeights
	}
	return s.rankWith(ctx, w, query, k)
}

// rankWith is BM25F (the "simple BM25F" of Robertson and Zaragoza) with the
// weights w: per term and file, the field frequencies, each normalised by
// its field's length against the field's average and multiplied by the
// field's weight, are summed into one pseudo-frequency x, and the term adds
// idf·x·(k1+1)/(x+k1), idf counting the files where the term occurs in a
// field the strategy ranks. The query's distinct terms (stop words left
// out) are summed. Test, generated and example files are then multiplied by
// their factors unless the query names tests or examples.
func (s *Store) rankWith(ctx context.Context, w *rankWeights, query string, k int) ([]hit, corpusStats, error) {
	st, err := s.stats(ctx)
	if err != nil || st.files == 0 || k <= 0 {
		return nil, st, err
	}
	terms := queryTerms(query)
	docs := st.docs
	n := float64(len(docs.ids))
	var avg [numFields]float64
	for f := range numFields {
		if n > 0 {
			avg[f] = docs.totals[f] / n
		}
	}
	// Scores are accumulated by position in the docs table.
	scores := make([]float64, len(docs.ids))
	type tfx struct {
		pos int
		x   float64
	}
	var tmp []tfx
	for _, t := range terms {
		var blob []byte
		err := s.stmtTerm.QueryRowContext(ctx, t).Scan(&blob)
		if errors.Is(err, sql.ErrNoRows) {
			continue
		}
		if err != nil {
			return nil, st, err
		}
		tmp = tmp[:0]
		pos := 0
		err = eachPosting(blob, func(doc int64, tf *[numFields]uint32) {
			for pos < len(docs.ids) && docs.ids[pos] < doc {
				pos++
			}
			if pos == len(docs.ids) || docs.ids[pos] != doc {
				return // not in the table: cannot happen in a consistent index
			}
			lens := &docs.infos[pos].lens
			x := 0.0
			for f, c := range tf {
				if c == 0 || w.weight[f] == 0 {
					continue
				}
				norm := 1.0
				if avg[f] > 0 {
					norm = 1 - w.b[f] + w.b[f]*float64(lens[f])/avg[f]
				}
				x += w.weight[f] * float64(c) / norm
			}
			if x > 0 {
				tmp = append(tmp, tfx{pos, x})
			}
		})
		if err != nil {
			return nil, st, err
		}
		if len(tmp) == 0 {
			continue
		}
		wt := idf(n, float64(len(tmp)))
		for _, e := range tmp {
			scores[e.pos] += wt * e.x * (bm25K1 + 1) / (e.x + bm25K1)
		}
	}
	wantTests, wantExamples := false, false
	for _, t := range terms {
		switch t {
		case "test", "unittest", "testdata", "spec":
			wantTests = true
		case "exampl":
			wantExamples = true
		}
	}
	type scored struct {
		id    int64
		score float64
	}
	var ranked []scored
	for pos, sc := range scores {
		if sc <= 0 {
			continue
		}
		fl := docs.infos[pos].flags
		if fl&flagTest != 0 && !wantTests {
			sc *= w.test
		}
		if fl&flagGenerated != 0 {
			sc *= w.generated
		}
		if fl&flagExample != 0 && !wantExamples {
			sc *= w.example
		}
		ranked = append(ranked, scored{docs.ids[pos], sc})
	}
	slices.SortFunc(ranked, func(a, b scored) int {
		if c := cmp.Compare(b.score, a.score); c != 0 {
			return c
		}
		return cmp.Compare(a.id, b.id)
	})
	// Keep the k best and every file that ties with the k-th, so that ties
	// can be broken by path.
	if len(ranked) > k {
		end := k
		for end < len(ranked) && ranked[end].score == ranked[k-1].score {
			end++
		}
		ranked = ranked[:end]
	}
	hits := make([]hit, len(ranked))
	for i, r := range ranked {
		hits[i] = hit{id: r.id, score: r.score}
	}
	for i := range hits {
		info, err := s.fileByID(ctx, hits[i].id)
		if err != nil {
			return nil, st, err
		}
		hits[i].info = info
	}
	slices.SortStableFunc(hits, func(a, b hit) int {
		if c := cmp.Compare(b.score, a.score); c != 0 {
			return c
		}
		return cmp.Compare(a.info.Path, b.info.Path)
	})
	if len(hits) > k {
		hits = hits[:k]
	}
	return hits, st, nil
}

// pathOrder returns up to k indexed files in path order, leaving out the ids
// in skip: the candidates an llm strategy adds when BM25 finds too few.
func (s *Store) pathOrder(ctx context.Context, k int, skip map[int64]bool) ([]hit, error) {
	rows, err := s.db.QueryContext(ctx, "SELECT id, path, name, ext, size, summary, identifiers FROM files ORDER BY path LIMIT ?", k+len(skip))
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []hit
	for rows.Next() && len(out) < k {
		var h hit
		var ids string
		if err := rows.Scan(&h.id, &h.info.Path, &h.info.Name, &h.info.Ext, &h.info.Size, &h.info.Summary, &ids); err != nil {
			return nil, err
		}
		if skip[h.id] {
			continue
		}
		h.info.Identifiers = strings.Fields(ids)
		out = append(out, h)
	}
	return out, rows.Err()
}
