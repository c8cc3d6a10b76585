package evaluator_test

import (
	"context"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/evalrun/evalrun/evaluator"
	"github.com/evalrun/evalrun/sexp"
	"github.com/evalrun/evalrun/templates"
	"github.com/evalrun/evalrun/value"
)

// checkTasks is a task system that knows the template "greet" (alias
// "hello") and the tool "read_file".
type checkTasks struct{}

func (checkTasks) Lookup(name string) (*templates.Template, bool) {
	if name == "greet" || name == "hello" {
		return &templates.Template{Name: "greet"}, true
	}
	return nil, false
}
func (checkTasks) HasTool(name string) bool         { return name == "read_file" }
func (checkTasks) Define(*templates.Template) error { return nil }
func (checkTasks) Match(string) value.List          { return nil }
func (checkTasks) Execute(context.Context, *evaluator.TaskCall) *value.TaskResult {
	return &value.TaskResult{Status: value.StatusComplete}
}
func (checkTasks) CallTool(context.Context, string, *value.Dict) *value.TaskResult {
	return &value.TaskResult{Status: value.StatusComplete}
}

// checkLines runs Check on text and returns the diagnostics as
// "LINE:COL: SEVERITY: MSG".
func checkLines(t *testing.T, text string, opts evaluator.CheckOptions) []string {
	t.Helper()
	forms, err := sexp.Parse(sexp.NewSource("t.sexp", text))
	if err != nil {
		t.Fatalf("parse %q: %v", text, err)
	}
	var out []string
	for _, d := range evaluator.Check(forms, opts) {
		p := d.Pos.Position()
		out = append(out, strings.TrimPrefix(d.String(), p.Filename+":"))
	}
	return out
}

// TestCheckClean lists programs that Check must accept without a word.
func TestCheckClean(t *testing.T) {
	for _, text := range []string{
		// SPEC examples.
		`(map string-upcase (list "a" "b"))`,
		`(let ((y 10)) (let ((f (lambda () y))) (bind y 20) (f)))`,
		`(progn (define (fact n) (if (< n 2) 1 (* n (fact (- n 1))))) (fact 5))`,
		`'(1 "s" true nil x)`,
		`(let ((x 10)) 'x)`,
		`(cond ((< 5 3) "a") ((> 5 3) "b") (else "c"))`,
		`(let* ((a 1) (b (+ a 1))) b)`,
		`(progn (define x 1) (let ((y 2)) (set! x 5)) x)`,
		`(try (error "boom") (catch e (get e "message")))`,
		`(let ((x 0)) (loop 3 (set! x (+ x 1))))`,
		`("list" 1 2)`,
		`((lambda (x) (+ x 1)) 2)`,
		`(let () 5)`,
		`(let nil 5)`,
		// Closures may use globals defined later; define binds for the
		// rest of its body.
		"(define (f) (g y))\n(define (g v) v)\n(define y 1)\n(f)",
		`(let () (define (a) (b)) (define (b) 1) (a))`,
		`(let* ((f (lambda (n) (if (< n 1) 0 (f (- n 1)))))) (f 3))`,
		`(lambda () (define z 1) (+ z 1))`,
		// Defines inside forms evaluated in the current frame.
		`(progn (if true (define a 1) (define a 2)) a)`,
		`(progn (list (define a 1)) a)`,
		`(progn (step "s" (define a 1)) a)`,
		// null, keywords, primitive names as values.
		`(list null :key (reduce + 0 (list 1)))`,
		// Parallel branches have frames of their own.
		`(parallel (progn (define a 1) a) (let ((b 2)) b))`,
		// *loop-config* inside phases (and any closure body).
		`(director-evaluator-loop (max-iterations 3) (initial-director-input 0)
		   (director (lambda (in i) (get *loop-config* "max-iterations")))
		   (executor (lambda (p i) p)) (evaluator (lambda (r p i) r))
		   (controller (lambda (f p r i) (list 'stop r))))`,
		`(iterative-loop :max-iterations 3 :initial-input 0
		   :command-generator (lambda (inp) (string-append "cmd" inp))
		   :executor (lambda (cmd) (list 'ran cmd)) :validator (lambda (cmd res) (list 'ok cmd))
		   :controller (lambda (inp cmd res val) (list 'stop inp)))`,
		// Step policies.
		`(step "a" 1 :on-error retry 2)`,
		`(step "a" 1 :on-error (retry 2))`,
		`(step 'a 1 :on-error retry-once)`,
		`(step "a" 1 :on-error skip_optional)`,
		`(step "a" 1 :on-error fail)`,
		// defatom templates earlier in the file, and later ones in closures.
		"(defatom greet2 (params name) (instructions \"Hello {{name}}!\"))\n(greet2 (name \"Bob\"))",
		"(define (later) (farewell :name \"x\"))\n(defatom farewell (instructions \"Bye {{name}}\"))",
		// atomic-task and direct-tool take names as written.
		`(atomic-task whatever (x 1))`,
		`(direct-tool (string-append "a" "b") :p 1)`,
		`(with-context "README.md" (list 1))`,
		`(when true 1)`,
		`(unless false 1 2)`,
		`(and) (or) (progn) (begin 1)`,
	} {
		if got := checkLines(t, text, evaluator.CheckOptions{}); len(got) > 0 {
			t.Errorf("Check(%q) = %q, want nothing", text, got)
		}
	}
}

