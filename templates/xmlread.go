package templates

import (
	"encoding/xml"
	"errors"
	"io"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/beevik/etree"

	"github.com/evalrun/evalrun/sexp"
)

// maxXMLDepth bounds the nesting of elements in a template file; templates
// need three levels, the bound only keeps hostile input cheap.
const maxXMLDepth = 256

// xmlDoc is one XML file read into an etree document, with the positions that
// etree does not record: the byte offset of every element and attribute and
// the raw byte range of every piece of character data.
type xmlDoc struct {
	src   *sexp.Source
	doc   *etree.Document
	root  *etree.Element
	elems map[*etree.Element]*elemInfo
	texts map[*etree.CharData]span
}

// elemInfo holds the positions of one element.
type elemInfo struct {
	off   int        // offset of the '<' of the start tag
	end   int        // offset just after the end tag (or "/>")
	attrs []attrInfo // the attributes as written, duplicates included
}

// attrInfo is one attribute as written.
type attrInfo struct {
	name  string
	value string
	off   int // offset of the attribute name
}

// span is a byte range of the source text.
type span struct{ start, end int }

// xmlError is a file that is not well-formed XML: a message at an offset.
type xmlError struct {
	off int
	msg string
}

// readXML reads src.Text with encoding/xml's tokenizer, recording the offset
// of each token, and builds the etree document from the tokens. Only a
// well-formed document with exactly one root element is accepted.
func readXML(src *sexp.Source) (*xmlDoc, *xmlError) {
	text := src.Text
	d := &xmlDoc{
		src:   src,
		doc:   etree.NewDocument(),
		elems: map[*etree.Element]*elemInfo{},
		texts: map[*etree.CharData]span{},
	}
	if !utf8.ValidString(text) {
		// encoding/xml does not check every construct (directives, for
		// one): check the whole file first.
		off := 0
		for off < len(text) {
			r, size := utf8.DecodeRuneInString(text[off:])
			if r == utf8.RuneError && size == 1 {
				break
			}
			off += size
		}
		return nil, &xmlError{off, "invalid UTF-8"}
	}
	input, shifts := escapeStray(text)
	dec := xml.NewDecoder(strings.NewReader(input))
	dec.Strict = true
	dec.CharsetReader = func(label string, r io.Reader) (io.Reader, error) {
		if strings.EqualFold(label, "us-ascii") || strings.EqualFold(label, "ascii") {
			return r, nil // a subset of UTF-8
		}
		return nil, errors.New("template files must be UTF-8")
	}
	var stack []*etree.Element
	rootDone := false
	for {
		start := origOffset(shifts, int(dec.InputOffset()))
		tok, err := dec.RawToken()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, decodeError(text, start, origOffset(shifts, int(dec.InputOffset())), err)
		}
		end := origOffset(shifts, int(dec.InputOffset()))
		var parent *etree.Element
		if len(stack) > 0 {
			parent = stack[len(stack)-1]
		}
		switch t := tok.(type) {
		case xml.StartElement:
			name := qname(t.Name)
			if parent == nil && rootDone {
				return nil, &xmlError{start, "unexpected element <" + name + "> after the root element"}
			}
			if len(stack) >= maxXMLDepth {
				return nil, &xmlError{start, "elements nested deeper than " + strconv.Itoa(maxXMLDepth) + " levels"}
			}
			var el *etree.Element
			if parent == nil {
				el = etree.NewElement(name)
				d.doc.SetRoot(el)
				d.root = el
			} else {
				el = parent.CreateElement(name)
			}
			info := &elemInfo{off: start, end: end}
			offs := attrOffsets(text, start, end, len(t.Attr))
			for i, a := range t.Attr {
				an := qname(a.Name)
				el.CreateAttr(an, a.Value)
				info.attrs = append(info.attrs, attrInfo{name: an, value: a.Value, off: offs[i]})
			}
			d.elems[el] = info
			stack = append(stack, el)
		case xml.EndElement:
			name := qname(t.Name)
			if parent == nil {
				return nil, &xmlError{start, "unexpected end element </" + name + ">"}
			}
			if parent.FullTag() != name {
				return nil, &xmlError{start, "element <" + parent.FullTag() + "> closed by </" + name + ">"}
			}
			d.elems[parent].end = end
			stack = stack[:len(stack)-1]
			if len(stack) == 0 {
				rootDone = true
			}
		case xml.CharData:
			if parent == nil {
				s := string(t)
				rest := strings.TrimLeft(strings.TrimPrefix(s, "\uFEFF"), " \t\r\n")
				if rest != "" {
					where := "before"
					if rootDone {
						where = "after"
					}
					return nil, &xmlError{start + len(s) - len(rest),
						"unexpected text " + quoteCut(strings.TrimSpace(rest)) + " " + where + " the root element"}
				}
				continue
			}
			var cd *etree.CharData
			if strings.HasPrefix(text[start:], "<![CDATA[") {
				cd = parent.CreateCData(string(t))
			} else {
				cd = parent.CreateText(string(t))
			}
			d.texts[cd] = span{start, end}
		case xml.Comment:
			if parent == nil {
				d.doc.CreateComment(string(t))
			} else {
				parent.CreateComment(string(t))
			}
		case xml.ProcInst:
			if parent == nil {
				d.doc.CreateProcInst(t.Target, string(t.Inst))
			} else {
				parent.CreateProcInst(t.Target, string(t.Inst))
			}
		case xml.Directive:
			if parent != nil || rootDone {
				return nil, &xmlError{start, "unexpected directive <!" + cutRunes(string(t), 20) + ">"}
			}
			d.doc.CreateDirective(string(t))
		}
	}
	if len(stack) > 0 {
		el := stack[len(stack)-1]
		return nil, &xmlError{d.elems[el].off, "unexpected end of file: element <" + el.FullTag() + "> is not closed"}
	}
	if d.root == nil {
		return nil, &xmlError{0, "no root element: expected <task> or <tasks>"}
	}
	return d, nil
}

