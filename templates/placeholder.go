package templates

import (
	"errors"
	"fmt"
	"github.com/evalrun/evalrun/internal/suggest"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/alecthomas/participle/v2"

	"github.com/evalrun/evalrun/value"
)

// Lookup resolves the root name of a placeholder reference to its value; ok
// is false when the name is unknown. The task system looks names up among a
// call's inputs and then the built-ins (SPEC §12.2).
type Lookup func(root string) (v value.Value, ok bool)

// Text is a template text compiled once for fast rendering: literal chunks
// and placeholders (SPEC §12). A Text is immutable and safe for concurrent
// use.
type Text struct {
	src    string
	chunks []chunk
	roots  []Root
	// placeholders is the number of placeholder chunks.
	placeholders int
}

// Root is one root name referenced by a text's placeholders.
type Root struct {
	// Name is the root name, the part of a reference before the first dot.
	Name string
	// OnlyDefault is true when every reference to Name has a default(...)
	// filter, so that the name is never missing (SPEC §11.2 rule 3).
	OnlyDefault bool
}

type chunk struct {
	lit string       // literal text, escapes already replaced
	ph  *placeholder // nil for a literal chunk
}

type placeholder struct {
	src     string // as written, "{{ x | upper }}"
	off     int    // byte offset of "{{" in the text
	ref     string // "plan.files"
	root    string
	path    []segment
	filters []filterCall
	// hasDefault is true when the chain has a default(...) filter.
	hasDefault bool
}

type segment struct {
	name  string
	index int // the list index for a digit segment, else -1
}

type filterCall struct {
	name      string
	apply     filterFunc
	args      []value.Value
	isDefault bool
}

// PlaceholderError is a malformed placeholder (or, from Infer, a placeholder
// naming no input) at a position inside a template text.
type PlaceholderError struct {
	// Field names the template text the error is in ("instructions",
	// "system", "command", "file", "path", "context_query"); it is empty for
	// errors from Parse.
	Field string
	// Index is the position of the text among the template's texts of the
	// same Field, from 0; only the <path> elements of <file_paths> can be
	// more than one.
	Index int
	// Offset is the byte offset of the offending token in the text.
	Offset int
	// Line and Column locate Offset inside the text, both from 1; columns
	// count code points.
	Line, Column int
	// Placeholder is the placeholder as written, braces included.
	Placeholder string
	// Msg is the complete message, such as
	// "invalid placeholder {{ x | uper }}: unknown filter 'uper' (did you mean 'upper'?)".
	Msg string
}

// Error implements error.
func (e *PlaceholderError) Error() string { return e.Msg }

// ErrorList holds every error found in one or more texts, in text order.
type ErrorList []*PlaceholderError

// Error implements error: the messages, one per line.
func (l ErrorList) Error() string {
	msgs := make([]string, len(l))
	for i, e := range l {
		msgs[i] = e.Msg
	}
	return strings.Join(msgs, "\n")
}

// Unwrap lets errors.As find the individual errors.
func (l ErrorList) Unwrap() []error {
	errs := make([]error, len(l))
	for i, e := range l {
		errs[i] = e
	}
	return errs
}

