package jsonschema

import (
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"

	"github.com/evalrun/evalrun/value"
)

// Schema is a compiled JSON Schema. It is immutable and safe for concurrent
// use.
type Schema struct {
	root *node
}

// Problem is one problem of a schema document found by Compile.
type Problem struct {
	// Pointer is the JSON pointer (RFC 6901) of the offending keyword or
	// value in the schema document; "" is the whole document.
	Pointer string
	// Message says what is wrong.
	Message string
}

// String returns "POINTER: message", the whole document's pointer written
// "/".
func (p Problem) String() string { return displayPointer(p.Pointer) + ": " + p.Message }

// CompileError lists the problems of a schema document, in document order.
type CompileError struct {
	Problems []Problem
}

// Error implements error: the problems as "POINTER: message", joined by
// "; ".
func (e *CompileError) Error() string {
	parts := make([]string, len(e.Problems))
	for i, p := range e.Problems {
		parts[i] = p.String()
	}
	return strings.Join(parts, "; ")
}

// maxCompileDepth bounds the nesting of schemas inside a schema document.
const maxCompileDepth = 1000

// CompileJSON parses text as JSON (value.ParseJSON) and compiles it. A
// syntax error is returned as "invalid JSON: DETAIL"; problems of the schema
// as a *CompileError.
func CompileJSON(text string) (*Schema, error) {
	doc, err := value.ParseJSON(text)
	if err != nil {
		return nil, fmt.Errorf("invalid JSON: %w", err)
	}
	return Compile(doc)
}

// Compile compiles a schema document, a value as value.ParseJSON returns it
// (symbols are read as strings). Every problem found is reported in one
// *CompileError.
func Compile(doc value.Value) (*Schema, error) {
	c := &compiler{doc: doc, nodes: map[string]*node{}}
	root := c.schema("", doc, 0)
	c.resolveRefs()
	if len(c.problems) == 0 {
		c.findCycles()
	}
	if len(c.problems) > 0 {
		return nil, &CompileError{Problems: c.problems}
	}
	return &Schema{root: root}, nil
}

// kind says whether a node is the boolean schema true or false, or a schema
// object.
type kind uint8

const (
	kindObject kind = iota
	kindTrue
	kindFalse
)

// typeMask is a set of JSON types.
type typeMask uint8

const (
	typeNull typeMask = 1 << iota
	typeBoolean
	typeObject
	typeArray
	typeNumber
	typeInteger
	typeString
)

// typeBit returns the bit of a type name, 0 for an unknown name. (A switch,
// not a map: the package computes nothing at initialisation.)
func typeBit(name string) typeMask {
	switch name {
	case "null":
		return typeNull
	case "boolean":
		return typeBoolean
	case "object":
		return typeObject
	case "array":
		return typeArray
	case "number":
		return typeNumber
	case "integer":
		return typeInteger
	case "string":
		return typeString
	}
	return 0
}

// node is one compiled schema, at pointer ptr of the document.
type node struct {
	ptr  string
	kind kind

	types    typeMask
	typeWant string // "string or null"

	enum     []value.Value
	hasEnum  bool
	enumText string
	constVal value.Value
	hasConst bool

	props          map[string]*node
	patternProps   []patternProp
	additional     *node
	propertyNames  *node
	required       []string
	minProps       int // -1 when absent
	maxProps       int
	depRequired    []depRequired
	depSchemas     []depSchema
	objectKeywords bool // any of props, patternProps, additional, propertyNames

	prefixItems []*node
	items       *node
	contains    *node
	minContains int // 1 unless given
	maxContains int // -1 when absent
	minItems    int
	maxItems    int
	uniqueItems bool

	minLength int
	maxLength int
	pattern   *regexp.Regexp

	minimum, maximum, exclMin, exclMax, multipleOf value.Value // nil when absent

	allOf, anyOf, oneOf []*node
	not                 *node
	ifS, thenS, elseS   *node

	ref       string // the $ref text, "" when absent
	refTarget *node
}

type patternProp struct {
	re *regexp.Regexp
	s  *node
}

type depRequired struct {
	prop string
	req  []string
}

type depSchema struct {
	prop string
	s    *node
}

// compiler compiles one document. Nodes are cached by their canonical
// pointer, so that references share the node of their target.
type compiler struct {
	doc      value.Value
	nodes    map[string]*node
	order    []*node // in creation (document) order
	refs     []*node // nodes with a $ref to resolve
	problems []Problem
}

