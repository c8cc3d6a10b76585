package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestPlanExample checks, dry-runs and runs examples/plan on the echo
// provider in a temporary copy, as make demo does, then reads its status.
func TestPlanExample(t *testing.T) {
	root, err := filepath.Abs("../../examples/plan")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	copyDir(t, root, dir)
	t.Chdir(dir)
	run := func(args ...string) (int, string, string) {
		var stdout, stderr bytes.Buffer
		a := &app{stdin: strings.NewReader(""), stdout: &stdout, stderr: &stderr, getenv: exampleEnv(t)}
		return a.main(args), stdout.String(), stderr.String()
	}
	if code, out, errs := run("plan", "check"); code != exitOK || out != ".workflow/active/WFS-jwt-auth: ok (8 tasks, 2 containers)\n" || errs != "" {
		t.Fatalf("check: exit %d\n%s\n%s", code, out, errs)
	}
	code, out, errs := run("plan", "run", "--dry-run", "--parallel", "3")
	if want := "wave 1: IMPL-001\nwave 2: IMPL-002.1 IMPL-003.1\nwave 3: IMPL-002.2 IMPL-003.2\nwave 4: IMPL-004\n"; code != exitOK || out != want || !strings.Contains(errs, "dry run: 6 prompts written to") {
		t.Fatalf("dry run: exit %d\n%s\n%s", code, out, errs)
	}
	if code, _, errs := run("plan", "run", "--provider", "echo", "--parallel", "3"); code != exitOK || !strings.Contains(errs, "plan: IMPL-004 completed") {
		t.Fatalf("run: exit %d\n%s", code, errs)
	}
	code, out, _ = run("plan", "status")
	if code != exitOK || !strings.HasPrefix(out, "plan WFS-jwt-auth  6/6 tasks completed\n") || strings.Contains(out, "[ ]") {
		t.Errorf("status: exit %d\n%s", code, out)
	}
	todo, _ := os.ReadFile(filepath.Join(dir, ".workflow/active/WFS-jwt-auth/TODO_LIST.md"))
	if !strings.Contains(string(todo), "- [x] **IMPL-004**: Document the authentication flow → [📋](./.task/IMPL-004.json) | [✅](./.summaries/IMPL-004-summary.md)\n") {
		t.Errorf("TODO_LIST.md:\n%s", todo)
	}
	code, out, _ = run("status")
	if code != exitOK || !strings.Contains(out, `[completed] step "IMPL-004"`) {
		t.Errorf("journal status: exit %d\n%s", code, out)
	}
}

// TestPlanFormsFromAWorkflow: evalrun check knows plan-load and plan-run
// (and reports a misspelt option at its position); evalrun run runs the
// example plan from a workflow, and the plan's tasks are journaled under
// the step that called plan-run.
func TestPlanFormsFromAWorkflow(t *testing.T) {
	root, err := filepath.Abs("../../examples/plan")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	copyDir(t, root, dir)
	t.Chdir(dir)
	run := func(args ...string) (int, string, string) {
		var stdout, stderr bytes.Buffer
		a := &app{stdin: strings.NewReader(""), stdout: &stdout, stderr: &stderr, getenv: exampleEnv(t)}
		return a.main(args), stdout.String(), stderr.String()
	}
	wf := `(let ((p (plan-load ".workflow/active/WFS-jwt-auth")))
  (step "implement"
    (let ((r (plan-run ".workflow/active/WFS-jwt-auth" (task (first (first (get p "order")))) (parallel 2))))
      (map (lambda (id) (list id (get (get r id) "status"))) (keys r)))))
`
	os.WriteFile("plan.sexp", []byte(wf), 0o644)
	os.WriteFile("typo.sexp", []byte("(plan-run \".workflow/active/WFS-jwt-auth\"\n  (paralel 2))\n"), 0o644)
	if code, out, errs := run("check", "plan.sexp"); code != exitOK || out != "plan.sexp: ok\n" || errs != "" {
		t.Errorf("check plan.sexp: exit %d\n%s\n%s", code, out, errs)
	}
	if code, out, errs := run("check", "typo.sexp"); code == exitOK || !strings.Contains(out+errs, "typo.sexp:2:3: error: Unknown 'plan-run' option: paralel (expected task, parallel or agent)") {
		t.Errorf("check typo.sexp: exit %d\n%s\n%s", code, out, errs)
	}
	code, out, errs := run("run", "--provider", "echo", "plan.sexp")
	if code != exitOK || out != "((\"IMPL-001\" \"completed\"))\n" {
		t.Fatalf("run: exit %d\n%s\n%s", code, out, errs)
	}
	code, out, _ = run("status")
	if code != exitOK || !strings.Contains(out, `[completed] step "implement"`) {
		t.Fatalf("status: exit %d\n%s", code, out)
	}
	// The plan-run is a step below the step that called it, and IMPL-001
	// is below the plan-run.
	lines := strings.Split(out, "\n")
	indent := func(l string) int { return len(l) - len(strings.TrimLeft(l, " ")) }
	for i, l := range lines {
		if strings.Contains(l, `step "implement"`) {
			if i+2 >= len(lines) || !strings.HasSuffix(lines[i+1], `[completed] step "plan-run WFS-jwt-auth"`) || indent(lines[i+1]) != indent(l)+2 ||
				!strings.HasSuffix(lines[i+2], `[completed] step "IMPL-001"`) || indent(lines[i+2]) != indent(l)+4 {
				t.Errorf("IMPL-001 is not below the plan-run of step implement:\n%s", out)
			}
		}
	}
}

// TestPlanWarningsCountedOutsideCheck: plan check lists a plan's warnings;
// plan status, todo and run count them in one line instead of repeating
// them; errors are shown in full by all of them.
func TestPlanWarningsCountedOutsideCheck(t *testing.T) {
	dir := t.TempDir()
	task := filepath.Join(dir, ".workflow/active/WFS-warn/.task/IMPL-1.json")
	if err := os.MkdirAll(filepath.Dir(task), 0o755); err != nil {
		t.Fatal(err)
	}
	write := func(text string) {
		t.Helper()
		if err := os.WriteFile(task, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(`{"id": "IMPL-1", "title": "Form", "status": "pending", "meta": {"type": "featur"},
 "context": {"requirements": ["A form"], "focus_paths": ["src/login"]}, "flow_control": {}}`)
	env := map[string]string{"HOME": dir}
	count := ".workflow/active/WFS-warn: 2 warnings (evalrun plan check shows them)\n"
	if code, _, errs := runIn(t, dir, env, "plan", "check"); code != exitOK || strings.Count(errs, ": warning: ") != 2 || strings.Contains(errs, count) {
		t.Errorf("check: exit %d\n%s", code, errs)
	}
	for _, args := range [][]string{{"plan", "status"}, {"plan", "todo"}, {"plan", "run", "--dry-run"}} {
		code, _, errs := runIn(t, dir, env, args...)
		if code != exitOK || !strings.HasPrefix(errs, count) || strings.Contains(errs, "warning:") {
			t.Errorf("%v: exit %d\n%s", args, code, errs)
		}
	}
	write(`{"id": "IMPL-1", "title": "Form", "status": "pendng", "meta": {"type": "featur"}, "context": {}, "flow_control": {}}`)
	code, _, errs := runIn(t, dir, env, "plan", "status")
	if code != exitSyntax || !strings.Contains(errs, `error: status "pendng"`) || strings.Contains(errs, "warning") {
		t.Errorf("status of a plan with an error: exit %d\n%s", code, errs)
	}
}
