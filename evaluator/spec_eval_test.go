package evaluator_test

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/evalrun/evalrun/evaluator"
	"github.com/evalrun/evalrun/value"
)

// §6.2 atoms and symbols.
var symbolRows = []specRow{
	okRow(`5`, `5`),
	okRow(`"s"`, `"s"`),
	okRow(`:kw`, `:kw`),
	okRow(`(list :a :b)`, `(:a :b)`),
	okRow(`(let ((x 1)) x)`, `1`),
	okRow(`null`, `null`),
	okRow(`string-upcase`, `"string-upcase"`),
	okRow(`+`, `"+"`),
	okRow(`greet`, `"greet"`),
	okRow(`echo-tool`, `"echo-tool"`),
	okRow(`(map string-upcase (list "a" "b"))`, `("A" "B")`),
	okRow(`(let ((string-upcase 5)) string-upcase)`, `5`),
	errRow(`x`, "Unbound symbol: Name 'x' is not defined.", "unbound", "1:1"),
	errRow(`(list 1 x)`, "Unbound symbol: Name 'x' is not defined.", "unbound", "1:9"),
	errRow(`(define f if)`, "Unbound symbol: Name 'if' is not defined.", "unbound", "1:11"),
	errRow(`lambda`, "Unbound symbol: Name 'lambda' is not defined.", "unbound", "1:1"),
	errRow(`(list quote)`, "Unbound symbol: Name 'quote' is not defined.", "unbound", "1:7"),
	errRow(`(list defatom step parallel)`, "Unbound symbol: Name 'defatom' is not defined.", "unbound", "1:7"),
	errRow(`*loop-config*`, "Unbound symbol: Name '*loop-config*' is not defined.", "unbound", "1:1"),
}

// §6.3 operator resolution.
var operatorRows = []specRow{
	okRow(`(let ((list (lambda (x) 99))) (list 1))`, `(1)`),
	okRow(`(let ((greet (lambda (x) 99))) (greet (name "B")))`, `#<TaskResult COMPLETE "Hello B!">`),
	okRow(`(let ((echo-tool (lambda (x) 99))) (get-field (echo-tool (a 1)) "content"))`, `"{\"a\":1}"`),
	okRow(`(let ((if (lambda (x) 99))) (if true 1 2))`, `1`),
	okRow(`((lambda (x) (+ x 1)) 2)`, `3`),
	okRow(`((if true + -) 5 2)`, `7`),
	okRow(`("list" 1 2)`, `(1 2)`),
	okRow(`("greet" (name "Bob"))`, `#<TaskResult COMPLETE "Hello Bob!">`),
	okRow(`(progn (define f "greet") (f (name "Bob")))`, `#<TaskResult COMPLETE "Hello Bob!">`),
	okRow(`(let ((f (lambda (a b) (- a b)))) (f 5 2))`, `3`),
	okRow(`(let ((f "+")) (f 1 2))`, `3`),
	okRow(`(let ((f '+)) (f 1 2))`, `3`),
	okRow(`(echo-tool (a 1) (b "x"))`, `#<TaskResult COMPLETE "{\"a\":1,\"b\":\"x\"}">`),
	okRow(`(echo-tool :a 1)`, `#<TaskResult COMPLETE "{\"a\":1}">`),
	okRow(`()`, `nil`),
	okRow(`(defatom t (instructions "sub {{x}}") (subtype "sub")) (list atomic:sub (atomic:sub (x 1)))`, `("atomic:sub" #<TaskResult COMPLETE "sub 1">)`),
	okRow(`(defatom t (instructions "sub {{x}}") (subtype "sub")) (map atomic:sub (list 2))`, `(#<TaskResult COMPLETE "sub 2">)`),
	errRow(`(1 2)`, "Operator in list form must be a symbol or another list, got int: 1", "type", "1:2"),
	errRow(`(1.5)`, "Operator in list form must be a symbol or another list, got float: 1.5", "type", "1:2"),
	errRow(`(true 1)`, "Operator in list form must be a symbol or another list, got bool: true", "type", "1:2"),
	errRow(`(foo 1)`, "Unbound symbol or unrecognized operator: foo", "unbound", "1:2"),
	errRow("(list\n  (nosuch (x 1)))", "Unbound symbol or unrecognized operator: nosuch", "unbound", "2:4"),
	errRow(`(:kw 1)`, "Unbound symbol or unrecognized operator: :kw", "unbound", "1:2"),
	errRow(`("if" true 1 2)`, "Operator 'if' is not a callable primitive, task, or tool.", "type", "1:1"),
	errRow(`("nosuch" 1)`, "Operator 'nosuch' is not a callable primitive, task, or tool.", "type", "1:1"),
}