func TestCheckDiagnostics(t *testing.T) {
	tasks := evaluator.CheckOptions{Tasks: checkTasks{}}
	for _, tc := range []struct {
		text string
		opts evaluator.CheckOptions
		want []string
	}{
		// Unbound variables and operators.
		{text: `(+ x 1)`, want: []string{"1:4: error: Unbound symbol: Name 'x' is not defined."}},
		{text: `(frob 1)`, want: []string{"1:2: error: Unbound symbol or unrecognized operator: frob"}},
		{text: `(define f if)`, want: []string{"1:11: error: Unbound symbol: Name 'if' is not defined."}},
		{text: `(let ((a 1) (b a)) b)`, want: []string{"1:16: error: Unbound symbol: Name 'a' is not defined."}},
		{text: "(f)\n(define (f) 1)", want: []string{"1:2: error: Unbound symbol or unrecognized operator: f"}},
		{text: "(+ y 1)\n(define y 1)", want: []string{"1:4: error: Unbound symbol: Name 'y' is not defined."}},
		{text: `(lambda () (+ nowhere 1))`, want: []string{"1:15: error: Unbound symbol: Name 'nowhere' is not defined."}},
		{text: `(let ((f (lambda (n) (f n)))) (f 1))`, want: []string{"1:23: error: Unbound symbol or unrecognized operator: f"}},
		{text: `(let* ((g (lambda () h)) (h 1)) (g))`, opts: evaluator.CheckOptions{}},
		{text: `(let* ((a b) (b 1)) a)`, want: []string{"1:11: error: Unbound symbol: Name 'b' is not defined."}},
		{text: `(progn (let ((a 1)) a) a)`, want: []string{"1:24: error: Unbound symbol: Name 'a' is not defined."}},
		{text: `(progn (parallel (define a 1)) a)`, want: []string{"1:32: error: Unbound symbol: Name 'a' is not defined."}},
		{text: `(try 1 (catch e e)) e`, want: []string{"1:21: error: Unbound symbol: Name 'e' is not defined."}},
		{text: `*loop-config*`, want: []string{"1:1: error: Unbound symbol: Name '*loop-config*' is not defined."}},
		{text: `(set! x 1)`, want: []string{"1:7: error: Cannot 'set!' unbound symbol: x"}},
		{text: `(lambda () (set! *loop-config* 1))`, want: []string{"1:18: error: Cannot 'set!' unbound symbol: *loop-config*"}},
		{text: `("nope" 1)`, want: []string{"1:1: error: Operator 'nope' is not a callable primitive, task, or tool."}},
		{text: `(1 2)`, want: []string{"1:2: error: Operator in list form must be a symbol or another list, got int: 1"}},
		// --set names.
		{text: `(+ n 1)`, opts: evaluator.CheckOptions{Globals: []string{"n"}}},
		// Templates and tools of the task system.
		{text: `(list greet hello read_file (greet (name "x")) (hello :name 1) (read_file (path "a")))`, opts: tasks},
		{text: `("greet" (name 1))`, opts: tasks},
		{text: `(greet "Bob")`, opts: tasks, want: []string{`1:8: error: Invalid argument format for task 'greet'. Expected (key_symbol value_expression), got: "Bob"`}},
		{text: `(greet (a 1) :b 2)`, opts: tasks, want: []string{"1:14: error: Task 'greet': do not mix (param expr) and :param expr arguments"}},
		{text: `(greet (a 1) (a 2))`, opts: tasks, want: []string{"1:14: error: Duplicate argument 'a' for task 'greet'"}},
		{text: `(greet (a undefined))`, opts: tasks, want: []string{"1:11: error: Unbound symbol: Name 'undefined' is not defined."}},
		{text: `(greet (a 1))`, want: []string{"1:2: error: Unbound symbol or unrecognized operator: greet"}},
		// Special-form shapes.
		{text: `(quote 1 2)`, want: []string{"1:1: error: 'quote' requires exactly one argument: (quote expression)"}},
		{text: `(if 1 2)`, want: []string{"1:1: error: 'if' requires 3 arguments: (if condition then_branch else_branch)"}},
		{text: `(when 1)`, want: []string{"1:1: error: 'when' requires a condition and at least one body expression: (when condition body...)"}},
		{text: `(cond x)`, want: []string{"1:7: error: Invalid 'cond' clause: expected (test body...), got x"}},
		{text: `(cond (else 1) (true 2))`, want: []string{"1:7: error: 'else' must be the last cond clause"}},
		{text: `(let x 1)`, want: []string{"1:1: error: 'let' requires a bindings list and at least one body expression: (let ((var expr)...) body...)"}},
		{text: `(let* ((a 1)))`, want: []string{"1:1: error: 'let*' requires a bindings list and at least one body expression: (let ((var expr)...) body...)"}},
		{text: `(let ((x)) 1)`, want: []string{"1:7: error: Invalid 'let' binding format: expected (symbol expression), got (x)"}},
		{text: `(let ((:a 1)) 1)`, want: []string{"1:8: error: cannot bind keyword ':a'"}},
		{text: `(define :a 1)`, want: []string{"1:9: error: cannot bind keyword ':a'"}},
		{text: `(define true 1)`, want: []string{"1:9: error: cannot bind 'true'"}},
		{text: `(define 1 2)`, want: []string{"1:9: error: 'define' first argument must be a symbol, got int."}},
		{text: `(define x)`, want: []string{"1:1: error: 'define' requires a symbol and a value expression: (define name expression) or (define (name params...) body...)"}},
		{text: `(define (f x))`, want: []string{"1:1: error: 'define' requires a body for the function: (define (name params...) body...)"}},
		{text: `(bind x)`, want: []string{"1:1: error: 'bind' requires a symbol and a value expression: (bind variable_symbol expression)"}},
		{text: `(set! x)`, want: []string{"1:1: error: 'set!' requires exactly two arguments: a symbol and a new value expression."}},
		{text: `(set! "x" 1)`, want: []string{"1:7: error: 'set!' first argument must be a symbol, got string."}},
		{text: `(lambda (x))`, want: []string{"1:1: error: 'lambda' requires a parameter list and at least one body expression."}},
		{text: `(lambda x 1)`, want: []string{"1:9: error: Lambda parameter definition must be a list of symbols."}},
		{text: `(lambda (1) 1)`, want: []string{"1:10: error: Lambda parameters must be symbols, got int: 1"}},
		{text: `(lambda (x x) x)`, want: []string{"1:12: error: Duplicate lambda parameter: x"}},
		{text: `(try 1)`, want: []string{"1:1: error: try requires a final (catch VAR handler...) clause"}},
		{text: `(try (catch e 1) 2)`, want: []string{"1:1: error: try requires a final (catch VAR handler...) clause", "1:6: error: try requires a final (catch VAR handler...) clause"}},
		{text: `(try 1 (catch e))`, want: []string{"1:1: error: try requires a final (catch VAR handler...) clause"}},
		{text: `(loop 1 2 3)`, want: []string{"1:1: error: Loop requires exactly 2 arguments: count_expression and body_expression. Got 3."}},
		{text: `(loop "3" 1)`, want: []string{"1:7: error: Loop count must evaluate to an integer, got string."}},
		{text: `(loop -2 1)`, want: []string{"1:7: error: Loop count must be non-negative, got -2."}},
		{text: `(director-evaluator-loop (max-iterations 1))`, want: []string{"1:1: error: director-evaluator-loop: Missing required clauses: controller, director, evaluator, executor, initial-director-input"}},
		{text: `(iterative-loop (max-iterations 1) (initial-input 0) (executor +) (validator +) (controller +) (foo 1))`, want: []string{"1:96: error: iterative-loop: Unknown clause 'foo'"}},
		{text: `(iterative-loop :max-iterations 1 :initial-input 0 :executor)`, want: []string{"1:1: error: iterative-loop: Uneven number of arguments. Expected key-value pairs."}},
		{text: `(iterative-loop (max-iterations 1) (initial-input 0) (executor +) (validator +) (controller +))`, want: []string{"1:1: error: iterative-loop: give either 'test-command' or 'command-generator'"}},
		{text: `(iterative-loop (max-iterations "one") (initial-input 0) (test-command "t") (executor 123) (validator +) (controller +))`, want: []string{
			`1:33: error: iterative-loop: 'max-iterations' must evaluate to a non-negative integer, got "one" (type: string).`,
			"1:87: error: iterative-loop: 'executor' expression must evaluate to a callable S-expression function, got int: 123"}},
		{text: `(director-evaluator-loop (max-iterations 1) (initial-director-input 0) (director (lambda (a b) nope)) (executor +) (evaluator +) (controller +))`, want: []string{"1:96: error: Unbound symbol: Name 'nope' is not defined."}},
		{text: `(step "a")`, want: []string{"1:1: error: 'step' requires a name and an expression: (step NAME EXPR [:on-error POLICY])"}},
		{text: `(step 1 2)`, want: []string{"1:7: error: step name must be a string, got int"}},
		{text: `(step "a" 1 :on-error)`, want: []string{"1:1: error: 'step' requires a name and an expression: (step NAME EXPR [:on-error POLICY])"}},
		{text: `(step "a" 1 :on-error sometimes)`, want: []string{"1:23: error: step: unknown :on-error policy 'sometimes' (expected fail, skip-optional, retry-once or retry N)"}},
		{text: `(step "a" 1 :on-error retry 0)`, want: []string{"1:29: error: step: unknown :on-error policy 'retry 0' (expected fail, skip-optional, retry-once or retry N)"}},
		{text: `(step "a" 1 :on-error skip 2)`, want: []string{"1:23: error: step: unknown :on-error policy 'skip 2' (expected fail, skip-optional, retry-once or retry N)"}},
		{text: `(with-context 1 2)`, want: []string{"1:15: error: with-context: expected a get-context result, a match, a path or a list of them, got int"}},
		{text: `(with-context "x")`, want: []string{"1:1: error: 'with-context' requires a context and at least one body expression: (with-context CTX body...)"}},
		{text: `(atomic-task)`, want: []string{"1:1: error: 'atomic-task' requires a name: (atomic-task NAME (param expr)...)"}},
		{text: `(atomic-task t "x")`, want: []string{`1:16: error: Invalid argument format for task 't'. Expected (key_symbol value_expression), got: "x"`}},
		// defatom shapes, from the evaluator's own parser.
		{text: `(defatom "x" (instructions "i"))`, want: []string{"1:10: error: Task name must be a symbol, got string: x"}},
		{text: `(defatom a..b (instructions "i"))`, want: []string{"1:10: error: Invalid task name 'a..b': must match ^[a-z0-9]+([-_:/.][a-z0-9]+)*$"}},
		{text: `(defatom t (foo 1) (instructions "i"))`, want: []string{"1:12: error: Unknown attribute name: foo. Allowed attributes: params, instructions, description, subtype, model, type, output_format, history_config, depends"}},
		{text: `(defatom t (params x))`, want: []string{"1:1: error: Missing required 'instructions' attribute for task 't'"}},
		{text: `(defatom t (params (p foo)) (instructions "i"))`, want: []string{"1:23: error: Unknown parameter type 'foo' for parameter 'p' in task 't'"}},
		// Primitive argument counts.
		{text: `(not 1 2)`, want: []string{"1:1: error: 'not' requires exactly one argument."}},
		{text: `(get-field 1 2 3)`, want: []string{"1:1: error: get-field: Expected 2 arguments, got 3"}},
		{text: `(substring)`, want: []string{"1:1: error: 'substring' expects 2 to 3 arguments, got 0"}},
		// Warnings: bindings hidden in operator position, and templates
		// hidden by primitives.
		{text: `(let ((list 1)) list)`, want: []string{"1:8: warning: binding 'list' has the name of a primitive; (list ...) still calls the primitive"}},
		{text: `(define (f if) if)`, want: []string{"1:12: warning: binding 'if' has the name of a special form; (if ...) is still the special form"}},
		{text: `(define greet 1)`, opts: tasks, want: []string{"1:9: warning: binding 'greet' has the name of a template; (greet ...) still calls the template"}},
		{text: `(try 1 (catch read_file read_file))`, opts: tasks, want: []string{"1:15: warning: binding 'read_file' has the name of a tool; (read_file ...) still calls the tool"}},
		{text: `(defatom map (instructions "i"))`, want: []string{`1:10: warning: template 'map' is hidden by the primitive 'map'; use (call "map" ...)`}},
		// Several problems come in source order.
		{text: "(+ a b)\n(if)", want: []string{
			"1:4: error: Unbound symbol: Name 'a' is not defined.",
			"1:6: error: Unbound symbol: Name 'b' is not defined.",
			"2:1: error: 'if' requires 3 arguments: (if condition then_branch else_branch)"}},
	} {
		got := checkLines(t, tc.text, tc.opts)
		if diff := cmp.Diff(tc.want, got); diff != "" {
			t.Errorf("Check(%q) mismatch (-want +got):\n%s", tc.text, diff)
		}
	}
}

