package jsonschema

import (
	"cmp"
	"fmt"
	"math"
	"math/big"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/evalrun/evalrun/value"
)

// Violation is one way in which a value breaks a schema.
type Violation struct {
	// Pointer is the JSON pointer (RFC 6901) of the offending part of the
	// value; "" is the whole value.
	Pointer string
	// Message says what is wrong, in words meant for whoever produced the
	// value: "missing required property 'issues'".
	Message string
}

// String returns "POINTER: message", the whole value's pointer written "/"
// (the form of notes.schemaError, SPEC §14.8). A property named "" of the
// whole value, whose pointer is "/", is written the same way.
func (v Violation) String() string { return displayPointer(v.Pointer) + ": " + v.Message }

// Limits of one validation. A value that needs more schema applications, or
// schemas nested deeper, gets the single violation "validation stopped: ..."
// instead of a verdict. They are variables for the tests.
var (
	maxSteps = 1 << 22
	maxDepth = 2000
)

// Validate checks v against the schema and returns every violation, sorted
// by instance pointer (array indices in numeric order, a pointer before the
// pointers below it) and then by message, without repetitions; nil means v
// is valid.
func (s *Schema) Validate(v value.Value) []Violation {
	st := &state{}
	st.validate(s.root, v)
	if st.abort != "" {
		return []Violation{{Pointer: st.abortAt, Message: st.abort}}
	}
	if len(st.out) == 0 {
		return nil
	}
	sortViolations(st.out)
	return slices.Compact(st.out)
}

// Valid reports whether v satisfies the schema; it stops at the first
// violation and builds no messages. A validation that hits the limits is not
// valid.
func (s *Schema) Valid(v value.Value) bool {
	st := &state{quick: true}
	return st.validate(s.root, v) && st.abort == ""
}

// state is one validation in progress.
type state struct {
	quick   bool // only the verdict: stop at the first violation, no messages
	out     []Violation
	path    []string // escaped tokens of the current instance location
	depth   int
	steps   int
	abort   string // why validation gave up, "" while it goes on
	abortAt string
}

func (st *state) pointer() string {
	if len(st.path) == 0 {
		return ""
	}
	return "/" + strings.Join(st.path, "/")
}

// add records a violation at the current location.
func (st *state) add(msg string) {
	st.out = append(st.out, Violation{Pointer: st.pointer(), Message: msg})
}

func (st *state) addf(format string, args ...any) { st.add(fmt.Sprintf(format, args...)) }

// bad marks *ok false and reports whether the check of the current schema
// should stop (in quick mode the first violation decides).
func (st *state) bad(ok *bool) bool {
	*ok = false
	return st.quick
}

func (st *state) stop(msg string) {
	if st.abort == "" {
		st.abort = msg
		st.abortAt = st.pointer()
	}
}

// test reports whether v satisfies n, without messages.
func (st *state) test(n *node, v value.Value) bool {
	q := st.quick
	st.quick = true
	ok := st.validate(n, v)
	st.quick = q
	return ok
}

// at validates v, found under the escaped token tok of the current location,
// against n.
func (st *state) at(tok string, n *node, v value.Value) bool {
	st.path = append(st.path, tok)
	ok := st.validate(n, v)
	st.path = st.path[:len(st.path)-1]
	return ok
}

// validate checks v against n at the current location.
func (st *state) validate(n *node, v value.Value) bool {
	if st.abort != "" {
		return false
	}
	switch n.kind {
	case kindTrue:
		return true
	case kindFalse:
		if !st.quick {
			st.add("value is not allowed")
		}
		return false
	}
	st.steps++
	if st.steps > maxSteps {
		st.stop(fmt.Sprintf("validation stopped: checking this value takes more than %d schema applications", maxSteps))
		return false
	}
	if st.depth >= maxDepth {
		st.stop(fmt.Sprintf("validation stopped: the schema applies more than %d levels deep here", maxDepth))
		return false
	}
	st.depth++
	ok := st.keywords(n, norm(v))
	st.depth--
	return ok
}

