package config

import (
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/evalrun/evalrun/sexp"

	"github.com/pelletier/go-toml/v2/unstable"
)

// parser walks a TOML document with go-toml's unstable parser to find the
// byte offsets of its keys and values, which go-toml's decoder does not
// report for values that decode well but fail evalrun's checks.
type parser struct {
	p unstable.Parser
}

func (p *parser) reset(data []byte) { p.p.Reset(data) }

// walk calls fn for every table header and every key/value pair (inline
// tables included) with the full key path and the offset of the value, or
// of the key when the value has no recorded place (arrays, tables). It stops
// at the first syntax error, which the decoder has already reported.
func (p *parser) walk(fn func(path []string, off int)) {
	var table []string
	for p.p.NextExpression() {
		e := p.p.Expression()
		switch e.Kind {
		case unstable.Table, unstable.ArrayTable:
			keys, offs := p.keys(e)
			table = keys
			// Each prefix of the header is placed at its last part, so
			// that [providers.local-llm] is found at local-llm.
			for i := len(keys); i > 0; i-- {
				if offs[i-1] >= 0 {
					fn(keys[:i], offs[i-1])
				}
			}
		case unstable.KeyValue:
			p.keyValue(table, e, fn)
		}
	}
}

// keys returns the key parts of a table header or key/value pair and the
// offset of each part (-1 when unknown).
func (p *parser) keys(n *unstable.Node) ([]string, []int) {
	var keys []string
	var offs []int
	it := n.Key()
	for it.Next() {
		k := it.Node()
		off := -1
		if k.Raw.Length > 0 {
			off = int(k.Raw.Offset)
		}
		keys = append(keys, string(k.Data))
		offs = append(offs, off)
	}
	return keys, offs
}

func (p *parser) keyValue(table []string, e *unstable.Node, fn func(path []string, off int)) {
	keys, offs := p.keys(e)
	path := append(slices.Clone(table), keys...)
	v := e.Value()
	off := -1
	if len(offs) > 0 {
		off = offs[0]
	}
	if v != nil && v.Valid() && v.Raw.Length > 0 {
		off = int(v.Raw.Offset)
	}
	if off >= 0 {
		fn(path, off)
	}
	if v != nil && v.Valid() && v.Kind == unstable.InlineTable {
		it := v.Children()
		for it.Next() {
			if c := it.Node(); c.Kind == unstable.KeyValue {
				p.keyValue(path, c, fn)
			}
		}
	}
}

// inString returns the position of byte idx of the string value at path,
// as decoded: the quote and the escapes of the TOML string are skipped, so
// that an error can point at a placeholder inside a command. It falls back
// to the start of the value when the value is no string it can follow.
func (f *file) inString(path []string, idx int) sexp.Pos {
	start := f.at(path...)
	off, ok := stringOffset(f.src.Text, start.Off, idx)
	if !ok {
		return start
	}
	return sexp.Pos{Src: f.src, Off: off}
}

// stringOffset maps byte idx of the decoded TOML string whose opening quote
// is at off in src to its offset in src.
func stringOffset(src string, off, idx int) (int, bool) {
	rest := src[off:]
	var delim string
	for _, d := range []string{`"""`, `'''`, `"`, `'`} {
		if strings.HasPrefix(rest, d) {
			delim = d
			break
		}
	}
	if delim == "" {
		return 0, false
	}
	pos := off + len(delim)
	if len(delim) == 3 {
		// A newline right after the opening delimiter is trimmed.
		if strings.HasPrefix(src[pos:], "\r\n") {
			pos += 2
		} else if strings.HasPrefix(src[pos:], "\n") {
			pos++
		}
	}
	if delim[0] == '\'' {
		return pos + idx, pos+idx <= len(src)
	}
	for n := 0; ; {
		if pos >= len(src) {
			return 0, false
		}
		if n == idx && !(src[pos] == '\\' && pos+1 < len(src) && strings.IndexByte(" \t\r\n", src[pos+1]) >= 0) {
			break
		}
		if src[pos] != '\\' {
			pos++
			n++
			continue
		}
		if pos+1 >= len(src) {
			return 0, false
		}
		switch e := src[pos+1]; e {
		case 'u', 'U':
			width := 4
			if e == 'U' {
				width = 8
			}
			if pos+2+width > len(src) {
				return 0, false
			}
			r, err := strconv.ParseUint(src[pos+2:pos+2+width], 16, 32)
			if err != nil {
				return 0, false
			}
			n += utf8.RuneLen(rune(r))
			pos += 2 + width
		case ' ', '\t', '\r', '\n':
			// A line-ending backslash removes the white space after it.
			pos++
			for pos < len(src) && strings.IndexByte(" \t\r\n", src[pos]) >= 0 {
				pos++
			}
		default:
			n++
			pos += 2
		}
	}
	return pos, true
}
