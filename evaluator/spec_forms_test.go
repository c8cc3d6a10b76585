package evaluator_test

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/evalrun/evalrun/evaluator"
	"github.com/evalrun/evalrun/value"
)

// §7.1 quote.
var quoteRows = []specRow{
	okRow(`(quote a)`, `a`),
	okRow(`'(1 "s" true nil x)`, `(1 "s" true nil x)`),
	okRow(`(let ((x 10)) 'x)`, `x`),
	okRow(`'(a (b c) ())`, `(a (b c) nil)`),
	okRow(`(quote (quote a))`, `(quote a)`),
	okRow(`':k`, `:k`),
	errRow(`(quote)`, "'quote' requires exactly one argument: (quote expression)", "arity", "1:1"),
	errRow(`(quote a b)`, "'quote' requires exactly one argument: (quote expression)", "arity", "1:1"),
	errRow(`(list (quote a b))`, "'quote' requires exactly one argument: (quote expression)", "arity", "1:7"),
}

// §7.2 if, when, unless.
var ifRows = []specRow{
	okRow(`(if 0 1 2)`, `2`),
	okRow(`(if "" 1 2)`, `2`),
	okRow(`(if 'a 1 2)`, `1`),
	okRow(`(if true 1 (error "no"))`, `1`),
	okRow(`(if false (error "no") 2)`, `2`),
	errRow(`(if 1 2)`, "'if' requires 3 arguments: (if condition then_branch else_branch)", "arity", "1:1"),
	errRow(`(if 1 2 3 4)`, "'if' requires 3 arguments: (if condition then_branch else_branch)", "arity", "1:1"),
	errRow(`(if)`, "'if' requires 3 arguments: (if condition then_branch else_branch)", "arity", "1:1"),
	errRow(`(if (error "c") 1 2)`, "c", "user", "1:5"),
	okRow(`(when true 1 2)`, `2`),
	okRow(`(when false (error "no"))`, `nil`),
	okRow(`(when 1 (define w 3) (+ w 1))`, `4`),
	okRow(`(unless false 1 2)`, `2`),
	okRow(`(unless true (error "no"))`, `nil`),
	okRow(`(unless nil 5)`, `5`),
	errRow(`(when true)`, "'when' requires a condition and at least one body expression: (when condition body...)", "arity", "1:1"),
	errRow(`(unless)`, "'unless' requires a condition and at least one body expression: (unless condition body...)", "arity", "1:1"),
}

// §7.3 cond.
var condRows = []specRow{
	okRow(`(cond ((< 5 3) "a") ((> 5 3) "b") (else "c"))`, `"b"`),
	okRow(`(cond ((< 5 3) "a") (else "c"))`, `"c"`),
	okRow(`(cond ((< 5 3) "a"))`, `nil`),
	okRow(`(cond)`, `nil`),
	okRow(`(cond (5))`, `5`),
	okRow(`(cond (nil) ("x"))`, `"x"`),
	okRow(`(cond (true 1 2 3))`, `3`),
	okRow(`(cond (false (error "no")) (true 1))`, `1`),
	okRow(`(cond (else))`, `true`),
	errRow(`(cond (else 1) (true 2))`, "'else' must be the last cond clause", "value", "1:7"),
	errRow(`(cond x)`, "Invalid 'cond' clause: expected (test body...), got x", "value", "1:7"),
	errRow(`(cond (false 1) 5)`, "Invalid 'cond' clause: expected (test body...), got 5", "value", "1:17"),
	errRow(`(cond ())`, "Invalid 'cond' clause: expected (test body...), got nil", "value", "1:7"),
	errRow(`(cond ((error "t") 1))`, "t", "user", "1:8"),
	// A clause spelled like a quote form is still a (test body...) clause.
	okRow(`(let ((quote 1)) (cond (quote 2)))`, `2`),
}

// §7.4 and, or.
var andOrRows = []specRow{
	okRow(`(and)`, `true`),
	okRow(`(and 1 2 3)`, `3`),
	okRow(`(and 1 nil 3)`, `nil`),
	okRow(`(and 1 0 (error "no"))`, `0`),
	okRow(`(or)`, `false`),
	okRow(`(or nil 0 "" 5)`, `5`),
	okRow(`(or nil false)`, `false`),
	okRow(`(or 1 (error "no"))`, `1`),
	okRow(`(or (dict) (list))`, `nil`),
}

// §7.5 progn, begin.
var prognRows = []specRow{
	okRow(`(progn)`, `nil`),
	okRow(`(progn 1 2)`, `2`),
	okRow(`(begin)`, `nil`),
	okRow(`(begin 1 2)`, `2`),
	okRow(`(progn (define x 1) (begin (define y 2)) (+ x y))`, `3`),
}

// §7.6 let, let*.
const letMsg = "requires a bindings list and at least one body expression: (let ((var expr)...) body...)"

var letRows = []specRow{
	okRow(`(let ((a 1) (b 2)) (+ a b))`, `3`),
	okRow(`(let () 5)`, `5`),
	okRow(`(let nil 5)`, `5`),
	okRow(`(let ((a 1) (a 2)) a)`, `2`),
	okRow(`(let ((a 1)) (let ((a 2) (b a)) b))`, `1`),
	okRow(`(let ((a 1)) 1 2 a)`, `1`),
	okRow(`(let* ((a 1) (b (+ a 1))) b)`, `2`),
	okRow(`(let* ((a 1) (a (+ a 1))) a)`, `2`),
	okRow(`(let* () 7)`, `7`),
	errRow(`(let ((a 1) (b a)) b)`, "Unbound symbol: Name 'a' is not defined.", "unbound", "1:16"),
	errRow(`(let)`, "'let' "+letMsg, "arity", "1:1"),
	errRow(`(let ((x 1)))`, "'let' "+letMsg, "arity", "1:1"),
	errRow(`(let x 1)`, "'let' "+letMsg, "arity", "1:1"),
	errRow(`(let* ((x 1)))`, "'let*' "+letMsg, "arity", "1:1"),
	errRow(`(let ((x)) 1)`, "Invalid 'let' binding format: expected (symbol expression), got (x)", "value", "1:7"),
	errRow(`(let ((x 1 2)) 1)`, "Invalid 'let' binding format: expected (symbol expression), got (x 1 2)", "value", "1:7"),
	errRow(`(let (x) 1)`, "Invalid 'let' binding format: expected (symbol expression), got x", "value", "1:7"),
	errRow(`(let ((1 2)) 1)`, "Invalid 'let' binding format: expected (symbol expression), got (1 2)", "value", "1:7"),
	errRow(`(let* ((x)) 1)`, "Invalid 'let*' binding format: expected (symbol expression), got (x)", "value", "1:8"),
}

