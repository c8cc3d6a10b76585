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
	"testing"
)

// writePlan writes a session with the given task files (id → JSON) under
// a new project and loads it.
func writePlan(t *testing.T, tasks map[string]string, opts Options) (*Plan, Diagnostics) {
	t.Helper()
	root := t.TempDir()
	dir := filepath.Join(root, ".workflow", "active", "WFS-t")
	if err := os.MkdirAll(filepath.Join(dir, ".task"), 0o755); err != nil {
		t.Fatal(err)
	}
	for id, body := range tasks {
		if err := os.WriteFile(filepath.Join(dir, ".task", id+".json"), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	p, diags, err := Load(dir, opts)
	if err != nil {
		t.Fatal(err)
	}
	return p, diags
}

func stepTask(id, pre, approach string) string {
	return fmt.Sprintf(`{"id": %q, "title": "T", "status": "pending", "meta": {"agent": "@code-developer"}, "context": {},
 "flow_control": {"pre_analysis": [%s], "implementation_approach": [%s]}}`, id, pre, approach)
}

func TestParseCommand(t *testing.T) {
	agents := BuiltinAgents
	for _, c := range []struct {
		in   string
		bare bool
		want string
	}{
		{`bash(ls -la src)`, false, `shell "ls -la src"`},
		{`gemini(Explain the code)`, false, `agent gemini "Explain the code" ro=false dir=""`},
		{`bash(ccw cli -p "PURPOSE: x" --tool qwen --mode analysis --cd src)`, false, `agent qwen "PURPOSE: x" ro=true dir="src"`},
		{`bash(ccw cli -p 'say "hi"' --tool codex --mode write --id exec-1)`, false, `agent codex "say \"hi\"" ro=false dir=""`},
		{`bash(cd src && ccw cli -p x --tool gemini)`, false, `shell "cd src && ccw cli -p x --tool gemini"`},
		{`ccw cli -p "Fix it" --tool codex`, true, `agent codex "Fix it" ro=false dir=""`},
		{`npm test`, true, `shell "npm test"`},
		{`bash(codex -C src --full-auto exec "x")`, true, `shell "codex -C src --full-auto exec \"x\""`},
		{`Read(docs/spec.md)`, false, `read "docs/spec.md"`},
		{`Read('docs/spec.md')`, false, `read "docs/spec.md"`},
		{`Bash(ls)`, false, `shell "ls"`},
		{`Read( )`, false, `error: command "Read( )" names no file to read`},
		{`Extract(brainstorm_artifacts.role_analyses[].files[].path)`, false, `instruction "Extract(brainstorm_artifacts.role_analyses[].files[].path)"`},
		{`mcp__code-index__find_files(pattern="*auth*") && mcp__code-index__search_code_advanced()`, false, `instruction "mcp__code-index__find_files(pattern=\"*auth*\") && mcp__code-index__search_code_advanced()"`},
		{`ccw cli -p 'PURPOSE: x' --tool gemini --mode analysis --cd src/auth`, false, `agent gemini "PURPOSE: x" ro=true dir="src/auth"`},
		{`bash(ccw cli -p "RULES: $(cat ~/.claude/t.txt) | x" --tool gemini --mode analysis)`, false, `agent gemini expand "-p \"RULES: $(cat ~/.claude/t.txt) | x\" --tool gemini --mode analysis" ro=true`},
		{"ccw cli -p \"`date` ${A:-b} $HOME\" --tool codex", false, "agent codex expand \"-p \\\"`date` ${A:-b} $HOME\\\" --tool codex\" ro=false"},
		{`bash(ccw cli -p "$(cat x)" --tool gemini; rm -f y)`, false, `shell "ccw cli -p \"$(cat x)\" --tool gemini; rm -f y"`},
		{`bash(ccw cli -p x --tool $T)`, false, `shell "ccw cli -p x --tool $T"`},
		{`gemnii(hello)`, false, `error: command "gemnii(hello)" is not bash(…), Read(…), an agent NAME(…) or ccw cli (agents: aider claude codex gemini qwen) (did you mean gemini?)`},
		{`ls src`, false, `error: command "ls src" is not bash(…), Read(…), an agent NAME(…) or ccw cli (agents: aider claude codex gemini qwen)`},
	} {
		c0, err := ParseCommand(c.in, agents, c.bare)
		var got string
		switch {
		case err != nil:
			got = "error: " + err.Error()
		case c0.Kind == CmdShell:
			got = fmt.Sprintf("shell %q", c0.Text)
		case c0.Expand != "":
			got = fmt.Sprintf("agent %s expand %q ro=%v", c0.Agent, c0.Expand, c0.ReadOnly)
		case c0.Kind == CmdRead:
			got = fmt.Sprintf("read %q", c0.Text)
		case c0.Kind == CmdInstruction:
			got = fmt.Sprintf("instruction %q", c0.Text)
		default:
			got = fmt.Sprintf("agent %s %q ro=%v dir=%q", c0.Agent, c0.Text, c0.ReadOnly, c0.Dir)
		}
		if got != c.want {
			t.Errorf("ParseCommand(%q) = %s\nwant %s", c.in, got, c.want)
		}
	}
}

func TestStepsAndPolicies(t *testing.T) {
	pre := `{"step": "value", "command": "bash(printf '%s' \"it's \\$(not run)\")", "output_to": "v"},
	 {"step": "quoted", "command": "bash(printf '[%s]' [v] [unknown] \"${X_UNSET_FOR_TEST:-shell}\")", "output_to": "q"},
	 {"step": "ask", "command": "gemini(Explain [v])", "output_to": "a"},
	 {"step": "optional", "command": "bash(exit 3)", "output_to": "o", "on_error": "skip_optional"}`
	approach := `{"step": 1, "title": "First"}, {"step": 2, "title": "Review", "command": "ccw cli -p \"Review [q]\" --tool codex --mode analysis", "output": "review"}, {"step": 3, "title": "Last", "depends_on": [2]}`
	p, diags := writePlan(t, map[string]string{"IMPL-1": stepTask("IMPL-1", pre, approach)}, Options{})
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	fx := &fakeExec{}
	var stderr bytes.Buffer
	out, err := Run(context.Background(), p, fx, RunOptions{Stderr: &stderr})
	if err != nil {
		t.Fatalf("%v\n%s", err, stderr.String())
	}
	an := input(fx.tasks[0], "analysis")
	if v := field(an, "v"); v != "it's $(not run)" {
		t.Errorf("v = %q", v)
	}
	// [v] is shell-quoted inside bash(…); an unknown [name] and ${NAME}
	// stay for the shell.
	if q := field(an, "q"); q != "[it's $(not run)][[unknown]][shell]" {
		t.Errorf("q = %q", q)
	}
	if a := field(an, "a"); a != "analysis by gemini" || fx.agents[0].Prompt != "Explain it's $(not run)" {
		t.Errorf("a = %q, prompt %q", a, fx.agents[0].Prompt)
	}
	if o := field(an, "o"); o != "" {
		t.Errorf("o = %q", o)
	}
	if !strings.Contains(stderr.String(), `warning: IMPL-1: pre_analysis step "optional" failed and is skipped (on_error skip_optional): "exit 3": exit status 3`) {
		t.Errorf("stderr:\n%s", stderr.String())
	}
	// Steps 1 and 3 are separate calls around the command step 2, which
	// ran as an agent call with [q] replaced.
	if len(fx.tasks) != 2 || input(fx.tasks[0], "task") == nil {
		t.Fatalf("calls %v", fx.taskIDs())
	}
	if impl := field(input(fx.tasks[0], "task"), "implementation"); impl != "1. First" {
		t.Errorf("first call steps %q", impl)
	}
	if impl := field(input(fx.tasks[1], "task"), "implementation"); impl != "3. Last" {
		t.Errorf("second call steps %q", impl)
	}
	if ac := fx.agents[1]; ac.Agent != "codex" || !ac.ReadOnly || ac.Prompt != "Review [it's $(not run)][[unknown]][shell]" {
		t.Errorf("review call %+v", ac)
	}
	if got := field(input(fx.tasks[1], "analysis"), "review"); got != "analysis by codex" {
		t.Errorf("review output %q", got)
	}
	if got := out.Answers["IMPL-1"]; got != "done IMPL-1\n\nanalysis by codex\n\ndone IMPL-1" {
		t.Errorf("answer %q", got)
	}
}

func TestFailAndRetryOnce(t *testing.T) {
	counter := `bash(n=$(cat n 2>/dev/null || echo 0); n=$((n+1)); echo $n > n; test $n -ge 2)`
	p, diags := writePlan(t, map[string]string{
		"IMPL-1":  stepTask("IMPL-1", `{"step": "flaky", "command": "`+counter+`", "on_error": "retry_once"}`, `"go"`),
		"IMPL-2":  stepTask("IMPL-2", `{"step": "broken", "commands": ["bash(true)", "bash(echo bad >&2; exit 1)", "bash(touch never)"]}`, `"go"`),
		"IMPL-10": stepTask("IMPL-10", "", `"go"`),
	}, Options{})
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	fx := &fakeExec{}
	var stderr bytes.Buffer
	out, err := Run(context.Background(), p, fx, RunOptions{Stderr: &stderr})
	var fe *FailedError
	if !errors.As(err, &fe) || !slices.Equal(fe.Failed, []string{"IMPL-2"}) {
		t.Fatalf("err = %v", err)
	}
	// IMPL-2 before IMPL-10: numeric order.
	if !slices.Equal(out.Completed, []string{"IMPL-1", "IMPL-10"}) {
		t.Errorf("completed %v", out.Completed)
	}
	if !strings.Contains(stderr.String(), `plan: IMPL-2 failed: pre_analysis step "broken": "echo bad >&2; exit 1": exit status 1: bad`) {
		t.Errorf("stderr:\n%s", stderr.String())
	}
	if _, err := os.Stat(filepath.Join(p.Root, "never")); err == nil {
		t.Error("the commands list went on after the first failure")
	}
	if tk, _ := p.Task("IMPL-2"); tk.Status != StatusBlocked {
		t.Errorf("IMPL-2 %s", tk.Status)
	}
	if n, _ := os.ReadFile(filepath.Join(p.Root, "n")); string(n) != "2\n" {
		t.Errorf("flaky ran %q times", n)
	}
}

func TestMaxTasksOption(t *testing.T) {
	_, got := checkFixture(t, "testdata/check/too_many", Options{MaxTasks: 11})
	if got != "" {
		t.Errorf("with max_tasks 11:\n%s", got)
	}
	_, got = checkFixture(t, "testdata/check/too_many", Options{MaxTasks: 5})
	if got != "DIR: error: the plan has 11 tasks, more than the limit of 5 ([plan] max_tasks); split it into iterations\n" {
		t.Errorf("with max_tasks 5:\n%s", got)
	}
}

func TestWriteSessionInsertsProgress(t *testing.T) {
	root := t.TempDir()
	dir := filepath.Join(root, "WFS-x")
	_ = os.MkdirAll(filepath.Join(dir, ".task"), 0o755)
	_ = os.WriteFile(filepath.Join(dir, ".task", "IMPL-1.json"), []byte(stepTask("IMPL-1", "", `"go"`)), 0o644)
	orig := "{\n\t\"session_id\": \"WFS-x\",\n\t\"custom\": [1, 2]\n}\n"
	_ = os.WriteFile(filepath.Join(dir, "workflow-session.json"), []byte(orig), 0o644)
	p, diags, err := Load(dir, Options{})
	if err != nil || diags.HasErrors() {
		t.Fatal(err, diags)
	}
	if err := p.WriteSession(fixedNow()); err != nil {
		t.Fatal(err)
	}
	got := readFile2(t, filepath.Join(dir, "workflow-session.json"))
	want := "{\n\t\"session_id\": \"WFS-x\",\n\t\"custom\": [1, 2],\n\t\"progress\": {\n\t\t\"total\": 1,\n\t\t\"pending\": 1,\n\t\t\"active\": 0,\n\t\t\"completed\": 0,\n\t\t\"blocked\": 0,\n\t\t\"container\": 0,\n\t\t\"updated_at\": \"2025-01-06T14:03:00Z\"\n\t}\n}\n"
	if got != want {
		t.Errorf("got:\n%s", got)
	}
	// A second write replaces the member in place.
	if err := p.WriteSession(fixedNow()); err != nil {
		t.Fatal(err)
	}
	if again := readFile2(t, filepath.Join(dir, "workflow-session.json")); again != want {
		t.Errorf("second write:\n%s", again)
	}
}

func TestFindSessionFrom(t *testing.T) {
	root := t.TempDir()
	sub := filepath.Join(root, "src", "auth")
	_ = os.MkdirAll(sub, 0o755)
	_ = os.MkdirAll(filepath.Join(root, ".workflow", "active", "WFS-a"), 0o755)
	got, err := FindSessionFrom(sub)
	if err != nil || got != filepath.Join("..", "..", ".workflow", "active", "WFS-a") {
		t.Errorf("from a subdirectory: %q %v", got, err)
	}
	_ = os.MkdirAll(filepath.Join(root, ".workflow", "active", "WFS-b"), 0o755)
	_, err = FindSessionFrom(sub)
	var se *SessionError
	if !errors.As(err, &se) || len(se.Found) != 2 {
		t.Errorf("two sessions: %v", err)
	}
}

func TestNotStartedMessages(t *testing.T) {
	root := copyTree(t, "../examples/plan")
	p := loadExample(t, root)
	var stderr bytes.Buffer
	if _, err := Run(context.Background(), p, &fakeExec{}, RunOptions{Options: exampleOpts, Tasks: []string{"IMPL-2.*"}, Stderr: &stderr}); err != nil {
		t.Fatal(err)
	}
	want := "plan: IMPL-002.1 not started (waiting for IMPL-001)\nplan: IMPL-002.2 not started (waiting for IMPL-002.1, IMPL-001)\n"
	if stderr.String() != want {
		t.Errorf("stderr:\n%s", stderr.String())
	}
}

func TestOneRunAtATime(t *testing.T) {
	root := copyTree(t, "../examples/plan")
	p := loadExample(t, root)
	release := make(chan struct{})
	started := make(chan struct{})
	fx := &fakeExec{}
	fx.hook = func(TaskCall) {
		select {
		case <-started:
		default:
			close(started)
			<-release
		}
	}
	done := make(chan error)
	go func() {
		_, err := Run(context.Background(), p, fx, RunOptions{Options: exampleOpts, Tasks: []string{"IMPL-001"}})
		done <- err
	}()
	<-started
	p2 := loadExample(t, root)
	_, err := Run(context.Background(), p2, &fakeExec{}, RunOptions{Options: exampleOpts, Tasks: []string{"IMPL-3.1"}})
	var ue *UsageError
	if !errors.As(err, &ue) || !strings.HasPrefix(err.Error(), "another plan run holds "+p.Dir+" (pid ") {
		t.Errorf("second run: %v", err)
	}
	close(release)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}

// TestCCWPreAnalysisShapes runs the pre_analysis steps CCW's planning
// agent writes into every task: Read(…) of the context package, the
// agent-tool instructions Extract(…) and mcp__…(…), and a bare `ccw cli`
// command with --cd.
func TestCCWPreAnalysisShapes(t *testing.T) {
	pre := `{"step": "load_context_package", "action": "Load context package", "commands": ["Read(.workflow/active/WFS-t/.process/context-package.json)"], "output_to": "context_package", "on_error": "fail"},
	 {"step": "load_role_analysis_artifacts", "commands": ["Read(.workflow/active/WFS-t/.process/context-package.json)", "Extract(brainstorm_artifacts.role_analyses[].files[].path)"], "output_to": "roles", "on_error": "skip_optional"},
	 {"step": "missing", "commands": ["Read(no/such/file.md)"], "output_to": "missing", "on_error": "skip_optional"},
	 {"step": "gemini_analyze_auth", "command": "ccw cli -p 'PURPOSE: analyze [context_package]' --tool gemini --mode analysis --cd src", "output_to": "analysis_result"}`
	approach := `{"step": 1, "title": "Implement", "description": "d", "modification_points": ["m"], "logic_flow": ["l"], "depends_on": [], "output": "impl",
	  "command": "ccw cli -p 'Implement it' --resume WFS-t-IMPL-0 --tool codex --mode write --cd src"},
	 {"step": 2, "title": "Review", "depends_on": [1]}`
	opts := Options{AgentMap: map[string]string{"@code-developer": "claude"}}
	p, diags := writePlan(t, map[string]string{"IMPL-1": stepTask("IMPL-1", pre, approach)}, opts)
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	if got := diags.String(); !strings.Contains(got, `warning: command "Extract(brainstorm_artifacts.role_analyses[].files[].path)" is a tool of the agent that carries out the task`) || strings.Count(got, "warning") != 1 {
		t.Errorf("diagnostics:\n%s", got)
	}
	pkg := filepath.Join(p.Dir, ".process", "context-package.json")
	if err := os.MkdirAll(filepath.Dir(pkg), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(pkg, []byte(`{"metadata": {}}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	fx := &fakeExec{}
	var stderr bytes.Buffer
	if _, err := Run(context.Background(), p, fx, RunOptions{Options: opts, Stderr: &stderr}); err != nil {
		t.Fatalf("%v\n%s", err, stderr.String())
	}
	an := input(fx.tasks[0], "analysis")
	if v := field(an, "context_package"); v != `{"metadata": {}}`+"\n" {
		t.Errorf("context_package = %q", v)
	}
	if v := field(an, "roles"); v != `{"metadata": {}}`+"\n\n\nanalysis by claude" {
		t.Errorf("roles = %q", v)
	}
	if !strings.Contains(stderr.String(), `pre_analysis step "missing" failed and is skipped (on_error skip_optional): Read(no/such/file.md): no such file or directory`) {
		t.Errorf("stderr:\n%s", stderr.String())
	}
	if len(fx.agents) != 3 {
		t.Fatalf("agent calls %+v", fx.agents)
	}
	if ac := fx.agents[0]; ac.Agent != "claude" || !ac.ReadOnly || !strings.HasSuffix(ac.Prompt, "\n\nExtract(brainstorm_artifacts.role_analyses[].files[].path)") {
		t.Errorf("instruction call %+v", ac)
	}
	if ac := fx.agents[1]; ac.Agent != "gemini" || !ac.ReadOnly || ac.Dir != filepath.Join(p.Root, "src") || ac.Prompt != `PURPOSE: analyze {"metadata": {}}`+"\n" {
		t.Errorf("ccw cli call %+v", ac)
	}
	if ac := fx.agents[2]; ac.Agent != "codex" || ac.ReadOnly || ac.Prompt != "Implement it" {
		t.Errorf("implementation call %+v", ac)
	}
}

// TestCCWCommandExpanded runs a ccw cli command whose prompt holds a
// command substitution, as CCW's templates write them: the shell expands
// the words in the project root, then the agent runs on the prompt.
func TestCCWCommandExpanded(t *testing.T) {
	pre := `{"step": "rules", "command": "bash(ccw cli -p \"PURPOSE: x\nRULES: $(cat rules.txt) | [v]\" --tool gemini --mode analysis --cd src)", "output_to": "r"}`
	p, diags := writePlan(t, map[string]string{"IMPL-1": stepTask("IMPL-1", pre, `"go"`)}, Options{})
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	if err := os.WriteFile(filepath.Join(p.Root, "rules.txt"), []byte("be careful\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	fx := &fakeExec{}
	var stderr bytes.Buffer
	if _, err := Run(context.Background(), p, fx, RunOptions{Stderr: &stderr}); err != nil {
		t.Fatalf("%v\n%s", err, stderr.String())
	}
	if len(fx.agents) != 1 {
		t.Fatalf("agent calls %+v", fx.agents)
	}
	if ac := fx.agents[0]; ac.Agent != "gemini" || !ac.ReadOnly || ac.Dir != filepath.Join(p.Root, "src") || ac.Prompt != "PURPOSE: x\nRULES: be careful | [v]" {
		t.Errorf("call %+v", ac)
	}
}

// TestFindSessionOlderLayout finds a session where older CCW versions put
// it, .workflow/WFS-TOPIC, when .workflow/active holds none.
func TestFindSessionOlderLayout(t *testing.T) {
	root := t.TempDir()
	sub := filepath.Join(root, "src")
	_ = os.MkdirAll(sub, 0o755)
	_ = os.MkdirAll(filepath.Join(root, ".workflow", "WFS-old"), 0o755)
	got, err := FindSessionFrom(sub)
	if err != nil || got != filepath.Join("..", ".workflow", "WFS-old") {
		t.Errorf("older layout: %q %v", got, err)
	}
	// A session under active wins.
	_ = os.MkdirAll(filepath.Join(root, ".workflow", "active", "WFS-new"), 0o755)
	if got, err := FindSession(root); err != nil || got != filepath.Join(root, ".workflow", "active", "WFS-new") {
		t.Errorf("with active: %q %v", got, err)
	}
}

// TestCommandAsList reads a pre_analysis "command" that holds a list, as
// some planners write it, like "commands", and "commands" that holds one
// string.
func TestCommandAsList(t *testing.T) {
	pre := `{"step": "a", "command": ["bash(printf 1)", "bash(printf 2)"], "output_to": "a"}, {"step": "b", "commands": "bash(printf 3)", "output_to": "b"}`
	p, diags := writePlan(t, map[string]string{"IMPL-1": stepTask("IMPL-1", pre, `"go"`)}, Options{})
	if len(diags) > 0 {
		t.Fatal(diags)
	}
	fx := &fakeExec{}
	if _, err := Run(context.Background(), p, fx, RunOptions{Stderr: &bytes.Buffer{}}); err != nil {
		t.Fatal(err)
	}
	an := input(fx.tasks[0], "analysis")
	if a, b := field(an, "a"), field(an, "b"); a != "1\n\n2" || b != "3" {
		t.Errorf("a = %q, b = %q", a, b)
	}
}

// TestContainerCompletedAfterSubtask prints a container's completion
// after that of the subtask that completed it.
func TestContainerCompletedAfterSubtask(t *testing.T) {
	container := `{"id": "IMPL-1", "title": "C", "status": "container", "meta": {}, "context": {}}`
	sub := `{"id": "IMPL-1.1", "title": "S", "status": "pending", "meta": {}, "context": {"parent": "IMPL-1"}, "flow_control": {"implementation_approach": ["go"]}}`
	p, diags := writePlan(t, map[string]string{"IMPL-1": container, "IMPL-1.1": sub}, Options{})
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	var stderr bytes.Buffer
	if _, err := Run(context.Background(), p, &fakeExec{}, RunOptions{Stderr: &stderr}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(stderr.String(), "plan: IMPL-1.1 completed\nplan: IMPL-1 completed (all subtasks done)\n") {
		t.Errorf("stderr:\n%s", stderr.String())
	}
}

// TestStepVarInsideQuotes substitutes a hostile step output for [v]
// written bare and inside the command's own double and single quotes: the
// value reaches printf byte for byte and nothing in it runs.
func TestStepVarInsideQuotes(t *testing.T) {
	pre := `{"step": "value", "command": "bash(cat hostile.txt)", "output_to": "v"},
	 {"step": "use", "command": "bash(printf '[%s]' \"[v]\" '[v]' [v] \"x$(printf '%s' \"[v]\")y\")", "output_to": "q"}`
	p, diags := writePlan(t, map[string]string{"IMPL-1": stepTask("IMPL-1", pre, `"go"`)}, Options{})
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	hostile := "a\"$(touch pwned1)`touch pwned2`'$(touch pwned3)'\\\"; touch pwned4; echo \"$HOME"
	if err := os.WriteFile(filepath.Join(p.Root, "hostile.txt"), []byte(hostile), 0o644); err != nil {
		t.Fatal(err)
	}
	fx := &fakeExec{}
	var stderr bytes.Buffer
	if _, err := Run(context.Background(), p, fx, RunOptions{Stderr: &stderr}); err != nil {
		t.Fatalf("%v\n%s", err, stderr.String())
	}
	an := input(fx.tasks[0], "analysis")
	if q, want := field(an, "q"), "["+hostile+"]["+hostile+"]["+hostile+"][x"+hostile+"y]"; q != want {
		t.Errorf("q = %q\nwant %q", q, want)
	}
	for i := 1; i <= 4; i++ {
		if _, err := os.Stat(filepath.Join(p.Root, fmt.Sprintf("pwned%d", i))); err == nil {
			t.Errorf("pwned%d was created: a step output ran as a command", i)
		}
	}
}

// TestReadStaysInsideRoot: Read(PATH) and ccw cli --cd refuse paths
// outside the project root — relative with .., absolute, from ~/, through
// a symbolic link, or built from a step's output — and read what lies
// inside, the session directory included.
func TestReadStaysInsideRoot(t *testing.T) {
	outside := t.TempDir()
	secret := filepath.Join(outside, "secret.txt")
	if err := os.WriteFile(secret, []byte("SECRET"), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("HOME", outside)
	reads := []string{
		"../" + filepath.Base(outside) + "/secret.txt",
		secret,
		"~/secret.txt",
		"link.txt",
		"linkdir/secret.txt",
		"[v]",
		".workflow/../../" + filepath.Base(outside) + "/secret.txt",
	}
	var pre []string
	pre = append(pre, `{"step": "value", "command": "bash(printf '%s' ../`+filepath.Base(outside)+`/secret.txt)", "output_to": "v"}`)
	for i, r := range reads {
		pre = append(pre, fmt.Sprintf(`{"step": "read%d", "command": %q, "output_to": "r%d", "on_error": "skip_optional"}`, i, "Read("+r+")", i))
	}
	pre = append(pre,
		`{"step": "inside", "command": "Read(.process/notes.md)", "output_to": "in"}`,
		`{"step": "cd", "command": "ccw cli -p 'x' --tool gemini --cd ../`+filepath.Base(outside)+`", "output_to": "cd", "on_error": "skip_optional"}`,
		`{"step": "cdlink", "command": "ccw cli -p 'x' --tool gemini --cd linkdir", "output_to": "cdl", "on_error": "skip_optional"}`,
		`{"step": "cdabs", "command": "ccw cli -p 'x' --tool gemini --cd /", "output_to": "cda", "on_error": "skip_optional"}`)
	p, diags := writePlan(t, map[string]string{"IMPL-1": stepTask("IMPL-1", strings.Join(pre, ",\n"), `"go"`)}, Options{})
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	if err := os.Symlink(secret, filepath.Join(p.Root, "link.txt")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(p.Root, "linkdir")); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(p.Dir, ".process"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(p.Dir, ".process", "notes.md"), []byte("notes"), 0o644); err != nil {
		t.Fatal(err)
	}
	fx := &fakeExec{}
	var stderr bytes.Buffer
	if _, err := Run(context.Background(), p, fx, RunOptions{Stderr: &stderr}); err != nil {
		t.Fatalf("%v\n%s", err, stderr.String())
	}
	an := input(fx.tasks[0], "analysis")
	for i, r := range reads {
		if v := field(an, fmt.Sprintf("r%d", i)); v != "" {
			t.Errorf("Read(%s) = %q", r, v)
		}
		if !strings.Contains(stderr.String(), fmt.Sprintf("Read(%s): path outside the project root: ", r)) {
			t.Errorf("Read(%s): no refusal in stderr:\n%s", r, stderr.String())
		}
	}
	if v := field(an, "in"); v != "notes" {
		t.Errorf("session file = %q", v)
	}
	if len(fx.agents) != 0 {
		t.Errorf("agent calls ran outside the root: %+v", fx.agents)
	}
	if n := strings.Count(stderr.String(), ": path outside the project root"); n != len(reads)+3 {
		t.Errorf("%d refusals, want %d:\n%s", n, len(reads)+3, stderr.String())
	}
}

// TestStepVarInHeredoc: [var] in a here-document of bash(…) is escaped
// for it; an output holding the delimiter line fails the step instead of
// ending the here-document and running the lines after it.
func TestStepVarInHeredoc(t *testing.T) {
	pre := `{"step": "value", "command": "bash(cat hostile.txt)", "output_to": "v"},
	 {"step": "use", "command": "bash(cat <<EOF\n[[v]]\nEOF\n)", "output_to": "q"},
	 {"step": "evil", "command": "bash(cat evil.txt)", "output_to": "e"},
	 {"step": "inject", "command": "bash(cat <<'EOF'\n[e]\nEOF\n)", "output_to": "x", "on_error": "skip_optional"}`
	p, diags := writePlan(t, map[string]string{"IMPL-1": stepTask("IMPL-1", pre, `"go"`)}, Options{})
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	hostile := "$(touch pwned1) `touch pwned2` \\$HOME \"q\" 'q'"
	files := map[string]string{"hostile.txt": hostile, "evil.txt": "x\nEOF\ntouch pwned3"}
	for name, data := range files {
		if err := os.WriteFile(filepath.Join(p.Root, name), []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	fx := &fakeExec{}
	var stderr bytes.Buffer
	if _, err := Run(context.Background(), p, fx, RunOptions{Stderr: &stderr}); err != nil {
		t.Fatalf("%v\n%s", err, stderr.String())
	}
	an := input(fx.tasks[0], "analysis")
	if q := field(an, "q"); q != "["+hostile+"]" {
		t.Errorf("q = %q", q)
	}
	if !strings.Contains(stderr.String(), `pre_analysis step "inject" failed and is skipped (on_error skip_optional): "bash(cat <<'EOF'\n[e]\nEOF\n)": [e]: the value holds the line that ends the here-document`) {
		t.Errorf("stderr:\n%s", stderr.String())
	}
	for i := 1; i <= 3; i++ {
		if _, err := os.Stat(filepath.Join(p.Root, fmt.Sprintf("pwned%d", i))); err == nil {
			t.Errorf("pwned%d was created: a step output ran as a command", i)
		}
	}
}

// TestCCWExpansionNeverSeesStepOutput: the words of a ccw cli command are
// expanded by sh before [var] is replaced, so a step's output reaches the
// agent's prompt as it is and never the shell.
func TestCCWExpansionNeverSeesStepOutput(t *testing.T) {
	pre := `{"step": "value", "command": "bash(cat hostile.txt)", "output_to": "v"},
	 {"step": "ask", "command": "ccw cli -p \"$(printf '%s' 'ctx') [v]\" --tool gemini --mode analysis", "output_to": "a"}`
	p, diags := writePlan(t, map[string]string{"IMPL-1": stepTask("IMPL-1", pre, `"go"`)}, Options{})
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	hostile := "$(touch pwned1) `touch pwned2` \"; touch pwned3; \""
	if err := os.WriteFile(filepath.Join(p.Root, "hostile.txt"), []byte(hostile), 0o644); err != nil {
		t.Fatal(err)
	}
	fx := &fakeExec{}
	var stderr bytes.Buffer
	if _, err := Run(context.Background(), p, fx, RunOptions{Stderr: &stderr}); err != nil {
		t.Fatalf("%v\n%s", err, stderr.String())
	}
	if len(fx.agents) != 1 || fx.agents[0].Prompt != "ctx "+hostile {
		t.Errorf("agent calls %+v", fx.agents)
	}
	for i := 1; i <= 3; i++ {
		if _, err := os.Stat(filepath.Join(p.Root, fmt.Sprintf("pwned%d", i))); err == nil {
			t.Errorf("pwned%d was created: a step output reached the shell", i)
		}
	}
}
