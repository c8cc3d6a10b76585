package sexp

import "fmt"

// A Builder makes the values of quoted data while the text is read, so that
// a large quoted datum is held once, as values, instead of as a node per
// datum that is converted afterwards (ParseBuilding).
//
// The reader calls Atom for every atom and string of a quoted datum, List
// for every list once its elements are made (innermost first) and Quote
// for 'd inside a quoted datum. The node Atom is given and the slice List
// is given are the reader's own and reused after the call: a value must
// not keep them.
type Builder interface {
	// Atom returns the value of an atom or string; n.Items is empty.
	Atom(n *Node) any
	// List returns the value of a list whose elements have the values
	// items (empty for ()).
	List(items []any) any
	// Quote returns the value of 'd, the list (quote d), whose datum has
	// the value d.
	Quote(d any) any
}

// ParseBuilding is Parse that hands every list quoted with the shorthand
// to b as it is read, '(…) and also the list (quote d) that a quoted 'd
// stands for: the datum's node is then a List without Items (Quoted when
// the datum is 'd) whose value is Node.Built. Atoms written 'x, and data
// written (quote d), are read as nodes, as by Parse. Errors, with their
// positions, are those of Parse.
func ParseBuilding(src *Source, b Builder) ([]*Node, error) {
	if src == nil {
		src = &Source{}
	}
	p := newParser(src, 0)
	p.builder = b
	f, errs := p.file()
	if len(errs) > 0 {
		return nil, errs[0]
	}
	return f.Forms, nil
}

// Built returns the value a Builder made for the node of a quoted datum
// (ParseBuilding), and whether there is one: the node is then a List
// without Items, whose position and end are those of the datum.
func (n *Node) Built() (any, bool) {
	if !n.built || n.Pos.Src == nil {
		return nil, false
	}
	return n.Pos.Src.built[n.Int], true
}

// Reread returns the nodes of a datum that a Builder made (Built), read
// again from its source text with their positions, as Parse reads them;
// for any other node it returns n. It is for the rare reader of a quoted
// datum's syntax.
func (n *Node) Reread() *Node {
	if !n.built || n.Pos.Src == nil {
		return n
	}
	p := newParser(n.Pos.Src, 0)
	p.lx.off = n.Pos.Off
	p.one = true
	forms := p.parse()
	if len(forms) != 1 || len(p.lx.errs) > 0 || forms[0].End() != n.End() {
		// The text read once without error reads the same again.
		panic(fmt.Sprintf("sexp: the datum at %s does not read again", n.Pos))
	}
	return forms[0]
}

// builtNode returns a new node for a datum whose value v a Builder made,
// from offset start to end.
func (p *parser) builtNode(v any, start, end int) int {
	src := p.lx.src
	n, i := p.alloc.node()
	n.Kind, n.Pos, n.end, n.built = List, Pos{Src: src, Off: start}, uint32(end), true
	n.Int = int64(len(src.built))
	src.built = append(src.built, v)
	return i
}

// building reports whether the innermost open construct is part of a
// datum made by the Builder.
func (p *parser) building() bool {
	return p.builder != nil && len(p.stack) > 0 && p.stack[len(p.stack)-1].build
}

// buildAtom returns the value of the atom or string that the scratch node
// holds.
func (p *parser) buildAtom() any {
	v := p.builder.Atom(&p.scratch)
	p.scratch = Node{}
	return v
}

// completeValue hands the finished value v of a datum that starts at start
// to the construct that waits for it, as complete does for nodes: a list
// being built takes it as an element, a quote inside a datum being built
// makes (quote v), and the outermost quote of the datum gets a node
// holding v. It returns the datum when it is a finished top-level form,
// else none.
func (p *parser) completeValue(v any, start int) int {
	quoted := false // v is (quote d), written 'd
	for len(p.stack) > 0 {
		top := p.stack[len(p.stack)-1]
		if !top.quote {
			if len(p.vals) == cap(p.vals) {
				// Double: append grows large slices by a quarter, which
				// leaves four times the final size behind as garbage
				// while a list of a million elements is read.
				p.vals = append(make([]any, 0, max(2*cap(p.vals), 256)), p.vals...)
			}
			p.vals = append(p.vals, v)
			return none
		}
		p.stack = p.stack[:len(p.stack)-1]
		if len(p.stack) > 0 && p.stack[len(p.stack)-1].build {
			v, start, quoted = p.builder.Quote(v), top.open, true
			continue
		}
		d := p.builtNode(v, start, p.lx.off)
		p.alloc.at(d).Quoted = quoted
		return p.complete(p.quoted(top.open, d))
	}
	// Only a quote starts building, and it is the outermost open
	// construct of what it builds.
	panic(fmt.Sprintf("sexp: a built value at offset %d outside a quote", start))
}
