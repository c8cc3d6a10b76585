package evaluator

import (
	"strings"

	"github.com/evalrun/evalrun/sexp"
	"github.com/evalrun/evalrun/templates"
)

// children returns the expressions an expression evaluates directly, in
// source order: for a special form those of its typed form (its children
// method), for a call its head and arguments. The named arguments of a
// task call are its argument forms, as written.
func (x *expr) children() []*expr {
	if x.op != opSpecial {
		return x.elems
	}
	return x.form.children()
}

// PlannedSteps returns the names of the step forms of the program that run
// exactly once when the program runs to its end (SPEC §16.2): those with a
// string-literal name that are not inside a lambda (or a define of a
// function), a conditional, try, a loop form or parallel, in source order.
// A step's own body is not searched: its nested steps are created when they
// run.
func (p *Program) PlannedSteps() []string {
	var names []string
	var walk func(x *expr)
	walk = func(x *expr) {
		if x.op == opSpecial {
			if x.sf.repeats {
				return
			}
			switch f := x.form.(type) {
			case *lambdaForm, *badLambda:
				return
			case *stepForm:
				if name, ok := f.literalName(); ok {
					names = append(names, name)
				}
				return
			case *badForm:
				if x.name == "step" {
					return
				}
			}
		}
		for _, c := range x.children() {
			walk(c)
		}
	}
	for _, x := range p.exprs {
		walk(x)
	}
	return names
}

// PlannedSteps compiles forms read from one source and returns the
// program's PlannedSteps; it is empty when they do not compile.
func PlannedSteps(forms []*sexp.Node) []string {
	p, err := CompileForms(nil, forms)
	if err != nil {
		return nil
	}
	return p.PlannedSteps()
}

// Templates returns the templates the program names statically (SPEC §10.3),
// in order of first appearance, as lookup resolves names: operator symbols
// of task calls, literal names in atomic-task and call, and symbols passed
// as values that name a template, such as (map summarize-file paths). A
// name that the program binds as a variable anywhere (define, bind, set!,
// let, let*, parameters, catch variables) or defines with defatom is not
// counted; templates reached only through computed names are not known
// before the program runs.
func (p *Program) Templates(lookup func(string) (*templates.Template, bool)) []*templates.Template {
	s := &templateWalk{lookup: lookup, bound: map[string]bool{}, seen: map[*templates.Template]bool{}}
	for _, x := range p.exprs {
		s.collect(x)
	}
	for _, x := range p.exprs {
		s.walk(x)
	}
	return s.out
}

type templateWalk struct {
	lookup func(string) (*templates.Template, bool)
	bound  map[string]bool
	seen   map[*templates.Template]bool
	out    []*templates.Template
}

// collect records the names bound anywhere in x.
func (s *templateWalk) collect(x *expr) {
	if x.op == opSpecial {
		switch f := x.form.(type) {
		case *defineVarForm:
			s.bound[f.name] = true
		case *setForm:
			s.bound[f.target.Str] = true
		case *lambdaForm:
			s.bindFn(f)
		case *badLambda:
			s.bindFn(f.lambdaForm)
		case *letForm:
			for _, b := range f.bindings {
				if b.name != "" {
					s.bound[b.name] = true
				}
			}
		case *tryForm:
			s.bound[f.catchVar.Str] = true
		case *defatomForm:
			if f.tmpl != nil {
				s.bound[f.tmpl.Name] = true
			} else if n := x.syn.Items; len(n) > 1 && n[1].Kind == sexp.Symbol {
				s.bound[n[1].Str] = true
			}
		case *badForm:
			if f.bind != nil {
				s.bound[f.bind.Str] = true
			}
		}
	}
	for _, c := range x.children() {
		s.collect(c)
	}
}

func (s *templateWalk) bindFn(f *lambdaForm) {
	if f.target != nil && f.target.Kind == sexp.Symbol {
		s.bound[f.target.Str] = true
	}
	for _, p := range f.paramNodes {
		if p.Kind == sexp.Symbol {
			s.bound[p.Str] = true
		}
	}
}

// add records the template a literal name resolves to.
func (s *templateWalk) add(name string) bool {
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

// walkAll walks expressions.
func (s *templateWalk) walkAll(xs []*expr) {
	for _, x := range xs {
		s.walk(x)
	}
}

// walkArgs walks the arguments of a task call: the expressions of its
// named arguments when they read as such, else the arguments themselves.
func (s *templateWalk) walkArgs(x *expr, name string) {
	args, err := x.namedArgs(name)
	if err != nil {
		s.walkAll(x.args())
		return
	}
	for _, a := range args {
		s.walk(a.x)
	}
}

// walk finds the template names in an expression.
func (s *templateWalk) walk(x *expr) {
	switch x.op {
	case opConst:
		return
	case opSymbol:
		if !strings.HasPrefix(x.name, ":") && !IsPrimitive(x.name) && !IsSpecialForm(x.name) && !s.bound[x.name] {
			s.add(x.name)
		}
		return
	case opApplyString:
		if s.add(x.name) {
			s.walkArgs(x, x.name)
			return
		}
		s.walkAll(x.args())
		return
	case opNamed:
		if !s.bound[x.name] && s.add(x.name) {
			s.walkArgs(x, x.name)
			return
		}
		s.walkAll(x.args())
		return
	case opPrim:
		if x.name == "call" && len(x.args()) > 0 && x.args()[0].syn.Kind == sexp.String {
			s.add(x.args()[0].syn.Str)
			s.walkAll(x.args()[1:])
			return
		}
		s.walkAll(x.args())
		return
	case opSpecial:
		switch f := x.form.(type) {
		case *defatomForm:
			return
		case *taskForm:
			if f.literal {
				if !f.tool {
					s.add(f.call.name) // used as written (SPEC §7.15)
				}
				s.walkArgs(f.call, f.call.name)
				return
			}
			s.walk(f.nameExpr())
			s.walkArgs(f.call, "")
			return
		}
	}
	s.walkAll(x.children())
}
