package docs_test

import (
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/evalrun/evalrun/evaluator"
	"github.com/evalrun/evalrun/templates"
)

// evalExamples returns the expressions of the "sexp eval" blocks of a page.
func evalExamples(t *testing.T, page string) string {
	t.Helper()
	data, err := os.ReadFile(page)
	if err != nil {
		t.Fatal(err)
	}
	blocks, err := parseBlocks(strings.Split(string(data), "\n"))
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	for _, bl := range blocks {
		if k, _ := bl.kind(); k == "eval" {
			b.WriteString(strings.Join(bl.lines, "\n") + "\n")
		}
	}
	return b.String()
}

// TestLanguageReferenceIsComplete: every special form and every primitive
// of the evaluator is used in operator position by at least one executed
// example of docs/language.md, so a new one cannot be left undocumented.
func TestLanguageReferenceIsComplete(t *testing.T) {
	examples := evalExamples(t, "language.md")
	for _, name := range append(evaluator.SpecialFormNames(), evaluator.PrimitiveNames()...) {
		if name == "get_context" {
			// The other spelling of get-context, documented with it.
			continue
		}
		re := regexp.MustCompile(`\(` + regexp.QuoteMeta(name) + `[\s)]`)
		if !re.MatchString(examples) {
			t.Errorf("docs/language.md has no executed example of (%s …)", name)
		}
	}
}

// TestTemplateReferenceIsComplete: every placeholder filter is used by an
// executed example of docs/templates.md.
func TestTemplateReferenceIsComplete(t *testing.T) {
	examples := evalExamples(t, "templates.md")
	for _, f := range templates.FilterNames() {
		re := regexp.MustCompile(`\|\s*` + regexp.QuoteMeta(f) + `\b`)
		if !re.MatchString(examples) {
			t.Errorf("docs/templates.md has no executed example of the filter %s", f)
		}
	}
}
