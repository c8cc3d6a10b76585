package evaluator_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/evalrun/evalrun/evaluator"
)

// Rendering a whole value refuses to build a text over the limit, even when
// the value repeats one large string many times (SPEC §6.7).
func TestRenderedValueSizeLimit(t *testing.T) {
	const prelude = `(define s (string-append "x" (to-string (range 100)))) (define big (map (lambda (i) s) (range 200000)))`
	for _, call := range []string{`(to-string big)`, `(json-encode big)`, `(log-message "a" big)`, `(error big)`} {
		t.Run(call, func(t *testing.T) {
			in := evaluator.New(evaluator.Options{Limits: evaluator.Limits{MaxStringBytes: 1 << 20}})
			_, err := in.EvalString(context.Background(), "<t>", prelude+call)
			var e *evaluator.Error
			if !errors.As(err, &e) || e.Kind != evaluator.KindLimit ||
				!strings.HasPrefix(e.Msg, "value too large: string of ") || !strings.HasSuffix(e.Msg, " bytes exceeds the limit of 1048576") {
				t.Fatalf("got %v", err)
			}
		})
	}
}

// A keyword names a dict key without its colon everywhere: dict, get,
// get-field and has-key? agree.
func TestKeywordKeys(t *testing.T) {
	in := evaluator.New(evaluator.Options{})
	for src, want := range map[string]string{
		`(get (dict :a 1) :a)`:          `1`,
		`(get-field (dict :a 1) :a)`:    `1`,
		`(has-key? (dict "a" 1) :a)`:    `true`,
		`(get (assoc (dict) :b 2) "b")`: `2`,
		`(get (dict "a" 1) 'a)`:         `1`,
		`(has-key? (dict "a" 1) ":a")`:  `false`,
	} {
		v, err := in.EvalString(context.Background(), "<t>", src)
		if err != nil || v.String() != want {
			t.Errorf("%s = %v, %v; want %s", src, v, err, want)
		}
	}
}

// get-context takes a string query; the rendered values of its inputs are
// appended to it, without their names (SPEC §8.7).
func TestGetContextQuery(t *testing.T) {
	ft := newFakeTasks()
	in := evaluator.New(evaluator.Options{Tasks: ft})
	if _, err := in.EvalString(context.Background(), "<t>", `(get-context "cache" (inputs (dict "x" "zebra" "n" 3)))`); err != nil {
		t.Fatal(err)
	}
	if q := ft.contextQueries[0].Query; q != "cache\nzebra\n3" {
		t.Errorf("query = %q", q)
	}
	for src, want := range map[string]string{
		`(get-context 5)`:                "'get-context' query must be a string, got int",
		`(get-context (query nil))`:      "'get-context' requires a query parameter.",
		`(get-context (query (list 1)))`: "'get-context' query must be a string, got list",
	} {
		_, err := in.EvalString(context.Background(), "<t>", src)
		var e *evaluator.Error
		if !errors.As(err, &e) || e.Msg != want {
			t.Errorf("%s: err = %v, want %q", src, err, want)
		}
	}
}