// §7.7 define, bind, set!.
var defineRows = []specRow{
	okRow(`(define x 5)`, `5`),
	okRow(`(define x 5) x`, `5`),
	okRow(`(define (f p) p)`, `#<closure (p)>`),
	okRow(`(define (f p q) (+ p q)) (f 1 2)`, `3`),
	okRow(`(define (f) 1 2) (f)`, `2`),
	okRow(`(bind y 7)`, `7`),
	okRow(`(bind y 7) y`, `7`),
	okRow(`(progn (define x 1) (let ((y 2)) (set! x 5)) x)`, `5`),
	okRow(`(define x 1) (set! x 2)`, `2`),
	errRow(`(define)`, "'define' requires a symbol and a value expression: (define name expression) or (define (name params...) body...)", "arity", "1:1"),
	errRow(`(define x)`, "'define' requires a symbol and a value expression: (define name expression) or (define (name params...) body...)", "arity", "1:1"),
	errRow(`(define x 1 2)`, "'define' requires a symbol and a value expression: (define name expression) or (define (name params...) body...)", "arity", "1:1"),
	errRow(`(define "x" 1)`, "'define' first argument must be a symbol, got string.", "type", "1:9"),
	errRow(`(define (f x))`, "'define' requires a body for the function: (define (name params...) body...)", "arity", "1:1"),
	errRow(`(define (f 1) 1)`, "Lambda parameters must be symbols, got int: 1", "type", "1:12"),
	errRow(`(define (f x x) 1)`, "Duplicate lambda parameter: x", "value", "1:14"),
	errRow(`(bind x)`, "'bind' requires a symbol and a value expression: (bind variable_symbol expression)", "arity", "1:1"),
	errRow(`(bind 1 2)`, "'bind' requires a symbol and a value expression: (bind variable_symbol expression)", "arity", "1:1"),
	errRow(`(bind x 1 2)`, "'bind' requires a symbol and a value expression: (bind variable_symbol expression)", "arity", "1:1"),
	errRow(`(set! x)`, "'set!' requires exactly two arguments: a symbol and a new value expression.", "arity", "1:1"),
	errRow(`(set! x 1 2)`, "'set!' requires exactly two arguments: a symbol and a new value expression.", "arity", "1:1"),
	errRow(`(set! "x" 1)`, "'set!' first argument must be a symbol, got string.", "type", "1:7"),
	errRow(`(set! true 1)`, "'set!' first argument must be a symbol, got bool.", "type", "1:7"),
	errRow(`(set! x 1)`, "Cannot 'set!' unbound symbol: x", "unbound", "1:7"),
}

// §7.8 lambda.
var lambdaRows = []specRow{
	okRow(`((lambda () 1))`, `1`),
	okRow(`(let ((adder (lambda (n) (lambda (x) (+ n x))))) ((adder 10) 5))`, `15`),
	okRow(`((lambda (a b) (list b a)) 1 2)`, `(2 1)`),
	okRow(`(lambda nil 1)`, `#<closure ()>`),
	errRow(`(lambda)`, "'lambda' requires a parameter list and at least one body expression.", "arity", "1:1"),
	errRow(`(lambda (x))`, "'lambda' requires a parameter list and at least one body expression.", "arity", "1:1"),
	errRow(`(lambda x 1)`, "Lambda parameter definition must be a list of symbols.", "type", "1:9"),
	errRow(`(lambda "x" 1)`, "Lambda parameter definition must be a list of symbols.", "type", "1:9"),
	errRow(`(lambda (1) 1)`, "Lambda parameters must be symbols, got int: 1", "type", "1:10"),
	errRow(`(lambda (x "y") 1)`, `Lambda parameters must be symbols, got string: "y"`, "type", "1:12"),
	errRow(`(lambda (x x) 1)`, "Duplicate lambda parameter: x", "value", "1:12"),
}

// §7.9 try.
const tryMsg = "try requires a final (catch VAR handler...) clause"

var tryRows = []specRow{
	okRow(`(try (error "boom") (catch e (get e "message")))`, `"boom"`),
	okRow(`(try (+ 1 "a") (catch e (get e "kind")))`, `"type"`),
	okRow(`(try 1 2 (catch e 0))`, `2`),
	okRow(`(try (error "x") (catch e e))`, `(dict "message" "x" "kind" "user" "position" "<eval>:1:6")`),
	okRow(`(try (nosuch) (catch e (get e "kind")))`, `"unbound"`),
	okRow(`(try ((lambda (x) x)) (catch e (get e "kind")))`, `"arity"`),
	okRow(`(try (json-parse "{") (catch e (get e "kind")))`, `"value"`),
	okRow(`(try (step "s" (error "x")) (catch e (list (get e "kind") (get e "message"))))`, `("step" "step 's' failed: x")`),
	okRow(`(try (error (list 1 "a")) (catch e (get e "message")))`, `"[1,\"a\"]"`),
	okRow(`(try (error "x") (catch e 1 2))`, `2`),
	okRow(`(progn (define e 5) (try (error "x") (catch e 1)) e)`, `5`),
	okRow(`(try (define z 4) (catch e 0)) z`, `4`),
	okRow(`(let ((r (try (error "a") (catch e (try (error "b") (catch e2 (list (get e "message") (get e2 "message")))))))) r)`, `("a" "b")`),
	errRow(`(try (error "a") (catch e (error "b")))`, "b", "user", "1:27"),
	errRow(`(try 1)`, tryMsg, "arity", "1:1"),
	errRow(`(try)`, tryMsg, "arity", "1:1"),
	errRow(`(try (catch e 1) 2)`, tryMsg, "arity", "1:6"),
	errRow(`(try 1 (catch e 1) (catch e 2))`, tryMsg, "arity", "1:8"),
	errRow(`(try 1 (catch 5 1))`, tryMsg, "arity", "1:1"),
}