// shift records that escapeStray replaced the byte at offset off of the
// original text by a longer entity reference, extra bytes longer.
type shift struct{ off, extra int }

// escapeStray returns text with every '<' that does not start markup and
// every '&' that does not start an entity or character reference replaced by
// "&lt;" and "&amp;", so that prompts may contain "<0-10>", "<what to
// improve>" or "R&D" as plain text (SPEC §20.2), and the replacements made.
// Markup is a comment, CDATA section, processing instruction, declaration or
// end tag (recognised by "<!", "<?" and "</"), or a well-formed start tag. In
// attribute values every '<' and bare '&' is replaced. The text is returned
// unchanged (and not copied) when nothing is replaced.
func escapeStray(text string) (string, []shift) {
	var shifts []shift
	var b strings.Builder
	last := 0
	replace := func(i int, with string) {
		if shifts == nil {
			b.Grow(len(text) + 16)
		}
		b.WriteString(text[last:i])
		b.WriteString(with)
		last = i + 1
		shifts = append(shifts, shift{i, len(with) - 1})
	}
	for i := 0; i < len(text); {
		j := strings.IndexAny(text[i:], "<&")
		if j < 0 {
			break
		}
		i += j
		if text[i] == '&' {
			if !isEntityRef(text[i:]) {
				replace(i, "&amp;")
			}
			i++
			continue
		}
		rest := text[i:]
		switch {
		case strings.HasPrefix(rest, "<!--"):
			i = skipPast(text, i+4, "-->")
		case strings.HasPrefix(rest, "<![CDATA["):
			i = skipPast(text, i+9, "]]>")
		case strings.HasPrefix(rest, "<?"):
			i = skipPast(text, i+2, "?>")
		case strings.HasPrefix(rest, "<!"), strings.HasPrefix(rest, "</"):
			i = skipPast(text, i+2, ">")
		case nameLen(rest[1:]) == 0:
			// "< 5", "<0-10>", "<=": not markup.
			replace(i, "&lt;")
			i++
		default:
			end, values := startTag(rest)
			if end < 0 {
				replace(i, "&lt;")
				i++
				continue
			}
			for _, v := range values {
				for k := v.start; k < v.end; k++ {
					switch c := rest[k]; {
					case c == '<':
						replace(i+k, "&lt;")
					case c == '&' && !isEntityRef(rest[k:v.end]):
						replace(i+k, "&amp;")
					}
				}
			}
			i += end
		}
	}
	if shifts == nil {
		return text, nil
	}
	b.WriteString(text[last:])
	return b.String(), shifts
}

// skipPast returns the offset just after the first occurrence of end at or
// after from, or len(text) when there is none.
func skipPast(text string, from int, end string) int {
	if j := strings.Index(text[from:], end); j >= 0 {
		return from + j + len(end)
	}
	return len(text)
}

