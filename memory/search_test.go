package memory

import (
	"context"
	"math"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// smallCorpus indexes three files whose BM25F scores are worked out by hand
// below. Their text fields (the name field holds "a txt" and so on):
//
//	a.txt  apple banana           length 2
//	b.txt  apple apple cherry     length 3
//	c.txt  cherry date            length 2
//
// N = 3, average text length 7/3.
func smallCorpus(t *testing.T) *Store {
	root := t.TempDir()
	writeFile(t, root, "a.txt", "apple banana")
	writeFile(t, root, "b.txt", "apple apple cherry")
	writeFile(t, root, "c.txt", "cherry date")
	s := mustOpen(t, root, WithDBPath(t.TempDir()+"/index.db"))
	mustUpdate(t, s)
	return s
}

type scoredID struct {
	ID    string
	Score float64
}

func scoredIDs(r Result) []scoredID {
	var out []scoredID
	for _, m := range r.Matches {
		out = append(out, scoredID{m.ID, m.RelevanceScore})
	}
	return out
}

// bm25fTerm is one term's score in one file: field frequencies tf with
// lengths dl against averages avg, weights w and normalisations b.
func bm25fTerm(idfw float64, tf, dl, avg, w, b []float64) float64 {
	x := 0.0
	for f := range tf {
		if tf[f] > 0 && w[f] > 0 {
			x += w[f] * tf[f] / (1 - b[f] + b[f]*dl[f]/avg[f])
		}
	}
	return idfw * x * 2.2 / (x + 1.2)
}

func TestBM25HandComputed(t *testing.T) {
	s := smallCorpus(t)
	ctx := context.Background()
	// With the text field alone at weight 1 and b = 0.75, BM25F is the
	// plain BM25 of the text. apple: n = 2, idf = ln 1.6, the same for all.
	//   a: tf 1, dl 2: norm = 0.25 + 0.75·2/(7/3) = 0.892857; x = 1.12;
	//      1.12·2.2/(1.12 + 1.2) = 1.062069
	//   b: tf 2, dl 3: norm = 0.25 + 0.75·3/(7/3) = 1.214286; x = 1.647059;
	//      1.647059·2.2/(1.647059 + 1.2) = 1.272727
	//   a/b = 0.834483
	var textOnly rankWeights
	textOnly.weight[fieldText], textOnly.b[fieldText] = 1, 0.75
	textOnly.test, textOnly.generated, textOnly.example = 1, 1, 1
	hits, _, err := s.rankWith(ctx, &textOnly, "apple", 10)
	if err != nil {
		t.Fatal(err)
	}
	if len(hits) != 2 || hits[0].info.Path != "b.txt" || hits[1].info.Path != "a.txt" ||
		math.Abs(hits[0].score-math.Log(1.6)*1.272727272727) > 1e-9 || math.Abs(hits[1].score/hits[0].score-0.834482758620) > 1e-9 {
		t.Errorf("apple, text only: %+v", hits)
	}

	// The content strategy: apple and cherry occur in the text field only;
	// txt is in every name field (same length), so all three tie.
	w := &contentWeights
	zero := make([]float64, numFields)
	avg := slices.Clone(zero)
	avg[fieldText], avg[fieldName] = 7.0/3, 2
	lens := func(text float64) []float64 { l := slices.Clone(zero); l[fieldText], l[fieldName] = text, 2; return l }
	tf := func(text float64) []float64 { f := slices.Clone(zero); f[fieldText] = text; return f }
	ln16 := math.Log(1.6)
	sa := bm25fTerm(ln16, tf(1), lens(2), avg, w.weight[:], w.b[:])
	sb := bm25fTerm(ln16, tf(2), lens(3), avg, w.weight[:], w.b[:])
	sbc := sb + bm25fTerm(ln16, tf(1), lens(3), avg, w.weight[:], w.b[:]) // b: apple cherry
	tests := []struct {
		query string
		k     int
		want  []scoredID
	}{
		{"apple", 10, []scoredID{{"b.txt", 1}, {"a.txt", sa / sb}}},
		{"Apple, APPLE!", 10, []scoredID{{"b.txt", 1}, {"a.txt", sa / sb}}},
		{"apples", 10, []scoredID{{"b.txt", 1}, {"a.txt", sa / sb}}}, // stemmed
		{"apple cherry", 10, []scoredID{{"b.txt", 1}, {"a.txt", sa / sbc}, {"c.txt", sa / sbc}}},
		{"apple cherry", 2, []scoredID{{"b.txt", 1}, {"a.txt", sa / sbc}}},
		{"txt", 10, []scoredID{{"a.txt", 1}, {"b.txt", 1}, {"c.txt", 1}}},
		{"txt", 1, []scoredID{{"a.txt", 1}}},
		{"the apple", 10, []scoredID{{"b.txt", 1}, {"a.txt", sa / sb}}}, // a stop word
		{"zzz", 10, nil},
		{"", 10, nil},
	}
	for _, tt := range tests {
		res, err := s.Search(ctx, tt.query, StrategyContent, tt.k)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(tt.want, scoredIDs(res), cmpopts.EquateApprox(0, 1e-9)); diff != "" {
			t.Errorf("%q top %d (-want +got):\n%s", tt.query, tt.k, diff)
		}
	}

	res, _ := s.Search(ctx, "apple", StrategyContent, 10)
	if want := `2 matches for "apple" (content strategy, 3 files indexed)`; res.ContextSummary != want {
		t.Errorf("summary %q, want %q", res.ContextSummary, want)
	}
	want := Match{ID: "b.txt", Content: "apple apple cherry", RelevanceScore: 1, ContentType: "file_content", SourcePath: "b.txt"}
	if diff := cmp.Diff(want, res.Matches[0]); diff != "" {
		t.Errorf("match (-want +got):\n%s", diff)
	}
	res, _ = s.Search(ctx, "zzz  \n more", StrategyContent, 10)
	if want := `0 matches for "zzz more" (content strategy, 3 files indexed)`; res.ContextSummary != want || len(res.Matches) != 0 {
		t.Errorf("no match: %+v", res)
	}
}

func TestBM25Metadata(t *testing.T) {
	root := t.TempDir()
	writeFile(t, root, "pkg/d.go", "\npackage d\n\nfunc ParseURL() {}\n\nconst MAX_SIZE = 1 // banana\n")
	writeFile(t, root, "e.txt", "url url url\nbanana\n")
	s := mustOpen(t, root)
	mustUpdate(t, s)
	ctx := context.Background()
	// Metadata of pkg/d.go: path (pkg d go), name (d go), summary
	// (package d), identifiers (parse url, max size): "url" only there;
	// e.txt's metadata has "url" in its summary.
	res, err := s.Search(ctx, "parse", StrategyMetadata, 10)
	if err != nil {
		t.Fatal(err)
	}
	want := []Match{{
		ID: "pkg/d.go", SourcePath: "pkg/d.go", RelevanceScore: 1, ContentType: "file_metadata",
		Content: "path: pkg/d.go\nname: d.go\nextension: .go\nsize: 61 bytes\nsummary: package d\nidentifiers: ParseURL, MAX_SIZE",
	}}
	if diff := cmp.Diff(want, res.Matches); diff != "" {
		t.Errorf("metadata matches (-want +got):\n%s", diff)
	}
	if want := `1 matches for "parse" (metadata strategy, 2 files indexed)`; res.ContextSummary != want {
		t.Errorf("summary %q, want %q", res.ContextSummary, want)
	}
	// banana is in the text of both but in the metadata of neither.
	if res, _ := s.Search(ctx, "banana", StrategyMetadata, 10); len(res.Matches) != 0 {
		t.Errorf("metadata strategy matched file text: %v", res.IDs())
	}
	if res, _ := s.Search(ctx, "banana", "content-only", 10); len(res.Matches) != 2 {
		t.Errorf("content-only alias: %v", res.IDs())
	}
	// Metadata fields: pkg/d.go has summary "package d" (2 terms) and
	// identifiers ParseURL, MAX_SIZE (pars url parseurl max size maxsize:
	// 6 terms); e.txt has summary "url url url" (3) and no identifier.
	// "url" is once in pkg/d.go's identifiers, three times in e.txt's
	// summary.
	res, _ = s.Search(ctx, "url", "metadata-only", 10)
	if got := res.IDs(); !cmp.Equal(got, []string{"e.txt", "pkg/d.go"}) {
		t.Errorf("url by metadata: %v", got)
	}
	w := &metadataWeights
	avg := make([]float64, numFields)
	avg[fieldSummary], avg[fieldIdents] = 2.5, 3
	field := func(f int, v float64) []float64 { a := make([]float64, numFields); a[f] = v; return a }
	both := func(s, i float64) []float64 { a := field(fieldSummary, s); a[fieldIdents] = i; return a }
	wURL := idf(2, 2)
	sd := bm25fTerm(wURL, field(fieldIdents, 1), both(2, 6), avg, w.weight[:], w.b[:])
	se := bm25fTerm(wURL, field(fieldSummary, 3), both(3, 0), avg, w.weight[:], w.b[:])
	if got, want := res.Matches[1].RelevanceScore, sd/se; math.Abs(got-want) > 1e-12 {
		t.Errorf("pkg/d.go metadata score %v, want %v", got, want)
	}
	// The whole identifier is a term of its own.
	res, _ = s.Search(ctx, "parse_url", StrategyMetadata, 10)
	if got := res.IDs(); !cmp.Equal(got, []string{"pkg/d.go", "e.txt"}) {
		t.Errorf("parse_url by metadata: %v", got)
	}
}