// §7.10 loop.
var loopRows = []specRow{
	okRow(`(let ((x 0)) (loop 3 (set! x (+ x 1))))`, `3`),
	okRow(`(loop 0 1)`, `nil`),
	okRow(`(loop 0 (error "no"))`, `nil`),
	okRow(`(loop 2 (define k 9)) k`, `9`),
	okRow(`(let ((n 3) (c 0)) (loop n (progn (set! n 10) (set! c (+ c 1)))) c)`, `3`),
	errRow(`(loop 1 2 3)`, "Loop requires exactly 2 arguments: count_expression and body_expression. Got 3.", "arity", "1:1"),
	errRow(`(loop 1)`, "Loop requires exactly 2 arguments: count_expression and body_expression. Got 1.", "arity", "1:1"),
	errRow(`(loop "a" 1)`, "Loop count must evaluate to an integer, got string.", "type", "1:7"),
	errRow(`(loop true 1)`, "Loop count must evaluate to an integer, got bool.", "type", "1:7"),
	errRow(`(loop 2.0 1)`, "Loop count must evaluate to an integer, got float.", "type", "1:7"),
	errRow(`(loop -2 1)`, "Loop count must be non-negative, got -2.", "value", "1:7"),
	errRow(`(let ((i 0)) (loop 3 (progn (set! i (+ i 1)) (if (= i 2) (error "bad") i))))`, "Error during loop iteration 2/3: bad", "user", "1:58"),
	errRow(`(loop 2 (loop 3 (error "in")))`, "Error during loop iteration 1/2: Error during loop iteration 1/3: in", "user", "1:17"),
}

func TestSpecQuote(t *testing.T)  { runRows(t, evaluator.Limits{}, quoteRows) }
func TestSpecIf(t *testing.T)     { runRows(t, evaluator.Limits{}, ifRows) }
func TestSpecCond(t *testing.T)   { runRows(t, evaluator.Limits{}, condRows) }
func TestSpecAndOr(t *testing.T)  { runRows(t, evaluator.Limits{}, andOrRows) }
func TestSpecProgn(t *testing.T)  { runRows(t, evaluator.Limits{}, prognRows) }
func TestSpecLet(t *testing.T)    { runRows(t, evaluator.Limits{}, letRows) }
func TestSpecDefine(t *testing.T) { runRows(t, evaluator.Limits{}, defineRows) }
func TestSpecLambda(t *testing.T) { runRows(t, evaluator.Limits{}, lambdaRows) }
func TestSpecTry(t *testing.T)    { runRows(t, evaluator.Limits{}, tryRows) }
func TestSpecLoop(t *testing.T)   { runRows(t, evaluator.Limits{}, loopRows) }

// The director-evaluator-loop example of §7.12.
const delExample = `(director-evaluator-loop
  (max-iterations 3) (initial-director-input 0)
  (director (lambda (in i) (+ in 1)))
  (executor (lambda (plan i) (* plan 10)))
  (evaluator (lambda (res plan i) (> res 20)))
  (controller (lambda (done plan res i) (if done (list 'stop res) (list 'continue plan)))))`

// del builds a director-evaluator-loop from clause texts, filling in the
// example's clauses for those not given.
func delSrc(clauses ...string) string {
	def := map[string]string{
		"max-iterations":         "3",
		"initial-director-input": "0",
		"director":               "(lambda (in i) (+ in 1))",
		"executor":               "(lambda (plan i) (* plan 10))",
		"evaluator":              "(lambda (res plan i) (> res 20))",
		"controller":             "(lambda (done plan res i) (if done (list 'stop res) (list 'continue plan)))",
	}
	order := []string{"max-iterations", "initial-director-input", "director", "executor", "evaluator", "controller"}
	for i := 0; i+1 < len(clauses); i += 2 {
		def[clauses[i]] = clauses[i+1]
	}
	var b strings.Builder
	b.WriteString("(director-evaluator-loop")
	for _, k := range order {
		b.WriteString(" (" + k + " " + def[k] + ")")
	}
	b.WriteString(")")
	return b.String()
}

