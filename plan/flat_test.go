package plan

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// flatTask is a task file in CCW's unified flat schema, as its planning
// agent writes it: no context and no flow_control.
const flatTask = `{
  "id": "IMPL-001",
  "title": "Implement the auth service",
  "description": "Implement 2 functions: [login, refresh]",
  "status": "pending",
  "type": "feature",
  "scope": "src/auth",
  "action": "Implement",
  "depends_on": [],
  "focus_paths": ["src/auth"],
  "convergence": {
    "criteria": ["2 functions exported: verify by grep -c export src/auth/auth.ts (exit code 0)"],
    "verification": "npm test -- auth",
    "definition_of_done": "Users can log in"
  },
  "files": [
    {"path": "src/auth/auth.ts", "action": "create", "change": "New auth service"},
    {"path": "src/users/users.ts", "action": "modify", "target": "validateUser", "change": "Update validateUser()"}
  ],
  "implementation": [
    "Step 1: write login",
    {"step": 2, "description": "Write refresh", "actions": ["Add refresh()"], "tdd_phase": "green"}
  ],
  "pre_analysis": [
    {"step": "load_context_package", "action": "Load", "commands": ["Read(README.md)"], "output_to": "context_package", "on_error": "skip_optional"}
  ],
  "artifacts": [],
  "inherited": {"from": "IMPL-000", "context": ["JWT chosen"]},
  "context_package_path": ".workflow/active/WFS-t/.process/context-package.json",
  "cli_execution": {"id": "WFS-t-IMPL-001", "strategy": "new"},
  "meta": {"agent": "@code-developer", "execution_config": {"method": "cli", "cli_tool": "codex", "enable_resume": true}},
  "test": {"commands": {"run_tests": "npm test", "run_coverage": "npm test -- --coverage"}}
}
`

// TestFlatSchemaTasks checks and runs tasks in CCW's unified flat
// schema: their top-level fields are read as the 6-field schema's, a
// task without status is pending, and meta.execution_config's cli_tool
// is the executor.
func TestFlatSchemaTasks(t *testing.T) {
	second := `{"id": "IMPL-002", "title": "Document it", "description": "Write docs", "depends_on": ["IMPL-001"],
 "convergence": {"criteria": [{"criterion": "Docs exist", "verification": "test -f docs/auth.md"}]},
 "implementation": ["Write docs/auth.md"]}`
	p, diags := writePlan(t, map[string]string{"IMPL-001": flatTask, "IMPL-002": second}, Options{})
	if len(diags) != 1 || !strings.Contains(diags.String(), `warning: focus_paths entry "src/auth" does not exist`) {
		t.Fatalf("diagnostics:\n%s", diags)
	}
	t1, _ := p.Task("IMPL-1")
	t2, _ := p.Task("IMPL-2")
	if t2.Status != StatusPending || t1.Tool != "codex" || t1.Type != "feature" {
		t.Errorf("IMPL-2 status %q, IMPL-1 tool %q type %q", t2.Status, t1.Tool, t1.Type)
	}
	fx := &fakeExec{}
	var stderr bytes.Buffer
	out, err := Run(context.Background(), p, fx, RunOptions{Now: fixedNow, Stderr: &stderr})
	if err != nil {
		t.Fatalf("run: %v\n%s", err, stderr.String())
	}
	if diff := cmp.Diff([]string{"IMPL-001", "IMPL-002"}, out.Completed); diff != "" {
		t.Errorf("completed (-want +got):\n%s", diff)
	}
	c := fx.tasks[0]
	if c.Agent != "codex" {
		t.Errorf("IMPL-001 ran on %q", c.Agent)
	}
	task := input(c, "task")
	for key, want := range map[string]any{
		"requirements":   []any{"Implement 2 functions: [login, refresh]"},
		"acceptance":     []any{"2 functions exported: verify by grep -c export src/auth/auth.ts (exit code 0)"},
		"focus_paths":    []any{"src/auth"},
		"target_files":   []any{"src/auth/auth.ts", "src/users/users.ts:validateUser"},
		"test_commands":  []any{"npm test", "npm test -- --coverage"},
		"implementation": "1. Step 1: write login\n2. Write refresh\n   - Add refresh()",
		"shared_context": "inherited: {\n  \"from\": \"IMPL-000\",\n  \"context\": [\n    \"JWT chosen\"\n  ]\n}",
	} {
		if diff := cmp.Diff(want, field(task, key)); diff != "" {
			t.Errorf("task.%s (-want +got):\n%s", key, diff)
		}
	}
	if got := field(input(fx.tasks[1], "task"), "acceptance"); !cmp.Equal(got, []any{"Docs exist: verify by test -f docs/auth.md"}) {
		t.Errorf("IMPL-002 acceptance %q", got)
	}
	if got := field(input(fx.tasks[1], "task"), "test_commands"); !cmp.Equal(got, []any{"test -f docs/auth.md"}) {
		t.Errorf("IMPL-002 test commands %q", got)
	}
	if got, want := readFile2(t, filepath.Join(p.Dir, ".task", "IMPL-001.json")), strings.Replace(flatTask, `"pending"`, `"completed"`, 1); got != want {
		t.Errorf("IMPL-001.json:\n%s", got)
	}
	if got := readFile2(t, filepath.Join(p.Dir, ".task", "IMPL-002.json")); got != strings.Replace(second, `["Write docs/auth.md"]}`, `["Write docs/auth.md"], "status": "completed"}`, 1) {
		t.Errorf("IMPL-002.json:\n%s", got)
	}
}

