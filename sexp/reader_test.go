package sexp

import (
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestParseTokens(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want []string
	}{
		{"white space separates", " \t\n\r\v\fa \t b\r\n", []string{"sym:a", "sym:b"}},
		{"comment to end of line", "a ; c (d\nb", []string{"sym:a", "sym:b"}},
		{"comment ends an atom", "a;c\nb", []string{"sym:a", "sym:b"}},
		{"comment at end without newline", "a ; c", []string{"sym:a"}},
		{"empty list", "()", []string{"()"}},
		{"empty list with space", "( \n )", []string{"()"}},
		{"nested lists", "(a (b c) ())", []string{"(sym:a (sym:b sym:c) ())"}},
		{"several forms on one line", "(a) b (c)", []string{"(sym:a)", "sym:b", "(sym:c)"}},
		{"parens end atoms", "(a(b)c)", []string{"(sym:a (sym:b) sym:c)"}},
		{"string ends an atom", `a"b"`, []string{"sym:a", `str:"b"`}},
		{"atom right after a string", `"b"a`, []string{`str:"b"`, "sym:a"}},
		{"quote inside an atom", "a'b", []string{"sym:a'b"}},
		{"ordinary characters", "{x} a:b/c.d :key .", []string{"sym:{x}", "sym:a:b/c.d", "sym::key", "sym:."}},
		{"escaped space", `a\ b`, []string{`sym:"a b"`}},
		{"escaped delimiters", `\(\)\[\]\"\;`, []string{`sym:"()[]\";"`}},
		{"escaped quote at start", `\'a`, []string{"sym:'a"}},
		{"escaped backslash", `a\\b`, []string{`sym:"a\\b"`}},
		{"escape makes a symbol", `\1 1\0 \nil \true 1\.5`, []string{"sym:1", "sym:10", "sym:nil", "sym:true", "sym:1.5"}},
		{"escaped newline", "a\\\nb", []string{`sym:"a\nb"`}},
		{"escaped multi-byte character", `\éa`, []string{`sym:"éa"`}},
		{"backslash at end of text", `a\`, []string{`sym:"a\\"`}},
		{"lone backslash at end of text", `\`, []string{`sym:"\\"`}},
		{"non-ASCII atom", "héllo 日本", []string{`sym:"héllo"`, `sym:"日本"`}},
		{"NUL in an atom", "a\x00b", []string{`sym:"a\x00b"`}},
		{"non-breaking space is no white space", "a\u00a0b", []string{`sym:"a\u00a0b"`}},
		{"quote shorthand", "'a", []string{"'(sym:quote sym:a)"}},
		{"quote of a list", "'(a b)", []string{"'(sym:quote (sym:a sym:b))"}},
		{"quote of the empty list", "'()", []string{"'(sym:quote ())"}},
		{"nested quote", "''a", []string{"'(sym:quote '(sym:quote sym:a))"}},
		{"quote then white space", "' \n a", []string{"'(sym:quote sym:a)"}},
		{"quote then comment", "' ; c\n a", []string{"'(sym:quote sym:a)"}},
		{"quote in a list", "(a 'b c)", []string{"(sym:a '(sym:quote sym:b) sym:c)"}},
		{"quote of a string", `'"s"`, []string{`'(sym:quote str:"s")`}},
		{"written quote is not the shorthand", "(quote a)", []string{"(sym:quote sym:a)"}},
		{"byte-order mark ignored", "\uFEFF(a)", []string{"(sym:a)"}},
		{"byte-order mark only at start", "a \uFEFF", []string{"sym:a", "sym:\"\\ufeff\""}},
		{"CRLF lines", "(a\r\n b)\r\n", []string{"(sym:a sym:b)"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			forms, err := ParseString("t", tt.in)
			if err != nil {
				t.Fatalf("ParseString(%q): %v", tt.in, err)
			}
			if diff := cmp.Diff(tt.want, describeAll(forms)); diff != "" {
				t.Errorf("ParseString(%q) mismatch (-want +got):\n%s", tt.in, diff)
			}
		})
	}
}

func TestParseStrings(t *testing.T) {
	tests := []struct {
		in   string
		want string
	}{
		{`""`, ""},
		{`"abc"`, "abc"},
		{`"a\qb"`, `a\qb`},
		{`"\\"`, `\`},
		{`"\""`, `"`},
		{`"\n\t\r\b\f"`, "\n\t\r\b\f"},
		{`"a\\n"`, `a\n`},
		{`"\x\y\0"`, `\x\y\0`},
		{`"\é"`, `\é`},
		{`"é日本"`, "é日本"},
		{"\"line1\nline2\"", "line1\nline2"},
		{"\"a\r\nb\"", "a\nb"},
		{"\"a\rb\"", "a\rb"},
		{"\"a\\\r\nb\"", "a\\\nb"},
		{"\"a\tb\"", "a\tb"},
		{"\"\x00\"", "\x00"},
		{`"(a) ; b [c]"`, "(a) ; b [c]"},
		{`"'x"`, "'x"},
		{`"record 3 says \"delta\" then c:\\dir\\theta"`, `record 3 says "delta" then c:\dir\theta`},
	}
	for _, tt := range tests {
		forms, err := ParseString("t", tt.in)
		if err != nil {
			t.Errorf("ParseString(%q): %v", tt.in, err)
			continue
		}
		n := forms[0]
		got := struct {
			Kind     Kind
			Str, Raw string
		}{n.Kind, n.Str, n.Raw()}
		want := got
		want.Kind, want.Str, want.Raw = String, tt.want, tt.in
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("ParseString(%q) mismatch (-want +got):\n%s", tt.in, diff)
		}
	}
}