// §7.11 clause syntax.
var clauseRows = []specRow{
	okRow(`(director-evaluator-loop :max-iterations 3 :initial-director-input 0
  :director (lambda (in i) (+ in 1)) :executor (lambda (plan i) (* plan 10))
  :evaluator (lambda (res plan i) (> res 20))
  :controller (lambda (done plan res i) (if done (list 'stop res) (list 'continue plan))))`, `30`),
	okRow(`(director-evaluator-loop max-iterations 3 initial-director-input 0
  director (lambda (in i) (+ in 1)) executor (lambda (plan i) (* plan 10))
  evaluator (lambda (res plan i) (> res 20))
  controller (lambda (done plan res i) (if done (list 'stop res) (list 'continue plan))))`, `30`),
	errRow(`(director-evaluator-loop :max-iterations 3 :initial-director-input)`, "director-evaluator-loop: Uneven number of arguments. Expected key-value pairs.", "arity", "1:1"),
	errRow(`(director-evaluator-loop (max-iterations 1) x)`, "director-evaluator-loop: Each clause must be a list of (ClauseName Expression), got: x", "value", "1:45"),
	errRow(`(director-evaluator-loop (max-iterations))`, "director-evaluator-loop: Each clause must be a list of (ClauseName Expression), got: (max-iterations)", "value", "1:26"),
	errRow(`(director-evaluator-loop ("max-iterations" 1))`, `director-evaluator-loop: Each clause must be a list of (ClauseName Expression), got: ("max-iterations" 1)`, "value", "1:26"),
	errRow(`(director-evaluator-loop (max-iterations 1) (max-iterations 2))`, "director-evaluator-loop: Duplicate clause 'max-iterations' found.", "value", "1:45"),
	errRow(`(director-evaluator-loop :max-iterations 1 :max-iterations 2)`, "director-evaluator-loop: Duplicate clause 'max-iterations' found.", "value", "1:44"),
	errRow(`(director-evaluator-loop (max-iterations 1) (foo 1))`, "director-evaluator-loop: Unknown clause 'foo'", "value", "1:45"),
	errRow(`(iterative-loop (foo 1))`, "iterative-loop: Unknown clause 'foo'", "value", "1:17"),
	errRow(`(director-evaluator-loop (max-iterations 1))`, "director-evaluator-loop: Missing required clauses: controller, director, evaluator, executor, initial-director-input", "value", "1:1"),
	errRow(`(director-evaluator-loop)`, "director-evaluator-loop: Missing required clauses: controller, director, evaluator, executor, initial-director-input, max-iterations", "value", "1:1"),
	errRow(`(iterative-loop (max-iterations 1))`, "iterative-loop: Missing required clauses: controller, executor, initial-input, validator", "value", "1:1"),
	errRow(delSrc("max-iterations", `"one"`), `director-evaluator-loop: 'max-iterations' must evaluate to a non-negative integer, got "one" (type: string).`, "value", "1:42"),
	errRow(delSrc("max-iterations", `-1`), `director-evaluator-loop: 'max-iterations' must evaluate to a non-negative integer, got -1 (type: int).`, "value", "1:42"),
	errRow(delSrc("max-iterations", `true`), `director-evaluator-loop: 'max-iterations' must evaluate to a non-negative integer, got true (type: bool).`, "value", "1:42"),
	errRow(delSrc("director", `123`), "director-evaluator-loop: 'director' expression must evaluate to a callable S-expression function, got int: 123", "type", "1:82"),
	errRow(delSrc("director", `"nosuch"`), `director-evaluator-loop: 'director' expression must evaluate to a callable S-expression function, got string: "nosuch"`, "type", "1:82"),
	errRow(delSrc("controller", `(lambda (d p r i) "stop")`), `Controller must return a list of (action_symbol value), got: "stop"`, "value", "1:1"),
	errRow(delSrc("controller", `(lambda (d p r i) (list 'stop))`), `Controller must return a list of (action_symbol value), got: (stop)`, "value", "1:1"),
	errRow(delSrc("controller", `(lambda (d p r i) (list 1 2))`), `Controller must return a list of (action_symbol value), got: (1 2)`, "value", "1:1"),
	errRow(delSrc("controller", `(lambda (d p r i) (list 'stahp 1))`), `Controller decision action must be 'continue' or 'stop' symbol, got: 'stahp'`, "value", "1:1"),
	okRow(delSrc("controller", `(lambda (d p r i) (list "stop" 5))`), `5`),
	okRow(delSrc("controller", `(lambda (d p r i) (if (< i 2) (list "continue" p) (list 'stop (list p r i))))`), `(2 20 2)`),
	okRow(delSrc("max-iterations", "0", "director", `(lambda (in i) (error "no"))`), `nil`),
	okRow(delSrc("max-iterations", "2"), `20`),
	okRow(delSrc("controller", `(lambda (d p r i) (list 'continue p))`), `30`),
}

// §7.12 director-evaluator-loop.
var directorRows = []specRow{
	okRow(delExample, `30`),
	okRow(delSrc("director", `(lambda (in i) (get *loop-config* "max-iterations"))`, "controller", `(lambda (d p r i) (list 'stop p))`), `3`),
	// Parallel branches inherit the dynamic bindings (§6.8).
	okRow(delSrc("director", `(lambda (in i) (parallel-map (lambda (k) (get *loop-config* k)) (list "max-iterations" "initial-director-input")))`,
		"executor", `(lambda (p i) p)`, "evaluator", "list", "controller", `(lambda (d p r i) (list 'stop p))`), `(3 0)`),
	okRow(delSrc("initial-director-input", `"go"`, "director", `(lambda (in i) in)`, "executor", `(lambda (p i) p)`, "evaluator", "list", "controller", `(lambda (d p r i) (list 'stop *loop-config*))`), `(dict "max-iterations" 3 "initial-director-input" "go")`),
	okRow(`(define (cfg) *loop-config*)`+"\n"+delSrc("max-iterations", "1", "controller", `(lambda (d p r i) (list 'stop (cfg)))`), `(dict "max-iterations" 1 "initial-director-input" 0)`),
	okRow(delSrc("max-iterations", "1", "director", "list", "executor", "list", "evaluator", "list", "controller", `(lambda (f p r i) (list 'continue r))`), `((0 1) 1)`),
	okRow(delSrc("max-iterations", "1", "director", "'list", "executor", `"list"`, "evaluator", "'list", "controller", `(lambda (f p r i) (list 'continue r))`), `((0 1) 1)`),
	errRow(delSrc("director", `(lambda (in i) (error "boom"))`), "Error in 'director' phase (iteration 1): boom", "user", "1:97"),
	errRow(delSrc("evaluator", `(lambda (r p i) (if (= i 2) (error "ev") false))`), "Error in 'evaluator' phase (iteration 2): ev", "user", "1:188"),
	errRow(delSrc("executor", `(lambda (p) p)`), "Error in 'executor' phase (iteration 1): Arity mismatch: Closure expects 1 arguments, got 2", "arity", "1:1"),
	errRow(delSrc("executor", `(lambda (p i) (loop 1 (error "deep")))`), "Error in 'executor' phase (iteration 1): Error during loop iteration 1/1: deep", "user", "1:140"),
	errRow(delSrc("controller", `(lambda (d p r i) (list 'continue p))`)+"\n*loop-config*", "Unbound symbol: Name '*loop-config*' is not defined.", "unbound", "2:1"),
}