// TestCheckSources: forms of several sources are checked as one program and
// their diagnostics keep the order of the sources.
func TestCheckSources(t *testing.T) {
	a, err := sexp.Parse(sexp.NewSource("a.sexp", "(define (f) (g))\n(+ u 1)"))
	if err != nil {
		t.Fatal(err)
	}
	b, err := sexp.Parse(sexp.NewSource("b.sexp", "(define (g) 1)\n(f)\n(+ v 1)"))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, d := range evaluator.Check(append(a, b...), evaluator.CheckOptions{}) {
		got = append(got, d.String())
	}
	want := []string{
		"a.sexp:2:4: error: Unbound symbol: Name 'u' is not defined.",
		"b.sexp:3:4: error: Unbound symbol: Name 'v' is not defined.",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("mismatch (-want +got):\n%s", diff)
	}
}

// TestCheckDisplay: Display is the format of SPEC §17.4.
func TestCheckDisplay(t *testing.T) {
	forms, err := sexp.Parse(sexp.NewSource("d.sexp", "(list\n\t(+ x 1))"))
	if err != nil {
		t.Fatal(err)
	}
	diags := evaluator.Check(forms, evaluator.CheckOptions{})
	if len(diags) != 1 {
		t.Fatalf("got %d diagnostics, want 1", len(diags))
	}
	want := "d.sexp:2:5: error: Unbound symbol: Name 'x' is not defined.\n\t(+ x 1))\n\t   ^\n"
	if got := diags[0].DisplaySeverity(); got != want {
		t.Errorf("DisplaySeverity() = %q, want %q", got, want)
	}
}