func (st *state) keywords(n *node, v value.Value) bool {
	ok := true
	if n.types != 0 && !hasType(n.types, v) {
		if st.bad(&ok) {
			return false
		}
		st.add("got " + jsonType(v) + ", want " + n.typeWant)
	}
	if n.hasEnum && !inEnum(n.enum, v) {
		if st.bad(&ok) {
			return false
		}
		st.add(n.enumText)
	}
	if n.hasConst && !equal(n.constVal, v) {
		if st.bad(&ok) {
			return false
		}
		st.add("value must be " + jsonText(n.constVal))
	}
	var r bool
	switch x := v.(type) {
	case *value.Dict:
		r = st.object(n, x)
	case value.List:
		r = st.array(n, x)
	case value.String:
		r = st.string(n, string(x))
	case value.Int, value.Float:
		r = st.number(n, v)
	default:
		r = true
	}
	if !r && st.bad(&ok) {
		return false
	}
	if n.refTarget != nil && !st.validate(n.refTarget, v) && st.bad(&ok) {
		return false
	}
	for _, s := range n.allOf {
		if !st.validate(s, v) && st.bad(&ok) {
			return false
		}
	}
	if n.anyOf != nil && !st.anyOf(n.anyOf, v) && st.bad(&ok) {
		return false
	}
	if n.oneOf != nil && !st.oneOf(n.oneOf, v) && st.bad(&ok) {
		return false
	}
	if n.not != nil && st.test(n.not, v) {
		if st.bad(&ok) {
			return false
		}
		st.add("value must not match the schema under 'not'")
	}
	if n.ifS != nil {
		next := n.elseS
		if st.test(n.ifS, v) {
			next = n.thenS
		}
		if next != nil && !st.validate(next, v) && st.bad(&ok) {
			return false
		}
	}
	return ok
}

func (st *state) object(n *node, d *value.Dict) bool {
	ok := true
	count := d.Len()
	if n.minProps >= 0 && count < n.minProps {
		if st.bad(&ok) {
			return false
		}
		st.addf("object has %s, fewer than the minimum %d", plural(count, "property", "properties"), n.minProps)
	}
	if n.maxProps >= 0 && count > n.maxProps {
		if st.bad(&ok) {
			return false
		}
		st.addf("object has %s, more than the maximum %d", plural(count, "property", "properties"), n.maxProps)
	}
	for _, r := range n.required {
		if !d.Has(r) {
			if st.bad(&ok) {
				return false
			}
			st.add("missing required property '" + r + "'")
		}
	}
	for _, dr := range n.depRequired {
		if !d.Has(dr.prop) {
			continue
		}
		for _, r := range dr.req {
			if !d.Has(r) {
				if st.bad(&ok) {
					return false
				}
				st.add("missing property '" + r + "', required when '" + dr.prop + "' is present")
			}
		}
	}
	for _, ds := range n.depSchemas {
		if d.Has(ds.prop) && !st.validate(ds.s, d) && st.bad(&ok) {
			return false
		}
	}
	if !n.objectKeywords {
		return ok
	}
	for k, v := range d.All() {
		if n.propertyNames != nil && !st.propertyName(n.propertyNames, k) && st.bad(&ok) {
			return false
		}
		matched := false
		if s, found := n.props[k]; found {
			matched = true
			if !st.property(s, k, v) && st.bad(&ok) {
				return false
			}
		}
		for _, pp := range n.patternProps {
			if pp.re.MatchString(k) {
				matched = true
				if !st.property(pp.s, k, v) && st.bad(&ok) {
					return false
				}
			}
		}
		if !matched && n.additional != nil && !st.property(n.additional, k, v) && st.bad(&ok) {
			return false
		}
	}
	return ok
}