func TestParseAtoms(t *testing.T) {
	type atom struct {
		Kind  Kind
		Str   string
		Int   int64
		Float float64
		Bool  bool
	}
	sym := func(s string) atom { return atom{Kind: Symbol, Str: s} }
	tests := []struct {
		in   string
		want atom
	}{
		{"nil", atom{Kind: Nil}},
		{"true", atom{Kind: Bool, Bool: true}},
		{"false", atom{Kind: Bool}},
		// Integers (SPEC §4.4 rule 3).
		{"0", atom{Kind: Int}},
		{"42", atom{Kind: Int, Int: 42}},
		{"+5", atom{Kind: Int, Int: 5}},
		{"-7", atom{Kind: Int, Int: -7}},
		{"007", atom{Kind: Int, Int: 7}},
		{"1_000", atom{Kind: Int, Int: 1000}},
		{"1_000_000", atom{Kind: Int, Int: 1000000}},
		{"-0", atom{Kind: Int}},
		{"9223372036854775807", atom{Kind: Int, Int: 9223372036854775807}},
		{"-9223372036854775808", atom{Kind: Int, Int: -9223372036854775808}},
		{"-9_223_372_036_854_775_808", atom{Kind: Int, Int: -9223372036854775808}},
		// Floats (rule 4).
		{"1.5", atom{Kind: Float, Float: 1.5}},
		{".5", atom{Kind: Float, Float: 0.5}},
		{"1.", atom{Kind: Float, Float: 1}},
		{"1e3", atom{Kind: Float, Float: 1000}},
		{"2.5E-3", atom{Kind: Float, Float: 0.0025}},
		{"1_000.5", atom{Kind: Float, Float: 1000.5}},
		{"-.5", atom{Kind: Float, Float: -0.5}},
		{"+1.e2", atom{Kind: Float, Float: 100}},
		{".5e+1", atom{Kind: Float, Float: 5}},
		{"1_0.0_1e1_0", atom{Kind: Float, Float: 10.01e10}},
		{"0.1", atom{Kind: Float, Float: 0.1}},
		{"1e-400", atom{Kind: Float, Float: 0}},
		{"1.7976931348623157e308", atom{Kind: Float, Float: 1.7976931348623157e308}},
		// Symbols (rule 5), every example of the SPEC.
		{"inf", sym("inf")},
		{"nan", sym("nan")},
		{"-inf", sym("-inf")},
		{"Infinity", sym("Infinity")},
		{"NIL", sym("NIL")},
		{"True", sym("True")},
		{"#t", sym("#t")},
		{"-", sym("-")},
		{"+", sym("+")},
		{"...", sym("...")},
		{"1/2", sym("1/2")},
		{"0x10", sym("0x10")},
		{"1__0", sym("1__0")},
		{"_1", sym("_1")},
		{":key", sym(":key")},
		{"user:generate-plan", sym("user:generate-plan")},
		{"review/git-diff", sym("review/git-diff")},
		{"string=?", sym("string=?")},
		{"*loop-config*", sym("*loop-config*")},
		// More shapes that are not numbers.
		{"1_", sym("1_")},
		{"1._5", sym("1._5")},
		{".", sym(".")},
		{"+.", sym("+.")},
		{".e5", sym(".e5")},
		{"1e", sym("1e")},
		{"1e+", sym("1e+")},
		{"1e_5", sym("1e_5")},
		{"1.5.5", sym("1.5.5")},
		{"--1", sym("--1")},
		{"+-1", sym("+-1")},
		{"1e5x", sym("1e5x")},
		{"0x1p-2", sym("0x1p-2")},
		{"١٢", sym("١٢")},
		{"nil?", sym("nil?")},
	}
	for _, tt := range tests {
		forms, err := ParseString("t", tt.in)
		if err != nil {
			t.Errorf("ParseString(%q): %v", tt.in, err)
			continue
		}
		n := forms[0]
		iv := n.Int
		if n.Kind == Float {
			// A float's Int holds its bits; Float() reads them.
			if iv != int64(math.Float64bits(n.Float())) {
				t.Errorf("ParseString(%q).Int = %d, not the bits of %v", tt.in, iv, n.Float())
			}
			iv = 0
		}
		got := atom{n.Kind, n.Str, iv, n.Float(), n.Bool}
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("ParseString(%q) mismatch (-want +got):\n%s", tt.in, diff)
		}
		if n.Raw() != tt.in {
			t.Errorf("ParseString(%q).Raw = %q", tt.in, n.Raw())
		}
	}
}

