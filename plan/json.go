package plan

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Kind is the kind of a JSON value.
type Kind int

// The kinds of JSON values.
const (
	Null Kind = iota
	Bool
	Number
	String
	Array
	Object
)

// String names the kind as messages do ("a string", "an array").
func (k Kind) String() string {
	return [...]string{"null", "a boolean", "a number", "a string", "an array", "an object"}[k]
}

// Node is one JSON value read with its place in the source: Start and End
// are the byte offsets of its text, so a value can be replaced in place
// without touching anything around it (other fields, their order, the
// file's indentation and line breaks).
type Node struct {
	Kind Kind
	// Start and End delimit the value's text in the source.
	Start, End int
	// Str is the decoded text of a string, the literal of a number.
	Str string
	// Bool is the value of a boolean.
	Bool bool
	// Items are the elements of an array.
	Items []*Node
	// Members are the members of an object, in source order.
	Members []Member
}

// Member is one "key": value pair of an object.
type Member struct {
	Key string
	// KeyStart is the offset of the key's opening quote.
	KeyStart int
	Value    *Node
}

// Get returns the value of the first member named key of an object, or
// nil (also when n is nil or not an object).
func (n *Node) Get(key string) *Node {
	if n == nil || n.Kind != Object {
		return nil
	}
	for _, m := range n.Members {
		if m.Key == key {
			return m.Value
		}
	}
	return nil
}

// member returns the first member named key, or nil.
func (n *Node) member(key string) *Member {
	if n == nil || n.Kind != Object {
		return nil
	}
	for i := range n.Members {
		if n.Members[i].Key == key {
			return &n.Members[i]
		}
	}
	return nil
}

// Text returns the string of a string node, or "".
func (n *Node) Text() string {
	if n == nil || n.Kind != String {
		return ""
	}
	return n.Str
}

// Strings returns the strings of an array of strings (non-strings are
// left out), or nil.
func (n *Node) Strings() []string {
	if n == nil || n.Kind != Array {
		return nil
	}
	var out []string
	for _, it := range n.Items {
		if it.Kind == String {
			out = append(out, it.Str)
		}
	}
	return out
}

// Any converts the node to Go values: map[string]any is avoided so that
// key order survives; objects become []KV.
func (n *Node) Any() any {
	if n == nil {
		return nil
	}
	switch n.Kind {
	case Bool:
		return n.Bool
	case Number:
		f, _ := strconv.ParseFloat(n.Str, 64)
		return f
	case String:
		return n.Str
	case Array:
		out := make([]any, len(n.Items))
		for i, it := range n.Items {
			out[i] = it.Any()
		}
		return out
	case Object:
		out := make([]KV, len(n.Members))
		for i, m := range n.Members {
			out[i] = KV{Key: m.Key, Value: m.Value.Any()}
		}
		return out
	}
	return nil
}

// KV is one member of an object converted by Node.Any.
type KV struct {
	Key   string
	Value any
}

// SyntaxError is a fault in a JSON text at a byte offset.
type SyntaxError struct {
	Offset int
	Msg    string
}

// Error returns the message.
func (e *SyntaxError) Error() string { return e.Msg }

// positioned returns err, a *SyntaxError of the JSON text src of the file
// path, as "PATH:LINE:COL: invalid JSON: MESSAGE"; any other error as
// "PATH: ERROR".
func positioned(path string, src []byte, err error) error {
	if se, ok := err.(*SyntaxError); ok {
		line, col := newLineIndex(src).pos(se.Offset)
		return fmt.Errorf("%s:%d:%d: invalid JSON: %w", path, line, col, se)
	}
	return fmt.Errorf("%s: %w", path, err)
}

// parseJSON reads one JSON value (and nothing after it but white space).
func parseJSON(src []byte) (*Node, error) {
	p := &jsonParser{src: src}
	// A UTF-8 byte order mark, as Windows editors and PowerShell write
	// it, is not part of the value; writes keep it, as they keep every
	// byte outside the values they change.
	if bytes.HasPrefix(src, utf8BOM) {
		p.pos = len(utf8BOM)
	}
	p.space()
	n, err := p.value(0)
	if err != nil {
		return nil, err
	}
	p.space()
	if p.pos < len(p.src) {
		return nil, p.errf("unexpected %s after the JSON value", p.describe())
	}
	return n, nil
}

// utf8BOM is the UTF-8 encoding of U+FEFF.
var utf8BOM = []byte("\xef\xbb\xbf")

type jsonParser struct {
	src []byte
	pos int
}

const maxJSONDepth = 200

func (p *jsonParser) errf(format string, args ...any) error {
	return &SyntaxError{Offset: p.pos, Msg: fmt.Sprintf(format, args...)}
}

// describe names the character at the current position for a message.
func (p *jsonParser) describe() string {
	if p.pos >= len(p.src) {
		return "end of file"
	}
	r, _ := utf8.DecodeRune(p.src[p.pos:])
	return "character " + strconv.QuoteRune(r)
}

