package evaluator

import (
	"sync/atomic"

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
	opSpecial                   // special form: sf and its compiled form
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
	op   opKind
	syn  *sexp.Node
	val  value.Value
	name string
	sf   *specialForm
	// form is the typed form of a special form (opSpecial): its parts
	// checked once, when it was compiled.
	form form
	prim *primitive
	// elems holds every element of a list form that is not a special form,
	// the head included.
	elems []*expr
	// site describes the form to the primitives it may call; it is built
	// once so that a primitive call allocates nothing for it.
	site *call
	// callArgs are the form's arguments read as the named arguments of a
	// task or tool call (SPEC §11.1), for a form that may be one; callErr,
	// when set, makes the error of a malformed one (readCallArgs).
	callArgs []callArg
	callErr  func(task string) error
	// depth and slot locate the binding of a variable reference (opSymbol)
	// whose frame is known at compile time: depth frames up, at index
	// slot; slot is -1 when the name is looked up at run time.
	depth, slot int32
	// global remembers where the global frame binds a reference with slot
	// slotGlobal; parallel branches share it.
	global atomic.Pointer[globalRef]
	// fast is the integer fast path of a two-argument arithmetic or
	// comparison primitive (fastpath.go), fastNone for others.
	fast fastOp
}

// args returns the compiled arguments of a list form.
func (x *expr) args() []*expr { return x.elems[1:] }

// pos returns the position of the expression's source node.
func (x *expr) pos() sexp.Pos { return x.syn.Pos }

// compile turns a read node into an expr.
func compile(n *sexp.Node) (*expr, error) {
	var c compiler
	return c.compile(n, 0)
}

// compiler holds the state of one compilation.
type compiler struct {
	// problems are the shape errors of special forms found so far, in the
	// order met; each is raised when evaluation reaches its place.
	problems []*Error
	// scope is the static scope being compiled (see resolve.go), nil when
	// every reference is looked up by name; refs are the references to
	// resolve.
	scope *staticScope
	refs  []symbolRef
	// closureMemo remembers makesClosure's answer for each list.
	closureMemo map[*sexp.Node]bool
}

// newProgramCompiler returns a compiler for the top-level forms of a
// program, which run in the global frame.
func newProgramCompiler() *compiler {
	return &compiler{scope: &staticScope{global: true, defines: map[string]bool{}}}
}

// problem records a shape error and returns it.
func (c *compiler) problem(e *Error) *Error {
	c.problems = append(c.problems, e)
	return e
}

