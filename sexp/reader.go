package sexp

import "math"

// Mode selects optional behaviour of ParseFile.
type Mode uint

const (
	// ParseComments collects the comments of the text into File.Comments.
	ParseComments Mode = 1 << iota
	// AllowEmpty accepts a text without forms instead of reporting
	// "empty program" (for example a REPL line holding only a comment).
	AllowEmpty
)

// File is the result of ParseFile: the top-level forms of one source text and,
// with ParseComments, its comments.
type File struct {
	Src      *Source
	Forms    []*Node
	Comments []Comment // in source order; only with ParseComments
}

// Comment is one comment: from its ';' to the end of its line.
type Comment struct {
	Pos  Pos    // the ';'
	End  int    // byte offset just after the comment's last byte
	Text string // the source text from ';' on, without the line terminator
}

// Parse reads all top-level forms of src (SPEC §4). A text without forms is
// the syntax error "empty program". Every error returned is an *Error.
func Parse(src *Source) ([]*Node, error) {
	f, err := ParseFile(src, 0)
	if err != nil {
		return nil, err
	}
	return f.Forms, nil
}

// ParseString reads the top-level forms of text, named name in positions.
func ParseString(name, text string) ([]*Node, error) {
	return Parse(NewSource(name, text))
}

// ParseFile reads all top-level forms of src and, as mode asks, its comments.
// Every error returned is an *Error: the first one met in reading order (see
// ParseAll for all of them). A nil src reads as an empty text.
//
// The reader keeps its own stack instead of recursing, so any depth of nesting
// is read. Nodes are allocated in blocks and atom texts are substrings of
// src.Text, so any node kept keeps the whole text and its block alive.
func ParseFile(src *Source, mode Mode) (*File, error) {
	f, errs := ParseAll(src, mode)
	if len(errs) > 0 {
		return nil, errs[0]
	}
	return f, nil
}

// ParseAll is ParseFile that keeps reading after an error, as go/scanner
// does, and returns every syntax error of the text in the order met, with
// the forms read (those that hold an error may be incomplete: an atom that
// is out of range reads as a symbol, a stray bracket or ')' is skipped). It
// stops at a string without its closing quote, which takes the rest of the
// text, and at nesting deeper than MaxNesting. The File is nil when there is
// an error.
func ParseAll(src *Source, mode Mode) (*File, ErrorList) {
	if src == nil {
		src = &Source{}
	}
	return newParser(src, mode).file()
}

// file reads the text and returns the File, or every error met.
func (p *parser) file() (*File, ErrorList) {
	src := p.lx.src
	if uint64(len(src.Text)) > math.MaxUint32 {
		// Node offsets are 32 bits.
		return nil, ErrorList{{Pos: Pos{Src: src}, Msg: msgTooLarge}}
	}
	forms := p.parse()
	if len(p.lx.errs) > 0 {
		return nil, p.lx.errs
	}
	if len(forms) == 0 && p.mode&AllowEmpty == 0 {
		return nil, ErrorList{{Pos: Pos{Src: src}, Msg: msgEmptyProgram}}
	}
	return &File{Src: src, Forms: forms, Comments: p.lx.comments}, nil
}

// frame is one open construct on the reader's stack: a list waiting for its
// ')' or a quote waiting for its datum.
type frame struct {
	open  int  // offset of the '(' or the '\''
	quote bool // a quote shorthand rather than a list
	// build marks a construct inside a datum that the Builder makes: the
	// elements of such a list are values, in parser.vals.
	build bool
	first int // index in parser.items (or parser.vals) of the list's first element
}

// parser builds nodes from the lexer's tokens with an explicit stack.
type parser struct {
	lx    lexer
	stack []frame
	items []int // node indexes of the elements of all open lists, innermost last
	alloc allocator
	mode  Mode
	one   bool // stop after the first top-level form (Node.Reread)

	// builder, when set, makes the values of quoted data (ParseBuilding):
	// vals holds the values of the elements of the open lists being built,
	// and scratch is the node an atom being built is read into.
	builder Builder
	vals    []any
	scratch Node

	// First backing arrays of stack and items, enough for most texts.
	stackBuf [16]frame
	itemsBuf [64]int
}

func newParser(src *Source, mode Mode) *parser {
	p := &parser{lx: lexer{src: src, text: src.Text, keepComments: mode&ParseComments != 0}, mode: mode}
	p.stack, p.items = p.stackBuf[:0], p.itemsBuf[:0]
	p.alloc.init(len(src.Text))
	p.lx.off = src.bomLen() // a leading byte-order mark is ignored
	return p
}

// parse reads the top-level forms, recording errors in p.lx and going on
// after those it can step over.
func (p *parser) parse() []*Node {
	var forms []*Node
	lx := &p.lx
	for lx.skipSpace() && lx.off < len(lx.text) {
		start := lx.off
		var n int
		switch c := lx.text[start]; c {
		case '(':
			if p.building() {
				p.stack = append(p.stack, frame{open: start, build: true, first: len(p.vals)})
			} else {
				p.stack = append(p.stack, frame{open: start, first: len(p.items)})
			}
			lx.off++
			if len(p.stack) > MaxNesting {
				lx.fail(start, msgTooDeep)
				return nil
			}
			continue
		case '\'':
			p.stack = append(p.stack, frame{open: start, quote: true, build: p.building() || p.builder != nil && p.quotesList(start+1)})
			lx.off++
			if len(p.stack) > MaxNesting {
				lx.fail(start, msgTooDeep)
				return nil
			}
			continue
		case ')':
			if p.building() && !p.stack[len(p.stack)-1].quote {
				open := p.stack[len(p.stack)-1].open
				if n = p.completeValue(p.closeBuilt(), open); n != none {
					forms = append(forms, p.alloc.at(n))
				}
				continue
			}
			if n = p.closeList(); n == none {
				continue
			}
		case '[', ']':
			lx.fail(start, msgSquareBrackets)
			lx.off++
			continue
		case '"':
			if n = p.readString(); n == none {
				return forms // the rest of the text is the unterminated string
			}
		default:
			n = p.readAtom()
		}
		if n == scratchNode {
			if n = p.completeValue(p.buildAtom(), start); n != none {
				forms = append(forms, p.alloc.at(n))
			}
			continue
		}
		if n = p.complete(n); n != none {
			forms = append(forms, p.alloc.at(n))
			if p.one {
				return forms
			}
		}
	}
	if len(p.stack) > 0 {
		top := p.stack[len(p.stack)-1]
		msg := msgUnclosedList
		if top.quote {
			msg = msgQuoteNoDatum
		}
		lx.fail(top.open, msg).Incomplete = true
	}
	return forms
}