// TestMultiModuleIDs loads a plan of CCW's multi-module form, whose ids
// carry the module letter (IMPL-A1, IMPL-B1): ids sort by module, then
// number, and depend on each other across modules.
func TestMultiModuleIDs(t *testing.T) {
	task := func(id, deps string) string {
		return `{"id": "` + id + `", "title": "T ` + id + `", "status": "pending", "depends_on": [` + deps + `],
 "description": "d", "convergence": {"criteria": ["c"]}, "implementation": ["go"]}`
	}
	p, diags := writePlan(t, map[string]string{
		"IMPL-B1":  task("IMPL-B1", ""),
		"IMPL-A2":  task("IMPL-A2", `"IMPL-B1"`),
		"IMPL-A1":  task("IMPL-A1", ""),
		"IMPL-A10": task("IMPL-A10", `"IMPL-A2", "IMPL-A1"`),
	}, Options{})
	if len(diags) > 0 {
		t.Fatalf("diagnostics:\n%s", diags)
	}
	var ids []string
	for _, tk := range p.Tasks {
		ids = append(ids, tk.ID+"="+tk.Key)
	}
	if diff := cmp.Diff([]string{"IMPL-A1=IMPL-A1", "IMPL-A2=IMPL-A2", "IMPL-A10=IMPL-A10", "IMPL-B1=IMPL-B1"}, ids); diff != "" {
		t.Errorf("tasks (-want +got):\n%s", diff)
	}
	fx := &fakeExec{}
	var stderr bytes.Buffer
	out, err := Run(context.Background(), p, fx, RunOptions{Now: fixedNow, Stderr: &stderr})
	if err != nil {
		t.Fatalf("run: %v\n%s", err, stderr.String())
	}
	if diff := cmp.Diff([]string{"IMPL-A1", "IMPL-B1", "IMPL-A2", "IMPL-A10"}, out.Completed); diff != "" {
		t.Errorf("completed (-want +got):\n%s", diff)
	}
	// A zero-padded module id names the same task; a lower-case or
	// two-letter one is no id.
	_, diags = writePlan(t, map[string]string{"IMPL-A1": task("IMPL-A1", ""), "IMPL-A01": task("IMPL-A01", `"IMPL-C1"`), "IMPL-AB1": task("IMPL-AB1", "")}, Options{})
	got := diags.String()
	for _, want := range []string{"IMPL-A1.json names the same task as IMPL-A01.json", "file name IMPL-AB1.json is not IMPL-N.json", `depends_on names unknown task "IMPL-C1"`} {
		if !strings.Contains(got, want) {
			t.Errorf("diagnostics lack %q:\n%s", want, got)
		}
	}
}

// TestOlderCCWShapes reads what earlier CCW planning agents wrote: an
// implementation_approach that is one object, and {{NAME}} placeholders
// of their templates left unfilled.
func TestOlderCCWShapes(t *testing.T) {
	task := `{"id": "IMPL-1", "title": "T", "status": "pending", "meta": {"agent": "@code-developer"}, "context": {"requirements": ["r"]},
 "flow_control": {
  "pre_analysis": [{"step": "load_context_package", "commands": ["Read({{context_package_path}})"], "output_to": "pkg", "on_error": "skip_optional"}],
  "implementation_approach": {"task_description": "Implement following the spec", "modification_points": ["Apply requirements"], "logic_flow": ["Load spec", "Implement"]},
  "target_files": ["src/a.ts:run:1-5"]}}`
	p, diags := writePlan(t, map[string]string{"IMPL-1": task}, Options{})
	if diags.HasErrors() {
		t.Fatalf("diagnostics:\n%s", diags)
	}
	if got := diags.String(); !strings.Contains(got, "warning: unfilled placeholder {{context_package_path}} in flow_control.pre_analysis[0].commands[0]") {
		t.Errorf("diagnostics:\n%s", got)
	}
	fx := &fakeExec{}
	var stderr bytes.Buffer
	if _, err := Run(context.Background(), p, fx, RunOptions{Now: fixedNow, Stderr: &stderr}); err != nil {
		t.Fatalf("run: %v\n%s", err, stderr.String())
	}
	if got, want := field(input(fx.tasks[0], "task"), "implementation"), "1. Implement following the spec\n   - Apply requirements\n   - Load spec\n   - Implement"; got != want {
		t.Errorf("implementation %q, want %q", got, want)
	}
}

