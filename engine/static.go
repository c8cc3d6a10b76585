package engine

import (
	"strings"

	"github.com/evalrun/evalrun/evaluator"
	"github.com/evalrun/evalrun/sexp"
	"github.com/evalrun/evalrun/templates"
)

// maxStaticDepth bounds the walk of staticTemplates; deeper forms are left
// to the provenance line printed before the first model call.
const maxStaticDepth = 10_000

// staticTemplates returns the templates a program names statically (SPEC
// §10.3), in order of first appearance: operator symbols of task calls,
// literal names in atomic-task and call, and symbols passed as values that
// name a template, such as (map summarize-file paths). A name that the
// program binds as a variable anywhere, or defines with defatom, is not
// counted; templates reached only through computed names are printed later,
// before their first model call. lookup resolves a name as the registry
// does.
func staticTemplates(forms []*sexp.Node, lookup func(string) (*templates.Template, bool)) []*templates.Template {
	s := &staticWalk{lookup: lookup, bound: map[string]bool{}, seen: map[*templates.Template]bool{}}
	for _, f := range forms {
		s.collect(f, 0)
	}
	for _, f := range forms {
		s.walk(f, 0)
	}
	return s.out
}

type staticWalk struct {
	lookup func(string) (*templates.Template, bool)
	// bound holds every name the program binds (define, bind, set!, let,
	// let*, lambda parameters, catch variables) or defines by defatom.
	bound map[string]bool
	seen  map[*templates.Template]bool
	out   []*templates.Template
}

// collect records the names bound anywhere in n.
func (s *staticWalk) collect(n *sexp.Node, depth int) {
	if n.Kind != sexp.List || n.Quoted || len(n.Items) == 0 || depth > maxStaticDepth {
		return
	}
	head, args := n.Items[0], n.Items[1:]
	bindName := func(x *sexp.Node) {
		if x.Kind == sexp.Symbol {
			s.bound[x.Str] = true
		}
	}
	switch {
	case head.IsSymbol("quote"):
		return
	case head.IsSymbol("define") || head.IsSymbol("bind") || head.IsSymbol("set!") || head.IsSymbol("defatom"):
		if len(args) > 0 {
			if args[0].Kind == sexp.List {
				for _, p := range args[0].Items {
					bindName(p)
				}
			} else {
				bindName(args[0])
			}
		}
	case head.IsSymbol("let") || head.IsSymbol("let*"):
		if len(args) > 0 && args[0].Kind == sexp.List {
			for _, b := range args[0].Items {
				if b.Kind == sexp.List && len(b.Items) > 0 {
					bindName(b.Items[0])
				}
			}
		}
	case head.IsSymbol("lambda"):
		if len(args) > 0 && args[0].Kind == sexp.List {
			for _, p := range args[0].Items {
				bindName(p)
			}
		}
	case head.IsSymbol("catch"):
		if len(args) > 0 {
			bindName(args[0])
		}
	}
	for _, it := range n.Items {
		s.collect(it, depth+1)
	}
}

// add records the template a name resolves to, unless the program binds
// the name as a variable.
func (s *staticWalk) add(name string) bool {
	if s.bound[name] {
		return false
	}
	return s.addLiteral(name)
}

// addLiteral records the template a literal name resolves to.
func (s *staticWalk) addLiteral(name string) bool {
	if name == "" {
		return false
	}
	t, ok := s.lookup(name)
	if !ok {
		return false
	}
	if !s.seen[t] {
		s.seen[t] = true
		s.out = append(s.out, t)
	}
	return true
}

// walk finds the template names in an expression.
func (s *staticWalk) walk(n *sexp.Node, depth int) {
	if depth > maxStaticDepth {
		return
	}
	switch n.Kind {
	case sexp.Symbol:
		name := n.Str
		if !strings.HasPrefix(name, ":") && !evaluator.IsPrimitive(name) && !evaluator.IsSpecialForm(name) {
			s.add(name)
		}
		return
	case sexp.List:
	default:
		return
	}
	if n.Quoted || len(n.Items) == 0 {
		return
	}
	head, args := n.Items[0], n.Items[1:]
	d := depth + 1
	walkAll := func(ns []*sexp.Node) {
		for _, x := range ns {
			s.walk(x, d)
		}
	}
	// clauses walks (key expr...) clauses, leaving out the keys.
	clauses := func(ns []*sexp.Node) {
		for _, c := range ns {
			if c.Kind == sexp.List && !c.Quoted && len(c.Items) > 0 && c.Items[0].Kind == sexp.Symbol {
				walkAll(c.Items[1:])
			} else {
				s.walk(c, d)
			}
		}
	}
	if head.Kind == sexp.String {
		if s.addLiteral(head.Str) {
			clauses(args)
			return
		}
		walkAll(args)
		return
	}
	if head.Kind != sexp.Symbol {
		walkAll(n.Items)
		return
	}
	name := head.Str
	switch name {
	case "quote", "defatom":
		return
	case "atomic-task":
		if len(args) > 0 {
			if a := args[0]; a.Kind == sexp.Symbol || a.Kind == sexp.String {
				s.addLiteral(a.Str) // used as written (SPEC §7.15)
			} else {
				s.walk(a, d)
			}
			clauses(args[1:])
		}
		return
	case "direct-tool", "get-context", "get_context":
		if len(args) > 0 {
			s.walk(args[0], d)
			clauses(args[1:])
		}
		return
	case "call":
		if len(args) > 0 && args[0].Kind == sexp.String {
			s.addLiteral(args[0].Str)
			walkAll(args[1:])
			return
		}
	case "define", "bind", "set!":
		if len(args) > 0 {
			walkAll(args[1:])
		}
		return
	case "lambda":
		if len(args) > 0 {
			walkAll(args[1:])
		}
		return
	case "let", "let*":
		if len(args) > 0 {
			if args[0].Kind == sexp.List {
				clauses(args[0].Items)
			}
			walkAll(args[1:])
		}
		return
	case "cond", "director-evaluator-loop", "iterative-loop", "try":
		// Clauses: ((test) body...), (director expr), (catch e body...).
		for _, c := range args {
			if c.Kind == sexp.List && !c.Quoted && len(c.Items) > 0 {
				if c.Items[0].IsSymbol("catch") {
					walkAll(c.Items[2:])
					continue
				}
				if name == "try" {
					s.walk(c, d)
					continue
				}
				if c.Items[0].Kind == sexp.Symbol && name != "cond" {
					walkAll(c.Items[1:])
					continue
				}
				walkAll(c.Items)
				continue
			}
			s.walk(c, d)
		}
		return
	case "step":
		if len(args) > 1 {
			walkAll(args[:2])
		}
		return
	case "loop":
		walkAll(args)
		return
	}
	if evaluator.IsSpecialForm(name) || evaluator.IsPrimitive(name) {
		walkAll(args)
		return
	}
	if !s.bound[name] && s.add(name) {
		clauses(args) // a task call: (param expr) pairs
		return
	}
	walkAll(args)
}
