package value

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"unicode/utf8"
)

// JSON returns the compact JSON text of v (SPEC §5.6): numbers with the
// printer's text, symbols as strings, nil as [], dicts in insertion order,
// TaskResults as {"status","content","parsedContent","notes"}, closures as
// their printed form. There is no HTML escaping. A value whose JSON would
// exceed MaxRenderBytes is written as the string TooLarge instead.
func JSON(v Value) string {
	var b strings.Builder
	writeJSONBounded(&b, v, "", "")
	return b.String()
}

// JSONIndent returns v as JSON indented like Go's json.MarshalIndent(v, "",
// indent), without HTML escaping, bounded like JSON.
func JSONIndent(v Value, indent string) string {
	var b strings.Builder
	writeJSONBounded(&b, v, "\n", indent)
	return b.String()
}

// MaxRenderBytes bounds every JSON and text rendering of a value: a list
// that shares its parts can describe 2^60 bytes in a few of memory, and no
// prompt, journal entry or message should try to hold it.
const MaxRenderBytes = 256 << 20

// TooLarge stands for a value whose rendering would exceed MaxRenderBytes.
const TooLarge = "#<value too large to render>"

// writeJSONBounded measures v first (in time proportional to the bound) and
// writes TooLarge when it is over MaxRenderBytes.
func writeJSONBounded(b *strings.Builder, v Value, nl, indent string) {
	switch v.(type) {
	case List, *Dict, *TaskResult:
		n := JSONSize(v, MaxRenderBytes)
		if n > MaxRenderBytes {
			writeJSONString(b, TooLarge)
			return
		}
		if nl == "" {
			b.Grow(n) // the size of the compact text: written without regrowth
		}
	}
	writeJSON(b, v, nl, indent, 0)
}

// writeJSON writes v; nl is "" for compact output, else the newline plus the
// current indentation.
func writeJSON(b *strings.Builder, v Value, nl, indent string, depth int) {
	switch v.(type) {
	case List, *Dict, *TaskResult:
		if depth >= MaxPrintDepth {
			writeJSONString(b, TooDeep)
			return
		}
	}
	switch v := v.(type) {
	case Int, Float:
		b.WriteString(v.String())
	case Bool:
		b.WriteString(v.String())
	case Null, nil:
		b.WriteString("null")
	case String:
		writeJSONString(b, string(v))
	case Symbol:
		writeJSONString(b, string(v))
	case List:
		if len(v) == 0 {
			b.WriteString("[]")
			return
		}
		inner := nl
		if nl != "" {
			inner = nl + indent
		}
		b.WriteByte('[')
		for i, e := range v {
			if i > 0 {
				b.WriteByte(',')
			}
			b.WriteString(inner)
			writeJSON(b, e, inner, indent, depth+1)
		}
		b.WriteString(nl)
		b.WriteByte(']')
	case *Dict:
		if v.Len() == 0 {
			b.WriteString("{}")
			return
		}
		writeObject(b, v.keys, v.vals, nl, indent, depth)
	case *TaskResult:
		writeObject(b, []string{"status", "content", "parsedContent", "notes"},
			[]Value{String(v.Status), String(v.Content), v.ParsedOrNull(), v.NotesOrEmpty()}, nl, indent, depth)
	default:
		writeJSONString(b, v.String())
	}
}

func writeObject(b *strings.Builder, keys []string, vals []Value, nl, indent string, depth int) {
	inner := nl
	sep := ":"
	if nl != "" {
		inner = nl + indent
		sep = ": "
	}
	b.WriteByte('{')
	for i, k := range keys {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(inner)
		writeJSONString(b, k)
		b.WriteString(sep)
		writeJSON(b, vals[i], inner, indent, depth+1)
	}
	b.WriteString(nl)
	b.WriteByte('}')
}

const hexDigits = "0123456789abcdef"

// StringWriter is what JSON text is written to: a *strings.Builder or a
// *bytes.Buffer.
type StringWriter interface {
	io.ByteWriter
	io.StringWriter
}

// writeJSONString is WriteJSONString for the encoder's own builder.
func writeJSONString(b *strings.Builder, s string) { WriteJSONString(b, s) }

