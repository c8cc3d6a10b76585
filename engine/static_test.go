package engine

import (
	"strings"
	"testing"

	"github.com/evalrun/evalrun/evaluator"
	"github.com/evalrun/evalrun/sexp"
	"github.com/evalrun/evalrun/templates"
)

// TestStaticTemplates: the templates a program names statically (SPEC
// §10.3), in order of first appearance.
func TestStaticTemplates(t *testing.T) {
	known := map[string]*templates.Template{}
	for _, n := range []string{"plan", "draft", "critique", "summarize", "x:y", "list", "focus"} {
		known[n] = &templates.Template{Name: n}
	}
	known["pl"] = known["plan"] // an alias
	lookup := func(name string) (*templates.Template, bool) {
		t, ok := known[name]
		return t, ok
	}
	for _, tc := range []struct{ text, want string }{
		{`(plan (goal "g"))`, "plan"},
		{`(pl) (plan)`, "plan"},
		{`(map summarize xs) (filter task-ok? rs)`, "summarize"},
		{`(atomic-task x:y (a 1)) (call "draft" (dict))`, "x:y draft"},
		{`(atomic-task (string-append "dr" "aft"))`, ""},
		{`(define plan 1) (+ plan 1) (plan)`, ""},
		{`(let ((draft 1)) draft)`, ""},
		{`(lambda (critique) (critique))`, ""},
		{`(defatom summarize (instructions "x")) (summarize)`, ""},
		{`'(plan draft) (quote (critique))`, ""},
		{`(list 1) (draft (focus 1))`, "draft"},
		{`(director-evaluator-loop (max-iterations 2) (director (lambda (a i) (plan))) (evaluator critique))`, "plan critique"},
		{`(cond ((plan) (draft)) (else 1))`, "plan draft"},
		{`(try (plan) (catch e (draft)))`, "plan draft"},
		{`(step "s" (critique) :on-error retry 2)`, "critique"},
		{`("draft" (x 1))`, "draft"},
	} {
		forms, err := sexp.Parse(sexp.NewSource("t", tc.text))
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, tm := range staticTemplates(forms, lookup) {
			names = append(names, tm.Name)
		}
		if got := strings.Join(names, " "); got != tc.want {
			t.Errorf("%s: got %q, want %q", tc.text, got, tc.want)
		}
	}
}

// staticTemplates returns the templates a program names statically (SPEC
// §10.3), in order of first appearance, as the evaluator's
// Program.Templates finds them; lookup resolves a name as the registry
// does. Templates reached only through computed names are printed later,
// before their first model call.
func staticTemplates(forms []*sexp.Node, lookup func(string) (*templates.Template, bool)) []*templates.Template {
	prog, err := evaluator.CompileForms(nil, forms)
	if err != nil {
		return nil // the run reports the error
	}
	return prog.Templates(lookup)
}
