package evaluator

import (
	"strings"

	"github.com/evalrun/evalrun/sexp"
	"github.com/evalrun/evalrun/templates"
	"github.com/evalrun/evalrun/value"
)

func init() {
	defineForm("defatom", true, compileDefatom)
}

var defatomAttributes = []string{"params", "instructions", "description", "subtype", "model", "type", "output_format", "history_config", "depends"}

// defatomForm is a defatom form read into its template; err is its shape
// error.
type defatomForm struct {
	tmpl *templates.Template
	err  *Error
}

func compileDefatom(c *compiler, x *expr, depth int) (form, error) {
	tmpl, err := parseDefatom(x.syn)
	if err != nil {
		return &defatomForm{err: c.problem(asEvalError(err, x.pos()))}, nil
	}
	return &defatomForm{tmpl: tmpl}, nil
}

// eval defines the template (SPEC §7.14) and returns its name as a symbol.
// Each evaluation registers a template of its own.
func (f *defatomForm) eval(t *thread, x *expr, env *Env) (value.Value, error) {
	if f.err != nil {
		e := *f.err
		return nil, &e
	}
	cp := *f.tmpl
	tmpl := &cp
	if t.in.tasks == nil {
		return nil, newError(x.pos(), KindValue, "defatom: no task system is configured")
	}
	t.in.defMu.Lock()
	err := t.in.tasks.Define(tmpl)
	t.in.defMu.Unlock()
	if err != nil {
		return nil, errorf(x.pos(), KindValue, "%s", err)
	}
	return value.Symbol(tmpl.Name), nil
}

// children is empty: a defatom form evaluates no expression.
func (f *defatomForm) children() []*expr { return nil }

// parseDefatom turns a defatom form into a template; it evaluates nothing.
func parseDefatom(form *sexp.Node) (*templates.Template, error) {
	items := form.Items[1:]
	if len(items) == 0 {
		return nil, newError(form.Pos, KindArity, "'defatom' requires a task name and an (instructions \"string\") definition")
	}
	nameNode := items[0]
	if nameNode.Kind != sexp.Symbol {
		return nil, errorf(nameNode.Pos, KindType, "Task name must be a symbol, got %s: %s", nameNode.Kind, value.Text(datum(nameNode)))
	}
	name := nameNode.Str
	if !templates.ValidName(name) {
		return nil, errorf(nameNode.Pos, KindValue, "Invalid task name '%s': must match %s", name, templates.NamePattern)
	}
	pos := form.Pos.Position()
	tmpl := &templates.Template{
		Name:        name,
		Type:        "atomic",
		Subtype:     "standard",
		Description: "Dynamically defined task: " + name,
		Scope:       templates.ScopeDefatom,
		Path:        pos.Filename,
		Line:        pos.Line,
		Col:         pos.Column,
	}
	seen := map[string]bool{}
	var instructions *sexp.Node
	for _, c := range items[1:] {
		if c.Kind != sexp.List || len(c.Items) == 0 || c.Items[0].Kind != sexp.Symbol {
			return nil, errorf(c.Pos, KindValue, "Attribute must be a list starting with a keyword: %s", datum(c))
		}
		attr := c.Items[0].Str
		if !contains(defatomAttributes, attr) {
			return nil, errorf(c.Pos, KindValue, "Unknown attribute name: %s. Allowed attributes: %s", attr, strings.Join(defatomAttributes, ", "))
		}
		if seen[attr] {
			return nil, errorf(c.Pos, KindValue, "Duplicate attribute: %s", attr)
		}
		seen[attr] = true
		args := c.Items[1:]
		var err error
		switch attr {
		case "params":
			err = defatomParams(tmpl, args)
		case "instructions":
			instructions = c
			if len(args) != 1 || args[0].Kind != sexp.String {
				got := value.Value(value.List(nil))
				if len(args) == 1 {
					got = datum(args[0])
				} else if len(args) > 1 {
					got = datum(c)
				}
				return nil, errorf(c.Pos, KindValue, "'defatom' requires an (instructions \"string\") definition, got: %s for task '%s'", got, name)
			}
			tmpl.Instructions = args[0].Str
		case "description", "subtype", "model", "type":
			var s string
			if s, err = optionalString(attr, c, args); err == nil {
				err = setStringAttr(tmpl, attr, s, c)
			}
		case "output_format":
			err = defatomOutputFormat(tmpl, c, args)
		case "history_config":
			err = defatomHistory(tmpl, c, args)
		case "depends":
			for _, d := range args {
				if d.Kind != sexp.Symbol && d.Kind != sexp.String {
					return nil, errorf(d.Pos, KindValue, "'depends' names tasks with symbols or strings, got %s: %s", d.Kind, datum(d))
				}
				tmpl.Depends = append(tmpl.Depends, d.Str)
			}
		}
		if err != nil {
			return nil, err
		}
	}
	if instructions == nil {
		return nil, errorf(form.Pos, KindValue, "Missing required 'instructions' attribute for task '%s'", name)
	}
	if err := templates.Infer(tmpl); err != nil {
		return nil, errorf(instructions.Pos, KindValue, "%s", err)
	}
	return tmpl, nil
}

