package evaluator_test

import (
	"strings"
	"testing"

	"github.com/evalrun/evalrun/evaluator"
)

// §4.3–§4.8: the reader, seen through evaluation.
var syntaxRows = []specRow{
	// §4.3 strings
	okRow(`"a\qb"`, `"a\\qb"`),
	okRow(`(string-length "a\qb")`, `4`),
	okRow(`"a\"b\\c\nd\te\rf\bg\fh"`, `"a\"b\\c\nd\te\rf\bg\fh"`),
	okRow("\"two\nlines\"", `"two\nlines"`),
	errRow(`(list 1 "two)`, "unterminated string", "syntax", "1:9"),
	// §4.5 quote shorthand
	okRow(`''a`, `(quote a)`),
	okRow(`' a`, `a`),
	okRow("'  ; comment\n  a", `a`),
	okRow(`'(a 'b)`, `(a (quote b))`),
	errRow(`(a ')`, "quote (') must be followed by a datum", "syntax", "1:4"),
	errRow(`'`, "quote (') must be followed by a datum", "syntax", "1:1"),
	// §4.6 programs
	okRow(`1 2 3`, `3`),
	okRow("(define x 1)\n(+ x 1)", `2`),
	okRow("; note\n5 ; five", `5`),
	errRow(``, "empty program", "syntax", "1:1"),
	errRow(`; note`, "empty program", "syntax", "1:1"),
	errRow(" \n\t ", "empty program", "syntax", "1:1"),
	// §4.8 syntax errors
	errRow(`(a (b`, "unclosed '(': missing ')'", "syntax", "1:4"),
	errRow(`(a))`, "unexpected ')'", "syntax", "1:4"),
	errRow(`(a [b])`, "square brackets are not supported; write lists with ( )", "syntax", "1:4"),
	errRow(`"abc`, "unterminated string", "syntax", "1:1"),
	errRow(`99999999999999999999`, "integer literal out of range: 99999999999999999999", "syntax", "1:1"),
	errRow(`1e999`, "float literal out of range: 1e999", "syntax", "1:1"),
	errRow("(list 1)\n  (list \"a\xffb\")", "invalid UTF-8 encoding", "syntax", "2:11"),
}

// §4.4 atoms.
var atomRows = func() []specRow {
	rows := []specRow{
		okRow(`nil`, `nil`),
		okRow(`()`, `nil`),
		okRow(`true`, `true`),
		okRow(`false`, `false`),
		okRow(`+5`, `5`),
		okRow(`007`, `7`),
		okRow(`1_000`, `1000`),
		okRow(`-0`, `0`),
		okRow(`-7`, `-7`),
		okRow(`9223372036854775807`, `9223372036854775807`),
		okRow(`-9223372036854775808`, `-9223372036854775808`),
		errRow(`9223372036854775808`, "integer literal out of range: 9223372036854775808", "syntax", "1:1"),
		okRow(`1.5`, `1.5`),
		okRow(`.5`, `0.5`),
		okRow(`1.`, `1.0`),
		okRow(`1e3`, `1000.0`),
		okRow(`2.5E-3`, `0.0025`),
		okRow(`1_000.5`, `1000.5`),
		okRow(`-1.5e2`, `-150.0`),
		okRow(`:key`, `:key`),
		okRow(`'a\ b`, `a\ b`),
		okRow(`(string-append 'a\ b)`, `"a b"`),
		okRow(`(string-append 'a'b)`, `"a'b"`),
		okRow(`(string-append '\1)`, `"1"`),
		errRow(`inf`, "Unbound symbol: Name 'inf' is not defined.", "unbound", "1:1"),
		errRow(`(list 1 nan)`, "Unbound symbol: Name 'nan' is not defined.", "unbound", "1:9"),
	}
	// These atoms are all symbols: quoted they print as themselves and equal
	// the string of their name.
	for _, s := range strings.Fields(`inf nan -inf Infinity NIL True #t - + ... 1/2 0x10 1__0 _1 :key user:generate-plan review/git-diff string=? *loop-config* a{b} a.b`) {
		rows = append(rows, okRow("'"+s, s), okRow(`(eq? '`+s+` "`+s+`")`, `true`))
	}
	return rows
}()