// isEntityRef reports whether s starts with an entity reference ("&name;")
// or a character reference ("&#123;", "&#x1F;").
func isEntityRef(s string) bool {
	i := 1
	switch {
	case strings.HasPrefix(s, "&#x"):
		i = 3
		for i < len(s) && isHexDigit(s[i]) {
			i++
		}
		return i > 3 && i < len(s) && s[i] == ';'
	case strings.HasPrefix(s, "&#"):
		i = 2
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
		}
		return i > 2 && i < len(s) && s[i] == ';'
	}
	n := nameLen(s[1:])
	return n > 0 && 1+n < len(s) && s[1+n] == ';'
}

func isHexDigit(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}

// nameLen returns the length of the XML name at the start of s, or 0.
// Every non-ASCII character counts as a name character.
func nameLen(s string) int {
	i := 0
	for i < len(s) {
		c := s[i]
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c == '_', c == ':', c >= 0x80:
		case i > 0 && (c >= '0' && c <= '9' || c == '-' || c == '.'):
		default:
			return i
		}
		i++
	}
	return i
}

// startTag looks at the '<' that starts s, followed by a name: it returns
// the length of the start tag and the ranges of its attribute values
// (between the quotes), or -1 when the text reads as prose rather than as
// a tag: a word not followed by '=' where an attribute would be ("<what to
// improve>"), a character that cannot follow a name, or no closing '>'. A
// tag that is malformed in another way (an unquoted value) is returned as a
// tag with its length up to the next '>', so that the XML reader reports it.
func startTag(s string) (int, []span) {
	i := 1 + nameLen(s[1:])
	var values []span
	for {
		sp := i
		for i < len(s) && isXMLSpace(s[i]) {
			i++
		}
		if i >= len(s) {
			return -1, nil
		}
		switch {
		case s[i] == '>':
			return i + 1, values
		case strings.HasPrefix(s[i:], "/>"):
			return i + 2, values
		}
		n := nameLen(s[i:])
		if i == sp || n == 0 {
			// Not white space and an attribute name: "<a,b>", "<x+1>".
			return -1, nil
		}
		i += n
		for i < len(s) && isXMLSpace(s[i]) {
			i++
		}
		if i >= len(s) || s[i] != '=' {
			return -1, nil // a word, not an attribute
		}
		i++
		for i < len(s) && isXMLSpace(s[i]) {
			i++
		}
		if i >= len(s) || s[i] != '"' && s[i] != '\'' {
			// An unquoted value: markup with an error.
			if j := strings.IndexByte(s[i:], '>'); j >= 0 {
				return i + j + 1, values
			}
			return len(s), values
		}
		q := s[i]
		j := strings.IndexByte(s[i+1:], q)
		if j < 0 {
			return len(s), values
		}
		values = append(values, span{i + 1, i + 1 + j})
		i += j + 2
	}
}

// origOffset maps an offset of the text escapeStray returned back to the
// original text; an offset inside a replacement maps to the replaced byte.
func origOffset(shifts []shift, off int) int {
	total := 0
	for _, s := range shifts {
		at := s.off + total
		if off <= at {
			break
		}
		if off < at+1+s.extra {
			return s.off
		}
		total += s.extra
	}
	return off - total
}

// decodeError turns an error of encoding/xml into an xmlError positioned at
// the character where the tokenizer stopped (the offending one), never
// before the start of the token being read.
func decodeError(text string, start, stop int, err error) *xmlError {
	msg := err.Error()
	var se *xml.SyntaxError
	if errors.As(err, &se) {
		msg = se.Msg
	}
	msg = strings.TrimPrefix(msg, "xml: ")
	if se != nil && se.Msg == "unexpected EOF" {
		return &xmlError{start, "unexpected end of file"}
	}
	off := min(stop, len(text))
	if off > start {
		// The tokenizer has consumed the offending character: point at it.
		_, size := utf8.DecodeLastRuneInString(text[:off])
		off -= size
	}
	return &xmlError{max(off, start), msg}
}

// qname returns the name as written: "prefix:local" or "local".
func qname(n xml.Name) string {
	if n.Space != "" {
		return n.Space + ":" + n.Local
	}
	return n.Local
}

