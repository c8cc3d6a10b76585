package sexp

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestQuoteString(t *testing.T) {
	tests := []struct{ in, want string }{
		{"", `""`},
		{"abc", `"abc"`},
		{`a\b`, `"a\\b"`},
		{`say "hi"`, `"say \"hi\""`},
		{"a\nb\tc\rd\be\ff", `"a\nb\tc\rd\be\ff"`},
		{"é日本\x00\x7f\u2028", "\"é日本\x00\x7f\u2028\""},
		{"\v", "\"\v\""},
		{`\q`, `"\\q"`},
	}
	for _, tt := range tests {
		if got := QuoteString(tt.in); got != tt.want {
			t.Errorf("QuoteString(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestFormatFloat(t *testing.T) {
	tests := []struct {
		in   float64
		want string
	}{
		{3.5, "3.5"},
		{1000, "1000.0"},
		{0.30000000000000004, "0.30000000000000004"},
		{0, "0.0"},
		{math.Copysign(0, -1), "-0.0"},
		{1e21, "1e+21"},
		{1.5e-7, "1.5e-7"},
		{1e-6, "0.000001"},
		{9.99e-7, "9.99e-7"},
		{123456789012345678901, "123456789012345680000.0"},
		{-2.5, "-2.5"},
		{1e100, "1e+100"},
		{-1.2345e-300, "-1.2345e-300"},
		{math.MaxFloat64, "1.7976931348623157e+308"},
		{5e-324, "5e-324"},
		{1, "1.0"},
		{-7, "-7.0"},
		{math.Inf(1), "+Inf"},
		{math.Inf(-1), "-Inf"},
		{math.NaN(), "NaN"},
	}
	for _, tt := range tests {
		if got := FormatFloat(tt.in); got != tt.want {
			t.Errorf("FormatFloat(%v) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestSymbolText(t *testing.T) {
	tests := []struct{ in, want string }{
		{"foo", "foo"},
		{":key", ":key"},
		{"string=?", "string=?"},
		{"a'b", "a'b"},
		{"'a", `\'a`},
		{"\uFEFFa", "\\\uFEFFa"},
		{"a\uFEFF", "a\uFEFF"},
		{"a b", `a\ b`},
		{"a\tb\nc", "a\\\tb\\\nc"},
		{"(x)", `\(x\)`},
		{"[x]", `\[x\]`},
		{`a"b`, `a\"b`},
		{"a;b", `a\;b`},
		{`a\b`, `a\\b`},
		{"nil", `\nil`},
		{"true", `\true`},
		{"false", `\false`},
		{"42", `\42`},
		{"-1.5", `\-1.5`},
		{".5", `\.5`},
		{"1e999", `\1e999`},
		{"99999999999999999999", `\99999999999999999999`},
		{"1_000", `\1_000`},
		{"-", "-"},
		{"+", "+"},
		{"inf", "inf"},
		{"1/2", "1/2"},
		{"NIL", "NIL"},
		{"é", "é"},
		{"", ""},
	}
	for _, tt := range tests {
		if got := SymbolText(tt.in); got != tt.want {
			t.Errorf("SymbolText(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestNodeString(t *testing.T) {
	tests := []struct{ in, want string }{
		{`(list 1 2.5 "a\nb" 'sym true nil ())`, `(list 1 2.5 "a\nb" (quote sym) true nil nil)`},
		{"''a", "(quote (quote a))"},
		{"1_000 +5 007 -0", "1000"},
		{"1e3", "1000.0"},
		{`\nil`, `\nil`},
		{`a\ b`, `a\ b`},
		{`"a\qb"`, `"a\\qb"`},
		{"(a (b (c)) d)", "(a (b (c)) d)"},
		{"()", "nil"},
		{"(())", "(nil)"},
	}
	for _, tt := range tests {
		forms, err := ParseString("t", tt.in)
		if err != nil {
			t.Fatalf("ParseString(%q): %v", tt.in, err)
		}
		if got := forms[0].String(); got != tt.want {
			t.Errorf("String() of %q = %q, want %q", tt.in, got, tt.want)
		}
	}
	var nilNode *Node
	if got := nilNode.String(); got != "<nil>" {
		t.Errorf("nil node prints %q", got)
	}
	if got := (&Node{Kind: Kind(99)}).String(); got != "#<invalid node>" {
		t.Errorf("invalid node prints %q", got)
	}
}

// randomText returns a short text made of the characters that matter to the
// reader and the printer.
func randomText(r *rand.Rand) string {
	pieces := []string{
		"a", "z", "0", "1", "9", "-", "+", ".", "e", "E", "_", "'", "\\", "\"",
		"(", ")", "[", "]", ";", " ", "\t", "\n", "\r", "\v", "\f", "é", "日",
		"\x00", "\u00a0", "nil", "true", "false", "n", "t", "b", "f", "#", "\uFEFF",
	}
	var b strings.Builder
	for range r.IntN(8) + 1 {
		b.WriteString(pieces[r.IntN(len(pieces))])
	}
	return b.String()
}

func TestSymbolTextReadsBack(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	names := []string{"nil", "true", "false", "1", "-1", "1.", "1e999", "'", "\\", "a\\", "\uFEFF", "\uFEFFx"}
	for range 20000 {
		names = append(names, randomText(r))
	}
	for _, name := range names {
		checkSymbolReadsBack(t, name)
	}
}

func checkSymbolReadsBack(t *testing.T, name string) {
	t.Helper()
	text := SymbolText(name)
	forms, err := ParseString("t", text)
	if err != nil || len(forms) != 1 || forms[0].Kind != Symbol || forms[0].Str != name {
		got := "error " + errString(err)
		if err == nil {
			got = strings.Join(describeAll(forms), " ")
		}
		t.Errorf("SymbolText(%q) = %q reads as %s", name, text, got)
	}
}

func TestQuoteStringReadsBack(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	values := []string{"", "\r\n", "\\", "\"", "\\q"}
	for range 20000 {
		values = append(values, randomText(r))
	}
	for _, s := range values {
		checkStringReadsBack(t, s)
	}
}

func checkStringReadsBack(t *testing.T, s string) {
	t.Helper()
	text := QuoteString(s)
	forms, err := ParseString("t", text)
	if err != nil || len(forms) != 1 || forms[0].Kind != String || forms[0].Str != s {
		t.Errorf("QuoteString(%q) = %q does not read back (err %v)", s, text, err)
	}
}

func TestFormatFloatReadsBack(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	values := []float64{0, math.Copysign(0, -1), 1e21, 1e-6, 9.999999999999999e20, 5e-324, math.MaxFloat64, -math.MaxFloat64}
	for range 20000 {
		values = append(values, math.Float64frombits(r.Uint64()), r.NormFloat64()*math.Pow(10, float64(r.IntN(40)-20)))
	}
	for _, f := range values {
		if math.IsNaN(f) || math.IsInf(f, 0) {
			continue
		}
		checkFloatReadsBack(t, f)
	}
}

func checkFloatReadsBack(t *testing.T, f float64) {
	t.Helper()
	text := FormatFloat(f)
	forms, err := ParseString("t", text)
	if err != nil || forms[0].Kind != Float || math.Float64bits(forms[0].Float()) != math.Float64bits(f) {
		t.Errorf("FormatFloat(%v) = %q does not read back (err %v)", f, text, err)
	}
	if i := strings.IndexAny(text, "eE"); i >= 0 && (text[i+2] == '0') {
		t.Errorf("FormatFloat(%v) = %q has a leading zero in its exponent", f, text)
	}
}

func FuzzSymbolText(f *testing.F) {
	for _, s := range []string{"a", "nil", "1", "'x", "a b", `\`, "1e999", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, name string) {
		if name == "" || !utf8.ValidString(name) {
			return // no written form reads as these names
		}
		checkSymbolReadsBack(t, name)
	})
}

func FuzzQuoteString(f *testing.F) {
	for _, s := range []string{"", "a\nb", `\q`, "\r\n", `"`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if !utf8.ValidString(s) {
			return
		}
		checkStringReadsBack(t, s)
	})
}

func FuzzFormatFloat(f *testing.F) {
	for _, v := range []float64{0, 1, 1e21, 1.5e-7, 0.1, -2.5e300} {
		f.Add(v)
	}
	f.Fuzz(func(t *testing.T, v float64) {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return
		}
		checkFloatReadsBack(t, v)
	})
}