// §7.13 iterative-loop.
var iterativeRows = []specRow{
	okRow(`(iterative-loop (max-iterations 5) (initial-input 0) (test-command "true")
  (executor (lambda (c i) (+ c 1))) (validator (lambda (cmd i) cmd))
  (controller (lambda (e v c i) (if (< e 3) (list 'continue e) (list 'stop e)))))`, `3`),
	okRow(`(iterative-loop :max-iterations 3 :initial-input 0
  :command-generator (lambda (inp) (string-append "cmd" inp))
  :executor (lambda (cmd) (list 'ran cmd)) :validator (lambda (cmd res) (list 'ok cmd))
  :controller (lambda (inp cmd res val)
                (if (< inp 1) (list 'continue (+ inp 1)) (list 'stop (list inp cmd res val)))))`, `(1 "cmd1" (ran "cmd1") (ok "cmd1"))`),
	// test-command evaluating to a function selects generator mode.
	okRow(`(iterative-loop (max-iterations 2) (initial-input "in")
  (test-command (lambda (inp) (string-append "run " inp)))
  (executor (lambda (cmd) (string-upcase cmd))) (validator (lambda (cmd r) (list cmd r)))
  (controller (lambda (inp cmd r v) (list 'continue r))))`, `"RUN RUN IN"`),
	okRow(`(iterative-loop (max-iterations 1) (initial-input 'sym) (test-command "t")
  (executor (lambda (c i) c)) (validator (lambda (cmd i) cmd)) (controller (lambda (r v c i) (list 'continue r))))`, `sym`),
	okRow(`(iterative-loop (max-iterations 1) (initial-input 0) (test-command "t")
  (executor (lambda (c i) *loop-config*)) (validator (lambda (cmd i) (list cmd i))) (controller (lambda (r v c i) (list 'stop (list r v)))))`,
		`((dict "max-iterations" 1 "initial-input" 0) ("t" 1))`),
	okRow(`(iterative-loop (max-iterations 3) (initial-input 0) (test-command "t")
  (executor (lambda (c i) (+ c 1))) (validator (lambda (cmd i) cmd)) (controller (lambda (r v c i) (list 'continue r))))`, `3`),
	okRow(`(iterative-loop (max-iterations 0) (initial-input 0) (test-command "t")
  (executor (lambda (c i) (error "no"))) (validator (lambda (cmd i) cmd)) (controller (lambda (r v c i) (list 'continue r))))`, `nil`),
	errRow(`(iterative-loop (max-iterations 1) (initial-input 0) (test-command "t") (command-generator list)
  (executor list) (validator list) (controller list))`, "iterative-loop: give either 'test-command' or 'command-generator', not both", "value", "1:1"),
	errRow(`(iterative-loop (max-iterations 1) (initial-input 0)
  (executor list) (validator list) (controller list))`, "iterative-loop: give either 'test-command' or 'command-generator'", "value", "1:1"),
	errRow(`(iterative-loop (max-iterations 1) (initial-input 0) (test-command 123)
  (executor list) (validator list) (controller list))`, "iterative-loop: 'test-command' must evaluate to a string or a function, got int: 123", "type", "1:68"),
	errRow(`(iterative-loop (max-iterations 1) (initial-input 0) (test-command "t")
  (executor (lambda (c i) (error "boom"))) (validator list) (controller list))`, "Error during iterative-loop iteration 1: boom", "user", "2:27"),
	errRow(`(iterative-loop (max-iterations 1) (initial-input 0) (test-command "t")
  (executor list) (validator list) (controller 5))`, "iterative-loop: 'controller' expression must evaluate to a callable S-expression function, got int: 5", "type", "2:48"),
	errRow(`(iterative-loop (max-iterations "x") (initial-input 0) (test-command "t")
  (executor list) (validator list) (controller list))`, `iterative-loop: 'max-iterations' must evaluate to a non-negative integer, got "x" (type: string).`, "value", "1:33"),
}

func TestSpecLoopClauses(t *testing.T)   { runRows(t, evaluator.Limits{}, clauseRows) }
func TestSpecDirectorLoop(t *testing.T)  { runRows(t, evaluator.Limits{}, directorRows) }
func TestSpecIterativeLoop(t *testing.T) { runRows(t, evaluator.Limits{}, iterativeRows) }

// §7.14 defatom.
const allowedAttrs = "params, instructions, description, subtype, model, type, output_format, history_config, depends"

