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

// field selects the document BM25 ranks: path plus file text, or path,
// name, summary and identifiers.
type field int

const (
	fieldContent field = iota
	fieldMetadata
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

// rank scores every indexed file against query with BM25 and returns the k
// best with a score above zero, best first, equal scores by path, with
// their metadata. Scores are not normalised. The query's distinct tokens
// are summed, as tasksystem's BM25 over ambient items does.
func (s *Store) rank(ctx context.Context, f field, query string, k int) ([]hit, corpusStats, error) {
	st, err := s.stats(ctx)
	if err != nil || st.files == 0 || k <= 0 {
		return nil, st, err
	}
	terms := Tokens(query)
	slices.Sort(terms)
	terms = slices.Compact(terms)
	total := st.ctotal
	stmt := s.stmtCTerm
	if f == fieldMetadata {
		total, stmt = st.mtotal, s.stmtMTerm
	}
	n := float64(st.files)
	avg := float64(total) / n
	// Scores are accumulated in a slice indexed by document id. Ids are
	// assigned in sequence and a changed file gets a new one, so they stay
	// near the file count; the rare ids beyond 4N go to a map.
	var scores []float64
	var far map[int64]float64
	limit := int64(4*st.files + 4096)
	for _, t := range terms {
		var blob []byte
		err := stmt.QueryRowContext(ctx, t).Scan(&blob)
		if errors.Is(err, sql.ErrNoRows) {
			continue
		}
		if err != nil {
			return nil, st, err
		}
		df, _, err := postingCount(blob)
		if err != nil {
			return nil, st, err
		}
		if df == 0 {
			continue
		}
		w := idf(n, float64(df))
		err = eachPosting(blob, func(doc int64, tf, dl uint32) {
			norm := 1.0
			if avg > 0 {
				norm = 1 - bm25B + bm25B*float64(dl)/avg
			}
			x := float64(tf)
			v := w * x * (bm25K1 + 1) / (x + bm25K1*norm)
			switch {
			case doc < int64(len(scores)):
				scores[doc] += v
			case doc < limit:
				scores = append(scores, make([]float64, int(doc)+1-len(scores))...)
				scores[doc] += v
			default:
				if far == nil {
					far = make(map[int64]float64)
				}
				far[doc] += v
			}
		})
		if err != nil {
			return nil, st, err
		}
	}
	type scored struct {
		id    int64
		score float64
	}
	var ranked []scored
	for id, sc := range scores {
		if sc > 0 {
			ranked = append(ranked, scored{int64(id), sc})
		}
	}
	for id, sc := range far {
		if sc > 0 {
			ranked = append(ranked, scored{id, sc})
		}
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