// attrOffsets returns the offsets of the n attribute names of the start tag
// text[start:end], which the tokenizer has already found well-formed. Missing
// entries (which cannot happen for a well-formed tag) are set to start.
func attrOffsets(text string, start, end, n int) []int {
	offs := make([]int, n)
	for i := range offs {
		offs[i] = start
	}
	if n == 0 {
		return offs
	}
	tag := text[start:end]
	i := 1
	for i < len(tag) && !isXMLSpace(tag[i]) && tag[i] != '/' && tag[i] != '>' {
		i++
	}
	for k := 0; k < n; k++ {
		for i < len(tag) && isXMLSpace(tag[i]) {
			i++
		}
		if i >= len(tag) || tag[i] == '/' || tag[i] == '>' {
			break
		}
		offs[k] = start + i
		for i < len(tag) && !isXMLSpace(tag[i]) && tag[i] != '=' {
			i++
		}
		for i < len(tag) && (isXMLSpace(tag[i]) || tag[i] == '=') {
			i++
		}
		if i >= len(tag) {
			break
		}
		q := tag[i]
		i++
		if j := strings.IndexByte(tag[i:], q); j >= 0 {
			i += j + 1
		} else {
			break
		}
	}
	return offs
}

func isXMLSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\r' || c == '\n' }

// quoteCut quotes s for a message, cut to 40 code points.
func quoteCut(s string) string { return strconv.Quote(cutRunes(s, 40)) }

// cutRunes cuts s to n code points, appending "…" when it was longer.
func cutRunes(s string, n int) string {
	i := 0
	for j := range s {
		if i == n {
			return s[:j] + "…"
		}
		i++
	}
	return s
}

// info returns the positions of el.
func (d *xmlDoc) info(el *etree.Element) *elemInfo { return d.elems[el] }

// pos returns the position of byte offset off.
func (d *xmlDoc) pos(off int) sexp.Pos { return sexp.Pos{Src: d.src, Off: off} }

// rawText returns the character data directly inside el, comments and
// processing instructions skipped, and the char data tokens it came from.
func rawText(el *etree.Element) (string, []*etree.CharData) {
	var pieces []*etree.CharData
	for _, tok := range el.Child {
		if cd, ok := tok.(*etree.CharData); ok {
			pieces = append(pieces, cd)
		}
	}
	switch len(pieces) {
	case 0:
		return "", nil
	case 1:
		return pieces[0].Data, pieces
	}
	var b strings.Builder
	for _, cd := range pieces {
		b.WriteString(cd.Data)
	}
	return b.String(), pieces
}

// textMode says how an element's text is cleaned (SPEC §9.2).
type textMode uint8

const (
	modeTrim   textMode = iota // strings.TrimSpace
	modeDedent                 // dedent
	modeRaw                    // as written
)

// elemText returns the text of el cleaned by mode.
func elemText(el *etree.Element, mode textMode) string {
	s, _ := rawText(el)
	return applyRanges(s, cleanRanges(s, mode))
}

// cleanRanges returns the byte ranges of s that the mode keeps.
func cleanRanges(s string, mode textMode) []span {
	switch mode {
	case modeDedent:
		return dedentRanges(s)
	case modeTrim:
		return trimRanges(s)
	}
	return []span{{0, len(s)}}
}

// applyRanges concatenates the ranges of s.
func applyRanges(s string, rs []span) string {
	switch len(rs) {
	case 0:
		return ""
	case 1:
		return s[rs[0].start:rs[0].end]
	}
	n := 0
	for _, r := range rs {
		n += r.end - r.start
	}
	var b strings.Builder
	b.Grow(n)
	for _, r := range rs {
		b.WriteString(s[r.start:r.end])
	}
	return b.String()
}

// trimRanges is strings.TrimSpace as a range.
func trimRanges(s string) []span {
	t := strings.TrimLeftFunc(s, isUnicodeSpace)
	start := len(s) - len(t)
	t = strings.TrimRightFunc(t, isUnicodeSpace)
	if t == "" {
		return nil
	}
	return []span{{start, start + len(t)}}
}

func isUnicodeSpace(r rune) bool { return strings.TrimSpace(string(r)) == "" }

// Dedent applies the text rule of SPEC §9.2: leading and trailing blank lines
// are removed, then the longest common run of leading spaces and tabs of the
// non-blank lines; blank lines inside the text become empty. It is the rule
// for description, system, instructions, criteria, command and
// context_query.
func Dedent(s string) string { return applyRanges(s, dedentRanges(s)) }