// §6.4 applying a value.
var applyRows = []specRow{
	errRow(`((lambda (a b) a) 1)`, "Arity mismatch: Closure expects 2 arguments, got 1", "arity", "1:1"),
	errRow(`((lambda () 1) 1 2)`, "Arity mismatch: Closure expects 0 arguments, got 2", "arity", "1:1"),
	errRow(`(map (lambda (a b) a) (list 1))`, "Arity mismatch: Closure expects 2 arguments, got 1", "arity", "1:1"),
	errRow(`(progn (define f "nosuch") (f 1))`, "Operator 'nosuch' is not a callable primitive, task, or tool.", "type", "1:28"),
	errRow(`(map "if" (list 1))`, "Operator 'if' is not a callable primitive, task, or tool.", "type", "1:1"),
	errRow(`(map 'lambda (list 1))`, "Operator 'lambda' is not a callable primitive, task, or tool.", "type", "1:1"),
	errRow(`(let ((f 5)) (f 1))`, "Cannot apply non-callable/non-closure operator: 5 (type: int)", "type", "1:14"),
	errRow(`(let ((f (list 1))) (f 1))`, "Cannot apply non-callable/non-closure operator: (1) (type: list)", "type", "1:21"),
	errRow(`(map 5 (list 1))`, "Cannot apply non-callable/non-closure operator: 5 (type: int)", "type", "1:1"),
	errRow(`((list 1 2) 3)`, "Cannot apply non-callable/non-closure operator: (1 2) (type: list)", "type", "1:1"),
	errRow(`(map "echo-tool" (list 1))`, `tool 'echo-tool' cannot be applied to positional arguments; use (call "echo-tool" dict)`, "type", "1:1"),
	errRow(`(progn (define f "echo-tool") (f 1))`, `Invalid argument format for task 'echo-tool'. Expected (key_symbol value_expression), got: 1`, "value", "1:34"),
	okRow(`(map "string-upcase" (list "a"))`, `("A")`),
	okRow(`(map greet (list "Bob" "Ann"))`, `(#<TaskResult COMPLETE "Hello Bob!"> #<TaskResult COMPLETE "Hello Ann!">)`),
	okRow(`(apply pair (list "x" 2))`, `#<TaskResult COMPLETE "x/2">`),
	okRow(`(apply maybe nil)`, `#<TaskResult COMPLETE "[]">`),
	errRow(`(apply greet (list "a" "b"))`, "Task 'greet' expects at most 1 positional arguments, got 2", "arity", "1:1"),
}