func (c *compiler) errorf(ptr, format string, args ...any) {
	c.problems = append(c.problems, Problem{Pointer: ptr, Message: fmt.Sprintf(format, args...)})
}

// schema compiles the schema v found at ptr, depth levels of schemas deep.
func (c *compiler) schema(ptr string, v value.Value, depth int) *node {
	if n, ok := c.nodes[ptr]; ok {
		return n
	}
	n := &node{ptr: ptr, minProps: -1, maxProps: -1, minContains: 1, maxContains: -1,
		minItems: -1, maxItems: -1, minLength: -1, maxLength: -1}
	c.nodes[ptr] = n
	c.order = append(c.order, n)
	switch v := v.(type) {
	case value.Bool:
		n.kind = kindFalse
		if v {
			n.kind = kindTrue
		}
		return n
	case *value.Dict:
		if depth > maxCompileDepth {
			c.errorf(ptr, "schemas are nested more than %d levels deep", maxCompileDepth)
			n.kind = kindTrue
			return n
		}
		for k, kv := range v.All() {
			c.keyword(n, k, kv, depth)
		}
		return n
	}
	c.errorf(ptr, "a schema must be an object or a boolean, not %s", describe(v))
	n.kind = kindTrue
	return n
}

// keyword compiles the keyword k of the schema object n, whose value is v.
func (c *compiler) keyword(n *node, k string, v value.Value, depth int) {
	ptr := n.ptr + "/" + escapeToken(k)
	sub := func(p string, v value.Value) *node { return c.schema(p, v, depth+1) }
	switch k {
	case "type":
		c.typeKeyword(n, ptr, v)
	case "enum":
		l, ok := v.(value.List)
		if !ok {
			c.errorf(ptr, "must be an array, not %s", describe(v))
			return
		}
		n.hasEnum = true
		n.enum = l
		if len(l) == 0 {
			n.enumText = "no value is allowed (enum is empty)"
			return
		}
		parts := make([]string, len(l))
		for i, e := range l {
			parts[i] = jsonText(e)
		}
		n.enumText = "value must be one of " + strings.Join(parts, ", ")
	case "const":
		n.hasConst = true
		n.constVal = v
	case "properties":
		d := c.object(ptr, v)
		if d == nil {
			return
		}
		n.props = make(map[string]*node, d.Len())
		for pk, pv := range d.All() {
			n.props[pk] = sub(ptr+"/"+escapeToken(pk), pv)
		}
		n.objectKeywords = true
	case "patternProperties":
		d := c.object(ptr, v)
		if d == nil {
			return
		}
		for pk, pv := range d.All() {
			p := ptr + "/" + escapeToken(pk)
			re, err := regexp.Compile(pk)
			if err != nil {
				c.errorf(p, "invalid pattern (Go RE2 syntax): %v", err)
			}
			s := sub(p, pv)
			if re != nil {
				n.patternProps = append(n.patternProps, patternProp{re: re, s: s})
			}
		}
		n.objectKeywords = true
	case "additionalProperties":
		n.additional = sub(ptr, v)
		n.objectKeywords = true
	case "propertyNames":
		n.propertyNames = sub(ptr, v)
		n.objectKeywords = true
	case "required":
		n.required = c.strings(ptr, v)
	case "minProperties":
		n.minProps = c.count(ptr, v)
	case "maxProperties":
		n.maxProps = c.count(ptr, v)
	case "dependentRequired":
		d := c.object(ptr, v)
		if d == nil {
			return
		}
		for pk, pv := range d.All() {
			n.depRequired = append(n.depRequired, depRequired{prop: pk, req: c.strings(ptr+"/"+escapeToken(pk), pv)})
		}
	case "dependentSchemas":
		d := c.object(ptr, v)
		if d == nil {
			return
		}
		for pk, pv := range d.All() {
			n.depSchemas = append(n.depSchemas, depSchema{prop: pk, s: sub(ptr+"/"+escapeToken(pk), pv)})
		}
	case "prefixItems":
		n.prefixItems = c.schemaList(ptr, v, depth)
	case "items":
		if _, ok := v.(value.List); ok {
			c.errorf(ptr, "must be a schema (JSON Schema 2020-12); a list of schemas for the first items is prefixItems")
			return
		}
		n.items = sub(ptr, v)
	case "contains":
		n.contains = sub(ptr, v)
	case "minContains":
		if m := c.count(ptr, v); m >= 0 {
			n.minContains = m
		}
	case "maxContains":
		n.maxContains = c.count(ptr, v)
	case "minItems":
		n.minItems = c.count(ptr, v)
	case "maxItems":
		n.maxItems = c.count(ptr, v)
	case "uniqueItems":
		b, ok := v.(value.Bool)
		if !ok {
			c.errorf(ptr, "must be a boolean, not %s", describe(v))
			return
		}
		n.uniqueItems = bool(b)
	case "minLength":
		n.minLength = c.count(ptr, v)
	case "maxLength":
		n.maxLength = c.count(ptr, v)
	case "pattern":
		s, ok := stringOf(v)
		if !ok {
			c.errorf(ptr, "must be a string, not %s", describe(v))
			return
		}
		re, err := regexp.Compile(s)
		if err != nil {
			c.errorf(ptr, "invalid pattern (Go RE2 syntax): %v", err)
			return
		}
		n.pattern = re
	case "minimum":
		n.minimum = c.number(ptr, v)
	case "maximum":
		n.maximum = c.number(ptr, v)
	case "exclusiveMinimum":
		n.exclMin = c.number(ptr, v)
	case "exclusiveMaximum":
		n.exclMax = c.number(ptr, v)
	case "multipleOf":
		m := c.number(ptr, v)
		if m != nil && cmpNum(m, value.Int(0)) <= 0 {
			c.errorf(ptr, "must be greater than 0, not %s", jsonText(m))
			return
		}
		n.multipleOf = m
	case "allOf":
		n.allOf = c.schemaList(ptr, v, depth)
	case "anyOf":
		n.anyOf = c.schemaList(ptr, v, depth)
	case "oneOf":
		n.oneOf = c.schemaList(ptr, v, depth)
	case "not":
		n.not = sub(ptr, v)
	case "if":
		n.ifS = sub(ptr, v)
	case "then":
		n.thenS = sub(ptr, v)
	case "else":
		n.elseS = sub(ptr, v)
	case "$ref":
		s, ok := stringOf(v)
		if !ok {
			c.errorf(ptr, "must be a string, not %s", describe(v))
			return
		}
		n.ref = s
		c.refs = append(c.refs, n)
	case "$defs", "definitions":
		d := c.object(ptr, v)
		if d == nil {
			return
		}
		for pk, pv := range d.All() {
			sub(ptr+"/"+escapeToken(pk), pv)
		}
	}
	// Annotations ($id, $schema, $comment, title, description, default,
	// examples, format, readOnly, writeOnly, deprecated) and unknown
	// keywords are ignored.
}