// none is the node index that stands for no node (after an error).
const none = -1

// scratchNode is the node index that stands for parser.scratch, an atom
// read for the Builder.
const scratchNode = -2

// complete hands the finished datum n to the construct that waits for it:
// quotes are closed around it, an open list takes it as an element. It
// returns the datum when it is a finished top-level form, else none.
func (p *parser) complete(n int) int {
	for len(p.stack) > 0 {
		top := p.stack[len(p.stack)-1]
		if !top.quote {
			p.items = append(p.items, n)
			return none
		}
		p.stack = p.stack[:len(p.stack)-1]
		n = p.quoted(top.open, n)
	}
	return n
}

// quoted returns the list (quote d) that 'd at offset open reads as; d and
// the result are node indexes.
func (p *parser) quoted(open, d int) int {
	pos := Pos{Src: p.lx.src, Off: open}
	head, _ := p.alloc.node()
	head.Kind, head.Pos, head.end, head.Str = Symbol, pos, uint32(open+1), "quote"
	datum := p.alloc.at(d)
	items := p.alloc.items(2)
	items[0], items[1] = head, datum
	n, i := p.alloc.node()
	n.Kind, n.Pos, n.end, n.Items, n.Quoted = List, pos, datum.end, items, true
	return i
}

// closeList ends the innermost open list at the ')' at lx.off and returns its
// node index. A ')' without an open list is an error and skipped; quotes
// waiting for a datum before it are an error and dropped, and none is
// returned without consuming the ')'.
func (p *parser) closeList() int {
	lx := &p.lx
	if len(p.stack) == 0 {
		lx.fail(lx.off, msgUnexpectedRP)
		lx.off++
		return none
	}
	top := p.stack[len(p.stack)-1]
	if top.quote {
		lx.fail(top.open, msgQuoteNoDatum)
		for len(p.stack) > 0 && p.stack[len(p.stack)-1].quote {
			p.stack = p.stack[:len(p.stack)-1]
		}
		return none
	}
	p.stack = p.stack[:len(p.stack)-1]
	n, i := p.alloc.node()
	if k := len(p.items) - top.first; k > 0 {
		n.Items = p.alloc.items(k)
		for j, item := range p.items[top.first:] {
			n.Items[j] = p.alloc.at(item)
		}
		p.items = p.items[:top.first]
	}
	lx.off++
	n.Kind, n.Pos, n.end = List, Pos{Src: lx.src, Off: top.open}, uint32(lx.off)
	return i
}

// closeBuilt ends the innermost open list, one being built, at the ')' at
// lx.off and returns its value.
func (p *parser) closeBuilt() any {
	top := p.stack[len(p.stack)-1]
	p.stack = p.stack[:len(p.stack)-1]
	v := p.builder.List(p.vals[top.first:])
	clear(p.vals[top.first:])
	p.vals = p.vals[:top.first]
	p.lx.off++
	return v
}

// quotesList reports whether the quote whose datum starts at or after
// off (after white space and comments) quotes a list: only those are
// built.
func (p *parser) quotesList(off int) bool {
	text := p.lx.text
	for off < len(text) {
		switch c := text[off]; {
		case byteClass[c] == classSpace:
			off++
		case c == ';':
			for off < len(text) && text[off] != '\n' {
				off++
			}
		default:
			return c == '(' || c == '\''
		}
	}
	return false
}

// readString reads the string literal at lx.off.
func (p *parser) readString() int {
	lx := &p.lx
	start := lx.off
	value, ok := lx.scanString()
	if !ok {
		return none
	}
	n, i := p.newAtom()
	n.Kind, n.Pos, n.end, n.Str = String, Pos{Src: lx.src, Off: start}, uint32(lx.off), value
	return i
}

// newAtom returns the node an atom is read into and its index: the
// scratch node (scratchNode) inside a datum being built, else a new node.
func (p *parser) newAtom() (*Node, int) {
	if p.building() {
		return &p.scratch, scratchNode
	}
	return p.alloc.node()
}

// readAtom reads the atom at lx.off and classifies it (SPEC §4.4).
func (p *parser) readAtom() int {
	lx := &p.lx
	start := lx.off
	raw, escaped, _ := lx.scanAtom()
	n, i := p.newAtom()
	n.Pos, n.end = Pos{Src: lx.src, Off: start}, uint32(lx.off)
	if escaped {
		n.Kind, n.Str = Symbol, unescapeAtom(raw)
		return i
	}
	kind, iv, fv, msg := classifyAtom(raw)
	if msg != "" {
		lx.fail(start, msg)
		kind = Symbol // read on; the program does not run
	}
	switch n.Kind = kind; kind {
	case Symbol:
		n.Str = raw
	case Int:
		n.Int = iv
	case Float:
		n.Int = int64(math.Float64bits(fv))
	case Bool:
		n.Bool = raw == "true"
	}
	return i
}
