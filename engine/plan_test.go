package engine_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/evalrun/evalrun/engine"
	"github.com/evalrun/evalrun/journal"
	"github.com/evalrun/evalrun/plan"
)

// copyExample copies examples/plan into a temporary project.
func copyExample(t *testing.T) string {
	t.Helper()
	src, err := filepath.Abs("../examples/plan")
	if err != nil {
		t.Fatal(err)
	}
	dst := t.TempDir()
	err = filepath.WalkDir(src, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, path)
		if d.IsDir() {
			return os.MkdirAll(filepath.Join(dst, rel), 0o755)
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dst, rel), data, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
	return dst
}

// fakeAgents answers agent calls and logs each one, one line
// "NAME: FIRST LINE OF PROMPT", to a file shared across processes; block
// makes a call whose prompt contains it wait until its context ends.
type fakeAgents struct {
	mu      sync.Mutex
	log     string
	block   string
	marker  string
	prompts map[string][]string
}

func (f *fakeAgents) Agents() []string { return plan.BuiltinAgents }

func (f *fakeAgents) RunAgent(ctx context.Context, name, prompt, dir string, readOnly bool) (plan.Answer, error) {
	first, _, _ := strings.Cut(strings.TrimSpace(prompt), "\n")
	if i := strings.Index(prompt, "# IMPL-"); i >= 0 && strings.HasPrefix(first, "You ") {
		first, _, _ = strings.Cut(prompt[i:], "\n")
	}
	if f.block != "" && strings.Contains(prompt, f.block) {
		_ = os.WriteFile(f.marker, nil, 0o644)
		<-ctx.Done()
		return plan.Answer{}, ctx.Err()
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.prompts == nil {
		f.prompts = map[string][]string{}
	}
	f.prompts[name] = append(f.prompts[name], prompt)
	if f.log != "" {
		fh, err := os.OpenFile(f.log, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
		if err != nil {
			return plan.Answer{}, err
		}
		fmt.Fprintf(fh, "%s: %s\n", name, first)
		fh.Close()
	}
	return plan.Answer{Text: name + " did it", Tokens: 42}, nil
}

// runPlan opens an engine on root and runs its plan.
func runPlan(t *testing.T, root string, opts engine.Options, r engine.PlanRun) (*plan.Outcome, error) {
	t.Helper()
	opts.WorkDir = root
	opts.Getenv = func(k string) string {
		if k == "HOME" {
			return root
		}
		return os.Getenv(k)
	}
	e, err := engine.Open(opts)
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	dir, err := plan.FindSession(root)
	if err != nil {
		t.Fatal(err)
	}
	p, diags, err := plan.Load(dir, e.Workspace().PlanOptions(r.Agents))
	if err != nil || diags.HasErrors() {
		t.Fatalf("load: %v\n%s", err, diags)
	}
	out, err := e.RunPlan(context.Background(), p, r)
	e.Finish(nil, err)
	return out, err
}

func lastTree(t *testing.T, root string) (*journal.RunRecord, []*journal.Node) {
	t.Helper()
	s, err := journal.Open(filepath.Join(root, journal.DefaultPath))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	rec, err := s.Resolve("last")
	if err != nil {
		t.Fatal(err)
	}
	tree, err := s.Tree(rec.ID)
	if err != nil {
		t.Fatal(err)
	}
	return rec, tree
}

func TestPlanRunUnderEcho(t *testing.T) {
	root := copyExample(t)
	var stderr bytes.Buffer
	out, err := runPlan(t, root, engine.Options{Provider: "echo", Stderr: &stderr, Journal: &engine.JournalInfo{WorkflowPath: "plan"}}, engine.PlanRun{Parallel: 3})
	if err != nil {
		t.Fatalf("%v\n%s", err, stderr.String())
	}
	if len(out.Completed) != 6 {
		t.Errorf("completed %v", out.Completed)
	}
	_, tree := lastTree(t, root)
	var top []string
	for _, n := range tree {
		if n.ParentID == 0 {
			top = append(top, n.Kind+" "+n.Name+" "+n.Status)
		}
	}
	slices.Sort(top)
	want := []string{"step IMPL-001 completed", "step IMPL-002.1 completed", "step IMPL-002.2 completed", "step IMPL-003.1 completed", "step IMPL-003.2 completed", "step IMPL-004 completed"}
	if !slices.Equal(top, want) {
		t.Errorf("journal nodes %q", top)
	}
	// The role templates were used, the project's plan/doc-generator too.
	var tasks []string
	journal.Walk(tree, func(n *journal.Node, _ int) bool {
		if n.Kind == journal.KindTask {
			tasks = append(tasks, n.Name)
		}
		return true
	})
	slices.Sort(tasks)
	tasks = slices.Compact(tasks)
	if want := []string{"plan/action-planning-agent", "plan/agent-step", "plan/code-developer", "plan/doc-generator", "plan/test-fix-agent"}; !slices.Equal(tasks, want) {
		t.Errorf("templates %q", tasks)
	}
}

func TestPlanRunUnderFakeAgents(t *testing.T) {
	root := copyExample(t)
	cfg := "[plan.agents]\n\"@code-developer\" = \"claude\"\n\"@action-planning-agent\" = \"gemini\"\n\"@test-fix-agent\" = \"codex\"\n"
	if err := os.WriteFile(filepath.Join(root, ".evalrun", "config.toml"), []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	fa := &fakeAgents{}
	if _, err := runPlan(t, root, engine.Options{Journal: &engine.JournalInfo{WorkflowPath: "plan"}}, engine.PlanRun{Agents: fa}); err != nil {
		t.Fatal(err)
	}
	count := map[string]int{}
	for k, v := range fa.prompts {
		count[k] = len(v)
	}
	// gemini: IMPL-001 ([plan.agents]), the ccw cli step, IMPL-004
	// (meta.tool, its @doc-generator being unmapped); claude: IMPL-002.1
	// ([plan.agents] before its meta.tool codex), IMPL-002.2, IMPL-003.1;
	// codex: IMPL-003.2.
	if want := map[string]int{"gemini": 3, "claude": 3, "codex": 1}; fmt.Sprint(count) != fmt.Sprint(want) {
		t.Errorf("agent calls %v", count)
	}
	planner := fa.prompts["gemini"][0]
	if !strings.Contains(planner, "# Implementation Plan: JWT authentication") || strings.Contains(planner, "## Acceptance criteria") {
		t.Errorf("planning prompt outside its slice:\n%s", planner)
	}
	tester := fa.prompts["codex"][0]
	if !strings.Contains(tester, "- npm test -- tests/auth/") || strings.Contains(tester, "## Requirements") {
		t.Errorf("test-fix prompt outside its slice:\n%s", tester)
	}
}

func TestPlanAgentWithoutRunner(t *testing.T) {
	root := copyExample(t)
	var stderr bytes.Buffer
	_, err := runPlan(t, root, engine.Options{Stderr: &stderr}, engine.PlanRun{Tasks: []string{"IMPL-001"}, Agent: "claude"})
	var fe *plan.FailedError
	if !errors.As(err, &fe) {
		t.Fatalf("err = %v", err)
	}
	if !strings.Contains(stderr.String(), "plan: IMPL-001 failed: configuration_error: agent 'claude' is not available") {
		t.Errorf("stderr:\n%s", stderr.String())
	}
}

// TestPlanHelperProcess is the plan run that TestPlanKillAndResume kills:
// it runs only when started by that test.
func TestPlanHelperProcess(t *testing.T) {
	root := os.Getenv("EVALRUN_PLAN_HELPER_ROOT")
	if root == "" {
		t.Skip("helper process")
	}
	fa := &fakeAgents{log: filepath.Join(root, "spent.log"), block: "# IMPL-002.1:", marker: filepath.Join(root, "blocking")}
	_, _ = runPlan(t, root, engine.Options{Journal: &engine.JournalInfo{WorkflowPath: "plan"}}, engine.PlanRun{Agents: fa, Agent: "claude"})
}

// TestPlanKillAndResume kills a plan run with SIGKILL in the middle of a
// task (after its first agent call completed) and resumes it: no
// completed task runs again, the completed agent call of the interrupted
// task is replayed from the journal instead of spent again, and the plan
// files are consistent at every point.
func TestPlanKillAndResume(t *testing.T) {
	root := copyExample(t)
	cmd := exec.Command(os.Args[0], "-test.run=^TestPlanHelperProcess$", "-test.count=1")
	cmd.Env = append(os.Environ(), "EVALRUN_PLAN_HELPER_ROOT="+root)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(60 * time.Second)
	for {
		if _, err := os.Stat(filepath.Join(root, "blocking")); err == nil {
			break
		}
		if time.Now().After(deadline) {
			_ = cmd.Process.Kill()
			t.Fatalf("the helper never reached IMPL-002.1:\n%s", out.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
	if err := cmd.Process.Kill(); err != nil { // SIGKILL
		t.Fatal(err)
	}
	_ = cmd.Wait()
	before, _ := os.ReadFile(filepath.Join(root, "spent.log"))
	if want := "claude: # IMPL-001: Design the token model\ngemini: PURPOSE: find where login issues credentials\n"; string(before) != want {
		t.Fatalf("calls before the kill:\n%s", before)
	}
	dir, _ := plan.FindSession(root)
	p, diags, err := plan.Load(dir, plan.Options{})
	if err != nil || diags.HasErrors() {
		t.Fatalf("plan files after the kill: %v %s", err, diags)
	}
	for id, want := range map[string]string{"IMPL-001": "completed", "IMPL-002.1": "active", "IMPL-002.2": "pending"} {
		if tk, _ := p.Task(id); tk.Status != want {
			t.Errorf("%s is %s after the kill, want %s", id, tk.Status, want)
		}
	}
	rec, _ := lastTree(t, root)
	fa := &fakeAgents{log: filepath.Join(root, "spent.log")}
	resume, err := engine.FindResume(engine.Options{WorkDir: root, Getenv: func(k string) string {
		if k == "HOME" {
			return root
		}
		return os.Getenv(k)
	}}, rec.ID)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := runPlan(t, root, engine.Options{Journal: &engine.JournalInfo{WorkflowPath: "plan"}, Resume: resume}, engine.PlanRun{Agents: fa, Agent: "claude", Resume: true}); err != nil {
		t.Fatal(err)
	}
	after, _ := os.ReadFile(filepath.Join(root, "spent.log"))
	resumed := strings.TrimPrefix(string(after), string(before))
	if strings.Contains(resumed, "IMPL-001") || strings.Contains(resumed, "PURPOSE: find where login") {
		t.Errorf("a completed call was spent again:\n%s", resumed)
	}
	if !strings.HasPrefix(resumed, "codex: # IMPL-002.1: Token generation\n") {
		t.Errorf("calls of the resumed run:\n%s", resumed)
	}
	_, tree := lastTree(t, root)
	replayed := 0
	journal.Walk(tree, func(n *journal.Node, _ int) bool {
		if n.Replayed {
			replayed++
			if n.Name != "agent:gemini" {
				t.Errorf("replayed %s", n.Name)
			}
		}
		return true
	})
	if replayed != 1 {
		t.Errorf("%d replayed calls, want 1", replayed)
	}
	p2, diags, err := plan.Load(dir, plan.Options{})
	if err != nil || diags.HasErrors() {
		t.Fatal(err, diags)
	}
	for _, tk := range p2.Tasks {
		if tk.Status != plan.StatusCompleted {
			t.Errorf("%s is %s", tk.ID, tk.Status)
		}
	}
}

func TestPlanToolsFromWorkflow(t *testing.T) {
	root := copyExample(t)
	e, err := engine.Open(engine.Options{WorkDir: root, Provider: "echo", Journal: &engine.JournalInfo{WorkflowPath: "<eval>"}, Getenv: func(k string) string {
		if k == "HOME" {
			return root
		}
		return os.Getenv(k)
	}})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	ctx := context.Background()
	v, err := e.Eval(ctx, "<eval>", `(let ((p (get (plan-load (dir ".workflow/active/WFS-jwt-auth")) "parsedContent")))
  (list (get (get p "session") "session_id") (length (get p "tasks")) (get p "order")))`)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := v.String(), `("WFS-jwt-auth" 8 (("IMPL-001") ("IMPL-002.1" "IMPL-003.1") ("IMPL-002.2" "IMPL-003.2") ("IMPL-004")))`; got != want {
		t.Errorf("plan-load: %s\nwant %s", got, want)
	}
	v, err = e.Eval(ctx, "<eval>", `(get (plan-run (dir ".workflow/active/WFS-jwt-auth") (task "IMPL-1") (parallel 2)) "parsedContent")`)
	if err != nil {
		t.Fatal(err)
	}
	if got := v.String(); !strings.HasPrefix(got, `(dict "IMPL-001" (dict "status" "completed" "answer" "# IMPL-001: Design the token model\n`) {
		t.Errorf("plan-run: %s", got)
	}
	e.Finish(nil, nil)
	_, tree := lastTree(t, root)
	var names []string
	journal.Walk(tree, func(n *journal.Node, _ int) bool {
		names = append(names, n.Kind+" "+n.Name)
		return true
	})
	if !slices.Contains(names, "step IMPL-001") || !slices.Contains(names, "tool plan-run") {
		t.Errorf("journal %q", names)
	}
}

func TestPlanRoleTemplateShadowed(t *testing.T) {
	root := copyExample(t)
	tmpl := `<task name="plan/action-planning-agent" type="atomic">
  <description>Our planning prompt</description>
  <inputs>
    <input name="task" type="dict">task</input>
    <input name="session" type="dict">session</input>
    <input name="parent" type="dict">parent</input>
    <input name="analysis" type="dict">analysis</input>
    <input name="dependency_summaries" type="string">summaries</input>
  </inputs>
  <instructions>OUR PLANNER for {{task.id}} ({{task.meta.priority}})</instructions>
</task>
`
	if err := os.WriteFile(filepath.Join(root, ".evalrun", "templates", "planner.xml"), []byte(tmpl), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := runPlan(t, root, engine.Options{Provider: "echo"}, engine.PlanRun{Tasks: []string{"IMPL-001"}})
	if err != nil {
		t.Fatal(err)
	}
	if got := out.Answers["IMPL-001"]; !strings.Contains(got, "OUR PLANNER for IMPL-001 (P0)") {
		t.Errorf("answer %q", got)
	}
}