// TestStatusSynonymHint names evalrun's status for the statuses of CCW's
// unified schema that it spells otherwise.
func TestStatusSynonymHint(t *testing.T) {
	_, diags := writePlan(t, map[string]string{"IMPL-1": `{"id": "IMPL-1", "title": "T", "status": "in_progress", "description": "d"}`}, Options{})
	if got := diags.String(); !strings.Contains(got, `error: status "in_progress" is not one of pending active completed blocked container (CCW's unified schema writes "in_progress" for what is "active" here)`) {
		t.Errorf("diagnostics:\n%s", got)
	}
}

// TestFlatPreAnalysisSteps runs the pre_analysis steps the unified
// schema allows: on_error "continue" goes on as skip_optional does, and a
// step with an action and no command is an instruction to the executor.
func TestFlatPreAnalysisSteps(t *testing.T) {
	task := `{"id": "IMPL-1", "title": "T", "description": "d", "meta": {"agent": "@code-developer"},
 "pre_analysis": [
  {"step": "broken", "action": "List", "command": "bash(exit 2)", "output_to": "b", "on_error": "continue"},
  {"step": "understand", "action": "Understand the login flow", "output_to": "u"}
 ],
 "implementation": ["go"]}`
	opts := Options{AgentMap: map[string]string{"@code-developer": "claude"}}
	p, diags := writePlan(t, map[string]string{"IMPL-1": task}, opts)
	if diags.HasErrors() || !strings.Contains(diags.String(), `warning: pre_analysis step "understand" has an action and no command`) {
		t.Fatalf("diagnostics:\n%s", diags)
	}
	fx := &fakeExec{}
	var stderr bytes.Buffer
	if _, err := Run(context.Background(), p, fx, RunOptions{Options: opts, Stderr: &stderr}); err != nil {
		t.Fatalf("run: %v\n%s", err, stderr.String())
	}
	if !strings.Contains(stderr.String(), `pre_analysis step "broken" failed and is skipped (on_error continue)`) {
		t.Errorf("stderr:\n%s", stderr.String())
	}
	if len(fx.agents) != 1 || fx.agents[0].Agent != "claude" || !strings.HasSuffix(fx.agents[0].Prompt, "\n\nUnderstand the login flow") {
		t.Fatalf("agent calls %+v", fx.agents)
	}
	if got := field(input(fx.tasks[0], "analysis"), "u"); got != "analysis by claude" {
		t.Errorf("u = %q", got)
	}
	// In the six-field schema a step without a command stays an error.
	_, diags = writePlan(t, map[string]string{"IMPL-1": stepTask("IMPL-1", `{"step": "s", "action": "Look"}`, `"go"`)}, Options{})
	if !strings.Contains(diags.String(), `error: pre_analysis step "s" has no "command" or "commands"`) {
		t.Errorf("diagnostics:\n%s", diags)
	}
}

// TestStringStepNumbers orders implementation steps numbered with
// strings, as the unified schema allows ("step": "2", "Step 1").
func TestStringStepNumbers(t *testing.T) {
	task := `{"id": "IMPL-1", "title": "T", "description": "d",
 "implementation": [{"step": "2", "description": "second", "depends_on": ["1"]}, {"step": "Step 1", "description": "first"}, {"step": "1", "description": "again"}]}`
	p, diags := writePlan(t, map[string]string{"IMPL-1": task}, Options{})
	if got := diags.String(); !strings.Contains(got, `implementation_approach step number 1 is not unique`) {
		t.Errorf("diagnostics:\n%s", got)
	}
	tk, _ := p.Task("IMPL-1")
	var nums []int
	for _, s := range tk.Approach {
		nums = append(nums, s.Number)
	}
	if !cmp.Equal(nums, []int{2, 1, 1}) {
		t.Errorf("numbers %v", nums)
	}
}