// Parse compiles a template text (SPEC §12.1). "\{{" stands for a literal
// "{{", and a "{{" with no "}}" later on the same line is literal text; every
// other "{{ … }}" must hold a reference with filters. A text with errors
// returns an ErrorList with every malformed placeholder, in text order,
// together with a Text holding the well-formed ones, so that a validator can
// go on checking those (SPEC §9.4: every error of a file is reported).
func Parse(src string) (*Text, error) {
	t := &Text{src: src}
	var errs ErrorList
	var lit strings.Builder
	litStart := 0
	flush := func(end int) {
		if lit.Len() == 0 {
			if end > litStart {
				t.chunks = append(t.chunks, chunk{lit: src[litStart:end]})
			}
			return
		}
		lit.WriteString(src[litStart:end])
		t.chunks = append(t.chunks, chunk{lit: lit.String()})
		lit.Reset()
	}
	for i := 0; ; {
		j := strings.Index(src[i:], "{{")
		if j < 0 {
			break
		}
		p := i + j
		if p > 0 && src[p-1] == '\\' {
			// \{{ is a literal {{: drop the backslash.
			lit.WriteString(src[litStart : p-1])
			litStart = p
			i = p + 2
			continue
		}
		q := closingBraces(src, p+2)
		if q < 0 {
			i = p + 2
			continue
		}
		flush(p)
		ph, err := compilePlaceholder(src, p, q)
		if err != nil {
			errs = append(errs, err)
		} else {
			t.chunks = append(t.chunks, chunk{ph: ph})
			t.placeholders++
		}
		litStart = q + 2
		i = q + 2
	}
	flush(len(src))
	t.roots = collectRoots(t.chunks)
	if len(errs) > 0 {
		return t, errs
	}
	return t, nil
}

// MustParse is Parse for texts known to be valid, such as built-in
// templates; it panics on an error.
func MustParse(src string) *Text {
	t, err := Parse(src)
	if err != nil {
		panic("templates.MustParse: " + err.Error())
	}
	return t
}

// closingBraces returns the offset of the "}}" that closes a placeholder
// whose expression starts at from, or -1 when the line has none. Braces
// inside a double-quoted argument do not close the placeholder; when a quote
// is left open the rest of the line is searched plainly.
func closingBraces(src string, from int) int {
	end := len(src)
	if nl := strings.IndexByte(src[from:], '\n'); nl >= 0 {
		end = from + nl
	}
	line := src[:end]
	for j := from; j+1 < end; j++ {
		switch line[j] {
		case '"':
			k := j + 1
			for k < end && line[k] != '"' {
				if line[k] == '\\' {
					k++
				}
				k++
			}
			if k >= end {
				if q := strings.Index(line[j:], "}}"); q >= 0 {
					return j + q
				}
				return -1
			}
			j = k
		case '}':
			if line[j+1] == '}' {
				return j
			}
		}
	}
	return -1
}

// compilePlaceholder parses the placeholder src[p:q+2].
func compilePlaceholder(src string, p, q int) (*placeholder, *PlaceholderError) {
	written := src[p : q+2]
	inner := src[p+2 : q]
	fail := func(off int, format string, args ...any) *PlaceholderError {
		return newError(src, off, written, "invalid placeholder "+written+": "+fmt.Sprintf(format, args...))
	}
	if strings.TrimSpace(inner) == "" {
		return nil, fail(p, "expected a reference")
	}
	ast, err := exprParser().ParseString("", inner)
	if err != nil {
		var perr participle.Error
		off := p + 2
		msg := err.Error()
		if errors.As(err, &perr) {
			off += perr.Position().Offset
			msg = syntaxMessage(inner, perr)
		}
		return nil, fail(off, "%s", msg)
	}
	ph := &placeholder{src: written, off: p, ref: ast.Ref.Text}
	parts := strings.Split(ast.Ref.Text, ".")
	ph.root = parts[0]
	for _, s := range parts[1:] {
		seg := segment{name: s, index: -1}
		if s[0] >= '0' && s[0] <= '9' {
			if n, err := strconv.Atoi(s); err == nil {
				seg.index = n
			} else {
				seg.index = int(^uint(0) >> 1) // out of range of any list
			}
		}
		ph.path = append(ph.path, seg)
	}
	for _, f := range ast.Filters {
		foff := p + 2 + f.Pos.Offset
		spec, ok := filters[f.Name]
		if !ok {
			if hint := suggest.Near(f.Name, filterNames); hint != "" {
				return nil, fail(foff, "unknown filter '%s' (did you mean '%s'?)", f.Name, hint)
			}
			return nil, fail(foff, "unknown filter '%s'", f.Name)
		}
		if len(f.Args) != len(spec.args) {
			return nil, fail(foff, "filter '%s' takes %s, got %d", f.Name, plural(len(spec.args)), len(f.Args))
		}
		call := filterCall{name: f.Name, apply: spec.apply, isDefault: f.Name == "default"}
		for i, a := range f.Args {
			aoff := p + 2 + a.Pos.Offset
			v, bad := a.literal()
			if bad != "" {
				return nil, fail(aoff, "%s", bad)
			}
			switch spec.args[i] {
			case argCount:
				n, ok := v.(value.Int)
				if !ok {
					return nil, fail(aoff, "filter '%s' expects a non-negative int, got %s", f.Name, v.Type())
				}
				if n < 0 {
					return nil, fail(aoff, "filter '%s' expects a non-negative int, got %d", f.Name, int64(n))
				}
			case argString:
				if _, ok := v.(value.String); !ok {
					return nil, fail(aoff, "filter '%s' expects a string, got %s", f.Name, v.Type())
				}
			}
			call.args = append(call.args, v)
		}
		if call.isDefault {
			ph.hasDefault = true
		}
		ph.filters = append(ph.filters, call)
	}
	return ph, nil
}

