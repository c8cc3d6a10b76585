package evaluator

import (
	"context"
	"testing"

	"github.com/evalrun/evalrun/sexp"
	"github.com/evalrun/evalrun/value"
)

// TestParseBuildsQuotedData: Parse makes quoted lists into the values that
// converting the nodes of sexp.Parse gives.
func TestParseBuildsQuotedData(t *testing.T) {
	text := `'(a 1 -2 "s\n" (b 'c '(d)) () 2.5 true false nil :k item item) ''(x) '(quote y) '((()))`
	built, err := Parse(sexp.NewSource("t.sexp", text))
	if err != nil {
		t.Fatal(err)
	}
	plain, err := sexp.Parse(sexp.NewSource("t.sexp", text))
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		`(a 1 -2 "s\n" (b (quote c) (quote (d))) nil 2.5 true false nil :k item item)`,
		`(quote (x))`, `(quote y)`, `((nil))`,
	}
	if len(built) != len(want) || len(plain) != len(want) {
		t.Fatalf("%d and %d forms, want %d", len(built), len(plain), len(want))
	}
	for i, n := range built {
		d := n.Items[1]
		if _, ok := d.Built(); !ok {
			t.Errorf("form %d: the datum was not built", i)
		}
		got, err := quotedValue(d, 0)
		if err != nil {
			t.Fatal(err)
		}
		ref, err := quotedValue(plain[i].Items[1], 0)
		if err != nil {
			t.Fatal(err)
		}
		if got.String() != want[i] || !value.Equal(got, ref) {
			t.Errorf("form %d: built %s, from nodes %s, want %s", i, got, ref, want[i])
		}
	}
	// The atom nil reads as the empty list, a keyword as a symbol.
	l := mustQuoted(t, built[0]).(value.List)
	if nl, ok := l[9].(value.List); !ok || nl != nil || l[10] != value.Symbol(":k") || l[12] != value.Symbol("item") {
		t.Errorf("elements %#v %#v %#v", l[9], l[10], l[12])
	}
}

func mustQuoted(t *testing.T, n *sexp.Node) value.Value {
	t.Helper()
	v, err := quotedValue(n.Items[1], 0)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// TestBuiltListsDoNotShareStorage: the lists of built data are carved from
// shared blocks with their capacity cut, so growing one copies it and the
// next list is untouched.
func TestBuiltListsDoNotShareStorage(t *testing.T) {
	in := New(Options{})
	v, err := in.EvalString(context.Background(), "t.sexp",
		`(define a '(1 2)) (define b '(3 4)) (define c (append a '(9))) (list a b c (cons 0 b))`)
	if err != nil {
		t.Fatal(err)
	}
	if got := v.String(); got != "((1 2) (3 4) (1 2 9) (0 3 4))" {
		t.Errorf("got %s", got)
	}
}