var defatomRows = []specRow{
	okRow(`(defatom greet2 (params name) (instructions "Hello {{name}}!"))`, `greet2`),
	okRow(`(defatom greet2 (params name) (instructions "Hello {{name}}!")) (greet2 (name "Bob"))`, `#<TaskResult COMPLETE "Hello Bob!">`),
	okRow(`(defatom greet2 (instructions "Hello {{name}}!")) (greet2 (name "Bob"))`, `#<TaskResult COMPLETE "Hello Bob!">`),
	okRow(`(defatom greet (instructions "Bye {{name}}!")) (greet (name "Bob"))`, `#<TaskResult COMPLETE "Bye Bob!">`),
	okRow(`(defatom user:generate-plan (instructions "plan {{goal}}"))`, `user:generate-plan`),
	okRow(`(defatom user:generate-plan (instructions "plan {{goal}}")) (user:generate-plan (goal "x"))`, `#<TaskResult COMPLETE "plan x">`),
	okRow(`(defatom t (instructions "a") (description "d") (subtype "sub") (model "m") (type "atomic") (depends other "another"))`, `t`),
	okRow(`(defatom t (instructions "{{p}}") (params (p optional string))) (t)`, `#<TaskResult COMPLETE "">`),
	okRow(`(defatom t (params (p (object (f string)))) (instructions "{{p}}")) (t (p (dict "f" "x")))`, `#<TaskResult COMPLETE "{\"f\":\"x\"}">`),
	okRow(`(defatom t (params (n int) (s str) (b boolean) (l array) (d object) (x number) (f float) (a any)) (instructions "{{n}}"))`, `t`),
	okRow(`(defatom t (instructions "a") (output_format ((type "json") (schema "DevelopmentPlan"))))`, `t`),
	okRow(`(defatom t (instructions "a") (output_format '((type "json"))))`, `t`),
	okRow(`(defatom t (instructions "a") (history_config ((use_session_history false) (history_turns_to_include 3))))`, `t`),
	okRow(`(defatom t (instructions "a") (history_config ((use_session_history nil))))`, `t`),
	okRow(`(list (defatom t (instructions "x")) (t))`, `(t #<TaskResult COMPLETE "x">)`),
	okRow(`(defatom t (instructions "x")) t`, `"t"`),
	errRow(`(defatom "x" (instructions "a"))`, "Task name must be a symbol, got string: x", "type", "1:10"),
	errRow(`(defatom a..b (instructions "a"))`, "Invalid task name 'a..b': must match ^[a-z0-9]+([-_:/.][a-z0-9]+)*$", "value", "1:10"),
	errRow(`(defatom t x (instructions "a"))`, "Attribute must be a list starting with a keyword: x", "value", "1:12"),
	errRow(`(defatom t ("instructions" "a"))`, `Attribute must be a list starting with a keyword: ("instructions" "a")`, "value", "1:12"),
	errRow(`(defatom t (instructions "a") (instructions "b"))`, "Duplicate attribute: instructions", "value", "1:31"),
	errRow(`(defatom t (foo 1) (instructions "a"))`, "Unknown attribute name: foo. Allowed attributes: "+allowedAttrs, "value", "1:12"),
	errRow(`(defatom t (description "d"))`, "Missing required 'instructions' attribute for task 't'", "value", "1:1"),
	errRow(`(defatom t)`, "Missing required 'instructions' attribute for task 't'", "value", "1:1"),
	errRow(`(defatom t (instructions (list "x")))`, `'defatom' requires an (instructions "string") definition, got: (list "x") for task 't'`, "value", "1:12"),
	errRow(`(defatom t (instructions x))`, `'defatom' requires an (instructions "string") definition, got: x for task 't'`, "value", "1:12"),
	errRow(`(defatom t (instructions "a") (subtype (x)))`, "Value for optional argument 'subtype' must be a string, got list: (x)", "type", "1:31"),
	errRow(`(defatom t (instructions "a") (description 5))`, "Value for optional argument 'description' must be a string, got int: 5", "type", "1:31"),
	errRow(`(defatom t (instructions "a") (type "composite"))`, `type must be "atomic", got "composite"`, "value", "1:31"),
	errRow(`(defatom t (params (p foo)) (instructions "{{p}}"))`, "Unknown parameter type 'foo' for parameter 'p' in task 't'", "value", "1:23"),
	errRow(`(defatom t (params 3) (instructions "a"))`, "Invalid parameter definition format in (params ...) for task 't'. Expected symbol or (symbol type?), got: 3", "value", "1:20"),
	errRow(`(defatom t (params (p int extra)) (instructions "a"))`, "Invalid parameter definition format in (params ...) for task 't'. Expected symbol or (symbol type?), got: (p int extra)", "value", "1:20"),
}

// §7.15 atomic-task, direct-tool.
var atomicTaskRows = []specRow{
	okRow(`(atomic-task greet (name "Bob"))`, `#<TaskResult COMPLETE "Hello Bob!">`),
	okRow(`(atomic-task "greet" (name "Bob"))`, `#<TaskResult COMPLETE "Hello Bob!">`),
	okRow(`(atomic-task greet :name "Bob")`, `#<TaskResult COMPLETE "Hello Bob!">`),
	okRow(`(let ((n "gre")) (atomic-task (string-append n "et") (name "Bob")))`, `#<TaskResult COMPLETE "Hello Bob!">`),
	okRow(`(let ((greet "nosuch")) (atomic-task greet (name "Bob")))`, `#<TaskResult COMPLETE "Hello Bob!">`),
	okRow(`(atomic-task nosuch)`, `#<TaskResult FAILED "Template not found: nosuch">`),
	okRow(`(atomic-task nosuch (x 1))`, `#<TaskResult FAILED "Template not found: nosuch">`),
	okRow(`(get (get (get-field (atomic-task nosuch) "notes") "error") "reason")`, `"template_not_found"`),
	okRow(`(direct-tool echo-tool (a 1))`, `#<TaskResult COMPLETE "{\"a\":1}">`),
	okRow(`(direct-tool "echo-tool" (files "x"))`, `#<TaskResult COMPLETE "{\"files\":\"x\"}">`),
	okRow(`(direct-tool nosuch)`, `#<TaskResult FAILED "Tool 'nosuch' not found in registered executors.">`),
	okRow(`(get (get (get-field (direct-tool nosuch) "notes") "error") "reason")`, `"template_not_found"`),
	okRow(`(direct-tool greet (name "x"))`, `#<TaskResult FAILED "Tool 'greet' not found in registered executors.">`),
	errRow(`(atomic-task)`, "'atomic-task' requires a name: (atomic-task NAME (param expr)...)", "arity", "1:1"),
	errRow(`(atomic-task 5)`, "'atomic-task' name must evaluate to a string, got int", "type", "1:14"),
	errRow(`(atomic-task greet "Bob")`, `Invalid argument format for task 'greet'. Expected (key_symbol value_expression), got: "Bob"`, "value", "1:20"),
}

// §11.1 call syntax, as far as the evaluator checks it.
var callSyntaxRows = []specRow{
	okRow(`(greet :name "Bob")`, `#<TaskResult COMPLETE "Hello Bob!">`),
	okRow(`(pair (a "x") (b 2))`, `#<TaskResult COMPLETE "x/2">`),
	okRow(`(inferred (y 2) (x 1))`, `#<TaskResult COMPLETE "1+2">`),
	okRow(`(maybe)`, `#<TaskResult COMPLETE "[]">`),
	okRow(`(greet (name 'Bob))`, `#<TaskResult COMPLETE "Hello Bob!">`),
	okRow(`(greet (name (list 1 "a")))`, `#<TaskResult COMPLETE "Hello [1,\"a\"]!">`),
	okRow(`(greet (name "a") (files (list "a.txt" "b.txt")))`, `#<TaskResult COMPLETE "Hello a!">`),
	okRow(`(greet)`, `#<TaskResult FAILED "Missing parameter(s) or access error for substitution: name">`),
	errRow(`(greet "Bob")`, `Invalid argument format for task 'greet'. Expected (key_symbol value_expression), got: "Bob"`, "value", "1:8"),
	errRow(`(greet 'x)`, `Invalid argument format for task 'greet'. Expected (key_symbol value_expression), got: (quote x)`, "value", "1:8"),
	errRow(`(greet :name)`, `Invalid argument format for task 'greet'. Expected (key_symbol value_expression), got: :name`, "value", "1:8"),
	errRow(`(greet (name "a") (name "b"))`, "Duplicate argument 'name' for task 'greet'", "value", "1:19"),
	errRow(`(greet (name "a") :x 1)`, "Task 'greet': do not mix (param expr) and :param expr arguments", "value", "1:19"),
	errRow(`(greet (name "a") (files 3))`, "'files' argument for task 'greet' must evaluate to a list of strings, got int: 3", "value", "1:19"),
	errRow(`(greet (name (+ 1 "a")))`, "'+' argument 2 must be a number, got string.", "type", "1:19"),
	errRow(`(echo-tool "x")`, `Invalid argument format for task 'echo-tool'. Expected (key_symbol value_expression), got: "x"`, "value", "1:12"),
}