// property validates the value v of property k against s; the schema false
// is reported at the object as "property 'k' is not allowed".
func (st *state) property(s *node, k string, v value.Value) bool {
	if s.kind == kindFalse {
		if !st.quick {
			st.add("property '" + k + "' is not allowed")
		}
		return false
	}
	return st.at(escapeToken(k), s, v)
}

// propertyName validates the property name k against the propertyNames
// schema s; violations are reported at the object.
func (st *state) propertyName(s *node, k string) bool {
	if s.kind == kindFalse {
		if !st.quick {
			st.add("property '" + k + "' is not allowed")
		}
		return false
	}
	start := len(st.out)
	if st.validate(s, value.String(k)) {
		return true
	}
	for i := start; i < len(st.out); i++ {
		st.out[i].Message = "property name '" + k + "': " + st.out[i].Message
	}
	return false
}

func (st *state) array(n *node, l value.List) bool {
	ok := true
	count := len(l)
	if n.minItems >= 0 && count < n.minItems {
		if st.bad(&ok) {
			return false
		}
		st.addf("array has %s, fewer than the minimum %d", plural(count, "item", "items"), n.minItems)
	}
	if n.maxItems >= 0 && count > n.maxItems {
		if st.bad(&ok) {
			return false
		}
		st.addf("array has %s, more than the maximum %d", plural(count, "item", "items"), n.maxItems)
	}
	if n.uniqueItems && !st.unique(l) && st.bad(&ok) {
		return false
	}
	prefix := len(n.prefixItems)
	for i, item := range l {
		s := n.items
		if i < prefix {
			s = n.prefixItems[i]
		} else if s == nil {
			break
		} else if s.kind == kindFalse {
			if st.bad(&ok) {
				return false
			}
			if prefix == 0 {
				st.addf("array has %s, but must be empty", plural(count, "item", "items"))
			} else {
				st.addf("array has %s, more than the %d allowed", plural(count, "item", "items"), prefix)
			}
			break
		}
		if !st.at(strconv.Itoa(i), s, item) && st.bad(&ok) {
			return false
		}
	}
	if n.contains != nil {
		matches := 0
		for i, item := range l {
			st.path = append(st.path, strconv.Itoa(i))
			if st.test(n.contains, item) {
				matches++
			}
			st.path = st.path[:len(st.path)-1]
		}
		if matches < n.minContains {
			if st.bad(&ok) {
				return false
			}
			if matches == 0 && n.minContains == 1 {
				st.add("array has no item that matches the schema under 'contains'")
			} else {
				st.addf("array has %s matching 'contains', fewer than the minimum %d", plural(matches, "item", "items"), n.minContains)
			}
		}
		if n.maxContains >= 0 && matches > n.maxContains {
			if st.bad(&ok) {
				return false
			}
			st.addf("array has %s matching 'contains', more than the maximum %d", plural(matches, "item", "items"), n.maxContains)
		}
	}
	return ok
}

// unique checks uniqueItems, reporting every item equal to an earlier one.
func (st *state) unique(l value.List) bool {
	ok := true
	report := func(i, j int) bool {
		ok = false
		if !st.quick {
			st.addf("items %d and %d are equal, but array items must be unique", i, j)
		}
		return st.quick
	}
	if len(l) <= 32 {
		for j := 1; j < len(l); j++ {
			for i := range j {
				if equal(l[i], l[j]) {
					if report(i, j) {
						return false
					}
					break
				}
			}
		}
		return ok
	}
	seen := make(map[string]int, len(l))
	var b strings.Builder
	for j, item := range l {
		b.Reset()
		canonical(&b, item)
		key := b.String()
		if i, dup := seen[key]; dup {
			if report(i, j) {
				return false
			}
			continue
		}
		seen[key] = j
	}
	return ok
}