// §5.1, §5.5 the canonical printer.
var printerRows = []specRow{
	okRow(`42`, `42`),
	okRow(`-7`, `-7`),
	okRow(`3.5`, `3.5`),
	okRow(`1000.0`, `1000.0`),
	okRow(`(+ 0.1 0.2)`, `0.30000000000000004`),
	okRow(`-0.0`, `-0.0`),
	okRow(`0.0`, `0.0`),
	okRow(`1e21`, `1e+21`),
	okRow(`1.5e-7`, `1.5e-7`),
	okRow(`0.000001`, `0.000001`),
	okRow(`1e20`, `100000000000000000000.0`),
	okRow(`-1e21`, `-1e+21`),
	okRow(`2e100`, `2e+100`),
	okRow(`1.2345e-300`, `1.2345e-300`),
	okRow(`(/ 1 3)`, `0.3333333333333333`),
	okRow(`(* -1 0.0)`, `-0.0`),
	okRow(`(- 0.0)`, `-0.0`),
	okRow(`(- 2.5)`, `-2.5`),
	okRow(`"a\nb"`, `"a\nb"`),
	okRow(`"tab	raw"`, `"tab\traw"`),
	okRow("\"é☃\x01𝄞\"", "\"é☃\x01𝄞\""),
	okRow(`"<&>'"`, `"<&>'"`),
	okRow(`true`, `true`),
	okRow(`null`, `null`),
	okRow(`nil`, `nil`),
	okRow(`'sym`, `sym`),
	okRow(`'a\(b`, `a\(b`),
	okRow(`'a\)b`, `a\)b`),
	okRow(`'a\[b`, `a\[b`),
	okRow(`'a\"b`, `a\"b`),
	okRow(`'a\;b`, `a\;b`),
	okRow(`'\'a`, `\'a`),
	okRow(`'\1`, `\1`),
	okRow(`'\-5`, `\-5`),
	okRow(`'\1.5`, `\1.5`),
	okRow(`'\1e999`, `\1e999`),
	okRow(`'\nil`, `\nil`),
	okRow(`'\true`, `\true`),
	okRow(`'\false`, `\false`),
	okRow(`'nil?`, `nil?`),
	okRow(`(list 1 2.5 "a\nb" 'sym true nil (dict "k" null))`, `(1 2.5 "a\nb" sym true nil (dict "k" null))`),
	okRow(`'(quote a)`, `(quote a)`),
	okRow(`(dict)`, `(dict)`),
	okRow(`(dict "a" 1 "b" nil)`, `(dict "a" 1 "b" nil)`),
	okRow(`(dict "a\"b" (list (dict)))`, `(dict "a\"b" ((dict)))`),
	okRow(`(lambda (a b) a)`, `#<closure (a b)>`),
	okRow(`(lambda () 1)`, `#<closure ()>`),
	okRow(`(define (f x) x)`, `#<closure (x)>`),
	okRow(`(greet (name "Bob"))`, `#<TaskResult COMPLETE "Hello Bob!">`),
	okRow(`(greet (name "a\nb"))`, `#<TaskResult COMPLETE "Hello a\nb!">`),
	okRow(`(greet (name "`+strings.Repeat("é", 53)+`"))`, `#<TaskResult COMPLETE "Hello `+strings.Repeat("é", 53)+`!">`),
	okRow(`(greet (name "`+strings.Repeat("é", 54)+`"))`, `#<TaskResult COMPLETE "Hello `+strings.Repeat("é", 54)+`…">`),
	okRow(`(greet (name "`+strings.Repeat("é", 60)+`"))`, `#<TaskResult COMPLETE "Hello `+strings.Repeat("é", 54)+`…">`),
	okRow(`(greet (name "`+strings.Repeat(`\"`, 60)+`"))`, `#<TaskResult COMPLETE "Hello `+strings.Repeat(`\"`, 54)+`…">`),
	okRow(`(atomic-task nosuch)`, `#<TaskResult FAILED "Template not found: nosuch">`),
}

// §5.2 truthiness.
var truthRows = func() []specRow {
	var rows []specRow
	for _, f := range []string{`false`, `null`, `0`, `0.0`, `-0.0`, `""`, `nil`, `()`, `(list)`, `(dict)`, `'false`, `(- 0.0)`} {
		rows = append(rows, okRow(`(if `+f+` 'yes 'no)`, `no`), okRow(`(not `+f+`)`, `true`))
	}
	for _, tr := range []string{`true`, `1`, `-1`, `0.5`, `" "`, `"false"`, `'a`, `'false-ish`, `:k`, `(list 0)`, `(list nil)`,
		`(dict "a" 0)`, `(lambda () 0)`, `(atomic-task nosuch)`, `(greet (name "x"))`, `"0"`} {
		rows = append(rows, okRow(`(if `+tr+` 'yes 'no)`, `yes`), okRow(`(not `+tr+`)`, `false`))
	}
	return rows
}()