// TestFixTaskIDs reads the fix tasks CCW's test cycle adds to a session,
// IMPL-fix-N with meta.type test-fix-iteration: they follow the plan's
// tasks and may depend on them.
func TestFixTaskIDs(t *testing.T) {
	fix := `{"id": "IMPL-fix-1", "title": "Fix integration test failures - Iteration 1", "status": "pending",
 "meta": {"type": "test-fix-iteration", "agent": "@test-fix-agent", "iteration": "1", "parent_task": "IMPL-2"},
 "context": {"requirements": ["Fix 1 failure"], "depends_on": ["IMPL-2"], "fix_strategy": {"approach": "check expiry"}},
 "flow_control": {"pre_analysis": [{"step": "load_analysis_context", "commands": ["Read(.process/iteration-1-analysis.md)"], "output_to": "a", "on_error": "skip_optional", "note": "n"}],
  "implementation_approach": [{"step": 1, "title": "Apply fixes"}], "exit_conditions": {"success": "tests_pass_rate >= 95%"}}}`
	p, diags := writePlan(t, map[string]string{"IMPL-fix-1": fix, "IMPL-2": stepTask("IMPL-2", "", `"go"`), "IMPL-10": stepTask("IMPL-10", "", `"go"`)}, Options{})
	if len(diags) > 0 {
		t.Fatalf("diagnostics:\n%s", diags)
	}
	var ids []string
	for _, tk := range p.Tasks {
		ids = append(ids, tk.Key)
	}
	if !cmp.Equal(ids, []string{"IMPL-2", "IMPL-10", "IMPL-fix-1"}) {
		t.Errorf("ids %v", ids)
	}
	if tk, _ := p.Task("IMPL-fix-1"); !cmp.Equal(tk.DependsOn, []string{"IMPL-2"}) {
		t.Errorf("depends on %v", tk.DependsOn)
	}
	// Its Read names a file of the session, relative to the session.
	if err := os.MkdirAll(filepath.Join(p.Dir, ".process"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(p.Dir, ".process", "iteration-1-analysis.md"), []byte("root cause"), 0o644); err != nil {
		t.Fatal(err)
	}
	fx := &fakeExec{}
	var stderr bytes.Buffer
	if _, err := Run(context.Background(), p, fx, RunOptions{Stderr: &stderr}); err != nil {
		t.Fatalf("run: %v\n%s", err, stderr.String())
	}
	if got := field(input(fx.tasks[2], "analysis"), "a"); got != "root cause" {
		t.Errorf("analysis a = %q (calls %v)\n%s", got, fx.taskIDs(), stderr.String())
	}
}

// TestFlatFocusPathChecks checks the focus_paths of flat tasks as those
// of the six-field schema: cohesion (which panicked on them) and
// existence; a focus_paths string is one path.
func TestFlatFocusPathChecks(t *testing.T) {
	flat := func(id, focus string) string {
		return `{"id": "` + id + `", "title": "t", "description": "d", "focus_paths": ` + focus + `, "implementation": ["go"]}`
	}
	six := `{"id": "IMPL-3", "title": "t", "status": "pending", "meta": {}, "context": {"focus_paths": "src"}, "flow_control": {}}`
	p, diags := writePlan(t, map[string]string{"IMPL-1": flat("IMPL-1", `["src"]`), "IMPL-2": flat("IMPL-2", `["src", "missing"]`), "IMPL-3": six}, Options{})
	got := diags.String()
	for _, want := range []string{
		`warning: file cohesion: "src" is in the focus_paths of IMPL-1 and IMPL-2`,
		`warning: file cohesion: "src" is in the focus_paths of IMPL-1 and IMPL-3`,
		`warning: focus_paths entry "missing" does not exist`,
	} {
		if !strings.Contains(got, want) {
			t.Errorf("diagnostics lack %q:\n%s", want, got)
		}
	}
	if tk, _ := p.Task("IMPL-3"); !cmp.Equal(tk.FocusPaths, []string{"src"}) {
		t.Errorf("IMPL-3 focus %v", tk.FocusPaths)
	}
}

// TestDependsOnHints explains two mistakes of CCW's planners in
// depends_on: an id in lower case, and a cross-module reference left
// unresolved.
func TestDependsOnHints(t *testing.T) {
	p1 := `{"id": "IMPL-A1", "title": "t", "description": "d"}`
	p2 := `{"id": "IMPL-2", "title": "t", "description": "d", "depends_on": ["impl-a1", "CROSS::B::api-endpoint"]}`
	_, diags := writePlan(t, map[string]string{"IMPL-A1": p1, "IMPL-2": p2}, Options{})
	got := diags.String()
	for _, want := range []string{
		`depends_on names unknown task "impl-a1" (did you mean IMPL-A1?)`,
		`depends_on names unknown task "CROSS::B::api-endpoint" (a cross-module reference CCW's planner resolves to a task id when it merges the modules' plans: write the id, as IMPL-B1)`,
	} {
		if !strings.Contains(got, want) {
			t.Errorf("diagnostics lack %q:\n%s", want, got)
		}
	}
}
