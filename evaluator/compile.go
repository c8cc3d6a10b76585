package evaluator

import (
	"github.com/evalrun/evalrun/sexp"
	"github.com/evalrun/evalrun/value"
)

// maxNesting bounds how deeply expressions may nest, so that compiling and
// evaluating never exhaust the Go stack whatever the reader accepted.
const maxNesting = sexp.MaxNesting

// opKind says how an expr evaluates.
type opKind uint8

const (
	opConst       opKind = iota // self-evaluating atom, keyword or (quote d): val
	opSymbol                    // variable reference: name
	opSpecial                   // special form: sf
	opPrim                      // primitive call: prim
	opNamed                     // symbol head resolved at run time: template, tool or variable
	opApplyExpr                 // list head: its value is applied
	opApplyString               // string-literal head: applied as a name
	opBadHead                   // any other head: an error when evaluated
)

// expr is a compiled node. Special forms and primitives are resolved once,
// when the program is compiled, because variables never shadow them in
// operator position (SPEC §6.3); templates, tools and variables are resolved
// when the form is evaluated.
type expr struct {
	op    opKind
	syn   *sexp.Node
	val   value.Value
	name  string
	sf    *specialForm
	prim  *primitive
	elems []*expr // every element of a list form, the head included
	// site describes the form to the primitives it may call; it is built
	// once so that a primitive call allocates nothing for it.
	site *call
}

// args returns the compiled arguments of a list form.
func (x *expr) args() []*expr { return x.elems[1:] }

// pos returns the position of the expression's source node.
func (x *expr) pos() sexp.Pos { return x.syn.Pos }

// compile turns read nodes into exprs.
func compile(n *sexp.Node) (*expr, error) {
	var c compiler
	return c.compile(n, 0)
}

// compiler holds the state of one compilation.
type compiler struct {
	// quoted holds the value of each datum quoted so far, so that nested
	// quote forms, compiled inner first, convert every node once.
	quoted map[*sexp.Node]value.Value
}

func (c *compiler) compile(n *sexp.Node, depth int) (*expr, error) {
	if depth > maxNesting {
		return nil, errorf(n.Pos, KindDepth, "expression nesting too deep (more than %d levels)", maxNesting)
	}
	switch n.Kind {
	case sexp.Symbol:
		if len(n.Str) > 0 && n.Str[0] == ':' {
			return &expr{op: opConst, syn: n, val: value.Symbol(n.Str)}, nil
		}
		return &expr{op: opSymbol, syn: n, name: n.Str}, nil
	case sexp.List:
		if len(n.Items) == 0 {
			return &expr{op: opConst, syn: n, val: value.List(nil)}, nil
		}
	default:
		return &expr{op: opConst, syn: n, val: nodeValue(n)}, nil
	}
	head := n.Items[0]
	// The elements are compiled even for a quote form: forms such as cond,
	// let and the loops read their clauses through elems, and a clause may
	// be spelled (quote x).
	x := &expr{syn: n, elems: make([]*expr, len(n.Items))}
	for i, item := range n.Items {
		e, err := c.compile(item, depth+1)
		if err != nil {
			return nil, err
		}
		x.elems[i] = e
	}
	if head.Kind == sexp.Symbol && head.Str == "quote" && len(n.Items) == 2 {
		v, err := c.quotedValue(n.Items[1], depth+1)
		if err != nil {
			return nil, err
		}
		if c.quoted == nil {
			c.quoted = map[*sexp.Node]value.Value{}
		}
		c.quoted[n.Items[1]] = v
		x.op, x.val = opConst, v
		return x, nil
	}
	x.site = &call{form: x, argExprs: x.elems[1:]}
	switch head.Kind {
	case sexp.Symbol:
		x.name = head.Str
		if sf, ok := specialForms[head.Str]; ok {
			x.op, x.sf = opSpecial, sf
		} else if p, ok := primitives[head.Str]; ok {
			x.op, x.prim = opPrim, p
		} else {
			x.op = opNamed
		}
	case sexp.List, sexp.Nil:
		// nil reads as the empty list, so (nil 1) is (() 1).
		x.op = opApplyExpr
	case sexp.String:
		x.op, x.name = opApplyString, head.Str
	default:
		x.op = opBadHead
	}
	return x, nil
}

// nodeValue converts an atom node into its value.
func nodeValue(n *sexp.Node) value.Value {
	switch n.Kind {
	case sexp.Int:
		return value.Int(n.Int)
	case sexp.Float:
		return value.Float(n.Float)
	case sexp.Bool:
		return value.Bool(n.Bool)
	case sexp.String:
		return value.String(n.Str)
	case sexp.Symbol:
		return value.Symbol(n.Str)
	}
	return value.List(nil)
}

// quotedValue converts a datum into the value quote returns.
func quotedValue(n *sexp.Node, depth int) (value.Value, error) {
	if depth > maxNesting {
		return nil, errorf(n.Pos, KindDepth, "expression nesting too deep (more than %d levels)", maxNesting)
	}
	if n.Kind != sexp.List {
		return nodeValue(n), nil
	}
	if len(n.Items) == 0 {
		return value.List(nil), nil
	}
	l := make(value.List, len(n.Items))
	for i, item := range n.Items {
		v, err := quotedValue(item, depth+1)
		if err != nil {
			return nil, err
		}
		l[i] = v
	}
	return l, nil
}

// quotedValue is the package's quotedValue reusing the values of data quoted
// earlier in the compilation.
func (c *compiler) quotedValue(n *sexp.Node, depth int) (value.Value, error) {
	if v, ok := c.quoted[n]; ok {
		return v, nil
	}
	if depth > maxNesting {
		return nil, errorf(n.Pos, KindDepth, "expression nesting too deep (more than %d levels)", maxNesting)
	}
	if n.Kind != sexp.List || len(n.Items) == 0 {
		return quotedValue(n, depth)
	}
	l := make(value.List, len(n.Items))
	for i, item := range n.Items {
		v, err := c.quotedValue(item, depth+1)
		if err != nil {
			return nil, err
		}
		l[i] = v
	}
	return l, nil
}

// datum converts a node to a value for messages that quote source syntax.
func datum(n *sexp.Node) value.Value {
	v, err := quotedValue(n, 0)
	if err != nil {
		return value.Symbol("...")
	}
	return v
}
