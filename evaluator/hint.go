package evaluator

import (
	"unicode/utf8"

	"github.com/evalrun/evalrun/internal/suggest"
)

// nearestName returns the known name nearest to an unknown one, for the
// hint of an unbound-name error, or "" when none is near enough. The
// candidates are, in this order of preference on a tie, the templates (when
// the task system can list them), the variables visible in env, the special
// forms and the primitives.
// Names shorter than three characters get no hint (every one-letter name
// is one edit from an operator such as + or <); names of up to four
// characters accept one edit, longer ones two (decided here).
func (t *thread) nearestName(name string, env *Env) string {
	n := utf8.RuneCountInString(name)
	if n < 3 {
		return ""
	}
	maxDist := 1
	if n > 4 {
		maxDist = suggest.MaxDistance
	}
	best, bestDist := "", maxDist+1
	consider := func(c string) {
		if c == name || utf8.RuneCountInString(c) < 3 {
			return
		}
		if d := suggest.Distance(name, c); d < bestDist {
			best, bestDist = c, d
		}
	}
	if lister, ok := t.in.tasks.(interface{ TemplateNames() []string }); ok {
		for _, c := range lister.TemplateNames() {
			consider(c)
		}
	}
	for f := env; f != nil; f = f.parent {
		for _, c := range f.names {
			consider(c)
		}
	}
	for _, c := range SpecialFormNames() {
		consider(c)
	}
	for _, c := range PrimitiveNames() {
		consider(c)
	}
	return best
}
