package sexp

import (
	"errors"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"
)

// MaxFormatDepth is the deepest nesting of lists and quotes that Format lays
// out: the reader's MaxNesting, so that whatever reads also formats. The
// formatter recurses; its own check guards trees built by other means.
const MaxFormatDepth = MaxNesting

// lineWidth is the number of columns a list may take to stay on one line.
const lineWidth = 80

// firstLineArgs are the forms that keep their first argument on the line of
// their head when they are broken over lines (SPEC §17.5); other forms keep
// none.
var firstLineArgs = map[string]int{
	"define": 1, "bind": 1, "lambda": 1, "let": 1, "let*": 1, "when": 1,
	"unless": 1, "if": 1, "loop": 1, "step": 1, "defatom": 1,
	"with-context": 1, "set!": 1,
}

// Format returns the source text of src laid out by the rules of SPEC §17.5
// (see the package documentation). It reads src first; a syntax error,
// "empty program" included, is returned as an *Error and no text.
func Format(src *Source) ([]byte, error) {
	f, err := ParseFile(src, ParseComments)
	if err != nil {
		return nil, err
	}
	return FormatFile(f)
}

// FormatFile lays out a file returned by ParseFile: the positions of its
// nodes and comments must refer to f.Src. Only the comments in f.Comments are
// written, so f should have been read with ParseComments. Lists nested deeper
// than MaxFormatDepth are an *Error "nesting too deep".
func FormatFile(f *File) ([]byte, error) {
	src := f.Src
	if src == nil {
		if len(f.Forms) > 0 {
			return nil, errors.New("sexp: FormatFile: the File has forms but no Src")
		}
		src = &Source{}
	}
	fm := &formatter{text: src.Text, comments: f.Comments, eol: lineEnd(src.Text, f.Forms)}
	fm.buf = make([]byte, 0, len(src.Text)+len(src.Text)/8+1)
	elems := fm.elements(f.Forms, 0, len(src.Text))
	for i, e := range elems {
		if i > 0 {
			fm.separate(e, 0)
		}
		if e.node == nil {
			fm.write(e.comment)
		} else if err := fm.node(e.node, 0, 0); err != nil {
			return nil, err
		}
	}
	if len(elems) > 0 {
		fm.buf = append(fm.buf, fm.eol...)
	}
	return fm.buf, nil
}

// lineEnd returns the line terminator that the first line break between the
// tokens of a file uses, "\r\n" or "\n"; "\n" when there is none. Line breaks
// inside strings and atoms do not count, so that the formatter's own line
// breaks decide when it reads its output again.
func lineEnd(text string, forms []*Node) string {
	prev := 0 // end of the token before the gap being looked at
	gapEnd := func(upTo int) (string, bool) {
		gap := text[prev:upTo]
		i := strings.IndexByte(gap, '\n')
		switch {
		case i < 0:
			return "", false
		case i > 0 && gap[i-1] == '\r':
			return "\r\n", true
		}
		return "\n", true
	}
	type open struct {
		n    *Node
		next int // index of the next element to visit
	}
	var stack []open
	for _, form := range forms {
		stack = append(stack[:0], open{n: form})
		for len(stack) > 0 {
			top := &stack[len(stack)-1]
			n := top.n
			if top.next == 0 { // entering n
				if eol, ok := gapEnd(n.Pos.Off); ok {
					return eol
				}
				prev = n.Pos.Off + 1 // after the ( or the '
				if n.Kind != List {
					prev = n.End()
				}
				if n.Kind == List && n.Quoted && len(n.Items) == 2 {
					top.next = 1 // the datum; the head is the ' itself
				}
			}
			if n.Kind == List && top.next < len(n.Items) {
				top.next++
				stack = append(stack, open{n: n.Items[top.next-1]})
				continue
			}
			if n.Kind == List && !(n.Quoted && len(n.Items) == 2) {
				if eol, ok := gapEnd(n.End() - 1); ok { // before the )
					return eol
				}
				prev = n.End()
			}
			stack = stack[:len(stack)-1]
		}
	}
	if eol, ok := gapEnd(len(text)); ok {
		return eol
	}
	return "\n"
}

