package sexp

import (
	"errors"
	"strings"
	"testing"
)

// FuzzParse checks that the reader never panics, that every error is an
// *Error with a position in the text, that the canonical text of what it
// reads reads back to the same values, and that Format is idempotent and
// keeps the forms, and that ParseBuilding reads what Parse reads. The seeds below and those in testdata/fuzz/FuzzParse run
// with every go test.
func FuzzParse(f *testing.F) {
	seeds := []string{
		"", " ", "; c", "()", "nil", "(a (b c) 'd)", `(list 1 "two" 'three)`,
		"(a (b", "(a))", "(a [b])", `"abc`, "(a ')", "'", "99999999999999999999", "1e999",
		"-9223372036854775808", "1_000 +5 007 -0 1. .5 1e3 2.5E-3 1_000.5 -0.0",
		`inf nan -inf Infinity NIL True #t - + ... 1/2 0x10 1__0 _1 :key`,
		`"a\qb" "\\\"\n\t\r\b\f" "line1` + "\n" + `line2"`,
		`a\ b \1 \nil \'x a\`, "a'b", "''a", "' ; c\n a", "(a ; c\n b ; d\n)",
		"\uFEFF(a)", "\n\uFEFFx", "(a\r\n b)\r\n", "\"a\r\nb\"", "a\\\r\nb",
		"(\xff)", "\"\xed\xa0\x80\"", "a\x00b", "\t(a\tb)",
		strings.Repeat("(", 300) + strings.Repeat(")", 300),
		strings.Repeat("'", 50) + "x",
		"(define (f x)\n  ; c\n\n\n  (if x ; t\n    (g x) (h x)))\n(f 1) (f 2)",
		"((lambda (x) x) 1)", "( ; c\n)", "'\n; c\n(a b)",
		"(list \"" + strings.Repeat("é", 100) + "\")",
		// Several errors, read on after each.
		"(a [b] 99999999999999999999 ') c)) (d \xff ; \xfe\n 1e999 '", "]] ' ) (x \"open",
		// Quoted data, which ParseBuilding builds.
		"'(a 'b '(c) ''d \"e\" 1 2.5 true nil ())", "'(a ')) '(b", "''('x) '; c\n(y)", "'('(1 ')",
	}
	for _, s := range seeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		src := NewSource("fuzz", text)
		file, err := ParseFile(src, ParseComments)
		_, errs := ParseAll(src, ParseComments)
		if (err == nil) != (len(errs) == 0) || (err != nil && err != error(errs[0]) && err.Error() != errs[0].Error()) {
			t.Fatalf("ParseFile error %v, ParseAll errors %v", err, errs)
		}
		for _, e := range errs {
			checkSyntaxError(t, text, e)
		}
		var forms []*Node
		if file != nil {
			forms = file.Forms
		}
		checkBuilding(t, text, forms, err)
		if err != nil {
			return
		}
		if len(file.Forms) == 0 {
			t.Fatalf("no forms and no error")
		}
		checkPrintReadsBack(t, file.Forms)
		checkFormatFuzz(t, text, file.Forms)
	})
}

func checkSyntaxError(t *testing.T, text string, err error) {
	var se *Error
	if !errors.As(err, &se) {
		t.Fatalf("error %T %v is not an *Error", err, err)
	}
	if !se.Pos.IsValid() || se.Pos.Off < 0 || se.Pos.Off > len(text) || se.Msg == "" {
		t.Fatalf("error %q has a bad position %d", se.Msg, se.Pos.Off)
	}
	_ = se.Display() // must not panic
}

func checkPrintReadsBack(t *testing.T, forms []*Node) {
	var b strings.Builder
	for _, n := range forms {
		b.WriteString(n.String())
		b.WriteByte('\n')
	}
	again, err := ParseString("printed", b.String())
	if err != nil {
		t.Fatalf("printed forms do not read: %v\n%s", err, b.String())
	}
	if !sameTree(forms, again, true) {
		t.Fatalf("printed forms read differently:\n%s", b.String())
	}
}

func checkFormatFuzz(t *testing.T, text string, forms []*Node) {
	out, err := Format(NewSource("fuzz", text))
	if err != nil {
		if !strings.Contains(err.Error(), "nesting too deep") {
			t.Fatalf("Format: %v", err)
		}
		return
	}
	after, err := ParseString("formatted", string(out))
	if err != nil {
		t.Fatalf("formatted text does not read: %v\n%s", err, out)
	}
	if !sameTree(forms, after, false) {
		t.Fatalf("formatting changed the forms:\n%s", out)
	}
	again, err := Format(NewSource("formatted", string(out)))
	if err != nil || string(again) != string(out) {
		t.Fatalf("Format is not idempotent (err %v):\n%s\n----\n%s", err, out, again)
	}
}