func (c *compiler) typeKeyword(n *node, ptr string, v value.Value) {
	var names []string
	switch v := v.(type) {
	case value.String, value.Symbol:
		s, _ := stringOf(v)
		names = []string{s}
	case value.List:
		if len(v) == 0 {
			c.errorf(ptr, "must not be an empty array")
			return
		}
		for i, e := range v {
			s, ok := stringOf(e)
			if !ok {
				c.errorf(ptr+"/"+strconv.Itoa(i), "must be a type name (a string), not %s", describe(e))
				return
			}
			names = append(names, s)
		}
	default:
		c.errorf(ptr, "must be a type name or an array of type names, not %s", describe(v))
		return
	}
	for i, name := range names {
		bit := typeBit(name)
		if bit == 0 {
			p := ptr
			if _, isList := v.(value.List); isList {
				p += "/" + strconv.Itoa(i)
			}
			c.errorf(p, "unknown type %s (want array, boolean, integer, null, number, object or string)", strconv.Quote(name))
			return
		}
		if n.types&bit != 0 {
			c.errorf(ptr, "type %s is listed twice", strconv.Quote(name))
			return
		}
		n.types |= bit
	}
	n.typeWant = orList(names)
}

// object returns v as a dict, or reports that the keyword at ptr must be
// an object.
func (c *compiler) object(ptr string, v value.Value) *value.Dict {
	d, ok := v.(*value.Dict)
	if !ok {
		c.errorf(ptr, "must be an object, not %s", describe(v))
		return nil
	}
	if d == nil {
		return value.NewDict(0)
	}
	return d
}

// schemaList compiles a non-empty array of schemas.
func (c *compiler) schemaList(ptr string, v value.Value, depth int) []*node {
	l, ok := v.(value.List)
	if !ok {
		c.errorf(ptr, "must be a non-empty array of schemas, not %s", describe(v))
		return nil
	}
	if len(l) == 0 {
		c.errorf(ptr, "must not be an empty array")
		return nil
	}
	out := make([]*node, len(l))
	for i, e := range l {
		out[i] = c.schema(ptr+"/"+strconv.Itoa(i), e, depth+1)
	}
	return out
}