// TestCheckDeep: nesting deeper than the evaluator compiles is reported once,
// without exhausting the stack.
func TestCheckDeep(t *testing.T) {
	// The deepest text the reader accepts is checked without exhausting the
	// stack; one level more is a syntax error, for check as for run.
	depth := sexp.MaxNesting
	text := strings.Repeat("(list ", depth) + strings.Repeat(")", depth)
	if got := checkLines(t, text, evaluator.CheckOptions{}); len(got) != 0 {
		t.Errorf("got %q, want no diagnostics", got)
	}
	text = "(" + text + ")"
	if _, err := sexp.Parse(sexp.NewSource("t.sexp", text)); err == nil || !strings.Contains(err.Error(), "nesting too deep (more than 100000 levels)") {
		t.Errorf("parse: %v", err)
	}
}

// TestCheckMatchesEvaluation: for each erroneous program, the first error
// Check reports is the error evaluation raises, at the same position.
func TestCheckMatchesEvaluation(t *testing.T) {
	for _, text := range []string{
		`(+ x 1)`,
		`(frob 1)`,
		`(if 1 2)`,
		`(let ((x)) 1)`,
		`(lambda (x x) x)`,
		`(set! x 1)`,
		`(loop 1 2 3)`,
		`(step "a" 1 :on-error sometimes)`,
		`(try 1)`,
		`(cond (else 1) (true 2))`,
		`(get-field 1 2 3)`,
		`(define 1 2)`,
		`(director-evaluator-loop (max-iterations 1))`,
		`(defatom t (params x))`,
		`(1 2)`,
		`(let ((f (lambda (n) (f n)))) (f 1))`,
		`(not 1 2)`,
	} {
		in := evaluator.New(evaluator.Options{Tasks: checkTasks{}})
		_, err := in.EvalString(context.Background(), "m.sexp", text)
		ee, ok := err.(*evaluator.Error)
		if !ok {
			t.Errorf("%s: evaluation gave %v, want an *evaluator.Error", text, err)
			continue
		}
		forms, _ := sexp.Parse(sexp.NewSource("m.sexp", text))
		diags := evaluator.Check(forms, evaluator.CheckOptions{Tasks: checkTasks{}})
		if len(diags) == 0 {
			t.Errorf("%s: Check found nothing; evaluation: %v", text, ee)
			continue
		}
		if got, want := diags[0].Pos.String()+": "+diags[0].Msg, ee.Error(); got != want {
			t.Errorf("%s: Check says %q, evaluation %q", text, got, want)
		}
	}
}

