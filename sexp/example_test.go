package sexp_test

import (
	"errors"
	"fmt"

	"github.com/evalrun/evalrun/sexp"
)

func ExampleParseString() {
	forms, err := sexp.ParseString("<eval>", `(greet (name "Bob")) 'done 1_000 2.5e3`)
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, n := range forms {
		fmt.Printf("%s %s at %s\n", n.Kind, n, n.Pos)
	}
	// Output:
	// list (greet (name "Bob")) at <eval>:1:1
	// list (quote done) at <eval>:1:22
	// int 1000 at <eval>:1:28
	// float 2500.0 at <eval>:1:34
}

func ExampleError_Display() {
	_, err := sexp.ParseString("<eval>", `(list 1 "two)`)
	var se *sexp.Error
	if errors.As(err, &se) {
		fmt.Print(se.Display())
	}
	// Output:
	// <eval>:1:9: unterminated string
	// (list 1 "two)
	//         ^
}

func ExampleFormatDiagnostic() {
	src := sexp.NewSource("plan.sexp", "(define x\n\t(undefined-thing 1))\n")
	fmt.Print(sexp.FormatDiagnostic(sexp.Pos{Src: src, Off: 11}, "error", "unbound symbol 'undefined-thing'"))
	// Output:
	// plan.sexp:2:2: error: unbound symbol 'undefined-thing'
	// 	(undefined-thing 1))
	// 	^
}

func ExampleFormat() {
	src := sexp.NewSource("f.sexp", `(define (f x) ; doubles x
(* x   2)) (f 21)`)
	out, err := sexp.Format(src)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Print(string(out))
	// Output:
	// (define (f x) ; doubles x
	//   (* x 2))
	// (f 21)
}

func ExampleSymbolText() {
	for _, name := range []string{"review/git-diff", "a b", "nil", "42", "'x"} {
		fmt.Println(sexp.SymbolText(name))
	}
	// Output:
	// review/git-diff
	// a\ b
	// \nil
	// \42
	// \'x
}

func ExampleFormatFloat() {
	tenth, fifth := 0.1, 0.2
	for _, f := range []float64{3.5, 1000, tenth + fifth, 1e21, 1.5e-7} {
		fmt.Println(sexp.FormatFloat(f))
	}
	// Output:
	// 3.5
	// 1000.0
	// 0.30000000000000004
	// 1e+21
	// 1.5e-7
}
