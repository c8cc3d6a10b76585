package evaluator_test

import (
	"strings"
	"testing"
	"time"

	"github.com/evalrun/evalrun/evaluator"
)

// Regressions: forms whose clauses are spelled like quote forms used to make
// the evaluator index past compiled elements (a recovered panic, kind
// internal); arity messages of the established form used to carry a
// "%!(EXTRA int=1)" tail.
var robustRows = []specRow{
	errRow(`(cond 'x)`, "Unbound symbol: Name 'quote' is not defined.", "unbound", "1:7"),
	okRow(`(let ((quote 5)) quote)`, `5`),
	errRow(`(let ((quote x)) 1)`, "Unbound symbol: Name 'x' is not defined.", "unbound", "1:14"),
	okRow(`(let ((quote 1)) (cond (quote (list 1 2))))`, `(1 2)`),
	errRow(`(director-evaluator-loop (quote 1))`, "director-evaluator-loop: Unknown clause 'quote'", "value", "1:26"),
	errRow(`(iterative-loop '(max-iterations 1))`, "iterative-loop: Unknown clause 'quote'", "value", "1:17"),
	errRow(`(greet (quote x))`, "Unbound symbol: Name 'x' is not defined.", "unbound", "1:15"),
	errRow(`(step "s" 1 :on-error '(retry 2))`, "step: unknown :on-error policy '(quote (retry 2))' (expected fail, skip-optional, retry-once or retry N)", "value", "1:23"),
	okRow(`(try 'a (catch e 1))`, `a`),
	errRow(`(nil 1)`, "Cannot apply non-callable/non-closure operator: nil (type: list)", "type", "1:1"),
	errRow(`(() 1)`, "Cannot apply non-callable/non-closure operator: nil (type: list)", "type", "1:1"),
	errRow(`(string=? 1)`, "'string=?' requires exactly two string arguments.", "arity", "1:1"),
	errRow(`(define (f) (f)) (f)`, "recursion depth limit exceeded (10000)", "depth", "1:13"),
	errRow(`(define (f x) (map f (list x))) (f 1)`, "recursion depth limit exceeded (10000)", "depth", "1:15"),
	errRow(`(define (f x) (parallel-map f (list x))) (f 1)`, "recursion depth limit exceeded (10000)", "depth", "1:15"),
	errRow(`(define (f x) (apply f (list x))) (f 1)`, "recursion depth limit exceeded (10000)", "depth", "1:15"),
	errRow(`(define (f x) (reduce f 0 (list x))) (f 1)`, "Arity mismatch: Closure expects 1 arguments, got 2", "arity", "1:15"),
	okRow(`(define (f x) (try (f x) (catch e (get e "kind")))) (f 1)`, `"depth"`),
	okRow(`(length (let ((l nil)) (loop 20000 (set! l (list l))) l))`, `1`),
	okRow(`(length (json-encode (let ((l nil)) (loop 9999 (set! l (list l))) l)))`, `20000`),
	errRow(`(json-encode (let ((l nil)) (loop 20000 (set! l (list l))) l))`, "'json-encode': value nested more than 10000 levels deep", "limit", "1:1"),
	okRow(`(eq? (let ((l nil)) (loop 20000 (set! l (list l))) l) (let ((l nil)) (loop 20000 (set! l (list l))) l))`, `true`),
}

func TestRobustness(t *testing.T) { runRows(t, evaluator.Limits{}, robustRows) }

// Pathological source shapes compile and run in bounded time.
func TestDeepSources(t *testing.T) {
	for _, c := range []struct {
		name, src, want string
	}{
		{"nested calls", strings.Repeat("(list ", 50_000) + strings.Repeat(")", 50_000), ""},
		{"nested quotes", strings.Repeat("'", 90_000) + "a", ""},
		{"nested quoted list", "'" + strings.Repeat("(", 90_000) + strings.Repeat(")", 90_000), ""},
		{"nested lets", strings.Repeat("(let ((x 1)) ", 20_000) + "x" + strings.Repeat(")", 20_000), "1"},
		{"too deep", strings.Repeat("(list ", 200_000) + strings.Repeat(")", 200_000), "error"},
	} {
		t.Run(c.name, func(t *testing.T) {
			h := newSpecHarness(t, evaluator.Limits{})
			start := time.Now()
			v, err := h.eval(c.src)
			switch {
			case c.want == "error":
				got := outcomeOf(v, err)
				if got.Kind != "syntax" || got.Msg != "nesting too deep (more than 100000 levels)" {
					t.Errorf("got %+v", got)
				}
			case err != nil:
				t.Fatal(err)
			case c.want != "" && v.String() != c.want:
				t.Errorf("got %s, want %s", v, c.want)
			}
			if d := time.Since(start); d > 20*time.Second {
				t.Errorf("took %v", d)
			}
		})
	}
}