// inputTasks knows "review" (alias "rv", declared inputs: focus required,
// depth with a default, notes optional), "free" (inputs inferred from
// {{topic}} and {{tone | default("calm")}}) and the tool "read_file".
type inputTasks struct{ checkTasks }

func (inputTasks) Lookup(name string) (*templates.Template, bool) {
	switch name {
	case "review", "rv", "atomic:standard":
		t := &templates.Template{Name: "review", Alias: "rv", Type: "atomic", Subtype: "standard",
			Instructions: "Review {{focus}} {{depth}} {{notes}}", InputsDeclared: true,
			Inputs: []templates.Input{
				{Name: "focus", Type: "string", Required: true},
				{Name: "depth", Type: "int", Required: true, Default: value.Int(2)},
				{Name: "notes", Type: "string", Required: false},
			}}
		return t, true
	case "free":
		t := &templates.Template{Name: "free", Type: "atomic", Instructions: `{{topic}} {{tone | default("calm")}}`}
		if err := templates.Infer(t); err != nil {
			panic(err)
		}
		return t, true
	}
	return nil, false
}

// TestCheckTemplateInputs: calls of templates pass no unknown inputs (when
// declared) and every required input without a default (SPEC §17.4).
func TestCheckTemplateInputs(t *testing.T) {
	tasks := evaluator.CheckOptions{Tasks: inputTasks{}}
	for _, tc := range []struct {
		text string
		want []string
	}{
		{text: `(review (focus "x"))`},
		{text: `(rv :focus "x" :depth 3 :notes "n")`},
		{text: `(atomic:standard (focus "x") (files (list "a")) (context (dict)) (history_config (dict)))`},
		{text: `(review (focus "x") (colour 1) (size 2))`, want: []string{"1:21: error: Unknown parameter(s) for task 'review': colour, size"}},
		{text: `(review (depth 1))`, want: []string{"1:1: error: Missing required input(s) for task 'review': focus"}},
		{text: `(rv :tone 1)`, want: []string{
			"1:1: error: Missing required input(s) for task 'rv': focus",
			"1:5: error: Unknown parameter(s) for task 'rv': tone",
		}},
		// Inferred inputs: any name is accepted; a default filter makes an
		// input optional.
		{text: `(free (topic "t") (other 1))`},
		{text: `(free (tone "x"))`, want: []string{"1:1: error: Missing required input(s) for task 'free': topic"}},
		// atomic-task with a literal name, call with a literal name and dict.
		{text: `(atomic-task review (size 1))`, want: []string{
			"1:1: error: Missing required input(s) for task 'review': focus",
			"1:21: error: Unknown parameter(s) for task 'review': size",
		}},
		{text: `(atomic-task "free")`, want: []string{"1:1: error: Missing required input(s) for task 'free': topic"}},
		{text: `(define n "review") (atomic-task n (size 1))`},
		{text: `(call "review" (dict "focus" 1 "size" 2))`, want: []string{`1:32: error: Unknown parameter(s) for task 'review': size`}},
		{text: `(call "review")`, want: []string{"1:1: error: Missing required input(s) for task 'review': focus"}},
		{text: `(call "review" (dict "focus" 1))`},
		{text: `(define d (dict)) (call "review" d)`},
		{text: `(call "nothing" (dict "a" 1))`},
		// Tools are not templates.
		{text: `(read_file (path "a"))`},
		{text: `(direct-tool read_file (anything 1))`},
		// A defatom met earlier decides; in a lambda body the program's last
		// defatom of the name does.
		{text: `(defatom review (params who) (instructions "{{who}}")) (review (who "a"))`},
		{text: `(defatom review (params who) (instructions "{{who}}")) (review (focus "a"))`, want: []string{
			"1:56: error: Missing required input(s) for task 'review': who",
			"1:64: error: Unknown parameter(s) for task 'review': focus",
		}},
		{text: `(define (f) (g (x 1))) (defatom g (params y) (instructions "{{y}}"))`, want: []string{
			"1:13: error: Missing required input(s) for task 'g': y",
			"1:16: error: Unknown parameter(s) for task 'g': x",
		}},
		{text: `(defatom g (instructions "{{a}} {{b}}")) (g (a 1))`, want: []string{"1:42: error: Missing required input(s) for task 'g': b"}},
		{text: `(defatom g (params (a optional string)) (instructions "{{a}}")) (g)`},
	} {
		got := checkLines(t, tc.text, tasks)
		if diff := cmp.Diff(tc.want, got); diff != "" {
			t.Errorf("%s: mismatch (-want +got):\n%s", tc.text, diff)
		}
	}
}

