package tasksystem

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/evalrun/evalrun/templates"
)

func TestTokens(t *testing.T) {
	tests := []struct {
		in   string
		want []string
	}{
		{"Review the staged git diff", []string{"review", "staged", "git", "diff"}},
		{"review my git diff", []string{"review", "git", "diff"}},
		{"a b c", nil},
		{"Please find some of THE files for me", []string{"find", "files"}},
		{"user:generate-plan v2", []string{"user", "generate", "plan", "v2"}},
		{"diff, diff; DIFF!", []string{"diff"}},
		{"Résumé über naïve", []string{"résumé", "über", "naïve"}},
		{"x y 42 é", []string{"42"}},
		{"", nil},
	}
	for _, tt := range tests {
		if diff := cmp.Diff(tt.want, Tokens(tt.in)); diff != "" {
			t.Errorf("Tokens(%q) (-want +got):\n%s", tt.in, diff)
		}
	}
}

func TestMatch(t *testing.T) {
	r := NewRegistry()
	r.Add(tmpl("analyze", "", "", "analyze python code", templates.ScopeLocal))
	r.Add(tmpl("examples", "", "", "find python examples", templates.ScopeGlobal))
	r.Add(tmpl("review/git-diff", "gdr", "", "Review the staged git diff", templates.ScopeLocal))
	r.Add(tmpl("internal:associative_matching_content", "", "associative_matching", "analyze python script", templates.ScopeBuiltin))
	r.Add(tmpl("b-tie", "", "", "write tests", templates.ScopeDefatom))
	r.Add(tmpl("a-tie", "", "", "write docs", templates.ScopeDefatom))

	tests := []struct {
		query string
		want  []Match
	}{
		// SPEC §10.5: 0.5 against "analyze python code", 0.2 (dropped)
		// against "find python examples"; internal: is never matched even
		// with a perfect description.
		{"analyze python script", []Match{{"analyze", 0.5, "local"}}},
		{"review my git diff", []Match{{"review/git-diff", 0.75, "local"}}},
		{"  GDR ", []Match{{"review/git-diff", 1, "local"}}},
		{"Review/Git-Diff", []Match{{"review/git-diff", 1, "local"}}},
		{"internal:associative_matching_content", nil},
		{"write", []Match{{"a-tie", 0.5, "defatom"}, {"b-tie", 0.5, "defatom"}}},
		{"python", nil}, // 1/3 for both is >= 0.3
		{"the a of", nil},
		{"", nil},
	}
	tests[6].want = []Match{{"analyze", 1.0 / 3, "local"}, {"examples", 1.0 / 3, "global"}}
	for _, tt := range tests {
		if diff := cmp.Diff(tt.want, r.Match(tt.query)); diff != "" {
			t.Errorf("Match(%q) (-want +got):\n%s", tt.query, diff)
		}
	}
}

func TestMatchLimitAndOrder(t *testing.T) {
	r := NewRegistry()
	for i := range 15 {
		// Descriptions with 1..15 extra tokens score 2/(2+k).
		desc := "deploy service"
		for k := range i {
			desc += fmt.Sprintf(" w%d", k)
		}
		r.Add(tmpl(fmt.Sprintf("t%02d", i), "", "", desc, templates.ScopeLocal))
	}
	got := r.Match("deploy service")
	var gotNames []string
	for _, m := range got {
		gotNames = append(gotNames, m.Name)
	}
	// Scores 1, 2/3, 2/4, 2/5, 2/6 (= 0.333) pass the threshold; 2/7 does not.
	want := []string{"t00", "t01", "t02", "t03", "t04"}
	if diff := cmp.Diff(want, gotNames); diff != "" {
		t.Errorf("names (-want +got):\n%s", diff)
	}

	r2 := NewRegistry()
	for i := range 12 {
		r2.Add(tmpl(fmt.Sprintf("n%02d", 11-i), "", "", "same words here", templates.ScopeLocal))
	}
	got = r2.Match("same words here")
	if len(got) != MatchLimit || got[0].Name != "n00" || got[9].Name != "n09" {
		t.Errorf("Match = %v, want n00..n09", got)
	}
}

func BenchmarkMatch(b *testing.B) {
	r := NewRegistry()
	for i := range 2000 {
		r.Add(tmpl(fmt.Sprintf("t%d", i), "", "", fmt.Sprintf("topic%d summarise source file number %d", i%50, i), templates.ScopeLocal))
	}
	r.Add(tmpl("analyze", "", "", "analyze python code", templates.ScopeLocal))
	b.ReportAllocs()
	for b.Loop() {
		if m := r.Match("analyze python script"); len(m) != 1 {
			b.Fatal(m)
		}
	}
}

// BenchmarkMatch10000 matches one request against 10,000 templates whose
// descriptions draw 6–10 words from a 2,000-word vocabulary, so that every
// query token has postings (SPEC §10.5; target ≤ 1 ms).
func BenchmarkMatch10000(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 2))
	vocab := make([]string, 2000)
	for i := range vocab {
		vocab[i] = fmt.Sprintf("w%03dx", i)
	}
	r := NewRegistry()
	for i := range 10_000 {
		words := make([]string, 6+rng.IntN(5))
		for j := range words {
			words[j] = vocab[rng.IntN(len(vocab))]
		}
		r.Add(tmpl(fmt.Sprintf("t%d", i), "", "", strings.Join(words, " "), templates.ScopeLocal))
	}
	queries := make([]string, 64)
	for i := range queries {
		queries[i] = strings.Join([]string{vocab[rng.IntN(100)], vocab[rng.IntN(2000)], vocab[rng.IntN(2000)], vocab[rng.IntN(2000)], "please"}, " ")
	}
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		r.Match(queries[i%len(queries)])
		i++
	}
}
