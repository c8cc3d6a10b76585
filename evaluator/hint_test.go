package evaluator_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/evalrun/evalrun/evaluator"
	"github.com/evalrun/evalrun/sexp"
	"github.com/evalrun/evalrun/tasksystem"
)

// TestUnknownNameHints: an unbound name near a known one gets a hint with
// the nearest primitive, special form, variable or template; the message
// itself is unchanged.
func TestUnknownNameHints(t *testing.T) {
	reg := tasksystem.NewRegistry()
	ts := evaluator.NewTaskSystem(reg, nil)
	for _, tc := range []struct{ src, msg, hint string }{
		{`(lenght "abc")`, "Unbound symbol or unrecognized operator: lenght", "length"},
		{`(string-apend "a" "b")`, "Unbound symbol or unrecognized operator: string-apend", "string-append"},
		{`(lamda (x) x)`, "Unbound symbol or unrecognized operator: lamda", "lambda"},
		{`(let ((result 1)) (+ resutl 1))`, "Unbound symbol: Name 'resutl' is not defined.", "result"},
		{`(defatom greet (params name) (instructions "x")) (gret (name "a"))`, "Unbound symbol or unrecognized operator: gret", "greet"},
		{`(car 1)`, "Unbound symbol or unrecognized operator: car", ""},
		{`x`, "Unbound symbol: Name 'x' is not defined.", ""},
		{`(nope)`, "Unbound symbol or unrecognized operator: nope", ""},
	} {
		in := evaluator.New(evaluator.Options{Tasks: ts})
		_, err := in.EvalString(context.Background(), "<t>", tc.src)
		var e *evaluator.Error
		if !errors.As(err, &e) {
			t.Fatalf("%s: error %v", tc.src, err)
		}
		if e.Msg != tc.msg || e.Hint != tc.hint {
			t.Errorf("%s: message %q hint %q; want %q and %q", tc.src, e.Msg, e.Hint, tc.msg, tc.hint)
		}
	}
	in := evaluator.New(evaluator.Options{})
	_, err := in.EvalString(context.Background(), "<t>", "(lenght 1)")
	var e *evaluator.Error
	if !errors.As(err, &e) || e.Display() != "<t>:1:2: Unbound symbol or unrecognized operator: lenght\n(lenght 1)\n ^\nhint: did you mean 'length'?\n" {
		t.Errorf("Display: %q", e.Display())
	}
}

// TestUnknownNameHintTies: of names equally near, the hint is always the
// same one — the first in sorted order — never one chosen by a map's order.
func TestUnknownNameHintTies(t *testing.T) {
	for range 20 {
		in := evaluator.New(evaluator.Options{})
		_, err := in.EvalString(context.Background(), "<t>", "(lett ((a 1)) a)")
		var e *evaluator.Error
		if !errors.As(err, &e) || e.Hint != "let" {
			t.Fatalf("hint for lett: %v", err)
		}
	}
}

// TestCheckHints: evalrun check gives the same hints as evaluation.
func TestCheckHints(t *testing.T) {
	src := sexp.NewSource("t.sexp", "(define items (list 1 2))\n(lenght itmes)\n(car 1)\n")
	forms, err := sexp.Parse(src)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, d := range evaluator.Check(forms, evaluator.CheckOptions{}) {
		got = append(got, d.Msg+" / "+d.Hint)
	}
	want := []string{
		"Unbound symbol or unrecognized operator: lenght / length",
		"Unbound symbol: Name 'itmes' is not defined. / items",
		"Unbound symbol or unrecognized operator: car / ",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("check diagnostics:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