func (st *state) string(n *node, s string) bool {
	ok := true
	if n.minLength >= 0 || n.maxLength >= 0 {
		count := utf8.RuneCountInString(s)
		if n.minLength >= 0 && count < n.minLength {
			if st.bad(&ok) {
				return false
			}
			st.addf("string has %s, fewer than the minimum %d", plural(count, "character", "characters"), n.minLength)
		}
		if n.maxLength >= 0 && count > n.maxLength {
			if st.bad(&ok) {
				return false
			}
			st.addf("string has %s, more than the maximum %d", plural(count, "character", "characters"), n.maxLength)
		}
	}
	if n.pattern != nil && !n.pattern.MatchString(s) {
		if st.bad(&ok) {
			return false
		}
		st.add("string does not match the pattern '" + n.pattern.String() + "'")
	}
	return ok
}

func (st *state) number(n *node, v value.Value) bool {
	ok := true
	if n.minimum != nil && cmpNum(v, n.minimum) < 0 {
		if st.bad(&ok) {
			return false
		}
		st.add(jsonText(v) + " is less than the minimum " + jsonText(n.minimum))
	}
	if n.maximum != nil && cmpNum(v, n.maximum) > 0 {
		if st.bad(&ok) {
			return false
		}
		st.add(jsonText(v) + " is more than the maximum " + jsonText(n.maximum))
	}
	if n.exclMin != nil && cmpNum(v, n.exclMin) <= 0 {
		if st.bad(&ok) {
			return false
		}
		st.add(jsonText(v) + " is not more than the exclusive minimum " + jsonText(n.exclMin))
	}
	if n.exclMax != nil && cmpNum(v, n.exclMax) >= 0 {
		if st.bad(&ok) {
			return false
		}
		st.add(jsonText(v) + " is not less than the exclusive maximum " + jsonText(n.exclMax))
	}
	if n.multipleOf != nil && !isMultiple(v, n.multipleOf) {
		if st.bad(&ok) {
			return false
		}
		st.add(jsonText(v) + " is not a multiple of " + jsonText(n.multipleOf))
	}
	return ok
}

func (st *state) anyOf(alts []*node, v value.Value) bool {
	for _, s := range alts {
		if st.test(s, v) {
			return true
		}
	}
	if !st.quick {
		st.add("value does not match any anyOf alternative: " + st.explain(alts, v))
	}
	return false
}

func (st *state) oneOf(alts []*node, v value.Value) bool {
	var matched []int
	for i, s := range alts {
		if st.test(s, v) {
			matched = append(matched, i)
			if len(matched) > 1 && st.quick {
				return false
			}
		}
	}
	switch {
	case len(matched) == 1:
		return true
	case st.quick:
	case len(matched) == 0:
		st.add("value does not match any oneOf alternative: " + st.explain(alts, v))
	default:
		idx := make([]string, len(matched))
		for i, m := range matched {
			idx[i] = strconv.Itoa(m)
		}
		st.add("value matches oneOf alternatives " + andList(idx) + ", but must match exactly one")
	}
	return false
}

// explain shows at most maxExplained violations of each alternative, each
// cut to maxExplainedLen bytes, so that nested alternatives cannot make a
// message grow without bound.
const (
	maxExplained    = 3
	maxExplainedLen = 300
)

// shorten cuts s to at most n bytes at a character boundary, marking the cut
// with "…".
func shorten(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}

// explain validates v against each alternative and returns their
// violations, each marked with the alternative's index: "[0] got number,
// want string; [1] /a: missing required property 'b'". Violations at the
// current location are shown without their pointer.
func (st *state) explain(alts []*node, v value.Value) string {
	here := st.pointer()
	var b strings.Builder
	for i, s := range alts {
		start := len(st.out)
		st.validate(s, v)
		vs := st.out[start:]
		sortViolations(vs)
		vs = slices.Compact(vs)
		for j, x := range vs {
			if b.Len() > 0 {
				b.WriteString("; ")
			}
			fmt.Fprintf(&b, "[%d] ", i)
			if j == maxExplained {
				fmt.Fprintf(&b, "… and %d more", len(vs)-j)
				break
			}
			if x.Pointer != here {
				b.WriteString(displayPointer(x.Pointer))
				b.WriteString(": ")
			}
			b.WriteString(shorten(x.Message, maxExplainedLen))
		}
		st.out = st.out[:start]
	}
	return b.String()
}