// dedentRanges returns the byte ranges of s kept by Dedent.
func dedentRanges(s string) []span {
	type line struct{ start, end int }
	var lines []line
	for i := 0; ; {
		j := strings.IndexByte(s[i:], '\n')
		if j < 0 {
			lines = append(lines, line{i, len(s)})
			break
		}
		lines = append(lines, line{i, i + j})
		i += j + 1
	}
	blank := func(l line) bool { return strings.Trim(s[l.start:l.end], " \t") == "" }
	first, last := 0, len(lines)-1
	for first <= last && blank(lines[first]) {
		first++
	}
	for last >= first && blank(lines[last]) {
		last--
	}
	if first > last {
		return nil
	}
	prefix := ""
	havePrefix := false
	for _, l := range lines[first : last+1] {
		if blank(l) {
			continue
		}
		text := s[l.start:l.end]
		ind := text[:len(text)-len(strings.TrimLeft(text, " \t"))]
		if !havePrefix {
			prefix, havePrefix = ind, true
			continue
		}
		n := 0
		for n < len(prefix) && n < len(ind) && prefix[n] == ind[n] {
			n++
		}
		prefix = prefix[:n]
	}
	var rs []span
	add := func(a, b int) {
		if a >= b {
			return
		}
		if n := len(rs); n > 0 && rs[n-1].end == a {
			rs[n-1].end = b
			return
		}
		rs = append(rs, span{a, b})
	}
	for i := first; i <= last; i++ {
		l := lines[i]
		if !blank(l) {
			add(l.start+len(prefix), l.end)
		}
		if i < last {
			add(l.end, l.end+1) // the line feed
		}
	}
	return rs
}

// textOffset maps byte offset off of el's text cleaned by mode back to an
// offset of the file. When the mapping is not possible (which would be a
// bug) it returns the element's offset.
func (d *xmlDoc) textOffset(el *etree.Element, mode textMode, off int) int {
	fallback := d.info(el).off
	var decoded strings.Builder
	var offs []int
	_, pieces := rawText(el)
	for _, cd := range pieces {
		sp, ok := d.texts[cd]
		if !ok {
			return fallback
		}
		n := decoded.Len()
		offs = decodeRaw(d.src.Text[sp.start:sp.end], sp.start, &decoded, offs)
		if decoded.String()[n:] != cd.Data {
			return fallback
		}
	}
	s := decoded.String()
	offs = append(offs, d.info(el).end)
	pos := 0
	for _, r := range cleanRanges(s, mode) {
		if off < pos+(r.end-r.start) {
			return offs[r.start+off-pos]
		}
		pos += r.end - r.start
	}
	if rs := cleanRanges(s, mode); len(rs) > 0 && off == pos {
		return offs[rs[len(rs)-1].end]
	}
	return fallback
}

// decodeRaw decodes the raw character data raw (text with entities, or a
// CDATA section) that starts at file offset base into b, and appends to offs
// the file offset of every decoded byte.
func decodeRaw(raw string, base int, b *strings.Builder, offs []int) []int {
	emit := func(s string, at int) {
		b.WriteString(s)
		for range len(s) {
			offs = append(offs, at)
		}
	}
	if strings.HasPrefix(raw, "<![CDATA[") {
		body := strings.TrimSuffix(raw[len("<![CDATA["):], "]]>")
		base += len("<![CDATA[")
		for i := 0; i < len(body); i++ {
			if body[i] == '\r' {
				emit("\n", base+i)
				if i+1 < len(body) && body[i+1] == '\n' {
					i++
				}
				continue
			}
			emit(body[i:i+1], base+i)
		}
		return offs
	}
	for i := 0; i < len(raw); i++ {
		switch raw[i] {
		case '\r':
			emit("\n", base+i)
			if i+1 < len(raw) && raw[i+1] == '\n' {
				i++
			}
		case '&':
			if !isEntityRef(raw[i:]) {
				emit("&", base+i)
				continue
			}
			j := strings.IndexByte(raw[i:], ';')
			emit(entityText(raw[i+1:i+j]), base+i)
			i += j
		default:
			emit(raw[i:i+1], base+i)
		}
	}
	return offs
}

// entityText returns the text of the entity or character reference name
// (without & and ;).
func entityText(name string) string {
	switch name {
	case "lt":
		return "<"
	case "gt":
		return ">"
	case "amp":
		return "&"
	case "apos":
		return "'"
	case "quot":
		return `"`
	}
	if strings.HasPrefix(name, "#x") {
		if n, err := strconv.ParseUint(name[2:], 16, 32); err == nil {
			return string(rune(n))
		}
	} else if strings.HasPrefix(name, "#") {
		if n, err := strconv.ParseUint(name[1:], 10, 32); err == nil {
			return string(rune(n))
		}
	}
	return "&" + name + ";"
}