func optionalString(attr string, c *sexp.Node, args []*sexp.Node) (string, error) {
	if len(args) == 1 && args[0].Kind == sexp.String {
		return args[0].Str, nil
	}
	var got value.Value = value.List(nil)
	typ := "list"
	if len(args) == 1 {
		got = datum(args[0])
		typ = got.Type()
	} else if len(args) > 1 {
		l := make(value.List, len(args))
		for i, a := range args {
			l[i] = datum(a)
		}
		got = l
	}
	return "", errorf(c.Pos, KindType, "Value for optional argument '%s' must be a string, got %s: %s", attr, typ, got)
}

func setStringAttr(tmpl *templates.Template, attr, s string, c *sexp.Node) error {
	switch attr {
	case "description":
		tmpl.Description = s
	case "subtype":
		if !templates.ValidSubtype(s) {
			return errorf(c.Pos, KindValue, "invalid subtype '%s': must match %s", s, `^[a-z0-9]+([-_][a-z0-9]+)*$`)
		}
		tmpl.Subtype = s
	case "model":
		tmpl.Model = s
	case "type":
		if s != "atomic" {
			return errorf(c.Pos, KindValue, "type must be \"atomic\", got %q", s)
		}
	}
	return nil
}

func defatomParams(tmpl *templates.Template, args []*sexp.Node) error {
	tmpl.InputsDeclared = true
	tmpl.Inputs = tmpl.Inputs[:0]
	bad := func(n *sexp.Node) error {
		return errorf(n.Pos, KindValue, "Invalid parameter definition format in (params ...) for task '%s'. Expected symbol or (symbol type?), got: %s", tmpl.Name, datum(n))
	}
	for _, p := range args {
		in := templates.Input{Type: "any", Required: true}
		switch {
		case p.Kind == sexp.Symbol:
			in.Name = p.Str
		case p.Kind == sexp.List && len(p.Items) >= 1 && len(p.Items) <= 3 && p.Items[0].Kind == sexp.Symbol:
			in.Name = p.Items[0].Str
			rest := p.Items[1:]
			if len(rest) == 2 {
				if !rest[0].IsSymbol("optional") {
					return bad(p)
				}
				in.Required = false
				in.Default = value.Null{}
				rest = rest[1:]
			}
			if len(rest) == 1 {
				typ, err := paramType(tmpl, in.Name, rest[0])
				if err != nil {
					return err
				}
				if typ == "" {
					return bad(p)
				}
				in.Type = typ
			}
		default:
			return bad(p)
		}
		if !templates.ValidInputName(in.Name) {
			return errorf(p.Pos, KindValue, "invalid parameter name '%s' for task '%s'", in.Name, tmpl.Name)
		}
		if _, dup := tmpl.InputNamed(in.Name); dup {
			return errorf(p.Pos, KindValue, "duplicate input '%s' for task '%s'", in.Name, tmpl.Name)
		}
		tmpl.Inputs = append(tmpl.Inputs, in)
	}
	return nil
}

// paramType reads TYPE or (object (f TYPE) ...); "" means the shape is wrong.
func paramType(tmpl *templates.Template, param string, n *sexp.Node) (string, error) {
	switch {
	case n.Kind == sexp.Symbol:
		typ, err := templates.NormalizeType(n.Str)
		if err != nil {
			return "", errorf(n.Pos, KindValue, "Unknown parameter type '%s' for parameter '%s' in task '%s'", n.Str, param, tmpl.Name)
		}
		return typ, nil
	case n.Kind == sexp.List && len(n.Items) >= 1 && n.Items[0].IsSymbol("object"):
		for _, f := range n.Items[1:] {
			if f.Kind != sexp.List || len(f.Items) != 2 || f.Items[0].Kind != sexp.Symbol {
				return "", nil
			}
			if _, err := paramType(tmpl, param, f.Items[1]); err != nil {
				return "", err
			}
		}
		return "dict", nil
	}
	return "", nil
}