func (p *jsonParser) space() {
	for p.pos < len(p.src) {
		switch p.src[p.pos] {
		case ' ', '\t', '\n', '\r':
			p.pos++
		default:
			return
		}
	}
}

func (p *jsonParser) value(depth int) (*Node, error) {
	if depth > maxJSONDepth {
		return nil, p.errf("nesting deeper than %d levels", maxJSONDepth)
	}
	if p.pos >= len(p.src) {
		return nil, p.errf("unexpected end of file, expected a value")
	}
	start := p.pos
	switch c := p.src[p.pos]; {
	case c == '{':
		return p.object(depth)
	case c == '[':
		return p.array(depth)
	case c == '"':
		s, err := p.str()
		if err != nil {
			return nil, err
		}
		return &Node{Kind: String, Start: start, End: p.pos, Str: s}, nil
	case c == '-' || (c >= '0' && c <= '9'):
		return p.number()
	default:
		for _, lit := range []struct {
			text string
			node Node
		}{{"true", Node{Kind: Bool, Bool: true}}, {"false", Node{Kind: Bool}}, {"null", Node{Kind: Null}}} {
			if bytes.HasPrefix(p.src[p.pos:], []byte(lit.text)) {
				n := lit.node
				n.Start, n.End = start, start+len(lit.text)
				p.pos = n.End
				return &n, nil
			}
		}
		return nil, p.errf("unexpected %s, expected a value", p.describe())
	}
}

func (p *jsonParser) object(depth int) (*Node, error) {
	n := &Node{Kind: Object, Start: p.pos}
	p.pos++
	p.space()
	if p.pos < len(p.src) && p.src[p.pos] == '}' {
		p.pos++
		n.End = p.pos
		return n, nil
	}
	for {
		p.space()
		if p.pos >= len(p.src) || p.src[p.pos] != '"' {
			if p.pos < len(p.src) && p.src[p.pos] == '}' {
				return nil, p.errf("trailing comma before '}'")
			}
			return nil, p.errf("unexpected %s, expected a string key", p.describe())
		}
		keyStart := p.pos
		key, err := p.str()
		if err != nil {
			return nil, err
		}
		p.space()
		if p.pos >= len(p.src) || p.src[p.pos] != ':' {
			return nil, p.errf("unexpected %s, expected ':' after the key %q", p.describe(), key)
		}
		p.pos++
		p.space()
		v, err := p.value(depth + 1)
		if err != nil {
			return nil, err
		}
		n.Members = append(n.Members, Member{Key: key, KeyStart: keyStart, Value: v})
		p.space()
		if p.pos >= len(p.src) {
			return nil, p.errf("unexpected end of file, expected ',' or '}'")
		}
		switch p.src[p.pos] {
		case ',':
			p.pos++
		case '}':
			p.pos++
			n.End = p.pos
			return n, nil
		default:
			return nil, p.errf("unexpected %s, expected ',' or '}' after an object member", p.describe())
		}
	}
}

func (p *jsonParser) array(depth int) (*Node, error) {
	n := &Node{Kind: Array, Start: p.pos}
	p.pos++
	p.space()
	if p.pos < len(p.src) && p.src[p.pos] == ']' {
		p.pos++
		n.End = p.pos
		return n, nil
	}
	for {
		p.space()
		if p.pos < len(p.src) && p.src[p.pos] == ']' {
			return nil, p.errf("trailing comma before ']'")
		}
		v, err := p.value(depth + 1)
		if err != nil {
			return nil, err
		}
		n.Items = append(n.Items, v)
		p.space()
		if p.pos >= len(p.src) {
			return nil, p.errf("unexpected end of file, expected ',' or ']'")
		}
		switch p.src[p.pos] {
		case ',':
			p.pos++
		case ']':
			p.pos++
			n.End = p.pos
			return n, nil
		default:
			return nil, p.errf("unexpected %s, expected ',' or ']' after an array element", p.describe())
		}
	}
}

func (p *jsonParser) number() (*Node, error) {
	start := p.pos
	for p.pos < len(p.src) && strings.IndexByte("+-0123456789.eE", p.src[p.pos]) >= 0 {
		p.pos++
	}
	text := string(p.src[start:p.pos])
	if !json.Valid([]byte(text)) {
		p.pos = start
		return nil, p.errf("invalid number %s", text)
	}
	return &Node{Kind: Number, Start: start, End: p.pos, Str: text}, nil
}

// str reads a string starting at the opening quote and returns its
// decoded text.
func (p *jsonParser) str() (string, error) {
	start := p.pos
	p.pos++
	for p.pos < len(p.src) {
		switch c := p.src[p.pos]; {
		case c == '"':
			p.pos++
			var s string
			if err := json.Unmarshal(p.src[start:p.pos], &s); err != nil {
				p.pos = start
				return "", p.errf("invalid string: %v", err)
			}
			return s, nil
		case c == '\\':
			p.pos += 2
		case c < 0x20:
			return "", p.errf("control character %U in a string (write it escaped)", rune(c))
		default:
			p.pos++
		}
	}
	p.pos = start
	return "", p.errf("unterminated string")
}