func TestParseNegativeZeroFloat(t *testing.T) {
	forms, err := ParseString("t", "-0.0 -0")
	if err != nil {
		t.Fatal(err)
	}
	if f := forms[0]; f.Kind != Float || !isNegZero(f.Float()) {
		t.Errorf("-0.0 read as %s %v, want float -0", f.Kind, f.Float())
	}
	if i := forms[1]; i.Kind != Int || i.Int != 0 {
		t.Errorf("-0 read as %s %v, want int 0", i.Kind, i.Int)
	}
}

func isNegZero(f float64) bool { return f == 0 && 1/f < 0 }

func TestParseErrors(t *testing.T) {
	tests := []struct {
		name       string
		in         string
		want       string // FILE:LINE:COL: MSG
		incomplete bool
	}{
		// The table of SPEC §4.8.
		{"empty text", "", "t:1:1: empty program", false},
		{"only a comment", "; note", "t:1:1: empty program", false},
		{"unclosed list", "(a (b", "t:1:4: unclosed '(': missing ')'", true},
		{"unexpected close", "(a))", "t:1:4: unexpected ')'", false},
		{"square brackets", "(a [b])", "t:1:4: square brackets are not supported; write lists with ( )", false},
		{"unterminated string", `"abc`, "t:1:1: unterminated string", true},
		{"quote before close", "(a ')", "t:1:4: quote (') must be followed by a datum", false},
		{"integer out of range", "99999999999999999999", "t:1:1: integer literal out of range: 99999999999999999999", false},
		{"float out of range", "1e999", "t:1:1: float literal out of range: 1e999", false},
		// More positions.
		{"only white space and comments", " \n\t; a\n; b\n", "t:1:1: empty program", false},
		{"only a byte-order mark", "\uFEFF", "t:1:1: empty program", false},
		{"unclosed after closed", "(a (b) (c", "t:1:8: unclosed '(': missing ')'", true},
		{"unclosed outer", "(a (b)\n", "t:1:1: unclosed '(': missing ')'", true},
		{"unclosed deep line", "(a\n  (b\n    (c)", "t:2:3: unclosed '(': missing ')'", true},
		{"close at top level", ")", "t:1:1: unexpected ')'", false},
		{"close after form", "(a)\n  )", "t:2:3: unexpected ')'", false},
		{"closing bracket", "a ]", "t:1:3: square brackets are not supported; write lists with ( )", false},
		{"bracket inside atom", "a[0]", "t:1:2: square brackets are not supported; write lists with ( )", false},
		{"unterminated string in list", `(list 1 "two)`, "t:1:9: unterminated string", true},
		{"unterminated after escaped quote", `"a\"`, "t:1:1: unterminated string", true},
		{"quote at end", "'", "t:1:1: quote (') must be followed by a datum", true},
		{"quote at end of list", "(a '", "t:1:4: quote (') must be followed by a datum", true},
		{"quote then comment at end", "' ; c", "t:1:1: quote (') must be followed by a datum", true},
		{"quote of quote before close", "(''))", "t:1:3: quote (') must be followed by a datum", false},
		{"quote then unclosed list", "'(a", "t:1:2: unclosed '(': missing ')'", true},
		{"int just above max", "9223372036854775808", "t:1:1: integer literal out of range: 9223372036854775808", false},
		{"int just below min", "(x -9223372036854775809)", "t:1:4: integer literal out of range: -9223372036854775809", false},
		{"int with groups", "1_000_000_000_000_000_000_000", "t:1:1: integer literal out of range: 1_000_000_000_000_000_000_000", false},
		{"huge int", strings.Repeat("9", 5000), "t:1:1: integer literal out of range: " + strings.Repeat("9", 5000), false},
		{"negative float out of range", "-1.8e308", "t:1:1: float literal out of range: -1.8e308", false},
		{"first error wins", "(a ] \"b", "t:1:4: square brackets are not supported; write lists with ( )", false},
		// Invalid UTF-8, where it is met.
		{"invalid byte in atom", "(a\n  \xff)", "t:2:3: invalid UTF-8 encoding", false},
		{"invalid byte after atom start", "ab\xc3(", "t:1:3: invalid UTF-8 encoding", false},
		{"invalid byte in string", "(\"é\xff\")", "t:1:4: invalid UTF-8 encoding", false},
		{"invalid byte in comment", "a ; é \xfe\n", "t:1:7: invalid UTF-8 encoding", false},
		{"escaped invalid byte", "a\\\xff", "t:1:3: invalid UTF-8 encoding", false},
		{"encoded surrogate", "\"\xed\xa0\x80\"", "t:1:2: invalid UTF-8 encoding", false},
		{"invalid byte before unclosed list", "(\xff", "t:1:2: invalid UTF-8 encoding", false},
		// Columns count code points; a tab is one column; CRLF ends lines.
		{"column after multi-byte", "(é (b", "t:1:4: unclosed '(': missing ')'", true},
		{"column after tab", "\t(a", "t:1:2: unclosed '(': missing ')'", true},
		{"line after CRLF", "(a)\r\n (b", "t:2:2: unclosed '(': missing ')'", true},
		{"column after byte-order mark", "\uFEFF(a", "t:1:1: unclosed '(': missing ')'", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			forms, err := ParseString("t", tt.in)
			if err == nil {
				t.Fatalf("ParseString(%q) = %v, want error %q", tt.in, describeAll(forms), tt.want)
			}
			var se *Error
			if !errors.As(err, &se) {
				t.Fatalf("ParseString(%q) error %T is not *Error", tt.in, err)
			}
			if forms != nil {
				t.Errorf("ParseString(%q) returned forms with its error", tt.in)
			}
			got := struct {
				Text       string
				Incomplete bool
			}{err.Error(), se.Incomplete}
			want := got
			want.Text, want.Incomplete = tt.want, tt.incomplete
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("ParseString(%q) error mismatch (-want +got):\n%s", tt.in, diff)
			}
		})
	}
}