// TestCheckUnknownInputHint: an unknown parameter near a declared input of
// the template gets a "did you mean" hint naming the input; one far from
// every input gets none.
func TestCheckUnknownInputHint(t *testing.T) {
	tasks := evaluator.CheckOptions{Tasks: inputTasks{}}
	for text, want := range map[string]string{
		`(review (focus "x") (dpth 1))`: "depth",
		`(review (focuz "x"))`:          "focus",
		`(review (focus "x") (size 1))`: "",
	} {
		forms, err := sexp.Parse(sexp.NewSource("t.sexp", text))
		if err != nil {
			t.Fatal(err)
		}
		var hint string
		found := false
		for _, d := range evaluator.Check(forms, tasks) {
			if strings.HasPrefix(d.Msg, "Unknown parameter(s)") {
				hint, found = d.Hint, true
			}
		}
		if !found || hint != want {
			t.Errorf("%s: unknown-parameter error found %v, hint %q, want %q", text, found, hint, want)
		}
	}
}

// TestCheckMisspeltSpecialForm: a misspelt special form is one error with
// its hint; its arguments, written in that form's syntax, add none. An
// unknown operator near no special form still has its arguments checked.
func TestCheckMisspeltSpecialForm(t *testing.T) {
	for text, want := range map[string][]string{
		"(defin x 1)":         {"1:2: error: Unbound symbol or unrecognized operator: defin"},
		"(lett ((a 1)) a)":    {"1:2: error: Unbound symbol or unrecognized operator: lett"},
		"(lamda (x) (* x y))": {"1:2: error: Unbound symbol or unrecognized operator: lamda"},
		"(frobnicate zork)":   {"1:2: error: Unbound symbol or unrecognized operator: frobnicate", "1:13: error: Unbound symbol: Name 'zork' is not defined."},
	} {
		if diff := cmp.Diff(want, checkLines(t, text, evaluator.CheckOptions{})); diff != "" {
			t.Errorf("%s: mismatch (-want +got):\n%s", text, diff)
		}
	}
}