// §5.3 equality.
var equalityRows = []specRow{
	okRow(`(eq? 1 1.0)`, `true`),
	okRow(`(eq? 1 2)`, `false`),
	okRow(`(eq? true 1)`, `false`),
	okRow(`(eq? 0 false)`, `false`),
	okRow(`(eq? true true)`, `true`),
	okRow(`(eq? "a" "a")`, `true`),
	okRow(`(eq? "a" "b")`, `false`),
	okRow(`(eq? 'a "a")`, `true`),
	okRow(`(eq? "a" 'a)`, `true`),
	okRow(`(eq? 'a 'a)`, `true`),
	okRow(`(eq? :k ":k")`, `true`),
	okRow(`(eq? (list 'a) (list "a"))`, `false`),
	okRow(`(eq? (list 'a) (list 'a))`, `true`),
	okRow(`(eq? (dict "k" 'a) (dict "k" "a"))`, `false`),
	okRow(`(eq? (list 1 2) (list 1 2))`, `true`),
	okRow(`(eq? (list 1 2) (list 1 2.0))`, `true`),
	okRow(`(eq? (list 1 2) (list 1 2 3))`, `false`),
	okRow(`(eq? (list 1 (list 2)) (list 1 (list 2)))`, `true`),
	okRow(`(eq? (dict "a" 1 "b" 2) (dict "b" 2 "a" 1))`, `true`),
	okRow(`(eq? (dict "a" 1) (dict "a" 1 "b" 2))`, `false`),
	okRow(`(eq? (dict "a" 1) (dict "a" 2))`, `false`),
	okRow(`(eq? (dict) (dict))`, `true`),
	okRow(`(eq? nil null)`, `false`),
	okRow(`(eq? null null)`, `true`),
	okRow(`(eq? nil nil)`, `true`),
	okRow(`(eq? (list) nil)`, `true`),
	okRow(`(eq? nil (dict))`, `false`),
	okRow(`(eq? "" nil)`, `false`),
	okRow(`(eq? 0 0.0)`, `true`),
	okRow(`(eq? 0.0 -0.0)`, `true`),
	okRow(`(eq? 9007199254740993 9007199254740992.0)`, `false`),
	okRow(`(eq? 9007199254740992 9007199254740992.0)`, `true`),
	okRow(`(eq? 1 1.5)`, `false`),
	okRow(`(eq? -9223372036854775808 -9223372036854775808.0)`, `true`),
	okRow(`(eq? 9223372036854775807 9223372036854775808.0)`, `false`),
	okRow(`(eq? (greet (name "a")) (greet (name "a")))`, `true`),
	okRow(`(eq? (greet (name "a")) (greet (name "b")))`, `false`),
	okRow(`(eq? (greet (name "a")) "Hello a!")`, `false`),
	okRow(`(let ((f (lambda () 1))) (eq? f f))`, `true`),
	okRow(`(eq? (lambda () 1) (lambda () 1))`, `false`),
	okRow(`(equal? (list 1 "a") (list 1.0 "a"))`, `true`),
	okRow(`(equal? 'a "a")`, `true`),
	okRow(`(equal? (list 'a) (list "a"))`, `false`),
}

// §5.4 numbers.
var numberRows = []specRow{
	okRow(`(+ 1 2)`, `3`),
	okRow(`(+ 1 2.0)`, `3.0`),
	okRow(`(* 2 1.5)`, `3.0`),
	okRow(`(- 5 2)`, `3`),
	errRow(`(+ 9223372036854775807 1)`, "integer overflow in '+'", "value", "1:1"),
	errRow(`(+ -9223372036854775808 -1)`, "integer overflow in '+'", "value", "1:1"),
	errRow(`(- -9223372036854775808 1)`, "integer overflow in '-'", "value", "1:1"),
	errRow(`(- -9223372036854775808)`, "integer overflow in '-'", "value", "1:1"),
	errRow(`(* 4611686018427387904 2)`, "integer overflow in '*'", "value", "1:1"),
	errRow(`(* -1 -9223372036854775808)`, "integer overflow in '*'", "value", "1:1"),
	errRow(`(* -9223372036854775808 -1)`, "integer overflow in '*'", "value", "1:1"),
	errRow(`(abs -9223372036854775808)`, "integer overflow in 'abs'", "value", "1:1"),
	errRow(`(quotient -9223372036854775808 -1)`, "integer overflow in 'quotient'", "value", "1:1"),
	okRow(`(* -9223372036854775808 1)`, `-9223372036854775808`),
	okRow(`(+ 9223372036854775807 -1 1)`, `9223372036854775807`),
	okRow(`(* 3037000499 3037000499)`, `9223372030926249001`),
	okRow(`(+ 9223372036854775807 1.0)`, `9223372036854776000.0`),
	errRow(`(* 1e300 1e300)`, "float overflow in '*'", "value", "1:1"),
	errRow(`(+ 1.7976931348623157e308 1.7976931348623157e308)`, "float overflow in '+'", "value", "1:1"),
	errRow(`(- -1.7976931348623157e308 1.7976931348623157e308)`, "float overflow in '-'", "value", "1:1"),
	errRow(`(/ 1e300 1e-300)`, "float overflow in '/'", "value", "1:1"),
	errRow(`(/ 1 0)`, "division by zero in '/'", "value", "1:1"),
	errRow(`(/ 1.0 0.0)`, "division by zero in '/'", "value", "1:1"),
	errRow(`(/ 1 -0.0)`, "division by zero in '/'", "value", "1:1"),
	errRow(`(/ 0)`, "division by zero in '/'", "value", "1:1"),
	errRow(`(quotient 1 0)`, "division by zero in 'quotient'", "value", "1:1"),
	errRow(`(remainder 1 0)`, "division by zero in 'remainder'", "value", "1:1"),
	errRow(`(+ true 1)`, "'+' argument 1 must be a number, got bool.", "type", "1:4"),
	errRow(`(- 10 false)`, "'-' argument 2 must be a number, got bool.", "type", "1:7"),
	errRow(`(* 2 nil)`, "'*' argument 2 must be a number, got list.", "type", "1:6"),
	errRow(`(/ 1 "2")`, "'/' argument 2 must be a number, got string.", "type", "1:6"),
}