// lineIndex turns byte offsets of a text into 1-based lines and columns
// counted in characters.
type lineIndex struct {
	src    []byte
	starts []int
}

func newLineIndex(src []byte) *lineIndex {
	li := &lineIndex{src: src, starts: []int{0}}
	for i, c := range src {
		if c == '\n' {
			li.starts = append(li.starts, i+1)
		}
	}
	return li
}

// pos returns the line and column of a byte offset.
func (li *lineIndex) pos(off int) (line, col int) {
	lo, hi := 0, len(li.starts)-1
	for lo < hi {
		mid := (lo + hi + 1) / 2
		if li.starts[mid] <= off {
			lo = mid
		} else {
			hi = mid - 1
		}
	}
	if off > len(li.src) {
		off = len(li.src)
	}
	return lo + 1, utf8.RuneCount(li.src[li.starts[lo]:off]) + 1
}

// text returns the text of a 1-based line without its line terminator
// ("\n" or "\r\n"), or "" for a line that does not exist.
func (li *lineIndex) text(line int) string {
	if line < 1 || line > len(li.starts) {
		return ""
	}
	start, end := li.starts[line-1], len(li.src)
	if line < len(li.starts) {
		end = li.starts[line] - 1
	}
	return strings.TrimSuffix(string(li.src[start:end]), "\r")
}

// encodeString returns s as a JSON string literal without HTML escaping.
func encodeString(s string) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s)
	return strings.TrimSuffix(b.String(), "\n")
}

// replaceSpan returns src with src[start:end] replaced by text.
func replaceSpan(src []byte, start, end int, text string) []byte {
	out := make([]byte, 0, len(src)-(end-start)+len(text))
	out = append(out, src[:start]...)
	out = append(out, text...)
	return append(out, src[end:]...)
}

// indentOf returns the white space at the start of the line holding off.
func indentOf(src []byte, off int) string {
	ls := bytes.LastIndexByte(src[:off], '\n') + 1
	e := ls
	for e < len(src) && (src[e] == ' ' || src[e] == '\t') {
		e++
	}
	return string(src[ls:e])
}

// setMember returns src with the member key of the object obj set to the
// JSON text val: the old value's text is replaced where the key exists,
// else a member is appended after the last one in the object's style
// (indentation of the existing members, or one line when the object is on
// one line). val is written as given; for nested objects the caller lays
// it out (see layoutObject).
func setMember(src []byte, obj *Node, key, val string) []byte {
	if m := obj.member(key); m != nil {
		return replaceSpan(src, m.Value.Start, m.Value.End, val)
	}
	if len(obj.Members) == 0 {
		return replaceSpan(src, obj.Start, obj.End, "{"+encodeString(key)+": "+val+"}")
	}
	last := obj.Members[len(obj.Members)-1]
	first := obj.Members[0]
	sep := ", "
	if bytes.IndexByte(src[obj.Start:first.KeyStart], '\n') >= 0 {
		sep = "," + lineEnding(src) + indentOf(src, first.KeyStart)
	}
	return replaceSpan(src, last.Value.End, last.Value.End, sep+encodeString(key)+": "+val)
}

// lineEnding returns the line terminator of src: "\r\n" when its first
// line ends so (a file written on Windows), else "\n".
func lineEnding(src []byte) string {
	if i := bytes.IndexByte(src, '\n'); i > 0 && src[i-1] == '\r' {
		return "\r\n"
	}
	return "\n"
}

// layoutObject writes the members as a JSON object laid out with one
// member a line at indent+unit, closing at indent.
func layoutObject(members []KV, indent, unit string) string {
	if len(members) == 0 {
		return "{}"
	}
	var b strings.Builder
	b.WriteString("{\n")
	for i, m := range members {
		b.WriteString(indent + unit + encodeString(m.Key) + ": ")
		switch v := m.Value.(type) {
		case string:
			b.WriteString(encodeString(v))
		case int:
			b.WriteString(strconv.Itoa(v))
		case []KV:
			b.WriteString(layoutObject(v, indent+unit, unit))
		default:
			data, _ := json.Marshal(v)
			b.Write(data)
		}
		if i < len(members)-1 {
			b.WriteString(",")
		}
		b.WriteString("\n")
	}
	b.WriteString(indent + "}")
	return b.String()
}

// indentUnit guesses the file's indentation step from its first indented
// member: the white space before the first key of the root object, or two
// spaces.
func indentUnit(src []byte, root *Node) string {
	if root != nil && root.Kind == Object && len(root.Members) > 0 {
		if in := indentOf(src, root.Members[0].KeyStart); in != "" && bytes.IndexByte(src[root.Start:root.Members[0].KeyStart], '\n') >= 0 {
			return in
		}
	}
	return "  "
}
