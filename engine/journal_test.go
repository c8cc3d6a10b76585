package engine

import (
	"testing"

	"github.com/evalrun/evalrun/evaluator"
	"github.com/evalrun/evalrun/sexp"
	"github.com/google/go-cmp/cmp"
)

func TestPlannedSteps(t *testing.T) {
	tests := []struct {
		src  string
		want []string
	}{
		{`(step "a" 1) (step "b" 2 :on-error skip-optional)`, []string{"a", "b"}},
		{`(define x (get-field (step "plan" (f)) "content")) (list (step "c" 1))`, []string{"plan", "c"}},
		{`(step name 1) (step "n" (step "inner" 1))`, []string{"n"}},
		{`(if c (step "no" 1) 2) (when c (step "no" 1)) (cond (c (step "no" 1))) (and (step "no" 1))`, nil},
		{`(lambda () (step "no" 1)) (define (f) (step "no" 1)) (try (step "no" 1) (catch e 1))`, nil},
		{`(loop (step "no" 1)) (parallel (step "no" 1)) '(step "no" 1) (quote (step "no" 1))`, nil},
	}
	for _, tt := range tests {
		forms, err := sexp.Parse(sexp.NewSource("t", tt.src))
		if err != nil {
			t.Fatalf("%s: %v", tt.src, err)
		}
		if diff := cmp.Diff(tt.want, plannedSteps(forms)); diff != "" {
			t.Errorf("%s: (-want +got)\n%s", tt.src, diff)
		}
	}
}

// plannedSteps returns the names of the steps of a program that are
// created as pending when a run starts (SPEC §16.2), as the evaluator's
// Program.PlannedSteps finds them.
func plannedSteps(forms []*sexp.Node) []string { return evaluator.PlannedSteps(forms) }
