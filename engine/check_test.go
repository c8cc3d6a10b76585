package engine_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/evalrun/evalrun/engine"
	"github.com/evalrun/evalrun/sexp"
)

// checkLines runs engine.Check on texts named a.sexp, b.sexp ... and
// returns the diagnostics as "FILE:LINE:COL: SEVERITY: MSG" and the names
// of the failed files.
func checkLines(t *testing.T, opts engine.CheckOptions, texts ...string) (lines []string, failed []string) {
	t.Helper()
	dir := project(t, map[string]string{".evalrun/templates/greet.xml": greetXML})
	ws, err := engine.LoadWorkspace(engine.Options{WorkDir: dir, Getenv: env(t)})
	if err != nil {
		t.Fatal(err)
	}
	var srcs []*sexp.Source
	for i, text := range texts {
		srcs = append(srcs, sexp.NewSource(fmt.Sprintf("%c.sexp", 'a'+i), text))
	}
	res := engine.Check(ws, srcs, opts)
	for _, d := range res.Diagnostics {
		lines = append(lines, d.String())
	}
	for _, s := range srcs {
		if res.Failed[s] {
			failed = append(failed, s.Name)
		}
	}
	return lines, failed
}

// TestCheckTooManyErrors: after ten errors in a file, check reports "too
// many errors" at the eleventh and nothing more of that file; another file
// is reported in full.
func TestCheckTooManyErrors(t *testing.T) {
	var b strings.Builder
	for i := 1; i <= 15; i++ {
		fmt.Fprintf(&b, "(+ x%d 1)\n", i)
	}
	lines, failed := checkLines(t, engine.CheckOptions{}, b.String(), "(if 1 2)\n(let ((a 1)) (define f 1) f)\n(frob)")
	var want []string
	for i := 1; i <= 10; i++ {
		want = append(want, fmt.Sprintf("a.sexp:%d:4: error: Unbound symbol: Name 'x%d' is not defined.", i, i))
	}
	want = append(want,
		"a.sexp:11:4: error: too many errors",
		"b.sexp:1:1: error: 'if' requires 3 arguments: (if condition then_branch else_branch)",
		"b.sexp:3:2: error: Unbound symbol or unrecognized operator: frob",
	)
	if strings.Join(lines, "\n") != strings.Join(want, "\n") {
		t.Errorf("got\n%s\nwant\n%s", strings.Join(lines, "\n"), strings.Join(want, "\n"))
	}
	if strings.Join(failed, " ") != "a.sexp b.sexp" {
		t.Errorf("failed %v", failed)
	}
}

// TestCheckSyntaxAndGlobals: a file with a syntax error is reported and
// left out; --set names count as bound; a clean program fails nothing.
func TestCheckSyntaxAndGlobals(t *testing.T) {
	lines, failed := checkLines(t, engine.CheckOptions{Globals: []string{"who"}}, `(greet (name who)`, `(greet (name who))`)
	want := "a.sexp:1:1: error: unclosed '(': missing ')'"
	if lines, _ := checkLines(t, engine.CheckOptions{}, "(a [b]) 1e999"); strings.Join(lines, "\n") != "a.sexp:1:4: error: square brackets are not supported; write lists with ( )\n"+
		"a.sexp:1:6: error: square brackets are not supported; write lists with ( )\na.sexp:1:9: error: float literal out of range: 1e999" {
		t.Errorf("all syntax errors: got %q", lines)
	}
	if strings.Join(lines, "\n") != want || strings.Join(failed, " ") != "a.sexp" {
		t.Errorf("got %q (failed %v), want %q", lines, failed, want)
	}
	lines, failed = checkLines(t, engine.CheckOptions{}, `(greet (name who))`)
	if want := "a.sexp:1:14: error: Unbound symbol: Name 'who' is not defined."; strings.Join(lines, "\n") != want || len(failed) != 1 {
		t.Errorf("without globals: %q %v, want %q", lines, failed, want)
	}
}