// WriteJSONString writes s as a JSON string the way encoding/json does with
// HTML escaping turned off: control characters, quote, backslash, U+2028 and
// U+2029 escaped, invalid UTF-8 replaced by U+FFFD.
func WriteJSONString(b StringWriter, s string) {
	b.WriteByte('"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' {
				i++
				continue
			}
			b.WriteString(s[start:i])
			switch c {
			case '"', '\\':
				b.WriteByte('\\')
				b.WriteByte(c)
			case '\n':
				b.WriteString(`\n`)
			case '\r':
				b.WriteString(`\r`)
			case '\t':
				b.WriteString(`\t`)
			case '\b':
				b.WriteString(`\b`)
			case '\f':
				b.WriteString(`\f`)
			default:
				b.WriteString(`\u00`)
				b.WriteByte(hexDigits[c>>4])
				b.WriteByte(hexDigits[c&0xF])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b.WriteString(s[start:i])
			b.WriteString(`\ufffd`)
			i += size
			start = i
			continue
		}
		if r == '\u2028' || r == '\u2029' {
			b.WriteString(s[start:i])
			b.WriteString(`\u202`)
			b.WriteByte(hexDigits[r&0xF])
			i += size
			start = i
			continue
		}
		i += size
	}
	b.WriteString(s[start:])
	b.WriteByte('"')
}

// ParseJSON reads one JSON value (SPEC §5.6): objects become dicts with key
// order kept (a repeated key keeps its first position and its last value),
// arrays lists ([] is nil), integral numbers that fit int64 ints and other
// numbers floats. Trailing non-space text is an error, and so is nesting
// deeper than MaxPrintDepth (as encoding/json refuses more than 10,000
// levels), so that model output cannot exhaust the stack.
func ParseJSON(text string) (Value, error) {
	dec := json.NewDecoder(strings.NewReader(text))
	dec.UseNumber()
	v, err := decodeValue(dec, 0)
	if err != nil {
		if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
			return nil, errors.New("unexpected end of JSON input")
		}
		return nil, err
	}
	if rest := strings.TrimLeft(text[dec.InputOffset():], " \t\r\n"); rest != "" {
		r, _ := utf8.DecodeRuneInString(rest)
		return nil, fmt.Errorf("invalid character %s after top-level value", strconv.QuoteRune(r))
	}
	return v, nil
}

func decodeValue(dec *json.Decoder, depth int) (Value, error) {
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	switch t := tok.(type) {
	case json.Delim:
		if depth >= MaxPrintDepth {
			return nil, fmt.Errorf("exceeded max depth of %d", MaxPrintDepth)
		}
		switch t {
		case '{':
			d := NewDict(4)
			for dec.More() {
				kt, err := dec.Token()
				if err != nil {
					return nil, err
				}
				k, _ := kt.(string)
				v, err := decodeValue(dec, depth+1)
				if err != nil {
					return nil, err
				}
				d.Set(k, v)
			}
			if _, err := dec.Token(); err != nil {
				return nil, err
			}
			return d, nil
		case '[':
			var l List
			for dec.More() {
				v, err := decodeValue(dec, depth+1)
				if err != nil {
					return nil, err
				}
				l = append(l, v)
			}
			if _, err := dec.Token(); err != nil {
				return nil, err
			}
			return l, nil
		}
		return nil, fmt.Errorf("unexpected %v", t)
	case string:
		return String(t), nil
	case bool:
		return Bool(t), nil
	case nil:
		return Null{}, nil
	case json.Number:
		return numberValue(string(t))
	}
	return nil, fmt.Errorf("unexpected token %v", tok)
}

func numberValue(s string) (Value, error) {
	if !strings.ContainsAny(s, ".eE") {
		if n, err := strconv.ParseInt(s, 10, 64); err == nil {
			return Int(n), nil
		}
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return nil, fmt.Errorf("number out of range: %s", s)
	}
	return Float(f), nil
}

// StripCodeFence removes surrounding white space and one enclosing Markdown
// code fence (```json ... ```), as json-parse and structured output do
// before reading JSON.
func StripCodeFence(s string) string {
	s = strings.TrimSpace(s)
	if !strings.HasPrefix(s, "```") || !strings.HasSuffix(s, "```") || len(s) < 6 {
		return s
	}
	body := s[3 : len(s)-3]
	nl := strings.IndexByte(body, '\n')
	if nl < 0 {
		return s
	}
	if lang := strings.TrimSpace(body[:nl]); strings.ContainsAny(lang, " \t{[\"") {
		return s
	}
	return strings.TrimSpace(body[nl+1:])
}