// norm maps a value to the JSON data model: symbols are strings, nil and
// non-finite floats null, a task result its JSON object, any other host
// value its printed form.
func norm(v value.Value) value.Value {
	switch x := v.(type) {
	case value.Int, value.String, value.Bool, value.Null, value.List, *value.Dict:
		return v
	case value.Float:
		if math.IsNaN(float64(x)) || math.IsInf(float64(x), 0) {
			return value.Null{}
		}
		return v
	case value.Symbol:
		return value.String(x)
	case nil:
		return value.Null{}
	case *value.TaskResult:
		return value.DictOf("status", value.String(x.Status), "content", value.String(x.Content),
			"parsedContent", x.ParsedOrNull(), "notes", x.NotesOrEmpty())
	}
	return value.String(v.String())
}

// jsonType names the JSON type of a normalized value.
func jsonType(v value.Value) string {
	switch v.(type) {
	case value.Null:
		return "null"
	case value.Bool:
		return "boolean"
	case *value.Dict:
		return "object"
	case value.List:
		return "array"
	case value.Int, value.Float:
		return "number"
	}
	return "string"
}

func hasType(m typeMask, v value.Value) bool {
	switch x := v.(type) {
	case value.Null:
		return m&typeNull != 0
	case value.Bool:
		return m&typeBoolean != 0
	case *value.Dict:
		return m&typeObject != 0
	case value.List:
		return m&typeArray != 0
	case value.String:
		return m&typeString != 0
	case value.Int:
		return m&(typeNumber|typeInteger) != 0
	case value.Float:
		return m&typeNumber != 0 || (m&typeInteger != 0 && float64(x) == math.Trunc(float64(x)))
	}
	return false
}

func inEnum(enum []value.Value, v value.Value) bool {
	for _, e := range enum {
		if equal(e, v) {
			return true
		}
	}
	return false
}

// jsonText writes a value of a message as JSON.
func jsonText(v value.Value) string { return value.JSON(v) }

// equal is JSON equality: numbers by value (1 equals 1.0), objects whatever
// their key order, symbols as strings.
func equal(a, b value.Value) bool {
	a, b = norm(a), norm(b)
	switch x := a.(type) {
	case value.Int, value.Float:
		switch b.(type) {
		case value.Int, value.Float:
			return cmpNum(a, b) == 0
		}
	case value.String:
		y, ok := b.(value.String)
		return ok && x == y
	case value.Bool:
		y, ok := b.(value.Bool)
		return ok && x == y
	case value.Null:
		_, ok := b.(value.Null)
		return ok
	case value.List:
		y, ok := b.(value.List)
		if !ok || len(x) != len(y) {
			return false
		}
		for i := range x {
			if !equal(x[i], y[i]) {
				return false
			}
		}
		return true
	case *value.Dict:
		y, ok := b.(*value.Dict)
		if !ok || x.Len() != y.Len() {
			return false
		}
		for k, xv := range x.All() {
			yv, found := y.Get(k)
			if !found || !equal(xv, yv) {
				return false
			}
		}
		return true
	}
	return false
}

