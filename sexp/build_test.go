package sexp

import (
	"strings"
	"testing"
)

// textBuilder builds the canonical text of quoted data, as Node.String
// prints the nodes Parse reads.
type textBuilder struct{ atoms, lists, quotes int }

// text is a value of textBuilder.
type text string

func (t text) String() string { return string(t) }

func (b *textBuilder) Atom(n *Node) any {
	b.atoms++
	return text(n.String())
}

func (b *textBuilder) List(items []any) any {
	b.lists++
	if len(items) == 0 {
		return text("nil")
	}
	parts := make([]string, len(items))
	for i, it := range items {
		parts[i] = string(it.(text))
	}
	return text("(" + strings.Join(parts, " ") + ")")
}

func (b *textBuilder) Quote(d any) any {
	b.quotes++
	return text("(quote " + string(d.(text)) + ")")
}

// checkBuilding reads text with ParseBuilding and compares the result with
// what Parse read (forms, or the error err): the same first error, forms
// that print the same, and nodes of built data at the positions of the
// data they stand for.
func checkBuilding(t *testing.T, src string, want []*Node, err error) *textBuilder {
	t.Helper()
	b := &textBuilder{}
	got, gotErr := ParseBuilding(NewSource("fuzz", src), b)
	if (err == nil) != (gotErr == nil) || err != nil && err.Error() != gotErr.Error() {
		t.Fatalf("ParseBuilding error %v, Parse error %v", gotErr, err)
	}
	if err != nil {
		return b
	}
	if len(got) != len(want) {
		t.Fatalf("ParseBuilding read %d forms, Parse %d", len(got), len(want))
	}
	type pair struct{ g, w *Node }
	stack := make([]pair, 0, len(got))
	for i := range got {
		stack = append(stack, pair{got[i], want[i]})
	}
	for len(stack) > 0 {
		p := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if p.g.Pos.Off != p.w.Pos.Off || p.g.End() != p.w.End() || p.g.Kind != p.w.Kind || p.g.Quoted != p.w.Quoted {
			t.Fatalf("node %s at %d-%d, want %s at %d-%d", p.g, p.g.Pos.Off, p.g.End(), p.w, p.w.Pos.Off, p.w.End())
		}
		if v, ok := p.g.Built(); ok {
			if len(p.g.Items) != 0 || p.w.Kind != List {
				t.Fatalf("built node %s has items or stands for a %s", p.g, p.w.Kind)
			}
			if v.(text).String() != p.w.String() {
				t.Fatalf("built %s, want %s", v, p.w)
			}
			continue
		}
		if len(p.g.Items) != len(p.w.Items) || p.g.String() != p.w.String() {
			t.Fatalf("node %s, want %s", p.g, p.w)
		}
		for i := range p.g.Items {
			stack = append(stack, pair{p.g.Items[i], p.w.Items[i]})
		}
	}
	return b
}

func TestParseBuilding(t *testing.T) {
	tests := []struct {
		text                 string
		atoms, lists, quotes int
		want                 string // the forms printed, one a line
	}{
		{`(define d '(a 1 "two" (3.5 true nil) () 'x '(y)))`, 8, 4, 2,
			`(define d (quote (a 1 "two" (3.5 true nil) nil (quote x) (quote (y)))))`},
		// Atoms written 'x and data written (quote d) are nodes.
		{`'x (quote (a b))`, 0, 0, 0, "(quote x)\n(quote (a b))"},
		{`''(a) '; c` + "\n" + `()`, 1, 2, 1, "(quote (quote (a)))\n(quote nil)"},
		{`(f '(1 2) 3)`, 2, 1, 0, "(f (quote (1 2)) 3)"},
	}
	for _, tt := range tests {
		want, err := Parse(NewSource("fuzz", tt.text))
		if err != nil {
			t.Fatal(err)
		}
		b := checkBuilding(t, tt.text, want, nil)
		if b.atoms != tt.atoms || b.lists != tt.lists || b.quotes != tt.quotes {
			t.Errorf("%s: built %d atoms, %d lists, %d quotes, want %d, %d, %d", tt.text, b.atoms, b.lists, b.quotes, tt.atoms, tt.lists, tt.quotes)
		}
		got, _ := ParseBuilding(NewSource("t", tt.text), &textBuilder{})
		var lines []string
		for _, n := range got {
			lines = append(lines, n.String())
		}
		if s := strings.Join(lines, "\n"); s != tt.want {
			t.Errorf("%s: printed\n%s\nwant\n%s", tt.text, s, tt.want)
		}
	}
}

func TestParseBuildingErrors(t *testing.T) {
	for _, text := range []string{
		"'(a (b", "'(a 'b ')", "'(a [b] 99999999999999999999)", `'(a "open`, "'(a \xff)",
		"'(" + strings.Repeat("(", MaxNesting) + ")",
	} {
		_, err := Parse(NewSource("fuzz", text))
		if err == nil {
			t.Fatalf("%q: no error", text)
		}
		checkBuilding(t, text, nil, err)
	}
}

func TestReread(t *testing.T) {
	text := "(define d '(a (b \"c\") 1.5))\n(f '(x))"
	forms, err := ParseBuilding(NewSource("t.sexp", text), &textBuilder{})
	if err != nil {
		t.Fatal(err)
	}
	for i, want := range []string{`(a (b "c") 1.5)`, `(x)`} {
		q := forms[i].Items[len(forms[i].Items)-1]
		d := q.Items[1]
		if _, ok := d.Built(); !ok {
			t.Fatalf("form %d: the datum was not built", i)
		}
		n := d.Reread()
		if n == d || n.String() != want || n.Pos != d.Pos || n.End() != d.End() {
			t.Errorf("form %d: reread %s at %d-%d, want %s at %d-%d", i, n, n.Pos.Off, n.End(), want, d.Pos.Off, d.End())
		}
		if _, ok := n.Built(); ok {
			t.Errorf("form %d: the reread datum is built", i)
		}
	}
	b := forms[0].Items[2].Items[1].Reread().Items[1].Items[1] // "c"
	if b.Kind != String || b.Str != "c" || b.Pos.String() != "t.sexp:1:18" {
		t.Errorf("reread string %s %q at %s", b.Kind, b.Str, b.Pos)
	}
	if plain := forms[0].Items[0]; plain.Reread() != plain {
		t.Error("Reread of a node that was not built is not the node")
	}
}
