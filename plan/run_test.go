package plan

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// copyTree copies the example project into a temporary directory.
func copyTree(t *testing.T, src string) string {
	t.Helper()
	dst := t.TempDir()
	if err := os.CopyFS(dst, os.DirFS(src)); err != nil {
		t.Fatal(err)
	}
	return dst
}

// fakeExec records calls and answers them; fail makes a task's call fail.
type fakeExec struct {
	mu     sync.Mutex
	tasks  []TaskCall
	agents []AgentCall
	nodes  []string
	fail   map[string]error
	hook   func(call TaskCall)
}

func (f *fakeExec) RunTask(ctx context.Context, call TaskCall) (Answer, error) {
	if f.hook != nil {
		f.hook(call)
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	f.tasks = append(f.tasks, call)
	if err := f.fail[call.TaskID]; err != nil {
		return Answer{}, err
	}
	return Answer{Text: "done " + call.TaskID, Tokens: 100}, nil
}

func (f *fakeExec) RunAgent(ctx context.Context, call AgentCall) (Answer, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.agents = append(f.agents, call)
	return Answer{Text: "analysis by " + call.Agent, Tokens: 10}, nil
}

func (f *fakeExec) Begin(ctx context.Context, kind, name string) (context.Context, func(string, error)) {
	f.mu.Lock()
	f.nodes = append(f.nodes, kind+" "+name)
	f.mu.Unlock()
	return ctx, func(string, error) {}
}

func (f *fakeExec) taskIDs() []string {
	var ids []string
	for _, c := range f.tasks {
		ids = append(ids, c.TaskID)
	}
	return ids
}

func loadExample(t *testing.T, root string) *Plan {
	t.Helper()
	dir, err := FindSession(root)
	if err != nil {
		t.Fatal(err)
	}
	p, diags, err := Load(dir, exampleOpts)
	if err != nil || diags.HasErrors() {
		t.Fatalf("load: %v %s", err, diags)
	}
	return p
}

var exampleOpts = Options{HasTemplate: func(n string) bool { return n == "plan/doc-generator" }}

var fixedNow = func() time.Time { return time.Date(2025, 1, 6, 14, 3, 0, 0, time.UTC) }

func input(call TaskCall, key string) any {
	for _, kv := range call.Inputs {
		if kv.Key == key {
			return kv.Value
		}
	}
	return nil
}

func field(v any, key string) any {
	for _, kv := range v.([]KV) {
		if kv.Key == key {
			return kv.Value
		}
	}
	return nil
}

func TestRunExampleEndToEnd(t *testing.T) {
	root := copyTree(t, "../examples/plan")
	p := loadExample(t, root)
	before, _ := os.ReadFile(filepath.Join(p.Dir, ".task", "IMPL-001.json"))
	fx := &fakeExec{}
	var stderr bytes.Buffer
	out, err := Run(context.Background(), p, fx, RunOptions{Options: exampleOpts, Now: fixedNow, RunID: "20250106-140300-a1b2", Stderr: &stderr})
	if err != nil {
		t.Fatalf("run: %v\n%s", err, stderr.String())
	}
	want := []string{"IMPL-001", "IMPL-002.1", "IMPL-002.2", "IMPL-003.1", "IMPL-003.2", "IMPL-004"}
	if diff := cmp.Diff(want, out.Completed); diff != "" {
		t.Errorf("completed (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(want, fx.taskIDs()); diff != "" {
		t.Errorf("task calls (-want +got):\n%s", diff)
	}
	// Only the status changed in the file: every other byte is kept.
	after, _ := os.ReadFile(filepath.Join(p.Dir, ".task", "IMPL-001.json"))
	if got, want := string(after), strings.Replace(string(before), `"status": "pending"`, `"status": "completed"`, 1); got != want {
		t.Errorf("IMPL-001.json after the run:\n%s", got)
	}
	// Containers completed.
	for _, id := range []string{"IMPL-002", "IMPL-003"} {
		p2 := loadExample(t, root)
		c, _ := p2.Task(id)
		if c.Status != StatusCompleted {
			t.Errorf("%s status %q", id, c.Status)
		}
	}
	// Executors and templates.
	byID := map[string]TaskCall{}
	for _, c := range fx.tasks {
		byID[c.TaskID] = c
	}
	for id, w := range map[string][2]string{
		"IMPL-001":   {"plan/action-planning-agent", ""},
		"IMPL-002.1": {"plan/code-developer", "codex"},
		"IMPL-003.2": {"plan/test-fix-agent", ""},
		"IMPL-004":   {"plan/doc-generator", "gemini"},
	} {
		if c := byID[id]; c.Template != w[0] || c.Agent != w[1] {
			t.Errorf("%s: template %q agent %q, want %q %q", id, c.Template, c.Agent, w[0], w[1])
		}
	}
	// Other meta fields reach the template as task.meta.
	if m := field(field(input(byID["IMPL-002.1"], "task"), "meta"), "cli_execute"); m != false {
		t.Errorf("task.meta.cli_execute = %v", m)
	}
	// ccw cli inside bash(…) ran as an agent call, read-only, in --cd,
	// with [token_model] replaced by the design summary.
	if len(fx.agents) != 1 {
		t.Fatalf("agent calls %+v", fx.agents)
	}
	ac := fx.agents[0]
	if ac.Agent != "gemini" || !ac.ReadOnly || ac.Dir != filepath.Join(p.Root, "src/auth") || !strings.Contains(ac.Prompt, "CONTEXT: # IMPL-001: Design the token model") {
		t.Errorf("agent call %+v", ac)
	}
	// The analysis outputs reach the template: commands joined by a blank line.
	an := input(byID["IMPL-001"], "analysis")
	cur := field(an, "current_auth").(string)
	if !strings.HasPrefix(cur, "export function handleLogin") || !strings.Contains(cur, "}\n\nexport function validateToken") {
		t.Errorf("current_auth = %q", cur)
	}
	// A command step of implementation_approach ran at its place.
	if got := out.Answers["IMPL-002.1"]; got != "done IMPL-002.1\n\nlogin.ts" {
		t.Errorf("IMPL-002.1 answer %q", got)
	}
	// Dependency summaries reach dependants.
	if ds := input(byID["IMPL-002.2"], "dependency_summaries").(string); !strings.Contains(ds, "# IMPL-002.1: Token generation") {
		t.Errorf("dependency_summaries %q", ds)
	}
	// The sections come ready-made: a heading with its text, or "".
	secs := input(byID["IMPL-002.2"], "sections")
	if got := field(secs, "dependencies").(string); !strings.HasPrefix(got, "\n\n## Work this task builds on\n# IMPL-002.1: Token generation\n") {
		t.Errorf("sections.dependencies %q", got)
	}
	if got := field(secs, "parent"); got != "\n\n## Parent task\nIMPL-002: Token issuing\n- Issue and refresh JWTs" {
		t.Errorf("sections.parent %q", got)
	}
	if got := field(secs, "requirements"); got != "\n\n## Requirements\n- Rotate refresh tokens" {
		t.Errorf("sections.requirements %q", got)
	}
	for _, k := range []string{"analysis", "test_commands"} {
		if got := field(secs, k); got != "" {
			t.Errorf("sections.%s of a task without it = %q, want \"\"", k, got)
		}
	}
	if got := field(input(byID["IMPL-001"], "sections"), "analysis").(string); !strings.HasPrefix(got, "\n\n## Analysis\n### current_auth\nexport function handleLogin") {
		t.Errorf("sections.analysis %q", got)
	}
	sum, _ := os.ReadFile(filepath.Join(p.Dir, ".summaries", "IMPL-002.1-summary.md"))
	wantSum := "# IMPL-002.1: Token generation\n\n- Agent: @code-developer via codex\n- Date: 2025-01-06T14:03:00Z\n- Run: 20250106-140300-a1b2\n\n## Answer\n\ndone IMPL-002.1\n\nlogin.ts\n\n## Files\n\n- src/auth/login.ts:handleLogin:1-3\n"
	if string(sum) != wantSum {
		t.Errorf("summary:\n%s", sum)
	}
	sess, _ := os.ReadFile(filepath.Join(p.Dir, "workflow-session.json"))
	if !strings.Contains(string(sess), "\"progress\": {\n    \"total\": 8,\n    \"pending\": 0,\n    \"active\": 0,\n    \"completed\": 8,") ||
		!strings.HasPrefix(string(sess), "{\n  \"session_id\": \"WFS-jwt-auth\",\n  \"project\": \"JWT authentication\",") {
		t.Errorf("workflow-session.json:\n%s", sess)
	}
	golden(t, "testdata/golden/todo_done.md", readFile2(t, filepath.Join(p.Dir, "TODO_LIST.md")))
}

func readFile2(t *testing.T, path string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

func golden(t *testing.T, path, got string) {
	t.Helper()
	if *update {
		_ = os.MkdirAll(filepath.Dir(path), 0o755)
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(string(want), got); diff != "" {
		t.Errorf("%s (-want +got):\n%s", path, diff)
	}
}

func TestFailureBlocksDependants(t *testing.T) {
	root := copyTree(t, "../examples/plan")
	p := loadExample(t, root)
	fx := &fakeExec{fail: map[string]error{"IMPL-003.1": errors.New("agent 'claude' exited with status 2: boom")}}
	out, err := Run(context.Background(), p, fx, RunOptions{Options: exampleOpts, Now: fixedNow})
	var fe *FailedError
	if !errors.As(err, &fe) || !slices.Equal(fe.Failed, []string{"IMPL-003.1"}) {
		t.Fatalf("err = %v", err)
	}
	if want := []string{"IMPL-001", "IMPL-002.1", "IMPL-002.2"}; !slices.Equal(out.Completed, want) {
		t.Errorf("completed %v", out.Completed)
	}
	if want := []string{"IMPL-003.2", "IMPL-004"}; !slices.Equal(out.NotStarted, want) {
		t.Errorf("not started %v", out.NotStarted)
	}
	p2 := loadExample(t, root)
	recs, _ := p2.ReadState()
	golden(t, "testdata/golden/todo_failed.md", p2.TodoList(recs))
	defer func() {
		// Named with --task, the failed task runs again; a plain run
		// leaves it blocked.
		fx.fail = nil
		fx.tasks = nil
		p3 := loadExample(t, root)
		if _, err := Run(context.Background(), p3, fx, RunOptions{Options: exampleOpts}); err != nil || len(fx.tasks) != 0 {
			t.Errorf("plain run: %v, ran %v", err, fx.taskIDs())
		}
		if _, err := Run(context.Background(), p3, fx, RunOptions{Options: exampleOpts, Tasks: []string{"IMPL-3.1"}}); err != nil || !slices.Equal(fx.taskIDs(), []string{"IMPL-003.1"}) {
			t.Errorf("retry: %v, ran %v", err, fx.taskIDs())
		}
		recs, _ := p3.ReadState()
		if r := recs["IMPL-3.1"]; r == nil || r.Reason != "" {
			t.Errorf("record after the retry %+v", r)
		}
	}()
	golden(t, "testdata/golden/status_failed.txt", p2.StatusText(recs))
	golden(t, "testdata/golden/status_failed.md", p2.StatusMarkdown(recs))
	js, _ := p2.StatusJSON(recs)
	golden(t, "testdata/golden/status_failed.json", string(js)+"\n")
}

func TestStatusGoldensMidway(t *testing.T) {
	root := copyTree(t, "../examples/plan")
	p := loadExample(t, root)
	fx := &fakeExec{}
	if _, err := Run(context.Background(), p, fx, RunOptions{Options: exampleOpts, Now: fixedNow, Tasks: []string{"IMPL-001", "IMPL-002.1"}}); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(fx.taskIDs(), []string{"IMPL-001", "IMPL-002.1"}) {
		t.Fatalf("ran %v", fx.taskIDs())
	}
	p2 := loadExample(t, root)
	recs, _ := p2.ReadState()
	golden(t, "testdata/golden/todo_midway.md", p2.TodoList(recs))
	golden(t, "testdata/golden/status_midway.txt", p2.StatusText(recs))
}

func TestTaskPatternSubtasks(t *testing.T) {
	root := copyTree(t, "../examples/plan")
	p := loadExample(t, root)
	fx := &fakeExec{}
	// IMPL-2.* names IMPL-002's subtasks; their dependency IMPL-001 is
	// not met, so nothing runs.
	out, err := Run(context.Background(), p, fx, RunOptions{Options: exampleOpts, Tasks: []string{"IMPL-2.*"}})
	if err != nil || len(fx.tasks) != 0 || !slices.Equal(out.NotStarted, []string{"IMPL-002.1", "IMPL-002.2"}) {
		t.Fatalf("err %v ran %v not started %v", err, fx.taskIDs(), out.NotStarted)
	}
	if _, err := Run(context.Background(), p, fx, RunOptions{Options: exampleOpts, Tasks: []string{"IMPL-1"}}); err != nil {
		t.Fatal(err)
	}
	if _, err := Run(context.Background(), p, fx, RunOptions{Options: exampleOpts, Tasks: []string{"IMPL-2.*"}}); err != nil {
		t.Fatal(err)
	}
	if want := []string{"IMPL-001", "IMPL-002.1", "IMPL-002.2"}; !slices.Equal(fx.taskIDs(), want) {
		t.Errorf("ran %v", fx.taskIDs())
	}
	_, err = Run(context.Background(), p, fx, RunOptions{Options: exampleOpts, Tasks: []string{"IMPL-9"}})
	if err == nil || err.Error() != "unknown task IMPL-9 (did you mean IMPL-001?)" {
		t.Errorf("err = %v", err)
	}
}

func TestDryRunWaves(t *testing.T) {
	root := copyTree(t, "../examples/plan")
	p := loadExample(t, root)
	fx := &fakeExec{}
	var stdout bytes.Buffer
	out, err := Run(context.Background(), p, fx, RunOptions{Options: exampleOpts, DryRun: true, Parallel: 3, Stdout: &stdout})
	if err != nil {
		t.Fatal(err)
	}
	want := "wave 1: IMPL-001\nwave 2: IMPL-002.1 IMPL-003.1\nwave 3: IMPL-002.2 IMPL-003.2\nwave 4: IMPL-004\n"
	if stdout.String() != want {
		t.Errorf("waves:\n%s", stdout.String())
	}
	if len(out.Waves) != 4 || len(fx.agents) != 0 {
		t.Errorf("waves %v agents %v", out.Waves, fx.agents)
	}
	// Step outputs are placeholders; no file was written.
	an := field(input(fx.tasks[0], "analysis"), "current_auth").(string)
	if an != "[dry run: bash(cat src/auth/login.ts)]\n\n[dry run: bash(cat src/middleware/auth.ts)]" {
		t.Errorf("analysis %q", an)
	}
	if _, err := os.Stat(filepath.Join(p.Dir, "TODO_LIST.md")); err == nil {
		t.Error("dry run wrote TODO_LIST.md")
	}
}

// TestParallelNeverOverlaps runs the plan with --parallel 3 under an
// executor that notes which focus paths are busy: two tasks whose focus
// paths overlap must never run at once, and some tasks must overlap in
// time.
func TestParallelNeverOverlaps(t *testing.T) {
	for range 3 {
		root := copyTree(t, "../examples/plan")
		p := loadExample(t, root)
		var mu sync.Mutex
		busy := map[string][]string{}
		maxAtOnce := 0
		var violations []string
		fx := &fakeExec{}
		fx.hook = func(call TaskCall) {
			task, _ := p.Task(call.TaskID)
			mu.Lock()
			for other, paths := range busy {
				if overlap(paths, task.FocusPaths) {
					violations = append(violations, other+" with "+call.TaskID)
				}
			}
			busy[call.TaskID] = task.FocusPaths
			maxAtOnce = max(maxAtOnce, len(busy))
			mu.Unlock()
			// Until two tasks have been seen at once, a task waits (up
			// to 0.6 s) for another to start beside it, so that a loaded
			// machine's slow pre_analysis commands cannot keep the
			// tasks of a wave from overlapping.
			for i := 0; i < 60; i++ {
				mu.Lock()
				seen := maxAtOnce >= 2
				mu.Unlock()
				if seen {
					break
				}
				time.Sleep(10 * time.Millisecond)
			}
			time.Sleep(10 * time.Millisecond)
			mu.Lock()
			delete(busy, call.TaskID)
			mu.Unlock()
		}
		if _, err := Run(context.Background(), p, fx, RunOptions{Options: exampleOpts, Parallel: 3}); err != nil {
			t.Fatal(err)
		}
		if len(violations) > 0 {
			t.Fatalf("overlapping tasks ran at once: %v", violations)
		}
		if maxAtOnce < 2 {
			t.Errorf("at most %d task at once; want parallel runs", maxAtOnce)
		}
		if len(fx.tasks) != 6 {
			t.Errorf("ran %v", fx.taskIDs())
		}
	}
}

func TestOverlapTasksSerialised(t *testing.T) {
	// Two independent tasks on the same directory never run together even
	// with room for both.
	root := t.TempDir()
	dir := filepath.Join(root, ".workflow", "active", "WFS-x")
	mk := func(id, focus string) {
		data := fmt.Sprintf(`{"id": %q, "title": "t", "status": "pending", "meta": {"agent": "@code-developer"}, "context": {"focus_paths": [%q]}, "flow_control": {}}`, id, focus)
		_ = os.MkdirAll(filepath.Join(dir, ".task"), 0o755)
		if err := os.WriteFile(filepath.Join(dir, ".task", id+".json"), []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	mk("IMPL-1", "src")
	mk("IMPL-2", "src/a")
	mk("IMPL-3", "lib")
	_ = os.MkdirAll(filepath.Join(root, "src/a"), 0o755)
	_ = os.MkdirAll(filepath.Join(root, "lib"), 0o755)
	p, diags, err := Load(dir, Options{})
	if err != nil || diags.HasErrors() {
		t.Fatal(err, diags)
	}
	waves, _ := p.Waves(3, nil)
	var got []string
	for _, w := range waves {
		var ids []string
		for _, t := range w {
			ids = append(ids, t.ID)
		}
		got = append(got, strings.Join(ids, " "))
	}
	if want := []string{"IMPL-1 IMPL-3", "IMPL-2"}; !slices.Equal(got, want) {
		t.Errorf("waves %q", got)
	}
}

func TestManualInterventionAndResume(t *testing.T) {
	root := copyTree(t, "../examples/plan")
	path := filepath.Join(root, ".workflow/active/WFS-jwt-auth/.task/IMPL-003.1.json")
	data := readFile2(t, path)
	broken := strings.Replace(data, `"bash(wc -l src/middleware/auth.ts)"`, `"bash(test -f READY && wc -l src/middleware/auth.ts)"`, 1)
	broken = strings.Replace(broken, `"retry_once"`, `"manual_intervention"`, 1)
	if err := os.WriteFile(path, []byte(broken), 0o644); err != nil {
		t.Fatal(err)
	}
	p := loadExample(t, root)
	fx := &fakeExec{}
	_, err := Run(context.Background(), p, fx, RunOptions{Options: exampleOpts})
	var me *ManualError
	if !errors.As(err, &me) || me.TaskID != "IMPL-003.1" || me.Step != "read_middleware" {
		t.Fatalf("err = %v", err)
	}
	if !strings.Contains(err.Error(), "continue with: evalrun plan run --resume") {
		t.Errorf("message %q", err)
	}
	p2 := loadExample(t, root)
	if tk, _ := p2.Task("IMPL-003.1"); tk.Status != StatusActive {
		t.Errorf("status %q, want active", tk.Status)
	}
	// Without --resume the active task is refused.
	if _, err := Run(context.Background(), p2, fx, RunOptions{Options: exampleOpts}); err == nil || !strings.Contains(err.Error(), "IMPL-003.1 is active") {
		t.Errorf("err = %v", err)
	}
	// The person fixes the cause; --resume finishes the plan without
	// running completed tasks again.
	if err := os.WriteFile(filepath.Join(root, "READY"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	ranBefore := slices.Clone(fx.taskIDs())
	fx.tasks = nil
	if _, err := Run(context.Background(), p2, fx, RunOptions{Options: exampleOpts, Resume: true}); err != nil {
		t.Fatal(err)
	}
	for _, id := range fx.taskIDs() {
		if slices.Contains(ranBefore, id) {
			t.Errorf("%s ran again", id)
		}
	}
	if want := []string{"IMPL-003.1", "IMPL-003.2", "IMPL-004"}; !slices.Equal(fx.taskIDs(), want) {
		t.Errorf("resumed run ran %v", fx.taskIDs())
	}
}

func TestChangedFileStopsRun(t *testing.T) {
	root := copyTree(t, "../examples/plan")
	p := loadExample(t, root)
	fx := &fakeExec{}
	fx.hook = func(call TaskCall) {
		if call.TaskID == "IMPL-001" {
			path := filepath.Join(p.Dir, ".task", "IMPL-001.json")
			data, _ := os.ReadFile(path)
			_ = os.WriteFile(path, append(data, ' '), 0o644)
		}
	}
	_, err := Run(context.Background(), p, fx, RunOptions{Options: exampleOpts})
	var ce *ChangedError
	if !errors.As(err, &ce) || ce.Path != filepath.Join(p.Dir, ".task", "IMPL-001.json") {
		t.Fatalf("err = %v", err)
	}
	if len(fx.tasks) != 1 {
		t.Errorf("ran %v after the change", fx.taskIDs())
	}
	data := readFile2(t, filepath.Join(p.Dir, ".task", "IMPL-001.json"))
	if !strings.HasSuffix(data, "\n ") || !strings.Contains(data, `"status": "active"`) {
		t.Errorf("the changed file was overwritten:\n%s", data)
	}
}

// cmdExec is a fakeExec that is a CommandExecutor: it keeps what each
// command node recorded.
type cmdExec struct {
	fakeExec
	cmds []string
}

func (c *cmdExec) BeginCommand(ctx context.Context, name, command string) (context.Context, func(CommandResult, error)) {
	return ctx, func(res CommandResult, err error) {
		c.mu.Lock()
		defer c.mu.Unlock()
		c.cmds = append(c.cmds, fmt.Sprintf("%s %s: %+v %v", name, command, res, err))
	}
}

// TestCommandStepNodes: an implementation step's command is a node of its
// own, "ID step N": through BeginCommand with its output, agent, exit
// status and standard error, or through Begin("step") for an Executor
// that is not a CommandExecutor.
func TestCommandStepNodes(t *testing.T) {
	root := copyTree(t, "../examples/plan")
	p := loadExample(t, root)
	t1, _ := p.Task("IMPL-003.1")
	t1.Approach = append(t1.Approach,
		ApproachStep{Number: 2, Command: "bash(echo out; echo err >&2)"},
		ApproachStep{Number: 3, Command: "gemini(review it)"},
		ApproachStep{Number: 4, Command: "bash(echo partial; exit 3)"})
	fx := &cmdExec{}
	_, err := Run(context.Background(), p, fx, RunOptions{Options: exampleOpts, Now: fixedNow, Tasks: []string{"IMPL-1", "IMPL-3.1"}})
	var fe *FailedError
	if !errors.As(err, &fe) {
		t.Fatalf("err = %v", err)
	}
	want := []string{
		"IMPL-003.1 step 2 bash(echo out; echo err >&2): {Output:out Agent: ExitCode:0 Stderr:err\n} <nil>",
		"IMPL-003.1 step 3 gemini(review it): {Output:analysis by gemini Agent:gemini ExitCode:-1 Stderr:} <nil>",
		"IMPL-003.1 step 4 bash(echo partial; exit 3): {Output:partial Agent: ExitCode:3 Stderr:} \"echo partial; exit 3\": exit status 3",
	}
	if diff := cmp.Diff(want, fx.cmds); diff != "" {
		t.Errorf("command nodes (-want +got):\n%s", diff)
	}

	root = copyTree(t, "../examples/plan")
	p = loadExample(t, root)
	plain := &fakeExec{}
	if _, err := Run(context.Background(), p, plain, RunOptions{Options: exampleOpts, Now: fixedNow, Tasks: []string{"IMPL-1", "IMPL-2.1"}}); err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(plain.nodes, "step IMPL-002.1 step 2") {
		t.Errorf("nodes %q", plain.nodes)
	}
}