// TestCheckReportsEveryShapeError: shape errors that evaluation would
// raise only when it reaches them (or never) are all reported at once.
func TestCheckReportsEveryShapeError(t *testing.T) {
	text := "(if true 1 (let x))\n(when false (if 1))\n(let ((a 1) (b)) (cond x (else 1) (true 2)))\n(step \"s\" 1 :on-error frob)"
	got := checkLines(t, text, evaluator.CheckOptions{})
	want := []string{
		"1:12: error: 'let' requires a bindings list and at least one body expression: (let ((var expr)...) body...)",
		"2:13: error: 'if' requires 3 arguments: (if condition then_branch else_branch)",
		"3:13: error: Invalid 'let' binding format: expected (symbol expression), got (b)",
		"3:24: error: Invalid 'cond' clause: expected (test body...), got x",
		"3:26: error: 'else' must be the last cond clause",
		"4:23: error: step: unknown :on-error policy 'frob' (expected fail, skip-optional, retry-once or retry N)",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	// The program itself runs: the bad forms are never reached.
	in := evaluator.New(evaluator.Options{})
	v, err := in.EvalString(context.Background(), "t.sexp", "(if true 1 (let x))")
	if err != nil || v.String() != "1" {
		t.Errorf("got %v, %v; want 1", v, err)
	}
}
