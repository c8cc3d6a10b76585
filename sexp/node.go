package sexp

import "math"

// Kind says what a Node is.
type Kind uint8

// The kinds of nodes the reader produces.
const (
	Symbol Kind = iota // Str holds the name (escapes removed)
	String             // Str holds the value (escapes replaced)
	Int                // Int holds the value
	Float              // Float holds the value
	Bool               // Bool holds the value
	Nil                // the atom nil
	List               // Items holds the elements; () is a List with no items
)

var kindNames = [...]string{"symbol", "string", "int", "float", "bool", "nil", "list"}

// String returns the kind's name as used in messages.
func (k Kind) String() string {
	if int(k) < len(kindNames) {
		return kindNames[k]
	}
	return "invalid"
}

// Node is one datum read from source text. Lists made by the quote shorthand
// 'd are the two-element list (quote d) with Quoted set.
//
// The reader allocates one Node per datum, so a Node holds no more than it
// must: its end offset is 32 bits, a float shares the word of an int, and
// its source text (Raw) is not stored but sliced from the source on demand.
// A 10 MB quoted datum reads as millions of nodes.
type Node struct {
	Kind Kind
	Bool bool // Bool value
	// Quoted marks a (quote d) list written with the ' shorthand.
	Quoted bool
	built  bool   // a datum made by a Builder: Int indexes Pos.Src.built
	end    uint32 // byte offset just after the datum's last byte
	Pos    Pos    // the first byte of the datum; for 'd, the quote
	Str    string // Symbol name or String value
	// Int is the value of an Int; for a Float it holds the value's bits
	// (see Node.Float).
	Int   int64
	Items []*Node // List elements; empty for ()
}

// End returns the byte offset just after the datum's last byte.
func (n *Node) End() int { return int(n.end) }

// Float returns the value of a Float node, and 0 for any other kind.
func (n *Node) Float() float64 {
	if n.Kind != Float {
		return 0
	}
	return math.Float64frombits(uint64(n.Int))
}

// Raw returns the exact source text of an atom or string (for fmt), a
// substring of the source; for a list, or a node without source, it is
// empty.
func (n *Node) Raw() string {
	if n.Kind == List || n.Pos.Src == nil {
		return ""
	}
	return n.Pos.Src.Text[n.Pos.Off:n.end]
}

// IsSymbol reports whether n is the symbol name.
func (n *Node) IsSymbol(name string) bool { return n.Kind == Symbol && n.Str == name }