func TestSpecDefatom(t *testing.T)    { runRows(t, evaluator.Limits{}, defatomRows) }
func TestSpecAtomicTask(t *testing.T) { runRows(t, evaluator.Limits{}, atomicTaskRows) }
func TestSpecCallSyntax(t *testing.T) { runRows(t, evaluator.Limits{}, callSyntaxRows) }

// defatom registers through Tasks.Define with the defaults of §7.14.
func TestDefatomRegisters(t *testing.T) {
	h := newSpecHarness(t, evaluator.Limits{})
	mustEval(t, h, `(defatom plan (params (goal string) (n optional int) (p (object (f string))) q)
  (instructions "Plan {{goal}} {{n}} {{p}} {{q}}")
  (depends other "another")
  (output_format ((type "json") (schema "DevelopmentPlan")))
  (history_config ((use_session_history false) (history_turns_to_include 3))))
(defatom bare (instructions "{{b}} and {{a | default(\"x\")}}") (subtype "sub") (model "m") (description "D"))`)
	tm, ok := h.tasks.Lookup("plan")
	if !ok {
		t.Fatal("plan not registered")
	}
	type in struct {
		Name, Type string
		Required   bool
	}
	var ins []in
	for _, i := range tm.Inputs {
		ins = append(ins, in{i.Name, i.Type, i.Required})
	}
	if diff := cmp.Diff([]in{{"goal", "string", true}, {"n", "int", false}, {"p", "dict", true}, {"q", "any", true}}, ins); diff != "" {
		t.Errorf("inputs (-want +got):\n%s", diff)
	}
	if !tm.InputsDeclared || tm.Description != "Dynamically defined task: plan" || tm.Subtype != "standard" || tm.Type != "atomic" {
		t.Errorf("defaults: declared=%v description=%q subtype=%q type=%q", tm.InputsDeclared, tm.Description, tm.Subtype, tm.Type)
	}
	if diff := cmp.Diff([]string{"other", "another"}, tm.Depends); diff != "" {
		t.Errorf("depends (-want +got):\n%s", diff)
	}
	if tm.OutputFormat == nil || tm.OutputFormat.Type != "json" || tm.OutputFormat.Schema != "DevelopmentPlan" {
		t.Errorf("output format %+v", tm.OutputFormat)
	}
	if h := tm.History; h.UseSessionHistory == nil || *h.UseSessionHistory || h.HistoryTurnsToInclude == nil || *h.HistoryTurnsToInclude != 3 {
		t.Errorf("history %+v", tm.History)
	}
	if tm.Scope.String() != "defatom" || tm.Line != 1 || tm.Col != 1 || tm.Path != "<eval>" {
		t.Errorf("provenance %s %s:%d:%d", tm.Scope, tm.Path, tm.Line, tm.Col)
	}
	bare, _ := h.tasks.Lookup("bare")
	if bare.InputsDeclared || bare.Subtype != "sub" || bare.Model != "m" || bare.Description != "D" {
		t.Errorf("bare: %+v", bare)
	}
	var names []string
	for _, i := range bare.Inputs {
		names = append(names, i.Name)
	}
	if diff := cmp.Diff([]string{"b", "a"}, names); diff != "" {
		t.Errorf("inferred inputs (-want +got):\n%s", diff)
	}
	if _, ok := h.tasks.Lookup("atomic:sub"); !ok {
		t.Errorf("atomic:sub does not resolve")
	}
}

// A task call hands the evaluated arguments to the task system.
func TestTaskCallArguments(t *testing.T) {
	h := newSpecHarness(t, evaluator.Limits{})
	mustEval(t, h, `(with-context "ctx.txt" (greet (name (+ 1 2)) (files "a.txt")))`)
	c := h.tasks.last()
	if c.Name != "greet" || c.Template.Name != "greet" || !c.FilesGiven || len(c.Files) != 1 || c.Files[0] != "a.txt" {
		t.Errorf("call %+v", c)
	}
	if diff := cmp.Diff([]evaluator.NamedValue{{Name: "name", Value: value.Int(3)}}, c.Named); diff != "" {
		t.Errorf("named (-want +got):\n%s", diff)
	}
	if len(c.Ambient) != 1 || c.Ambient[0] != value.String("ctx.txt") {
		t.Errorf("ambient %v", c.Ambient)
	}
	if lineCol(c.Pos) != "1:25" {
		t.Errorf("pos %s", lineCol(c.Pos))
	}
	mustEval(t, h, `(map greet (list "x"))`)
	if c := h.tasks.last(); len(c.Positional) != 1 || c.Positional[0] != value.String("x") || len(c.Named) != 0 {
		t.Errorf("positional call %+v", c)
	}
}

