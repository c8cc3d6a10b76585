package evaluator_test

// The tests in the spec_*_test.go files and the scripts of testdata (see
// script_test.go) check the evaluator against SPEC.md: the examples of §6
// and §7 are script chunks, those of §4.4–§5 and §8 appear as a specRow
// {source, printed value} or {source, message, kind, line:col}. Each
// specRow and chunk runs in a new interpreter whose task system is
// fakeTasks, after the specPrelude below.

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/evalrun/evalrun/evaluator"
	"github.com/evalrun/evalrun/sexp"
	"github.com/evalrun/evalrun/value"
)

// specPrelude defines the templates the rows use; it is evaluated under its own
// source name, so the rows' positions are unaffected.
const specPrelude = `
(defatom greet (params name) (instructions "Hello {{name}}!"))
(defatom pair (params a (b int)) (instructions "{{a}}/{{b}}"))
(defatom maybe (params (p optional string)) (instructions "[{{p}}]"))
(defatom inferred (instructions "{{x}}+{{y}}"))
(defatom quick (instructions "q"))
`

// syncBuffer is a bytes.Buffer safe for concurrent writers.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// specHarness is one interpreter with its fake task system and stderr.
type specHarness struct {
	in     *evaluator.Interpreter
	tasks  *fakeTasks
	stderr *syncBuffer
}

func newSpecHarness(t testing.TB, limits evaluator.Limits) *specHarness {
	t.Helper()
	h := &specHarness{tasks: newFakeTasks(), stderr: &syncBuffer{}}
	h.in = evaluator.New(evaluator.Options{Tasks: h.tasks, Limits: limits, Stderr: h.stderr})
	if _, err := h.in.EvalString(context.Background(), "<specPrelude>", specPrelude); err != nil {
		t.Fatalf("prelude: %v", err)
	}
	return h
}

// eval evaluates src named <eval>, giving up after a minute so that a hang
// fails the test instead of the whole run.
func (h *specHarness) eval(src string) (value.Value, error) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	return h.in.EvalString(ctx, "<eval>", src)
}

// specRow is one example: a source and either the printed value or the error.
type specRow struct {
	src  string
	want string // printed value, when msg is ""
	msg  string // error message
	kind string // error kind, or "syntax" for a *sexp.Error
	pos  string // LINE:COL of the error
}

func okRow(src, want string) specRow { return specRow{src: src, want: want} }

func errRow(src, msg, kind, pos string) specRow {
	return specRow{src: src, msg: msg, kind: kind, pos: pos}
}

// specOutcome is what a specRow observed, in a form go-cmp can diff.
type specOutcome struct {
	Value string
	Msg   string
	Kind  string
	Pos   string
}

func outcomeOf(v value.Value, err error) specOutcome {
	if err == nil {
		if v == nil {
			return specOutcome{Value: "<nil Go value>"}
		}
		return specOutcome{Value: v.String()}
	}
	var ee *evaluator.Error
	if errors.As(err, &ee) {
		return specOutcome{Msg: ee.Msg, Kind: string(ee.Kind), Pos: lineCol(ee.Pos)}
	}
	var se *sexp.Error
	if errors.As(err, &se) {
		return specOutcome{Msg: se.Msg, Kind: "syntax", Pos: lineCol(se.Pos)}
	}
	return specOutcome{Msg: err.Error(), Kind: fmt.Sprintf("%T", err)}
}

func lineCol(p sexp.Pos) string {
	if !p.IsValid() {
		return "-"
	}
	pp := p.Position()
	return fmt.Sprintf("%d:%d", pp.Line, pp.Column)
}

func (r specRow) specOutcome() specOutcome {
	if r.msg == "" {
		return specOutcome{Value: r.want}
	}
	return specOutcome{Msg: r.msg, Kind: r.kind, Pos: r.pos}
}

// testName shortens a source text for a subtest name.
func testName(src string) string {
	src = strings.Join(strings.Fields(src), " ")
	if r := []rune(src); len(r) > 60 {
		src = string(r[:60]) + "…"
	}
	return src
}

// runRows runs every specRow in a new specHarness with the given limits.
func runRows(t *testing.T, limits evaluator.Limits, rows []specRow) {
	t.Helper()
	for _, r := range rows {
		t.Run(testName(r.src), func(t *testing.T) {
			h := newSpecHarness(t, limits)
			got := outcomeOf(h.eval(r.src))
			if diff := cmp.Diff(r.specOutcome(), got); diff != "" {
				t.Errorf("%s\n(-want +got):\n%s", r.src, diff)
			}
		})
	}
}

// mustEval evaluates src and fails the test on an error.
func mustEval(t testing.TB, h *specHarness, src string) value.Value {
	t.Helper()
	v, err := h.eval(src)
	if err != nil {
		t.Fatalf("%s: %v", src, err)
	}
	return v
}

// specRowSources returns the source of every specRow of the spec tables, for
// the fuzz seed corpus.
func specRowSources() []string {
	var out []string
	for _, rows := range allSpecRows() {
		for _, r := range rows {
			out = append(out, r.src)
		}
	}
	return out
}

// allSpecRows lists the tables that run with the default limits.
func allSpecRows() [][]specRow {
	return [][]specRow{
		syntaxRows, atomRows, printerRows, truthRows, equalityRows, numberRows, jsonTextRows,
		coreRows, numPrimRows, listRows, stringRows, dictRows, funcRows, taskPrimRows,
	}
}