func TestParsePositions(t *testing.T) {
	src := NewSource("p.sexp", "(define x\n  '(a \"s\"))  ; end\r\n")
	forms, err := Parse(src)
	if err != nil {
		t.Fatal(err)
	}
	type span struct {
		Kind     Kind
		Pos, End string // LINE:COL
		Raw      string
		Quoted   bool
	}
	lc := func(off int) string {
		p := src.Position(off)
		return strings.TrimPrefix(p.String(), "p.sexp:")
	}
	var got []span
	var walk func(n *Node)
	walk = func(n *Node) {
		got = append(got, span{n.Kind, lc(n.Pos.Off), lc(n.End()), n.Raw(), n.Quoted})
		for _, it := range n.Items {
			walk(it)
		}
	}
	walk(forms[0])
	want := []span{
		{List, "1:1", "2:12", "", false},
		{Symbol, "1:2", "1:8", "define", false},
		{Symbol, "1:9", "1:10", "x", false},
		{List, "2:3", "2:11", "", true},
		{Symbol, "2:3", "2:4", "'", false},
		{List, "2:4", "2:11", "", false},
		{Symbol, "2:5", "2:6", "a", false},
		{String, "2:7", "2:10", `"s"`, false},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("positions mismatch (-want +got):\n%s", diff)
	}
	if forms[0].Pos.Src != src {
		t.Errorf("Pos.Src is not the source read")
	}
}

func TestParseFirstLine(t *testing.T) {
	src := &Source{Name: "<repl>", Text: "(a\n (b", FirstLine: 7}
	_, err := Parse(src)
	if got, want := errString(err), "<repl>:8:2: unclosed '(': missing ')'"; got != want {
		t.Errorf("error = %q, want %q", got, want)
	}
}

func errString(err error) string {
	if err == nil {
		return "<nil>"
	}
	return err.Error()
}