func plural(n int) string {
	switch n {
	case 0:
		return "no arguments"
	case 1:
		return "1 argument"
	}
	return strconv.Itoa(n) + " arguments"
}

// syntaxMessage turns a participle error into a message about the token at
// its position.
func syntaxMessage(inner string, err participle.Error) string {
	off := err.Position().Offset
	if off >= len(inner) {
		return "unexpected end of placeholder"
	}
	got := ""
	var ute *participle.UnexpectedTokenError
	if errors.As(err, &ute) {
		if ute.Unexpected.EOF() {
			return "unexpected end of placeholder"
		}
		got = ute.Unexpected.Value
	} else {
		r, _ := utf8.DecodeRuneInString(inner[off:])
		if r == '"' {
			return "unterminated string"
		}
		got = string(r)
	}
	if off == len(inner)-len(strings.TrimLeft(inner, " \t")) {
		return "expected a reference, got '" + got + "'"
	}
	return "unexpected '" + got + "'"
}

// newError builds a PlaceholderError at byte offset off of src.
func newError(src string, off int, written, msg string) *PlaceholderError {
	line, col := lineCol(src, off)
	return &PlaceholderError{Offset: off, Line: line, Column: col, Placeholder: written, Msg: msg}
}

// lineCol converts a byte offset of src into a line and a column from 1, the
// column counted in code points.
func lineCol(src string, off int) (int, int) {
	off = min(max(off, 0), len(src))
	line := 1 + strings.Count(src[:off], "\n")
	start := strings.LastIndexByte(src[:off], '\n') + 1
	return line, utf8.RuneCountInString(src[start:off]) + 1
}

func collectRoots(chunks []chunk) []Root {
	var roots []Root
	for _, c := range chunks {
		if c.ph == nil {
			continue
		}
		roots = addRoot(roots, c.ph.root, c.ph.hasDefault)
	}
	return roots
}

// addRoot records one reference to name; a reference without default clears
// OnlyDefault.
func addRoot(roots []Root, name string, hasDefault bool) []Root {
	for i := range roots {
		if roots[i].Name == name {
			roots[i].OnlyDefault = roots[i].OnlyDefault && hasDefault
			return roots
		}
	}
	return append(roots, Root{Name: name, OnlyDefault: hasDefault})
}

// Source returns the text as given to Parse.
func (t *Text) Source() string { return t.src }

// HasPlaceholders reports whether the text contains at least one
// placeholder.
func (t *Text) HasPlaceholders() bool { return t.placeholders > 0 }

// Roots returns the root names of the text's placeholders in order of first
// appearance (SPEC §9.3).
func (t *Text) Roots() []Root { return append([]Root(nil), t.roots...) }

// Uses reports whether a placeholder of the text has the root name, such as
// "command_output".
func (t *Text) Uses(name string) bool {
	for _, r := range t.roots {
		if r.Name == name {
			return true
		}
	}
	return false
}