// §7.17 step.
var stepRows = []specRow{
	okRow(`(step "s" 5)`, `5`),
	okRow(`(step 's 5)`, `5`),
	okRow(`(step (string-append "a" "b") (+ 1 2))`, `3`),
	okRow(`(progn (step "s" (define z 3)) z)`, `3`),
	okRow(`(step "outer" (step "inner" 7))`, `7`),
	okRow(`(step "s" (greet (name "x")))`, `#<TaskResult COMPLETE "Hello x!">`),
	errRow(`(step 1 2)`, "step name must be a string, got int", "type", "1:7"),
	errRow(`(step "s")`, "'step' requires a name and an expression: (step NAME EXPR [:on-error POLICY])", "arity", "1:1"),
	errRow(`(step "s" (error "boom"))`, "step 's' failed: boom", "step", "1:1"),
	errRow(`(step "s" (error "boom") :on-error fail)`, "step 's' failed: boom", "step", "1:1"),
	errRow(`(step "s" (error "line one\nline two"))`, "step 's' failed: line one", "step", "1:1"),
	errRow(`(step "s" (atomic-task nosuch))`, "step 's' failed: Template not found: nosuch", "step", "1:1"),
	errRow(`(step "s" (fail-tool (a 1)))`, "step 's' failed: tool broke", "step", "1:1"),
	errRow(`(step "s" (greet))`, "step 's' failed: Missing parameter(s) or access error for substitution: name", "step", "1:1"),
	errRow(`(step "outer" (step "inner" (error "x")))`, "step 'outer' failed: step 'inner' failed: x", "step", "1:1"),
	okRow(`(step "s" (error "boom") :on-error skip-optional)`, `null`),
	okRow(`(step "s" (atomic-task nosuch) :on-error skip_optional)`, `null`),
	okRow(`(let ((n 0)) (step "s" (progn (set! n (+ n 1)) (if (< n 2) (error "x") n)) :on-error retry-once))`, `2`),
	okRow(`(let ((n 0)) (step "s" (progn (set! n (+ n 1)) (if (< n 2) (error "x") n)) :on-error retry_once))`, `2`),
	okRow(`(let ((n 0)) (step "s" (progn (set! n (+ n 1)) (if (< n 3) (error "x") n)) :on-error retry 2))`, `3`),
	okRow(`(let ((n 0)) (step "s" (progn (set! n (+ n 1)) (if (< n 3) (error "x") n)) :on-error (retry 2)))`, `3`),
	okRow(`(let ((n 0)) (try (step "s" (progn (set! n (+ n 1)) (error "x")) :on-error retry 2) (catch e n)))`, `3`),
	okRow(`(let ((n 0)) (try (step "s" (progn (set! n (+ n 1)) (error "x"))) (catch e n)))`, `1`),
	errRow(`(let ((n 0)) (step "s" (progn (set! n (+ n 1)) (if (< n 3) (error "x") n)) :on-error retry-once))`, "step 's' failed: x", "step", "1:14"),
	errRow(`(step "s" 1 :on-error foo)`, "step: unknown :on-error policy 'foo' (expected fail, skip-optional, retry-once or retry N)", "value", "1:23"),
	errRow(`(step "s" 1 :on-error retry 0)`, "step: unknown :on-error policy 'retry 0' (expected fail, skip-optional, retry-once or retry N)", "value", "1:29"),
	errRow(`(step "s" 1 :on-error "fail")`, `step: unknown :on-error policy '"fail"' (expected fail, skip-optional, retry-once or retry N)`, "value", "1:23"),
	errRow(`(step "s" 1 :oops fail)`, "'step' requires a name and an expression: (step NAME EXPR [:on-error POLICY])", "arity", "1:1"),
}

// §7.18 with-context.
var withContextRows = []specRow{
	okRow(`(with-context "a.txt" 1)`, `1`),
	okRow(`(with-context (list "a.txt" "b.txt") 1 2)`, `2`),
	okRow(`(with-context (dict "id" "m1" "content" "c") 1)`, `1`),
	okRow(`(with-context (dict "summary" "s" "matches" (list (dict "id" "m1"))) 1)`, `1`),
	okRow(`(with-context nil 1)`, `1`),
	errRow(`(with-context 5 1)`, "with-context: expected a get-context result, a match, a path or a list of them, got int", "type", "1:15"),
	errRow(`(with-context (list "a" 5) 1)`, "with-context: expected a get-context result, a match, a path or a list of them, got list", "type", "1:15"),
	errRow(`(with-context (dict "x" 1) 1)`, "with-context: expected a get-context result, a match, a path or a list of them, got dict", "type", "1:15"),
	errRow(`(with-context "a")`, "'with-context' requires a context and at least one body expression: (with-context CTX body...)", "arity", "1:1"),
}

func TestSpecStep(t *testing.T)        { runRows(t, evaluator.Limits{}, stepRows) }
func TestSpecWithContext(t *testing.T) { runRows(t, evaluator.Limits{}, withContextRows) }

// skip-optional prints a warning (§7.17).
func TestStepSkipWarning(t *testing.T) {
	h := newSpecHarness(t, evaluator.Limits{})
	mustEval(t, h, `(step "lint" (fail-tool (a 1)) :on-error skip-optional)`)
	mustEval(t, h, `(step 'plan (error "no\nmore") :on-error skip-optional)`)
	want := "warning: optional step 'lint' skipped: tool broke\nwarning: optional step 'plan' skipped: no\n"
	if diff := cmp.Diff(want, h.stderr.String()); diff != "" {
		t.Errorf("stderr (-want +got):\n%s", diff)
	}
}

// Ambient context accumulates over nested with-context forms, without
// duplicates, for the dynamic extent of the body only (§7.18, §13.3).
func TestWithContextAmbient(t *testing.T) {
	h := newSpecHarness(t, evaluator.Limits{})
	mustEval(t, h, `(define (call-it) (greet (name "x")))
(with-context "a.txt" (with-context (list "b.txt" "a.txt" (dict "id" "m1")) (call-it)))`)
	var got []string
	for _, v := range h.tasks.last().Ambient {
		got = append(got, v.String())
	}
	if diff := cmp.Diff([]string{`"a.txt"`, `"b.txt"`, `(dict "id" "m1")`}, got); diff != "" {
		t.Errorf("ambient (-want +got):\n%s", diff)
	}
	mustEval(t, h, `(progn (with-context "c.txt" 1) (greet (name "y")))`)
	if a := h.tasks.last().Ambient; len(a) != 0 {
		t.Errorf("ambient after the with-context form: %v", a)
	}
	mustEval(t, h, `(with-context "p.txt" (parallel (greet (name "y"))))`)
	if a := h.tasks.last().Ambient; len(a) != 1 {
		t.Errorf("ambient in a parallel branch: %v", a)
	}
}