// strings reads an array of strings.
func (c *compiler) strings(ptr string, v value.Value) []string {
	l, ok := v.(value.List)
	if !ok {
		c.errorf(ptr, "must be an array of strings, not %s", describe(v))
		return nil
	}
	out := make([]string, 0, len(l))
	for i, e := range l {
		s, ok := stringOf(e)
		if !ok {
			c.errorf(ptr+"/"+strconv.Itoa(i), "must be a string, not %s", describe(e))
			continue
		}
		out = append(out, s)
	}
	return out
}

// count reads a non-negative integer (2 or 2.0); -1 after a problem. Counts
// too large for an int are capped.
func (c *compiler) count(ptr string, v value.Value) int {
	switch x := v.(type) {
	case value.Int:
		if x >= 0 {
			return int(min(int64(x), math.MaxInt))
		}
	case value.Float:
		f := float64(x)
		if f >= 0 && f == math.Trunc(f) && !math.IsInf(f, 0) {
			if f >= math.MaxInt {
				return math.MaxInt
			}
			return int(f)
		}
	}
	c.errorf(ptr, "must be a non-negative integer, not %s", describe(v))
	return -1
}

// number reads a finite number; nil after a problem.
func (c *compiler) number(ptr string, v value.Value) value.Value {
	switch x := v.(type) {
	case value.Int:
		return x
	case value.Float:
		if !math.IsNaN(float64(x)) && !math.IsInf(float64(x), 0) {
			return x
		}
	}
	c.errorf(ptr, "must be a number, not %s", describe(v))
	return nil
}

// resolveRefs resolves the pending references; compiling a target that no
// other keyword compiled may add references.
func (c *compiler) resolveRefs() {
	for i := 0; i < len(c.refs); i++ {
		n := c.refs[i]
		at := n.ptr + "/$ref"
		ref := n.ref
		if !strings.HasPrefix(ref, "#") {
			c.errorf(at, "remote $ref is not supported: %s", ref)
			continue
		}
		frag, ok := percentDecode(ref[1:])
		if !ok {
			c.errorf(at, "$ref %s has an invalid percent escape", strconv.Quote(ref))
			continue
		}
		if frag != "" && frag[0] != '/' {
			c.errorf(at, "$ref %s is not supported: only JSON-pointer fragments (#/...) are", strconv.Quote(ref))
			continue
		}
		target, canon, err := lookup(c.doc, frag)
		if err != "" {
			c.errorf(at, "$ref %s %s", strconv.Quote(ref), err)
			continue
		}
		switch target.(type) {
		case value.Bool, *value.Dict:
		default:
			c.errorf(at, "$ref %s points to %s, not to a schema", strconv.Quote(ref), describe(target))
			continue
		}
		n.refTarget = c.schema(canon, target, strings.Count(canon, "/"))
	}
}

// lookup finds the JSON pointer ptr (RFC 6901, "" for the whole document)
// in doc and returns the value and the pointer in canonical form.
func lookup(doc value.Value, ptr string) (value.Value, string, string) {
	if ptr == "" {
		return doc, "", ""
	}
	var canon strings.Builder
	cur := doc
	for _, raw := range strings.Split(ptr[1:], "/") {
		tok, ok := unescapeToken(raw)
		if !ok {
			return nil, "", "has an invalid escape: ~ must be followed by 0 or 1"
		}
		switch x := cur.(type) {
		case *value.Dict:
			v, found := x.Get(tok)
			if !found {
				return nil, "", "points to nothing: no " + strconv.Quote(tok) + " at " + displayPointer(canon.String())
			}
			cur = v
		case value.List:
			i, err := strconv.Atoi(tok)
			if err != nil || i < 0 || i >= len(x) || strconv.Itoa(i) != tok {
				return nil, "", "points to nothing: no item " + strconv.Quote(tok) + " at " + displayPointer(canon.String())
			}
			cur = x[i]
		default:
			return nil, "", "points to nothing: " + displayPointer(canon.String()) + " is " + describe(cur)
		}
		canon.WriteByte('/')
		canon.WriteString(escapeToken(tok))
	}
	return cur, canon.String(), ""
}