// canonical writes a text that is the same for two values exactly when
// they are equal.
func canonical(b *strings.Builder, v value.Value) {
	switch x := norm(v).(type) {
	case value.Null:
		b.WriteString("n")
	case value.Bool:
		if x {
			b.WriteString("t")
		} else {
			b.WriteString("f")
		}
	case value.Int:
		b.WriteString("i")
		b.WriteString(strconv.FormatInt(int64(x), 10))
		b.WriteByte(';')
	case value.Float:
		f := float64(x)
		if f == math.Trunc(f) && f >= -0x1p63 && f < 0x1p63 {
			b.WriteString("i")
			b.WriteString(strconv.FormatInt(int64(f), 10))
		} else {
			b.WriteString("d")
			b.WriteString(strconv.FormatFloat(f, 'g', -1, 64))
		}
		b.WriteByte(';')
	case value.String:
		b.WriteString("s")
		b.WriteString(strconv.Itoa(len(x)))
		b.WriteByte(':')
		b.WriteString(string(x))
	case value.List:
		b.WriteByte('[')
		for _, e := range x {
			canonical(b, e)
		}
		b.WriteByte(']')
	case *value.Dict:
		keys := x.Keys()
		slices.Sort(keys)
		b.WriteByte('{')
		for _, k := range keys {
			b.WriteString(strconv.Itoa(len(k)))
			b.WriteByte(':')
			b.WriteString(k)
			e, _ := x.Get(k)
			canonical(b, e)
		}
		b.WriteByte('}')
	}
}

// cmpNum compares two numbers (Int or finite Float) exactly.
func cmpNum(a, b value.Value) int {
	switch x := a.(type) {
	case value.Int:
		switch y := b.(type) {
		case value.Int:
			return cmp.Compare(x, y)
		case value.Float:
			return cmpIntFloat(int64(x), float64(y))
		}
	case value.Float:
		switch y := b.(type) {
		case value.Int:
			return -cmpIntFloat(int64(y), float64(x))
		case value.Float:
			return cmp.Compare(x, y)
		}
	}
	return 0
}

// cmpIntFloat compares an int with a finite float without rounding the int.
func cmpIntFloat(i int64, f float64) int {
	if f >= 0x1p63 {
		return -1
	}
	if f < -0x1p63 {
		return 1
	}
	t := math.Trunc(f)
	if c := cmp.Compare(i, int64(t)); c != 0 {
		return c
	}
	return cmp.Compare(t, f)
}

// isMultiple reports whether x is an integer multiple of m > 0: exactly for
// ints, and for floats on their shortest decimal forms (0.3 is a multiple of
// 0.1).
func isMultiple(x, m value.Value) bool {
	if xi, ok := x.(value.Int); ok {
		if mi, ok := m.(value.Int); ok {
			return xi%mi == 0
		}
	}
	q := ratOf(x)
	q.Quo(q, ratOf(m))
	return q.IsInt()
}

func ratOf(v value.Value) *big.Rat {
	switch x := v.(type) {
	case value.Int:
		return new(big.Rat).SetInt64(int64(x))
	case value.Float:
		r, ok := new(big.Rat).SetString(strconv.FormatFloat(float64(x), 'g', -1, 64))
		if ok {
			return r
		}
	}
	return new(big.Rat)
}

// sortViolations sorts by pointer (token by token, array indices in numeric
// order, a pointer before those below it), then by message.
func sortViolations(vs []Violation) {
	slices.SortFunc(vs, func(a, b Violation) int {
		if c := comparePointers(a.Pointer, b.Pointer); c != 0 {
			return c
		}
		return strings.Compare(a.Message, b.Message)
	})
}

func comparePointers(a, b string) int {
	for a != "" && b != "" {
		ta, _, _ := strings.Cut(a[1:], "/")
		tb, _, _ := strings.Cut(b[1:], "/")
		if c := compareTokens(ta, tb); c != 0 {
			return c
		}
		a, b = a[1+len(ta):], b[1+len(tb):]
	}
	return cmp.Compare(len(a), len(b))
}

func compareTokens(a, b string) int {
	if isIndex(a) && isIndex(b) {
		if c := cmp.Compare(len(a), len(b)); c != 0 {
			return c
		}
	}
	return strings.Compare(a, b)
}

func isIndex(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// plural writes "1 item", "2 items".
func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return strconv.Itoa(n) + " " + many
}

// andList joins "0", "0 and 1", "0, 1 and 2".
func andList(s []string) string {
	if len(s) == 1 {
		return s[0]
	}
	return strings.Join(s[:len(s)-1], ", ") + " and " + s[len(s)-1]
}