// pairEntry is one (key value) entry of a pair list.
type pairEntry struct {
	key string
	v   *sexp.Node
}

// pairList reads a defatom pair list ((key value) ...), possibly quoted,
// into its entries in source order; a repeated key keeps its first place
// and its last value. Values are strings, ints, booleans or nil (nil means
// "not set").
func pairList(attr string, c *sexp.Node, args []*sexp.Node) ([]pairEntry, error) {
	if len(args) != 1 {
		return nil, errorf(c.Pos, KindValue, "'%s' requires one list of (key value) pairs", attr)
	}
	l := args[0]
	if l.Kind == sexp.List && len(l.Items) == 2 && l.Items[0].IsSymbol("quote") {
		l = l.Items[1].Reread() // Parse made the quoted list a value
	}
	if l.Kind == sexp.Nil {
		return nil, nil
	}
	if l.Kind != sexp.List {
		return nil, errorf(l.Pos, KindValue, "'%s' requires one list of (key value) pairs, got %s", attr, datum(l))
	}
	var pairs []pairEntry
	at := map[string]int{}
	for _, p := range l.Items {
		if p.Kind != sexp.List || len(p.Items) != 2 || p.Items[0].Kind != sexp.Symbol {
			return nil, errorf(p.Pos, KindValue, "'%s' entries must be (key value) pairs, got %s", attr, datum(p))
		}
		switch p.Items[1].Kind {
		case sexp.String, sexp.Int, sexp.Bool, sexp.Nil:
		default:
			return nil, errorf(p.Items[1].Pos, KindValue, "'%s' value for '%s' must be a string, int, boolean or nil, got %s", attr, p.Items[0].Str, p.Items[1].Kind)
		}
		if i, ok := at[p.Items[0].Str]; ok {
			pairs[i].v = p.Items[1]
			continue
		}
		at[p.Items[0].Str] = len(pairs)
		pairs = append(pairs, pairEntry{key: p.Items[0].Str, v: p.Items[1]})
	}
	return pairs, nil
}

func defatomOutputFormat(tmpl *templates.Template, c *sexp.Node, args []*sexp.Node) error {
	pairs, err := pairList("output_format", c, args)
	if err != nil {
		return err
	}
	of := &templates.OutputFormat{Type: "text"}
	for _, e := range pairs {
		k, v := e.key, e.v
		if v.Kind == sexp.Nil {
			continue
		}
		if v.Kind != sexp.String {
			return errorf(v.Pos, KindValue, "'output_format' value for '%s' must be a string, got %s", k, v.Kind)
		}
		switch k {
		case "type":
			if v.Str != "json" && v.Str != "text" {
				return errorf(v.Pos, KindValue, "invalid value %q for output_format type: expected json or text", v.Str)
			}
			of.Type = v.Str
		case "schema":
			of.Schema = v.Str
		default:
			return errorf(v.Pos, KindValue, "unknown key '%s' in output_format for task '%s'", k, tmpl.Name)
		}
	}
	tmpl.OutputFormat = of
	return nil
}

func defatomHistory(tmpl *templates.Template, c *sexp.Node, args []*sexp.Node) error {
	pairs, err := pairList("history_config", c, args)
	if err != nil {
		return err
	}
	for _, e := range pairs {
		k, v := e.key, e.v
		if v.Kind == sexp.Nil {
			continue
		}
		switch k {
		case "use_session_history", "record_in_session_history":
			if v.Kind != sexp.Bool {
				return errorf(v.Pos, KindValue, "invalid value %s for %s: expected true or false", v.Raw(), k)
			}
			b := v.Bool
			if k == "use_session_history" {
				tmpl.History.UseSessionHistory = &b
			} else {
				tmpl.History.RecordInSessionHistory = &b
			}
		case "history_turns_to_include":
			if v.Kind != sexp.Int || v.Int < 1 {
				return errorf(v.Pos, KindValue, "invalid value %s for history_turns_to_include: expected an integer >= 1", v.Raw())
			}
			n := int(v.Int)
			tmpl.History.HistoryTurnsToInclude = &n
		default:
			return errorf(v.Pos, KindValue, "unknown key '%s' in history_config for task '%s'", k, tmpl.Name)
		}
	}
	return nil
}