// formatter writes the formatted text into buf, keeping track of the column.
type formatter struct {
	text     string    // the source text
	comments []Comment // all comments, in source order
	eol      string    // the line terminator written
	buf      []byte
	col      int // column of the next byte written, from 0, in code points
}

// element is one thing laid out inside a list or at the top level: a node or
// a comment.
type element struct {
	node     *Node  // nil for a comment
	comment  string // the comment's text without trailing white space
	end      int    // offset just after the element in the source
	trailing bool   // a comment on the same source line as what precedes it
	blank    bool   // a blank line separates it from the previous element
}

// elements returns nodes together with the comments that lie between offsets
// from and to outside of them, in source order.
func (f *formatter) elements(nodes []*Node, from, to int) []element {
	ci := sort.Search(len(f.comments), func(i int) bool { return f.comments[i].Pos.Off >= from })
	if len(nodes) == 0 && (ci == len(f.comments) || f.comments[ci].Pos.Off >= to) {
		return nil
	}
	out := make([]element, 0, len(nodes))
	prev := from
	add := func(e element, start int) {
		lines := strings.Count(f.text[prev:start], "\n")
		e.blank = len(out) > 0 && lines >= 2
		e.trailing = e.node == nil && lines == 0
		out = append(out, e)
		prev = e.end
	}
	addComments := func(before int) {
		for ; ci < len(f.comments) && f.comments[ci].Pos.Off < before; ci++ {
			c := f.comments[ci]
			add(element{comment: strings.TrimRight(c.Text, " \t\r\v\f"), end: c.End}, c.Pos.Off)
		}
	}
	for _, n := range nodes {
		addComments(n.Pos.Off)
		add(element{node: n, end: n.End()}, n.Pos.Off)
		for ci < len(f.comments) && f.comments[ci].Pos.Off < n.End() {
			ci++ // a comment inside n belongs to n
		}
	}
	addComments(to)
	return out
}

// separate starts element e after the previous one: a trailing comment after
// one space, anything else on a new line at column indent, after a blank line
// when the source had one.
func (f *formatter) separate(e element, indent int) {
	if e.node == nil && e.trailing {
		f.write(" ")
		return
	}
	f.newline(indent, e.blank)
}

// node lays out n at the current column. depth is the number of lists and
// quotes around n; suffix is the number of closing parentheses that will
// follow n on its last line.
func (f *formatter) node(n *Node, depth, suffix int) error {
	if n.Kind != List {
		text := atomText(n)
		if len(f.buf) == 0 && strings.HasPrefix(text, bom) {
			// A symbol that starts with a byte-order mark now starts the
			// text, where the mark would be ignored: escape it.
			f.write("\\")
		}
		f.write(text)
		return nil
	}
	if depth >= MaxFormatDepth {
		return &Error{Pos: n.Pos, Msg: "nesting too deep (more than " + strconv.Itoa(MaxFormatDepth) + " levels)"}
	}
	if n.Quoted && len(n.Items) == 2 {
		return f.quote(n, depth, suffix)
	}
	return f.list(n, depth, suffix)
}

// list lays out list n at the current column: on one line if it fits, else
// broken by the rules of SPEC §17.5.
func (f *formatter) list(n *Node, depth, suffix int) error {
	start := f.col
	if f.fitsOnLine(n, lineWidth-start-suffix) {
		f.flat(n)
		return nil
	}
	elems := f.elements(n.Items, n.Pos.Off+1, n.End()-1)
	onFirstLine, indent := 1, start+1
	if len(n.Items) > 0 && n.Items[0].Kind == Symbol {
		onFirstLine, indent = 1+firstLineArgs[n.Items[0].Str], start+2
	}
	f.write("(")
	placed := 0 // elements written on the line of the '('
	for i, e := range elems {
		if e.node == nil {
			f.separate(e, indent)
			f.write(e.comment)
			onFirstLine = 0 // the comment ends the first line
			continue
		}
		if placed < onFirstLine {
			if placed > 0 {
				f.write(" ")
			}
			placed++
		} else {
			onFirstLine = 0
			f.newline(indent, e.blank)
		}
		closing := 0
		if i == len(elems)-1 {
			closing = suffix + 1
		}
		if err := f.node(e.node, depth+1, closing); err != nil {
			return err
		}
	}
	if len(elems) > 0 && elems[len(elems)-1].node == nil {
		f.newline(start, false) // a comment ends the last line
	}
	f.write(")")
	return nil
}

