package evaluator

import (
	"slices"
	"sort"

	"github.com/evalrun/evalrun/internal/suggest"
)

// nearest returns the candidate nearest to an unknown name, for the hint of
// an unbound-name error, or "" when none is near enough (suggest.Near: names
// shorter than three characters get no hint, since every one-letter name is
// one edit from an operator such as + or <). Groups are tried in order, so
// on a tie the earlier group wins.
func nearest(name string, groups ...[]string) string {
	return suggest.Near(name, slices.Concat(groups...))
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
