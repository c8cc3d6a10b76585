package sexp

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
// The fields are ordered so that the small ones share a word: the reader
// allocates one Node per datum, and its speed is bound by their size.
type Node struct {
	Kind Kind
	Bool bool // Bool value
	// Quoted marks a (quote d) list written with the ' shorthand.
	Quoted bool
	Pos    Pos     // the first byte of the datum; for 'd, the quote
	End    int     // byte offset just after the datum's last byte
	Str    string  // Symbol name or String value
	Int    int64   // Int value
	Float  float64 // Float value
	Items  []*Node // List elements; empty for ()
	// Raw is the exact source text of an atom or string (for fmt). For lists
	// it is empty.
	Raw string
}

// IsSymbol reports whether n is the symbol name.
func (n *Node) IsSymbol(name string) bool { return n.Kind == Symbol && n.Str == name }
