package memory

import (
	"context"
	"math"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// smallCorpus indexes three files whose BM25 scores are worked out by hand
// below. Content documents (path tokens, then text tokens):
//
//	a.txt  a txt apple banana           dl = 4
//	b.txt  b txt apple apple cherry     dl = 5
//	c.txt  c txt cherry date            dl = 4
//
// N = 3, avgdl = 13/3.
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

func TestBM25HandComputed(t *testing.T) {
	s := smallCorpus(t)
	ctx := context.Background()
	// apple: n = 2, idf = ln(1 + 1.5/2.5) = ln 1.6 (the same for all, so it
	// cancels in the normalised scores).
	//   a: tf 1, dl 4: norm = 0.25 + 0.75·4/(13/3) = 0.942308;
	//      1·2.2/(1 + 1.2·0.942308) = 1.032491
	//   b: tf 2, dl 5: norm = 0.25 + 0.75·5/(13/3) = 1.115385;
	//      2·2.2/(2 + 1.2·1.115385) = 1.317972
	//   b = 1, a = 1.032491/1.317972 = 0.783394
	// apple cherry: cherry (n = 2, same idf) adds to b 1·2.2/(1 + 1.2·1.115385)
	// = 0.940789 and to c 1.032491: b = 2.258762, a = c = 1.032491, so
	// a = c = 0.457105, a before c by path.
	// txt: in every file, same tf; a and c (dl 4) beat b (dl 5) and tie.
	//   a, c: 2.2/(1 + 1.2·0.942308) = 1.032491; b: 2.2/(1 + 1.2·1.115385) = 0.940789
	tests := []struct {
		query string
		k     int
		want  []scoredID
	}{
		{"apple", 10, []scoredID{{"b.txt", 1}, {"a.txt", 0.783393501805054}}},
		{"Apple, APPLE!", 10, []scoredID{{"b.txt", 1}, {"a.txt", 0.783393501805054}}},
		{"apple cherry", 10, []scoredID{{"b.txt", 1}, {"a.txt", 0.45710484558298736}, {"c.txt", 0.45710484558298736}}},
		{"apple cherry", 2, []scoredID{{"b.txt", 1}, {"a.txt", 0.45710484558298736}}},
		{"txt", 10, []scoredID{{"a.txt", 1}, {"c.txt", 1}, {"b.txt", 0.940789473684211 / 1.032490974729242}}},
		{"txt", 1, []scoredID{{"a.txt", 1}}},
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
	// Metadata tokens: pkg/d.go has 11 (pkg d go, d go, package d, parse
	// url, max size), e.txt 7 (e txt, e txt, url url url); "url"
	// occurs once in pkg/d.go and three times in e.txt.
	res, _ = s.Search(ctx, "url", "metadata-only", 10)
	if got := res.IDs(); !cmp.Equal(got, []string{"e.txt", "pkg/d.go"}) {
		t.Errorf("url by metadata: %v", got)
	}
	n, dfURL := 2.0, 2.0
	w := math.Log(1 + (n-dfURL+0.5)/(dfURL+0.5))
	avg := (11.0 + 7.0) / 2
	score := func(tf, dl float64) float64 { return w * tf * 2.2 / (tf + 1.2*(0.25+0.75*dl/avg)) }
	if got, want := res.Matches[1].RelevanceScore, score(1, 11)/score(3, 7); math.Abs(got-want) > 1e-12 {
		t.Errorf("pkg/d.go metadata score %v, want %v", got, want)
	}
}