func TestParseFileComments(t *testing.T) {
	src := NewSource("c", "; head\r\n(a ; one  \n ;two\n b);end")
	f, err := ParseFile(src, ParseComments)
	if err != nil {
		t.Fatal(err)
	}
	type comment struct {
		Off, End int
		Text     string
	}
	var got []comment
	for _, c := range f.Comments {
		if c.Pos.Src != src {
			t.Errorf("comment %q has another source", c.Text)
		}
		got = append(got, comment{c.Pos.Off, c.End, c.Text})
	}
	want := []comment{
		{0, 6, "; head"},
		{11, 18, "; one  "},
		{20, 24, ";two"},
		{28, 32, ";end"},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("comments mismatch (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"(sym:a sym:b)"}, describeAll(f.Forms)); diff != "" {
		t.Errorf("forms mismatch (-want +got):\n%s", diff)
	}

	plain, err := ParseFile(src, 0)
	if err != nil || len(plain.Comments) != 0 {
		t.Errorf("ParseFile without ParseComments: comments %v, err %v", plain.Comments, err)
	}
}

func TestParseFileAllowEmpty(t *testing.T) {
	f, err := ParseFile(NewSource("e", " ; only\n"), AllowEmpty|ParseComments)
	if err != nil {
		t.Fatalf("AllowEmpty: %v", err)
	}
	if len(f.Forms) != 0 || len(f.Comments) != 1 {
		t.Errorf("AllowEmpty: %d forms, %d comments; want 0 and 1", len(f.Forms), len(f.Comments))
	}
	if _, err := ParseFile(nil, AllowEmpty); err != nil {
		t.Errorf("ParseFile(nil, AllowEmpty): %v", err)
	}
	if _, err := Parse(nil); errString(err) != ":1:1: empty program" {
		t.Errorf("Parse(nil) error = %v", err)
	}
}

func TestParseDeepNesting(t *testing.T) {
	const depth = 100_000
	text := strings.Repeat("(", depth) + "x" + strings.Repeat(")", depth)
	forms, err := ParseString("deep", text)
	if err != nil {
		t.Fatal(err)
	}
	n, levels := forms[0], 0
	for n.Kind == List {
		n, levels = n.Items[0], levels+1
	}
	if levels != depth || !n.IsSymbol("x") {
		t.Errorf("read %d levels down to %s, want %d down to x", levels, describe(n), depth)
	}
	// Printing does not recurse either.
	if s := forms[0].String(); s != text {
		t.Errorf("String() of the deep list differs from its text")
	}

	_, err = ParseString("deep", strings.Repeat("(", depth))
	if got, want := errString(err), "deep:1:100000: unclosed '(': missing ')'"; got != want {
		t.Errorf("open parens: error %q, want %q", got, want)
	}
	forms, err = ParseString("deep", strings.Repeat("'", depth)+"a")
	if err != nil {
		t.Fatal(err)
	}
	if got := len(forms[0].String()); got != depth*len("(quote )")+1 {
		t.Errorf("deep quotes print as %d bytes", got)
	}
}

func TestParseItemsHaveNoSpareCapacity(t *testing.T) {
	forms, err := ParseString("t", "((a b) (c d))")
	if err != nil {
		t.Fatal(err)
	}
	first := forms[0].Items[0]
	if cap(first.Items) != len(first.Items) {
		t.Fatalf("cap(Items) = %d, len = %d", cap(first.Items), len(first.Items))
	}
	_ = append(first.Items, first.Items[0]) // must not overwrite (c d)'s items
	if got := describe(forms[0]); got != "((sym:a sym:b) (sym:c sym:d))" {
		t.Errorf("after append: %s", got)
	}
}

func TestParseStringsShareText(t *testing.T) {
	text := `(sym "plain")`
	forms, err := ParseString("t", text)
	if err != nil {
		t.Fatal(err)
	}
	allocs := testing.AllocsPerRun(100, func() {
		if _, err := ParseString("t", text); err != nil {
			t.Fatal(err)
		}
	})
	// The Source, the parser, the File, one node block, one pointer block
	// and the forms slice; none per atom.
	if allocs > 6 {
		t.Errorf("ParseString(%q) makes %v allocations", text, allocs)
	}
	if s := forms[0].Items[1].Str; s != "plain" {
		t.Errorf("string value %q", s)
	}
}

func TestParseEmptyListAndNil(t *testing.T) {
	forms, err := ParseString("t", "() nil (nil)")
	if err != nil {
		t.Fatal(err)
	}
	if n := forms[0]; n.Kind != List || n.Items != nil || n.Quoted {
		t.Errorf("() read as %s with items %v", n.Kind, n.Items)
	}
	if n := forms[1]; n.Kind != Nil || n.Raw() != "nil" {
		t.Errorf("nil read as %s %q", n.Kind, n.Raw())
	}
	if n := forms[2]; n.Kind != List || len(n.Items) != 1 || n.Items[0].Kind != Nil {
		t.Errorf("(nil) read as %s", describe(n))
	}
}