// Render substitutes every placeholder in a single pass (SPEC §12.2): the
// reference is resolved with lookup and walked segment by segment, the
// filters are applied and the result is rendered as text (SPEC §5.7).
// missing lists the references that could not be resolved, by their source
// text ("plan.files", or "x | join" when a filter met a value of the wrong
// type), in order of first appearance; their placeholders render as "".
func (t *Text) Render(lookup Lookup) (text string, missing []string) {
	text, missing, _ = t.RenderQuoted(lookup, nil)
	return text, missing
}

// RenderQuoted is Render with the final text of every placeholder — after
// its filters — passed through quote with the text rendered before it, so
// that each placeholder becomes, for example, exactly one shell word quoted
// for the quotes the text around it has open (SPEC §12.4). Literal text is
// kept as written. A nil quote renders as Render does. err is the first
// error of quote (a value that cannot be quoted for its place).
func (t *Text) RenderQuoted(lookup Lookup, quote func(prefix, s string) (string, error)) (text string, missing []string, err error) {
	if t.placeholders == 0 {
		if len(t.chunks) == 1 {
			return t.chunks[0].lit, nil, nil
		}
		if len(t.chunks) == 0 {
			return "", nil, nil
		}
	}
	var b strings.Builder
	b.Grow(len(t.src) + 16*t.placeholders)
	for _, c := range t.chunks {
		if c.ph == nil {
			b.WriteString(c.lit)
			continue
		}
		v, name, ok := c.ph.eval(lookup)
		if !ok {
			missing = addMissing(missing, name)
			continue
		}
		if quote != nil {
			q, qerr := quote(b.String(), value.Text(v))
			if qerr != nil && err == nil {
				err = fmt.Errorf("%s: %w", c.ph.src, qerr)
			}
			b.WriteString(q)
			continue
		}
		value.WriteText(&b, v)
	}
	return b.String(), missing, err
}

// Missing returns the references Render would report as missing, without
// building the text.
func (t *Text) Missing(lookup Lookup) []string {
	var missing []string
	for _, c := range t.chunks {
		if c.ph == nil {
			continue
		}
		if _, name, ok := c.ph.eval(lookup); !ok {
			missing = addMissing(missing, name)
		}
	}
	return missing
}

func addMissing(missing []string, name string) []string {
	for _, m := range missing {
		if m == name {
			return missing
		}
	}
	return append(missing, name)
}

// eval resolves the placeholder. When ok is false, name is the missing
// reference: the reference text, or "REF | FILTER" for a filter that met a
// value of the wrong type.
func (ph *placeholder) eval(lookup Lookup) (v value.Value, name string, ok bool) {
	v, ok = lookup(ph.root)
	for _, seg := range ph.path {
		if !ok {
			break
		}
		v, ok = walk(v, seg)
	}
	name = ph.ref
	for i := range ph.filters {
		f := &ph.filters[i]
		if f.isDefault {
			if !ok || isBlank(v) {
				v, ok = f.args[0], true
			}
			continue
		}
		if !ok {
			continue
		}
		out, good := f.apply(v, f.args)
		if !good {
			ok = false
			name = ph.ref + " | " + f.name
			continue
		}
		v = out
	}
	if !ok {
		return nil, name, false
	}
	return v, "", true
}

// walk follows one segment into v: a dict key, a TaskResult field, a list
// index or an association-list key.
func walk(v value.Value, seg segment) (value.Value, bool) {
	switch v := v.(type) {
	case *value.Dict:
		return v.Get(seg.name)
	case *value.TaskResult:
		return v.Field(seg.name)
	case value.List:
		if seg.index >= 0 {
			if seg.index < len(v) {
				return v[seg.index], true
			}
			return nil, false
		}
		for _, e := range v {
			pair, ok := e.(value.List)
			if !ok || len(pair) != 2 {
				continue
			}
			switch k := pair[0].(type) {
			case value.Symbol:
				if string(k) == seg.name {
					return pair[1], true
				}
			case value.String:
				if string(k) == seg.name {
					return pair[1], true
				}
			}
		}
	}
	return nil, false
}