// §6.5 environments and scope.
var scopeRows = []specRow{
	okRow(`(let ((y 10)) (let ((f (lambda () y))) (bind y 20) (f)))`, `10`),
	okRow(`(progn (define (fact n) (if (< n 2) 1 (* n (fact (- n 1))))) (fact 5))`, `120`),
	okRow(`(let ((x 1)) (define x 2) x)`, `2`),
	okRow(`(progn (define x 1) (let ((y 0)) (define x 2)) x)`, `1`),
	okRow(`(progn (define x 1) (let ((y 0)) (set! x 2)) x)`, `2`),
	okRow(`(progn (define x 1) ((lambda () (define x 2) x)))`, `2`),
	okRow(`(progn (define n 1) (define (get-n) n) (let ((n 2)) (get-n)))`, `1`),
	okRow(`(progn (define (counter) (let ((c 0)) (lambda () (set! c (+ c 1)) c))) (define k (counter)) (k) (k) (k))`, `3`),
	errRow(`(define :a 1)`, "cannot bind keyword ':a'", "value", "1:9"),
	errRow(`(define true 1)`, "cannot bind 'true'", "value", "1:9"),
	errRow(`(define false 1)`, "cannot bind 'false'", "value", "1:9"),
	errRow(`(define nil 1)`, "cannot bind 'nil'", "value", "1:9"),
	errRow(`(bind :a 1)`, "cannot bind keyword ':a'", "value", "1:7"),
	errRow(`(bind true 1)`, "cannot bind 'true'", "value", "1:7"),
	errRow(`(define (:f) 1)`, "cannot bind keyword ':f'", "value", "1:10"),
	errRow(`(let ((:a 1)) 1)`, "cannot bind keyword ':a'", "value", "1:8"),
	errRow(`(lambda (:a) 1)`, "cannot bind keyword ':a'", "value", "1:10"),
	errRow(`(try (error "x") (catch :e 1))`, "cannot bind keyword ':e'", "value", "1:25"),
}

// §6.6 positions.
var positionRows = []specRow{
	errRow(`(+ 1 "a")`, "'+' argument 2 must be a number, got string.", "type", "1:6"),
	errRow(`(list 1 (+ 1 "a"))`, "'+' argument 2 must be a number, got string.", "type", "1:14"),
	errRow("(progn\n  (define (f x) (+ x \"a\"))\n  (f 1))", "'+' argument 2 must be a number, got string.", "type", "2:22"),
	errRow("(let ((x 1))\n\t(foo x))", "Unbound symbol or unrecognized operator: foo", "unbound", "2:3"),
	errRow("(list 'é (nosuch))", "Unbound symbol or unrecognized operator: nosuch", "unbound", "1:11"),
	errRow(`(if 1 2)`, "'if' requires 3 arguments: (if condition then_branch else_branch)", "arity", "1:1"),
	errRow(`(list (if 1 2))`, "'if' requires 3 arguments: (if condition then_branch else_branch)", "arity", "1:7"),
	errRow(`(greet (name (error "inner")))`, "inner", "user", "1:14"),
	okRow(`(try (+ 1 "a") (catch e (get e "position")))`, `"<eval>:1:11"`),
	okRow("(try\n  (error \"x\")\n  (catch e e))", `(dict "message" "x" "kind" "user" "position" "<eval>:2:3")`),
}

func TestSpecSymbols(t *testing.T)   { runRows(t, evaluator.Limits{}, symbolRows) }
func TestSpecOperators(t *testing.T) { runRows(t, evaluator.Limits{}, operatorRows) }
func TestSpecApply(t *testing.T)     { runRows(t, evaluator.Limits{}, applyRows) }
func TestSpecScope(t *testing.T)     { runRows(t, evaluator.Limits{}, scopeRows) }
func TestSpecPositions(t *testing.T) { runRows(t, evaluator.Limits{}, positionRows) }

// An error inside a closure keeps its own position and records the calls it
// passed through, innermost first (§6.6).
func TestErrorTrace(t *testing.T) {
	h := newSpecHarness(t, evaluator.Limits{})
	src := "(define (g x) (+ x \"a\"))\n(define (f x) (g x))\n(f 1)"
	_, err := h.eval(src)
	var e *evaluator.Error
	if !errors.As(err, &e) {
		t.Fatalf("got %v, want *evaluator.Error", err)
	}
	var trace []string
	for _, p := range e.Trace {
		trace = append(trace, lineCol(p))
	}
	if diff := cmp.Diff([]string{"2:15", "3:1"}, trace); diff != "" {
		t.Errorf("trace (-want +got):\n%s", diff)
	}
	if got, want := lineCol(e.Pos), "1:20"; got != want {
		t.Errorf("pos = %s, want %s", got, want)
	}
	wantDisplay := "<eval>:1:20: '+' argument 2 must be a number, got string.\n" +
		"(define (g x) (+ x \"a\"))\n" +
		"                   ^\n" +
		"  called from <eval>:2:15\n" +
		"  called from <eval>:3:1\n"
	if diff := cmp.Diff(wantDisplay, e.Display()); diff != "" {
		t.Errorf("Display (-want +got):\n%s", diff)
	}
	if got, want := e.Error(), "<eval>:1:20: '+' argument 2 must be a number, got string."; got != want {
		t.Errorf("Error() = %q, want %q", got, want)
	}
}

