package sexp

import (
	"flag"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// describe writes a node with its kinds, for exact comparisons in tests:
// sym:NAME, str:"VALUE", int:N, float:F, bool:B, nil, (ITEMS) and '(ITEMS) for
// a quote shorthand. Names and values are quoted with strconv when they hold
// anything but plain ASCII letters and marks.
func describe(n *Node) string {
	var b strings.Builder
	describeTo(&b, n)
	return b.String()
}

func describeTo(b *strings.Builder, n *Node) {
	switch n.Kind {
	case Symbol:
		b.WriteString("sym:" + quoteIfOdd(n.Str))
	case String:
		b.WriteString("str:" + strconv.Quote(n.Str))
	case Int:
		b.WriteString("int:" + strconv.FormatInt(n.Int, 10))
	case Float:
		b.WriteString("float:" + FormatFloat(n.Float()))
	case Bool:
		b.WriteString("bool:" + strconv.FormatBool(n.Bool))
	case Nil:
		b.WriteString("nil")
	case List:
		if n.Quoted {
			b.WriteByte('\'')
		}
		b.WriteByte('(')
		for i, it := range n.Items {
			if i > 0 {
				b.WriteByte(' ')
			}
			describeTo(b, it)
		}
		b.WriteByte(')')
	}
}

func quoteIfOdd(s string) string {
	for _, r := range s {
		if r <= ' ' || r == '"' || r == '\\' || r > '~' {
			return strconv.Quote(s)
		}
	}
	if s == "" {
		return `""`
	}
	return s
}

func describeAll(forms []*Node) []string {
	out := make([]string, len(forms))
	for i, f := range forms {
		out[i] = describe(f)
	}
	return out
}

// sameTree reports whether a and b are the same forms. With values set it
// compares what a program sees: the empty list equals nil, and Quoted and the
// source text are ignored. Without it, it also compares Quoted and the source
// text of atoms other than strings (what fmt must keep). It does not recurse.
func sameTree(a, b []*Node, values bool) bool {
	type pair struct{ a, b *Node }
	if len(a) != len(b) {
		return false
	}
	var todo []pair
	for i := range a {
		todo = append(todo, pair{a[i], b[i]})
	}
	for len(todo) > 0 {
		p := todo[len(todo)-1]
		todo = todo[:len(todo)-1]
		ka, kb := p.a.Kind, p.b.Kind
		if values {
			if ka == List && len(p.a.Items) == 0 {
				ka = Nil
			}
			if kb == List && len(p.b.Items) == 0 {
				kb = Nil
			}
		}
		if ka != kb {
			return false
		}
		switch ka {
		case Symbol, String:
			if p.a.Str != p.b.Str {
				return false
			}
		case Int:
			if p.a.Int != p.b.Int {
				return false
			}
		case Float:
			if math.Float64bits(p.a.Float()) != math.Float64bits(p.b.Float()) {
				return false
			}
		case Bool:
			if p.a.Bool != p.b.Bool {
				return false
			}
		case List:
			if len(p.a.Items) != len(p.b.Items) || (!values && p.a.Quoted != p.b.Quoted) {
				return false
			}
			for i := range p.a.Items {
				todo = append(todo, pair{p.a.Items[i], p.b.Items[i]})
			}
		}
		if !values && ka != List && ka != String && sourceText(p.a) != sourceText(p.b) {
			return false
		}
	}
	return true
}

// sourceText returns the source text of an atom as the formatter must keep
// it, with the two changes it makes so that the atom reads the same in its new
// place: a backslash after a lone backslash that ended the text, none before
// a byte-order mark at the start of the output.
func sourceText(n *Node) string {
	raw := n.Raw()
	if n.Kind == Symbol && endsWithLoneBackslash(raw) {
		raw += `\`
	}
	if strings.HasPrefix(raw, "\\"+bom) {
		raw = raw[1:]
	}
	return raw
}

// benchDir is where the shared benchmark workflows are, seen from this
// package's directory.
var benchDir = filepath.Join("..", "..", "shared", "bench", "workflows")

// readBench returns the text of a benchmark workflow, skipping the test when
// the shared directory is not there.
func readBench(tb testing.TB, name string) string {
	tb.Helper()
	data, err := os.ReadFile(filepath.Join(benchDir, name))
	if err != nil {
		tb.Skipf("benchmark workflow not available: %v", err)
	}
	return string(data)
}

var update = flag.Bool("update", false, "rewrite the golden files under testdata")

// checkGolden compares got with the golden file path, or rewrites the file
// with -update.
func checkGolden(t *testing.T, path string, got []byte) {
	t.Helper()
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if diff := cmp.Diff(string(want), string(got)); diff != "" {
		t.Errorf("%s mismatch (-want +got):\n%s", path, diff)
	}
}