// quote lays out the quote shorthand 'd. Comments between the ' and the datum
// stay there; the datum then starts a new line under the '.
func (f *formatter) quote(n *Node, depth, suffix int) error {
	start := f.col
	datum := n.Items[1]
	f.write("'")
	elems := f.elements(nil, n.Pos.Off+1, datum.Pos.Off)
	for _, e := range elems {
		f.separate(e, start)
		f.write(e.comment)
	}
	if len(elems) > 0 {
		f.newline(start, false)
	}
	return f.node(datum, depth+1, suffix)
}

// fitsOnLine reports whether n can be written on one line in avail columns:
// it holds no comment and no line break and is not wider than avail.
func (f *formatter) fitsOnLine(n *Node, avail int) bool {
	return avail >= 0 && !f.hasComment(n.Pos.Off, n.End()) && flatWidth(n, avail) <= avail
}

// hasComment reports whether a comment starts between offsets from and to.
func (f *formatter) hasComment(from, to int) bool {
	i := sort.Search(len(f.comments), func(i int) bool { return f.comments[i].Pos.Off >= from })
	return i < len(f.comments) && f.comments[i].Pos.Off < to
}

// flatWidth returns the width of n written on one line, or a number greater
// than limit as soon as it is clear that n is wider or holds a line break. The
// recursion ends within limit levels, since each level adds a column.
func flatWidth(n *Node, limit int) int {
	switch {
	case limit < 0:
		return limit + 1
	case n.Kind != List:
		text := atomText(n)
		if strings.IndexByte(text, '\n') >= 0 {
			return limit + 1
		}
		return utf8.RuneCountInString(text)
	case n.Quoted && len(n.Items) == 2:
		return 1 + flatWidth(n.Items[1], limit-1)
	}
	w := 1 + len(n.Items) // the parentheses and the spaces between elements
	if len(n.Items) == 0 {
		w = 2
	}
	for _, it := range n.Items {
		if w > limit {
			break
		}
		w += flatWidth(it, limit-w)
	}
	return w
}

// flat writes n on one line; fitsOnLine has checked that it can be.
func (f *formatter) flat(n *Node) {
	switch {
	case n.Kind != List:
		f.write(atomText(n))
	case n.Quoted && len(n.Items) == 2:
		f.write("'")
		f.flat(n.Items[1])
	default:
		f.write("(")
		for i, it := range n.Items {
			if i > 0 {
				f.write(" ")
			}
			f.flat(it)
		}
		f.write(")")
	}
}

// atomText returns the source text of an atom or string as fmt writes it: as
// read, except that a backslash that ended the text gets a second one (it
// would escape the line break written after it). A node made without source
// text gets its canonical text.
func atomText(n *Node) string {
	switch {
	case n.Raw() == "":
		return n.String()
	case n.Kind == Symbol && endsWithLoneBackslash(n.Raw()):
		return n.Raw() + "\\"
	}
	return n.Raw()
}

// endsWithLoneBackslash reports whether the last backslash of an atom's text
// escapes nothing, which happens only at the end of a text.
func endsWithLoneBackslash(raw string) bool {
	for i := 0; i < len(raw); i++ {
		if raw[i] == '\\' {
			if i == len(raw)-1 {
				return true
			}
			i++
		}
	}
	return false
}

func (f *formatter) write(s string) {
	f.buf = append(f.buf, s...)
	if i := strings.LastIndexByte(s, '\n'); i >= 0 {
		f.col = utf8.RuneCountInString(s[i+1:])
	} else {
		f.col += utf8.RuneCountInString(s)
	}
}

// newline ends the line, adds a blank line if asked, and indents the next
// line to column indent.
func (f *formatter) newline(indent int, blank bool) {
	f.buf = append(f.buf, f.eol...)
	if blank {
		f.buf = append(f.buf, f.eol...)
	}
	for range indent {
		f.buf = append(f.buf, ' ')
	}
	f.col = indent
}