// §6.7 limits.
func TestSpecRecursionDepth(t *testing.T) {
	const down = `(define (down n) (if (< n 1) 0 (down (- n 1))))` + "\n"
	runRows(t, evaluator.Limits{}, []specRow{
		okRow(down+`(down 1000)`, `0`),
		// (down 9999) has exactly 10,000 applications active at once.
		okRow(down+`(down 9999)`, `0`),
		errRow(down+`(down 10000)`, "recursion depth limit exceeded (10000)", "depth", "1:32"),
		errRow(down+`(down 20000)`, "recursion depth limit exceeded (10000)", "depth", "1:32"),
		okRow(down+`(try (down 20000) (catch e (list (get e "kind") (get e "message"))))`, `("depth" "recursion depth limit exceeded (10000)")`),
		// Applications through map count too.
		errRow(`(define (m n) (if (< n 1) 0 (first (map m (list (- n 1))))))`+"\n"+`(m 6000)`,
			"recursion depth limit exceeded (10000)", "depth", "1:36"),
		okRow(`(define (m n) (if (< n 1) 0 (first (map m (list (- n 1))))))`+"\n"+`(m 4000)`, `0`),
	})
	runRows(t, evaluator.Limits{RecursionDepth: 50}, []specRow{
		okRow(`(define (down n) (if (< n 1) 0 (down (- n 1))))`+"\n"+`(down 49)`, `0`),
		errRow(`(define (down n) (if (< n 1) 0 (down (- n 1))))`+"\n"+`(down 50)`, "recursion depth limit exceeded (50)", "depth", "1:32"),
	})
}

func TestSpecStepBudget(t *testing.T) {
	runRows(t, evaluator.Limits{MaxSteps: 10}, []specRow{
		okRow(`(+ 1 (+ 1 1))`, `3`),
		errRow(`(loop 100 (+ 1 1))`, "step budget exceeded (10 steps)", "limit", "1:11"),
		errRow(`(try (loop 100 (+ 1 1)) (catch e "caught"))`, "step budget exceeded (10 steps)", "limit", "1:16"),
		errRow(`(step "s" (loop 100 (+ 1 1)) :on-error skip-optional)`, "step budget exceeded (10 steps)", "limit", "1:21"),
		errRow(`(step "s" (loop 100 (+ 1 1)) :on-error retry-once)`, "step budget exceeded (10 steps)", "limit", "1:21"),
		errRow(`(define (f) (f)) (f)`, "step budget exceeded (10 steps)", "limit", "1:13"),
	})
}

func TestSpecTimeout(t *testing.T) {
	start := time.Now()
	runRows(t, evaluator.Limits{Timeout: 50 * time.Millisecond}, []specRow{
		errRow(`(loop 100000000000 (+ 1 1))`, "timeout exceeded (50ms)", "limit", "1:20"),
		errRow(`(try (loop 100000000000 (+ 1 1)) (catch e "caught"))`, "timeout exceeded (50ms)", "limit", "1:25"),
		errRow(`(define (f) (f)) (loop 100000000000 (try (f) (catch e 0)))`, "timeout exceeded (50ms)", "limit", "1:13"),
		// A loop whose body is not a list form must notice the timeout too.
		errRow(`(loop 9223372036854775807 1)`, "timeout exceeded (50ms)", "limit", "1:1"),
		errRow(`(parallel 1 (loop 9223372036854775807 1))`, "timeout exceeded (50ms)", "limit", "1:13"),
		// So must functions applied to values by map, reduce and the like.
		errRow(`(let ((l (range 3000000))) (reduce (lambda (a x) a) 0 (append l l l)))`, "timeout exceeded (50ms)", "limit", "1:28"),
	})
	if d := time.Since(start); d > 20*time.Second {
		t.Errorf("the timeout rows took %v", d)
	}
}