// exprs compiles nodes in order.
func (c *compiler) exprs(ns []*sexp.Node, depth int) ([]*expr, error) {
	if len(ns) == 0 {
		return nil, nil
	}
	xs := make([]*expr, len(ns))
	for i, n := range ns {
		x, err := c.compile(n, depth)
		if err != nil {
			return nil, err
		}
		xs[i] = x
	}
	return xs, nil
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
		x := &expr{op: opSymbol, syn: n, name: n.Str}
		c.reference(x)
		return x, nil
	case sexp.List:
		if len(n.Items) == 0 {
			return &expr{op: opConst, syn: n, val: value.List(nil)}, nil
		}
	default:
		return &expr{op: opConst, syn: n, val: nodeValue(n)}, nil
	}
	head := n.Items[0]
	x := &expr{syn: n}
	if head.Kind == sexp.Symbol {
		if sf, ok := specialForms[head.Str]; ok {
			x.op, x.sf, x.name = opSpecial, sf, head.Str
			f, err := sf.compile(c, x, depth+1)
			if err != nil {
				return nil, err
			}
			x.form = f
			return x, nil
		}
	}
	elems, err := c.exprs(n.Items, depth+1)
	if err != nil {
		return nil, err
	}
	x.elems = elems
	x.site = &call{form: x, argExprs: x.elems[1:]}
	switch head.Kind {
	case sexp.Symbol:
		x.name = head.Str
		if p, ok := primitives[head.Str]; ok {
			x.op, x.prim = opPrim, p
			if optimize && len(n.Items) == 3 {
				x.fast = fastOps[p.name]
			}
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
	if x.op == opNamed || x.op == opApplyExpr || x.op == opApplyString {
		// A task or tool call, or a value applied to argument syntax,
		// which may name a template or tool.
		if err := c.readCallArgs(x, depth); err != nil {
			return nil, err
		}
	}
	return x, nil
}

// nodeValue converts an atom node into its value.
func nodeValue(n *sexp.Node) value.Value {
	switch n.Kind {
	case sexp.Int:
		return value.Int(n.Int)
	case sexp.Float:
		return value.Float(n.Float())
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
	var q quoter
	return q.value(n, depth)
}

// Parse reads the top-level forms of src as Compile does: every list
// quoted with the shorthand '(…) is made into its value while it is read
// (sexp.ParseBuilding), so that a large quoted datum is held once, as
// values, rather than as syntax nodes converted when the program is
// compiled. Errors are those of sexp.Parse.
func Parse(src *sexp.Source) ([]*sexp.Node, error) {
	return sexp.ParseBuilding(src, &quoteBuilder{})
}

// quoteBuilder is the sexp.Builder of Parse: it makes the values that
// quote returns. The elements of short lists are carved from shared
// blocks, and symbols are shared as by quoter.
type quoteBuilder struct {
	q         quoter
	block     []value.Value // the rest of the current block of list elements
	blockSize int           // the size of the next block
	quote     value.Value   // the symbol quote
}

// quoteBlockSize is the most list elements in one block (the first blocks
// are smaller, so that a program with a short quoted list or two does not
// take a whole one); lists longer
// than a sixteenth of it get their own.
const quoteBlockSize = 4096

// Atom implements sexp.Builder.
func (b *quoteBuilder) Atom(n *sexp.Node) any { return b.q.atom(n) }

// List implements sexp.Builder.
func (b *quoteBuilder) List(items []any) any {
	if len(items) == 0 {
		return value.List(nil)
	}
	l := b.elements(len(items))
	for i, it := range items {
		l[i] = it.(value.Value)
	}
	return l
}

// Quote implements sexp.Builder.
func (b *quoteBuilder) Quote(d any) any {
	if b.quote == nil {
		b.quote = value.Symbol("quote")
	}
	l := b.elements(2)
	l[0], l[1] = b.quote, d.(value.Value)
	return l
}

// elements returns a list of n elements whose capacity is n, so that an
// append copies it rather than writing into the next list.
func (b *quoteBuilder) elements(n int) value.List {
	if n > quoteBlockSize/16 {
		return make(value.List, n)
	}
	if len(b.block) < n {
		b.blockSize = min(max(2*b.blockSize, 64), quoteBlockSize)
		b.block = make([]value.Value, max(b.blockSize, n))
	}
	l := value.List(b.block[:n:n])
	b.block = b.block[n:]
	return l
}

// quoter converts one quoted datum into its value. A quoted datum may be
// megabytes of data, so the conversion allocates as little per element as
// it can: the atoms of a list are converted in the list's own loop, and
// the occurrences of a symbol share one boxed value (symbols are
// immutable, so sharing cannot be seen) while it stays in the quoter's
// cache.
type quoter struct {
	symbols *[symbolCacheSize]sharedSymbol // made once 64 symbols are met
	atoms   int                            // symbols converted before
}

// symbolCacheSize is the number of symbols a quoter remembers: a cache
// indexed by a hash of the name, where a symbol replaces the one it
// collides with, so that a datum of millions of distinct symbols costs no
// more than one of a few.
const symbolCacheSize = 512

// sharedSymbol is an entry of a quoter's symbol cache.
type sharedSymbol struct {
	name string
	v    value.Value
}

// value converts n, nested depth levels deep.
func (q *quoter) value(n *sexp.Node, depth int) (value.Value, error) {
	if depth > maxNesting {
		return nil, errorf(n.Pos, KindDepth, "expression nesting too deep (more than %d levels)", maxNesting)
	}
	if v, ok := n.Built(); ok {
		return v.(value.Value), nil
	}
	if n.Kind != sexp.List {
		return q.atom(n), nil
	}
	if len(n.Items) == 0 {
		return value.List(nil), nil
	}
	l := make(value.List, len(n.Items))
	for i, item := range n.Items {
		if item.Kind != sexp.List {
			l[i] = q.atom(item)
			continue
		}
		if v, ok := item.Built(); ok {
			l[i] = v.(value.Value)
			continue
		}
		v, err := q.value(item, depth+1)
		if err != nil {
			return nil, err
		}
		l[i] = v
	}
	return l, nil
}

// atom converts an atom node, sharing the value of a symbol met before.
func (q *quoter) atom(n *sexp.Node) value.Value {
	if n.Kind != sexp.Symbol {
		return nodeValue(n)
	}
	if q.symbols == nil {
		if q.atoms++; q.atoms < 64 {
			// A quoted symbol or short list: not worth a cache.
			return value.Symbol(n.Str)
		}
		q.symbols = new([symbolCacheSize]sharedSymbol)
	}
	e := &q.symbols[symbolHash(n.Str)%symbolCacheSize]
	if e.v == nil || e.name != n.Str {
		e.name, e.v = n.Str, value.Symbol(n.Str)
	}
	return e.v
}

// symbolHash is a cheap hash of a symbol name: its length and up to its
// first 16 bytes.
func symbolHash(s string) uint32 {
	h := uint32(len(s))
	for i := 0; i < len(s) && i < 16; i++ {
		h = h*31 + uint32(s[i])
	}
	return h
}

// datum converts a node to a value for messages that quote source syntax.
func datum(n *sexp.Node) value.Value {
	v, err := quotedValue(n, 0)
	if err != nil {
		return value.Symbol("...")
	}
	return v
}
