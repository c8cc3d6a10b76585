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
		// A loop whose body is not a list form must notice the timeout too.
		errRow(`(loop 9223372036854775807 1)`, "timeout exceeded (50ms)", "limit", "1:1"),
		errRow(`(parallel 1 (loop 9223372036854775807 1))`, "timeout exceeded (50ms)", "limit", "1:13"),
		// So must functions applied to values by map, reduce and the like.
		errRow(`(let ((l (range 3000000))) (reduce (lambda (a x) a) 0 (append l l l)))`, "timeout exceeded (50ms)", "limit", "1:28"),
	})
	// A timeout that strikes a recursion caught over and over is detected
	// wherever evaluation is when the clock runs out: in f's body (1:13)
	// or at the try form that called it (1:37).
	t.Run("caught recursion", func(t *testing.T) {
		h := newSpecHarness(t, evaluator.Limits{Timeout: 50 * time.Millisecond})
		got := outcomeOf(h.eval(`(define (f) (f)) (loop 100000000000 (try (f) (catch e 0)))`))
		if got.Msg != "timeout exceeded (50ms)" || got.Kind != "limit" || (got.Pos != "1:13" && got.Pos != "1:37") {
			t.Errorf("got %+v, want the timeout at 1:13 or 1:37", got)
		}
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