func TestSpecCancellation(t *testing.T) {
	h := newSpecHarness(t, evaluator.Limits{})
	ctx, cancel := context.WithCancelCause(context.Background())
	time.AfterFunc(50*time.Millisecond, func() { cancel(evaluator.Interrupted()) })
	_, err := h.in.EvalString(ctx, "<eval>", `(try (loop 100000000000 (+ 1 1)) (catch e "caught"))`)
	got := outcomeOf(nil, err)
	if diff := cmp.Diff(specOutcome{Msg: "interrupted", Kind: "cancelled", Pos: "1:25"}, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

func TestSpecValueSizes(t *testing.T) {
	runRows(t, evaluator.Limits{}, []specRow{
		errRow(`(let ((s "ab")) (loop 100 (set! s (string-append s s))))`,
			"value too large: string of 134217728 bytes exceeds the limit of 67108864", "limit", "1:35"),
		errRow(`(range 10000001)`, "range: too many elements", "limit", "1:1"),
		errRow(`(range -9223372036854775808 9223372036854775807)`, "range: too many elements", "limit", "1:1"),
		errRow(`(try (range 10000001) (catch e "caught"))`, "range: too many elements", "limit", "1:6"),
	})
	runRows(t, evaluator.Limits{MaxStringBytes: 10}, []specRow{
		okRow(`(string-append "12345" "67890")`, `"1234567890"`),
		okRow(`(string-append "1234567" 890)`, `"1234567890"`),
		okRow(`(string-append "123456" true)`, `"123456true"`),
		errRow(`(string-append "12345" "678901")`, "value too large: string of 11 bytes exceeds the limit of 10", "limit", "1:1"),
		errRow(`(string-append "1234567890" 1)`, "value too large: string of 11 bytes exceeds the limit of 10", "limit", "1:1"),
		errRow(`(string-join (list "12345" "678901"))`, "value too large: string of 11 bytes exceeds the limit of 10", "limit", "1:1"),
		errRow(`(to-string (list "12345" "678901"))`, "value too large: string of 18 bytes exceeds the limit of 10", "limit", "1:1"),
		errRow(`(json-encode (list "12345" "678901"))`, "value too large: string of 18 bytes exceeds the limit of 10", "limit", "1:1"),
		errRow(`(string-upcase "ßßßßßß")`, "value too large: string of 12 bytes exceeds the limit of 10", "limit", "1:1"),
		errRow(`(try (string-append "12345" "678901") (catch e "caught"))`, "value too large: string of 11 bytes exceeds the limit of 10", "limit", "1:6"),
	})
	if testing.Short() || raceEnabled {
		t.Skip("skipping the 10,000,000-element lists in -short mode and under the race detector")
	}
	runRows(t, evaluator.Limits{}, []specRow{
		okRow(`(length (range 10000000))`, `10000000`),
		okRow(`(length (range 0 20000000 2))`, `10000000`),
		errRow(`(let ((l (range 10000000))) (cons 0 l))`, "value too large: list of 10000001 elements exceeds the limit of 10000000", "limit", "1:29"),
		errRow(`(let ((l (range 5000001))) (append l l))`, "value too large: list of 10000002 elements exceeds the limit of 10000000", "limit", "1:28"),
	})
}

// §6.8 concurrency.
var parallelRows = []specRow{
	okRow(`(parallel 1 2 3)`, `(1 2 3)`),
	okRow(`(parallel)`, `nil`),
	okRow(`(parallel (+ 1 1) "b" (list 3))`, `(2 "b" (3))`),
	okRow(`(parallel (greet (name "a")) (greet (name "b")))`, `(#<TaskResult COMPLETE "Hello a!"> #<TaskResult COMPLETE "Hello b!">)`),
	okRow(`(parallel-map (lambda (x) (* x x)) (list 1 2 3))`, `(1 4 9)`),
	okRow(`(parallel-map (lambda (x) x) nil)`, `nil`),
	okRow(`(parallel-map greet (list "a" "b"))`, `(#<TaskResult COMPLETE "Hello a!"> #<TaskResult COMPLETE "Hello b!">)`),
	okRow(`(parallel-map string-upcase (list "a" "b"))`, `("A" "B")`),
	errRow(`(let ((x 1)) (parallel (set! x 2)))`, "set! of 'x' inside a parallel branch: the variable is shared", "value", "1:24"),
	errRow(`(progn (define x 1) (parallel-map (lambda (i) (set! x i)) (list 1 2)))`, "set! of 'x' inside a parallel branch: the variable is shared", "value", "1:47"),
	errRow(`(let ((x 1)) (parallel (parallel (let ((y 1)) (set! x y)))))`, "set! of 'x' inside a parallel branch: the variable is shared", "value", "1:47"),
	errRow(`(parallel (let ((y 1)) (parallel (set! y 2))))`, "set! of 'y' inside a parallel branch: the variable is shared", "value", "1:34"),
	okRow(`(parallel (let ((y 1)) (set! y 2) y))`, `(2)`),
	okRow(`(parallel (progn (define z 1) (set! z 5) z))`, `(5)`),
	okRow(`(parallel-map (lambda (i) (set! i (* i 10)) i) (list 1 2))`, `(10 20)`),
	okRow(`(progn (define x 1) (list (parallel (progn (define x 2) x) x) x))`, `((2 1) 1)`),
	okRow(`(let ((x 1)) (parallel (let ((x 5)) (set! x 6) x)))`, `(6)`),
	errRow(`(parallel 1 (error "boom") 3)`, "boom", "user", "1:13"),
	errRow(`(parallel-map (lambda (x) (if (= x 3) (error "bad") x)) (range 10))`, "bad", "user", "1:39"),
	errRow(`(parallel 1 (+ 1 "a"))`, "'+' argument 2 must be a number, got string.", "type", "1:18"),
	errRow(`(parallel-map (lambda (x) x) 5)`, "'parallel-map' argument 2 must be a list, got int.", "type", "1:30"),
}

func TestSpecParallel(t *testing.T) { runRows(t, evaluator.Limits{}, parallelRows) }

// The first error cancels the other branches, even those that only compute
// or that catch errors, and the form raises that error (§6.8).
func TestParallelFirstErrorCancels(t *testing.T) {
	for _, src := range []string{
		`(parallel (loop 100000000000 (+ 1 1)) (error "boom"))`,
		`(parallel (error "boom") (loop 9223372036854775807 1))`,
		`(parallel (error "boom") (loop 100000000000 (try (+ 1 1) (catch e 0))))`,
		`(parallel (error "boom") (loop 100000000000 (step "s" (+ 1 1) :on-error retry 5)))`,
		`(parallel-map (lambda (x) (if (= x 0) (error "boom") (loop 100000000000 (+ x 1)))) (range 4))`,
		`(parallel (error "boom") (parallel (loop 100000000000 (+ 1 1)) (loop 100000000000 (+ 1 1))))`,
	} {
		t.Run(testName(src), func(t *testing.T) {
			h := newSpecHarness(t, evaluator.Limits{})
			start := time.Now()
			_, err := h.eval(src)
			got := outcomeOf(nil, err)
			if got.Msg != "boom" || got.Kind != "user" {
				t.Errorf("got %+v, want the error boom", got)
			}
			if d := time.Since(start); d > 10*time.Second {
				t.Errorf("took %v: the other branches were not cancelled", d)
			}
		})
	}
}

// In-flight task calls of the other branches see their context cancelled.
func TestParallelCancelsTaskCalls(t *testing.T) {
	h := newSpecHarness(t, evaluator.Limits{})
	h.tasks.delay = 10 * time.Second
	h.tasks.delays = map[string]time.Duration{"quick": 100 * time.Millisecond}
	start := time.Now()
	_, err := h.eval(`(parallel (greet (name "a")) (greet (name "b")) (progn (quick) (error "boom")))`)
	if got := outcomeOf(nil, err); got.Msg != "boom" {
		t.Errorf("got %+v, want boom", got)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("took %v: the task calls were not cancelled", d)
	}
	if n := h.tasks.cancelled.Load(); n != 2 {
		t.Errorf("%d task calls saw the cancellation, want 2", n)
	}
}

// At most limits.concurrency task executions run at once (§6.8), also from
// nested parallel forms, which must not deadlock.
func TestConcurrencyLimit(t *testing.T) {
	h := newSpecHarness(t, evaluator.Limits{Concurrency: 3})
	h.tasks.delay = 20 * time.Millisecond
	v := mustEval(t, h, `(length (parallel-map (lambda (i) (parallel-map (lambda (j) (greet (name j))) (range 4))) (range 5)))`)
	if v.String() != "5" {
		t.Errorf("got %s", v)
	}
	if n := h.tasks.calls.Load(); n != 20 {
		t.Errorf("%d task calls, want 20", n)
	}
	if m := h.tasks.maxActive.Load(); m > 3 || m < 2 {
		t.Errorf("%d executions ran at once, want at most 3 (and some concurrency)", m)
	}
}

// defatom registration from parallel branches is serialised (§6.8).
func TestParallelDefatom(t *testing.T) {
	h := newSpecHarness(t, evaluator.Limits{})
	v := mustEval(t, h, `(parallel-map (lambda (i) (step i (list 1))) (list "a" "b"))
(parallel (defatom t-one (instructions "1")) (defatom t-two (instructions "2")) (defatom t-three (instructions "3")))`)
	if got, want := v.String(), "(t-one t-two t-three)"; got != want {
		t.Errorf("got %s, want %s", got, want)
	}
	for _, n := range []string{"t-one", "t-two", "t-three"} {
		if _, ok := h.tasks.Lookup(n); !ok {
			t.Errorf("%s not registered", n)
		}
	}
}

// Several goroutines may use separate interpreters at once; one interpreter
// is used from one goroutine at a time.
func TestSeparateInterpretersConcurrently(t *testing.T) {
	var wg sync.WaitGroup
	for i := 0; i < 8; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			h := newSpecHarness(t, evaluator.Limits{})
			v, err := h.eval(`(define (fib n) (if (< n 2) n (+ (fib (- n 1)) (fib (- n 2))))) (fib 15)`)
			if err != nil || v.String() != "610" {
				t.Errorf("got %v, %v", v, err)
			}
		}()
	}
	wg.Wait()
}

// The global frame survives between EvalString calls (the REPL) and Define
// binds values in it (--set).
func TestGlobalFrame(t *testing.T) {
	h := newSpecHarness(t, evaluator.Limits{})
	h.in.Define("goal", value.String("ship it"))
	mustEval(t, h, `(define n 41)`)
	v := mustEval(t, h, `(list goal (+ n 1) null)`)
	if got, want := v.String(), `("ship it" 42 null)`; got != want {
		t.Errorf("got %s, want %s", got, want)
	}
	if !strings.Contains(strings.Join(h.in.Global().Names(), " "), "goal") {
		t.Errorf("global names %v lack goal", h.in.Global().Names())
	}
	h.in.Reset()
	if _, err := h.eval(`n`); err == nil {
		t.Errorf("n is still bound after Reset")
	}
	if v := mustEval(t, h, `null`); v.String() != "null" {
		t.Errorf("null = %s after Reset", v)
	}
}
