package evaluator_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/evalrun/evalrun/evaluator"
	"github.com/evalrun/evalrun/value"
)

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

// The pair lists of defatom may be quoted; the reader makes quoted lists
// values, and defatom reads their syntax again.
func TestDefatomQuotedPairLists(t *testing.T) {
	h := newSpecHarness(t, evaluator.Limits{})
	mustEval(t, h, `(defatom plan (instructions "Plan")
  (output_format '((type "json") (schema "DevelopmentPlan")))
  (history_config '((use_session_history false) (history_turns_to_include 3))))`)
	tm, ok := h.tasks.Lookup("plan")
	if !ok {
		t.Fatal("plan not registered")
	}
	if tm.OutputFormat == nil || tm.OutputFormat.Type != "json" || tm.OutputFormat.Schema != "DevelopmentPlan" {
		t.Errorf("output format %+v", tm.OutputFormat)
	}
	if h := tm.History; h.UseSessionHistory == nil || *h.UseSessionHistory || h.HistoryTurnsToInclude == nil || *h.HistoryTurnsToInclude != 3 {
		t.Errorf("history %+v", tm.History)
	}
	_, err := h.eval(`(defatom bad (instructions "i")
  (output_format '((type "json") (schema 1.5))))`)
	if err == nil {
		t.Fatal("no error for a float in a quoted pair list")
	}
	if got := err.Error(); got != "<eval>:2:42: 'output_format' value for 'schema' must be a string, int, boolean or nil, got float" {
		t.Errorf("error %q", got)
	}
}