// findCycles reports the reference cycles that never move into the instance:
// following $ref, allOf, anyOf, oneOf, not, if, then, else and
// dependentSchemas from a schema back to itself. Such a cycle would make
// validation recurse for ever. Every cycle holds a $ref.
func (c *compiler) findCycles() {
	const (
		white = iota
		grey
		black
	)
	color := make(map[*node]uint8, len(c.order))
	var stack []*node
	var visit func(n *node)
	visit = func(n *node) {
		color[n] = grey
		stack = append(stack, n)
		for _, m := range inPlace(n) {
			switch color[m] {
			case white:
				visit(m)
			case grey:
				i := len(stack) - 1
				for stack[i] != m {
					i--
				}
				c.reportCycle(stack[i:])
			}
		}
		stack = stack[:len(stack)-1]
		color[n] = black
	}
	for _, n := range c.order {
		if color[n] == white {
			visit(n)
		}
	}
}

func (c *compiler) reportCycle(cycle []*node) {
	at := cycle[0]
	for _, n := range cycle {
		if n.refTarget != nil {
			at = n
			break
		}
	}
	parts := make([]string, 0, len(cycle)+1)
	for _, n := range cycle {
		parts = append(parts, "#"+n.ptr)
	}
	parts = append(parts, "#"+cycle[0].ptr)
	c.errorf(at.ptr+"/$ref", "$ref cycle that never moves into the value: %s", strings.Join(parts, " → "))
}

// inPlace lists the schemas that n applies to the same instance location.
func inPlace(n *node) []*node {
	var out []*node
	if n.refTarget != nil {
		out = append(out, n.refTarget)
	}
	out = append(out, n.allOf...)
	out = append(out, n.anyOf...)
	out = append(out, n.oneOf...)
	for _, s := range []*node{n.not, n.ifS, n.thenS, n.elseS} {
		if s != nil {
			out = append(out, s)
		}
	}
	for _, d := range n.depSchemas {
		out = append(out, d.s)
	}
	return out
}

// describe names the JSON type of a schema value for a message: "a number",
// "an array".
func describe(v value.Value) string {
	switch jsonType(norm(v)) {
	case "array":
		return "an array"
	case "object":
		return "an object"
	case "null":
		return "null"
	case "boolean":
		return "a boolean"
	case "number":
		return "a number"
	}
	return "a string"
}

// stringOf returns the text of a string or symbol.
func stringOf(v value.Value) (string, bool) {
	switch x := v.(type) {
	case value.String:
		return string(x), true
	case value.Symbol:
		return string(x), true
	}
	return "", false
}

// orList joins names as "a", "a or b", "a, b or c".
func orList(names []string) string {
	if len(names) == 1 {
		return names[0]
	}
	return strings.Join(names[:len(names)-1], ", ") + " or " + names[len(names)-1]
}

// escapeToken escapes a JSON pointer token: ~ as ~0, / as ~1.
func escapeToken(s string) string {
	if !strings.ContainsAny(s, "~/") {
		return s
	}
	s = strings.ReplaceAll(s, "~", "~0")
	return strings.ReplaceAll(s, "/", "~1")
}

// unescapeToken undoes escapeToken; a ~ not followed by 0 or 1 is an error.
func unescapeToken(s string) (string, bool) {
	if !strings.Contains(s, "~") {
		return s, true
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] != '~' {
			b.WriteByte(s[i])
			continue
		}
		if i+1 >= len(s) || (s[i+1] != '0' && s[i+1] != '1') {
			return "", false
		}
		if s[i+1] == '0' {
			b.WriteByte('~')
		} else {
			b.WriteByte('/')
		}
		i++
	}
	return b.String(), true
}

// percentDecode decodes the %XX escapes of a URI fragment.
func percentDecode(s string) (string, bool) {
	if !strings.Contains(s, "%") {
		return s, true
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] != '%' {
			b.WriteByte(s[i])
			continue
		}
		if i+2 >= len(s) {
			return "", false
		}
		hi, ok1 := unhex(s[i+1])
		lo, ok2 := unhex(s[i+2])
		if !ok1 || !ok2 {
			return "", false
		}
		b.WriteByte(hi<<4 | lo)
		i += 2
	}
	return b.String(), true
}

func unhex(c byte) (byte, bool) {
	switch {
	case '0' <= c && c <= '9':
		return c - '0', true
	case 'a' <= c && c <= 'f':
		return c - 'a' + 10, true
	case 'A' <= c && c <= 'F':
		return c - 'A' + 10, true
	}
	return 0, false
}

// displayPointer writes the pointer of the whole document as "/".
func displayPointer(p string) string {
	if p == "" {
		return "/"
	}
	return p
}
