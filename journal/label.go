package journal

import (
	"strings"
	"unicode/utf8"

	"github.com/evalrun/evalrun/value"
)

// LabelWidth is how many code points a call's label keeps.
const LabelWidth = 40

// CallLabel is the short label of a task or tool call that tells it apart
// from the calls of the same template beside it (the items of a
// parallel-map): its input values in order — a string as itself, on one
// line, another value in its printed form; null ones left out — joined by
// ", " and cut to LabelWidth code points with "…". It is "" for no
// inputs.
func CallLabel(inputs value.Value) string {
	var parts []value.Value
	switch v := inputs.(type) {
	case nil, value.Null:
		return ""
	case *value.Dict:
		for _, x := range v.All() {
			parts = append(parts, x)
		}
	case value.List:
		parts = v
	default:
		parts = []value.Value{v}
	}
	var b strings.Builder
	for _, x := range parts {
		var s string
		switch x := x.(type) {
		case nil, value.Null:
			continue
		case value.String:
			// Only its start can show: a long input (a file, a diff) is
			// not split whole.
			text := string(x)
			if len(text) > 8*LabelWidth {
				text = text[:8*LabelWidth]
				for !utf8.ValidString(text) {
					text = text[:len(text)-1]
				}
			}
			s = strings.Join(strings.Fields(text), " ")
		default:
			s = value.Brief(x, 4*LabelWidth)
		}
		if s == "" {
			continue
		}
		if b.Len() > 0 {
			b.WriteString(", ")
		}
		b.WriteString(s)
		if utf8.RuneCountInString(b.String()) > LabelWidth {
			break
		}
	}
	s := b.String()
	if r := []rune(s); len(r) > LabelWidth {
		return strings.TrimRight(string(r[:LabelWidth-1]), " ,") + "…"
	}
	return s
}
