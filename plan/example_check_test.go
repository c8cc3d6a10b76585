package plan

import "testing"

func TestExampleChecks(t *testing.T) {
	p, got := checkFixture(t, "../examples/plan", Options{HasTemplate: func(n string) bool { return n == "plan/doc-generator" }})
	if got != "" {
		t.Errorf("diagnostics:\n%s", got)
	}
	if s := p.String(); s != "../examples/plan/.workflow/active/WFS-jwt-auth: ok (8 tasks, 2 containers)" {
		t.Errorf("summary %q", s)
	}
}
