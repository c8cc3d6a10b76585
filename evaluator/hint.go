package evaluator

import (
	"sort"
	"unicode/utf8"

	"github.com/evalrun/evalrun/internal/suggest"
)

// nearest returns the candidate nearest to an unknown name, for the hint of
// an unbound-name error, or "" when none is near enough. Groups are tried
// in order, so on a tie the earlier group wins. Names shorter than three
// characters get no hint (every one-letter name is one edit from an
// operator such as + or <); names of up to four characters accept one
// edit, longer ones two (decided here).
func nearest(name string, groups ...[]string) string {
	n := utf8.RuneCountInString(name)
	if n < 3 {
		return ""
	}
	maxDist := 1
	if n > 4 {
		maxDist = suggest.MaxDistance
	}
	best, bestDist := "", maxDist+1
	for _, g := range groups {
		for _, c := range g {
			if c == name || utf8.RuneCountInString(c) < 3 {
				continue
			}
			if d := suggest.Distance(name, c); d < bestDist {
				best, bestDist = c, d
			}
		}
	}
	return best
}

// templateNames lists the templates of a task system that can list them.
func templateNames(tasks Tasks) []string {
	if lister, ok := tasks.(interface{ TemplateNames() []string }); ok {
		return lister.TemplateNames()
	}
	return nil
}

// nearestName is nearest over the templates, the variables visible in env,
// the special forms and the primitives, in this order of preference.
func (t *thread) nearestName(name string, env *Env) string {
	var vars []string
	for f := env; f != nil; f = f.parent {
		vars = append(vars, f.names...)
	}
	return nearest(name, templateNames(t.in.tasks), vars, SpecialFormNames(), PrimitiveNames())
}

// nearestName is nearest for the checker: the templates (defatom forms
// included), the names bound in the frames around e, the special forms and
// the primitives.
func (c *checker) nearestName(name string, e cenv) string {
	var tmpls, vars []string
	if c.opts.Tasks != nil {
		tmpls = templateNames(c.opts.Tasks)
	}
	for n := range c.allDefatoms {
		tmpls = append(tmpls, n)
	}
	for s := e.sc; s != nil; s = s.parent {
		for n := range s.names {
			vars = append(vars, n)
		}
		for n := range s.allNames() {
			vars = append(vars, n)
		}
	}
	sort.Strings(tmpls)
	sort.Strings(vars)
	return nearest(name, tmpls, vars, SpecialFormNames(), PrimitiveNames())
}