// §5.6, §5.7 JSON and text, through json-encode and to-string.
var jsonTextRows = []specRow{
	okRow(`(json-encode 1)`, `"1"`),
	okRow(`(json-encode 1000.0)`, `"1000.0"`),
	okRow(`(json-encode 1e21)`, `"1e+21"`),
	okRow(`(json-encode -0.0)`, `"-0.0"`),
	okRow(`(json-encode "a\"b\n<&>")`, `"\"a\\\"b\\n<&>\""`),
	okRow(`(json-encode 'sym)`, `"\"sym\""`),
	okRow(`(json-encode :k)`, `"\":k\""`),
	okRow(`(json-encode true)`, `"true"`),
	okRow(`(json-encode null)`, `"null"`),
	okRow(`(json-encode nil)`, `"[]"`),
	okRow(`(json-encode (list 1 (list) "x"))`, `"[1,[],\"x\"]"`),
	okRow(`(json-encode (dict))`, `"{}"`),
	okRow(`(json-encode (dict "b" 1 "a" (dict "c" null)))`, `"{\"b\":1,\"a\":{\"c\":null}}"`),
	okRow(`(json-encode (greet (name "B")))`, `"{\"status\":\"COMPLETE\",\"content\":\"Hello B!\",\"parsedContent\":null,\"notes\":{\"template_used\":\"greet\"}}"`),
	okRow(`(json-encode (lambda (x) x))`, `"\"#<closure (x)>\""`),
	okRow(`(to-string "s")`, `"s"`),
	okRow(`(to-string 'sym)`, `"sym"`),
	okRow(`(to-string :k)`, `":k"`),
	okRow(`(to-string 1)`, `"1"`),
	okRow(`(to-string 1.0)`, `"1.0"`),
	okRow(`(to-string 1e21)`, `"1e+21"`),
	okRow(`(to-string true)`, `"true"`),
	okRow(`(to-string null)`, `""`),
	okRow(`(to-string nil)`, `"[]"`),
	okRow(`(to-string (list 1 "a"))`, `"[1,\"a\"]"`),
	okRow(`(to-string (dict "a" (list 1 null)))`, `"{\"a\":[1,null]}"`),
	okRow(`(to-string (greet (name "B")))`, `"Hello B!"`),
	okRow(`(to-string (lambda (a) a))`, `"#<closure (a)>"`),
}

func TestSpecSyntax(t *testing.T)   { runRows(t, evaluator.Limits{}, syntaxRows) }
func TestSpecAtoms(t *testing.T)    { runRows(t, evaluator.Limits{}, atomRows) }
func TestSpecPrinter(t *testing.T)  { runRows(t, evaluator.Limits{}, printerRows) }
func TestSpecTruth(t *testing.T)    { runRows(t, evaluator.Limits{}, truthRows) }
func TestSpecEquality(t *testing.T) { runRows(t, evaluator.Limits{}, equalityRows) }
func TestSpecNumbers(t *testing.T)  { runRows(t, evaluator.Limits{}, numberRows) }
func TestSpecJSONText(t *testing.T) { runRows(t, evaluator.Limits{}, jsonTextRows) }

// A syntax error anywhere means nothing runs (§4.6).
func TestSyntaxErrorRunsNothing(t *testing.T) {
	h := newSpecHarness(t, evaluator.Limits{})
	_, err := h.eval(`(log-message "ran") (list 1 "two)`)
	if got := outcomeOf(nil, err); got.Kind != "syntax" {
		t.Fatalf("got %+v, want a syntax error", got)
	}
	if s := h.stderr.String(); s != "" {
		t.Errorf("stderr = %q, want nothing: the program must not run", s)
	}
}
