package tasksystem

import (
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Matching parameters of SPEC §10.5.
const (
	// MatchThreshold is the lowest score Match returns.
	MatchThreshold = 0.3
	// MatchLimit is the largest number of results Match returns.
	MatchLimit = 10
)

// Match is one template matching a natural-language request.
type Match struct {
	Name  string
	Score float64
	// Scope is the template's scope name (builtin, global, local, dir,
	// defatom).
	Scope string
}

// stopWords are dropped from match tokens (SPEC §10.5).
var stopWords = func() map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(`a an and are as at be by for from in into is it me my of on or please
		some that the this to with you your`) {
		m[w] = true
	}
	return m
}()

// Tokens returns the match tokens of text (SPEC §10.5): lowercased, split at
// every character that is not a letter or digit, without one-character
// tokens and stop words; a set in order of first appearance.
func Tokens(text string) []string {
	var toks []string
	for _, f := range strings.FieldsFunc(strings.ToLower(text), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r)
	}) {
		if utf8.RuneCountInString(f) < 2 || stopWords[f] {
			continue
		}
		dup := false
		for _, t := range toks {
			if t == f {
				dup = true
				break
			}
		}
		if !dup {
			toks = append(toks, f)
		}
	}
	return toks
}

// Match returns the templates matching a request (SPEC §10.5): score 1.0 when
// the trimmed, lowercased request equals a template's name or alias, else the
// Jaccard index of the request's and the description's tokens. Templates
// named internal:… are never matched. Results scoring at least
// MatchThreshold come highest first, ties by name, at most MatchLimit. The
// cost grows with the number of templates sharing a token with the request,
// not with the size of the registry.
func (r *Registry) Match(text string) []Match {
	q := Tokens(text)
	exact := strings.ToLower(strings.TrimSpace(text))
	r.mu.RLock()
	common := map[*entry]int{}
	for _, tok := range q {
		for e := range r.byToken[tok] {
			common[e]++
		}
	}
	scores := make(map[*entry]float64, len(common)+1)
	for e, n := range common {
		scores[e] = float64(n) / float64(len(q)+len(e.tokens)-n)
	}
	for _, e := range r.byLower[exact] {
		scores[e] = 1.0
	}
	var out []Match
	for e, s := range scores {
		if s < MatchThreshold || strings.HasPrefix(e.t.Name, "internal:") {
			continue
		}
		out = append(out, Match{Name: e.t.Name, Score: s, Scope: e.t.Scope.String()})
	}
	r.mu.RUnlock()
	sort.Slice(out, func(i, j int) bool {
		if out[i].Score != out[j].Score {
			return out[i].Score > out[j].Score
		}
		return out[i].Name < out[j].Name
	})
	if len(out) > MatchLimit {
		out = out[:MatchLimit]
	}
	return out
}
