package engine

import (
	"slices"
	"strings"

	"github.com/evalrun/evalrun/internal/suggest"
	"github.com/evalrun/evalrun/tasksystem"
)

// Suggest returns up to three template names for a name no template has
// (SPEC §10.5, §17.1): the matches of SPEC §10.5 first; when they are
// fewer than three, names and aliases within edit distance 2 of the name
// (a typo) follow, nearest first (decided here: Jaccard matching of
// descriptions never suggests a misspelt name).
func Suggest(reg *tasksystem.Registry, name string) []string {
	var names []string
	seen := map[string]bool{}
	for _, m := range reg.Match(name) {
		if !seen[m.Name] {
			seen[m.Name] = true
			names = append(names, m.Name)
		}
	}
	type near struct {
		name string
		dist int
	}
	var typos []near
	lower := strings.ToLower(strings.TrimSpace(name))
	for _, t := range reg.All() {
		if strings.HasPrefix(t.Name, "internal:") || seen[t.Name] {
			continue
		}
		for _, cand := range []string{t.Name, t.Alias} {
			if cand == "" {
				continue
			}
			if d := suggest.Distance(lower, strings.ToLower(cand)); d <= suggest.MaxDistance {
				typos = append(typos, near{t.Name, d})
				break
			}
		}
	}
	slices.SortStableFunc(typos, func(x, y near) int {
		if x.dist != y.dist {
			return x.dist - y.dist
		}
		return strings.Compare(x.name, y.name)
	})
	for _, n := range typos {
		if !seen[n.name] {
			seen[n.name] = true
			names = append(names, n.name)
		}
	}
	if len(names) > 3 {
		names = names[:3]
	}
	return names
}
