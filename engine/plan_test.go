package engine_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/evalrun/evalrun/engine"
	"github.com/evalrun/evalrun/journal"
	"github.com/evalrun/evalrun/plan"
	"github.com/evalrun/evalrun/value"
)

// copyExample copies examples/plan into a temporary project.
func copyExample(t *testing.T) string {
	t.Helper()
	src, err := filepath.Abs("../examples/plan")
	if err != nil {
		t.Fatal(err)
	}
	dst := t.TempDir()
	if err := os.CopyFS(dst, os.DirFS(src)); err != nil {
		t.Fatal(err)
	}
	return dst
}

// fakeAgentScript is a fake claude, codex or gemini program. It appends
// "NAME: HEADLINE" to $FAKE_AGENT_DIR/log (HEADLINE: the prompt's
// "# IMPL-…" line, else its first line) and writes its argv (each
// argument ended by NUL), stdin, the file of $GEMINI_SYSTEM_MD and its
// working directory to the files argv, stdin, role and dir of a
// directory $FAKE_AGENT_DIR/call-NAME-*. A prompt holding $FAKE_AGENT_BLOCK writes
// the program's pid to $FAKE_AGENT_DIR/blocking and sleeps. The agent
// named by $FAKE_AGENT_SLOW takes a second, and appends its name to
// $FAKE_AGENT_DIR/overlap when another process of it runs meanwhile.
// It answers in the output format of its agent.
const fakeAgentScript = `#!/bin/sh
name=%s
dir=$FAKE_AGENT_DIR
if [ "$name" = gemini ]; then
	prompt=""
	prev=""
	for a in "$@"; do
		[ "$prev" = "-p" ] && prompt=$a
		case $a in --prompt=*) prompt=${a#--prompt=} ;; esac
		prev=$a
	done
	stdin=""
else
	stdin=$(cat)
	prompt=$stdin
fi
f=$(mktemp -d "$dir/call-$name-XXXXXX")
for a in "$@"; do printf '%%s\0' "$a"; done > "$f/argv"
printf '%%s' "$stdin" > "$f/stdin"
[ -n "$GEMINI_SYSTEM_MD" ] && cat "$GEMINI_SYSTEM_MD" > "$f/role"
printf '%%s' "$PWD" > "$f/dir"
head=$(printf '%%s\n' "$prompt" | sed -n 's/^[[:space:]]*\(# IMPL-.*\)$/\1/p' | head -n 1)
[ -n "$head" ] || head=$(printf '%%s\n' "$prompt" | grep -v '^[[:space:]]*$' | head -n 1 | sed 's/^[[:space:]]*//')
if [ -n "$FAKE_AGENT_BLOCK" ]; then
	case "$prompt" in
	*"$FAKE_AGENT_BLOCK"*)
		echo $$ > "$dir/blocking.tmp" && mv "$dir/blocking.tmp" "$dir/blocking"
		exec sleep 60;;
	esac
fi
if [ "$FAKE_AGENT_SLOW" = "$name" ]; then
	if mkdir "$dir/busy-$name" 2>/dev/null; then
		sleep 1
		rmdir "$dir/busy-$name"
	else
		echo "$name" >> "$dir/overlap"
	fi
fi
printf '%%s: %%s\n' "$name" "$head" >> "$dir/log"
case $name in
claude) printf '{"type":"result","is_error":false,"num_turns":2,"result":"claude did it","session_id":"s1","total_cost_usd":0.25,"usage":{"input_tokens":100,"cache_read_input_tokens":0,"cache_creation_input_tokens":0,"output_tokens":10}}\n';;
codex) printf '{"type":"thread.started","thread_id":"t1"}\n{"type":"item.completed","item":{"id":"i","type":"agent_message","text":"codex did it"}}\n{"type":"turn.completed","usage":{"input_tokens":50,"cached_input_tokens":0,"output_tokens":5}}\n';;
gemini) printf '{"response":"gemini did it","stats":{"models":{"gemini-2.5-pro":{"tokens":{"prompt":70,"candidates":7}}}}}\n';;
esac
`

// fakeAgentBin writes fake claude, codex and gemini programs into a
// directory first on PATH, points FAKE_AGENT_DIR at a fresh directory and
// returns it. Processes the test starts inherit both.
func fakeAgentBin(t *testing.T) string {
	t.Helper()
	bin := t.TempDir()
	for _, name := range []string{"claude", "codex", "gemini"} {
		if err := os.WriteFile(filepath.Join(bin, name), fmt.Appendf(nil, fakeAgentScript, name), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	dir := t.TempDir()
	t.Setenv("FAKE_AGENT_DIR", dir)
	return dir
}

// fakeCall is what one fake agent process received.
type fakeCall struct {
	argv        []string
	stdin, role string
	dir         string
}

// fakeCalls reads the calls the fake agents received, by agent name.
func fakeCalls(t *testing.T, dir string) map[string][]fakeCall {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join(dir, "call-*"))
	out := map[string][]fakeCall{}
	for _, f := range files {
		read := func(name string) string {
			data, _ := os.ReadFile(filepath.Join(f, name))
			return string(data)
		}
		name := strings.SplitN(filepath.Base(f), "-", 3)[1]
		out[name] = append(out[name], fakeCall{argv: strings.Split(strings.TrimSuffix(read("argv"), "\x00"), "\x00"),
			stdin: read("stdin"), role: read("role"), dir: read("dir")})
	}
	return out
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
	p, diags, err := plan.Load(dir, e.Workspace().PlanOptions())
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

// TestPlanRunUnderFakeAgents runs the example plan, whose configuration
// maps its roles to claude, gemini and codex, with fake programs of those
// agents: each task and agent step is one process of the right agent with
// the argv and stdin of its definition, the analysis step of ccw cli gets
// the read-only arguments and runs in its --cd directory, and the journal
// holds every agent call as a task node under its plan task.
func TestPlanRunUnderFakeAgents(t *testing.T) {
	root := copyExample(t)
	calls := fakeAgentBin(t)
	var stderr bytes.Buffer
	out, err := runPlan(t, root, engine.Options{Stderr: &stderr, Journal: &engine.JournalInfo{WorkflowPath: "plan"}}, engine.PlanRun{})
	if err != nil {
		t.Fatalf("%v\n%s", err, stderr.String())
	}
	log, _ := os.ReadFile(filepath.Join(calls, "log"))
	// IMPL-001 (@action-planning-agent → gemini), IMPL-002.1's ccw cli
	// step (--tool gemini) and its task (@code-developer → claude, before
	// its meta.tool codex), IMPL-002.2 and IMPL-003.1 (claude), IMPL-003.2
	// (@test-fix-agent → codex), IMPL-004 (@doc-generator is unmapped:
	// meta.tool gemini).
	want := "gemini: # IMPL-001: Design the token model\n" +
		"gemini: PURPOSE: find where login issues credentials\n" +
		"claude: # IMPL-002.1: Token generation\n" +
		"claude: # IMPL-002.2: Refresh tokens\n" +
		"claude: # IMPL-003.1: Token validation middleware\n" +
		"codex: # IMPL-003.2: Middleware tests\n" +
		"gemini: # IMPL-004: Document the authentication flow\n"
	if string(log) != want {
		t.Errorf("agent calls:\n%s\nwant:\n%s", log, want)
	}
	if got := out.Answers["IMPL-001"]; got != "gemini did it" {
		t.Errorf("IMPL-001 answer %q", got)
	}
	got := fakeCalls(t, calls)
	if n := len(got["claude"]); n != 3 {
		t.Fatalf("%d claude calls", n)
	}
	for _, c := range got["claude"] {
		// The built-in claude command with the empty model left out; the
		// prompt on stdin, the role's system text as an argument.
		// Not read-only: a task call gets no read_only_args.
		if len(c.argv) != 5 || strings.Join(c.argv[:4], " ") != "-p --output-format json --append-system-prompt" ||
			!strings.Contains(c.argv[4], "You are a code developer.") {
			t.Errorf("claude argv %q", c.argv)
		}
		if !strings.Contains(c.stdin, "## Requirements") || c.dir != root {
			t.Errorf("claude stdin %q in %s", c.stdin, c.dir)
		}
	}
	// gemini's prompt is the value of its first word, --prompt=PROMPT;
	// argv[1:] holds the rest.
	for i := range got["gemini"] {
		a := got["gemini"][i].argv
		if p, ok := strings.CutPrefix(a[0], "--prompt="); ok {
			got["gemini"][i].argv = append([]string{"--prompt=", p}, a[1:]...)
		}
	}
	var analysis, planner *fakeCall
	for i, c := range got["gemini"] {
		switch {
		case strings.Contains(c.argv[1], "PURPOSE: find where login"):
			analysis = &got["gemini"][i]
		case strings.Contains(c.argv[1], "# IMPL-001"):
			planner = &got["gemini"][i]
		}
	}
	if analysis == nil || planner == nil {
		t.Fatalf("gemini calls %v", got["gemini"])
	}
	// --mode analysis: the read_only_args of the configuration, in the
	// --cd directory; the prompt is the value of --prompt=, [token_model]
	// replaced by the output of the step before.
	if a := analysis.argv; len(a) != 6 || a[0] != "--prompt=" || a[2] != "--output-format" || a[3] != "json" || a[4] != "--approval-mode" || a[5] != "default" {
		t.Errorf("analysis argv %q", a)
	}
	if !strings.HasPrefix(analysis.argv[1], "PURPOSE: find where login issues credentials\nCONTEXT: # IMPL-001: Design the token model") {
		t.Errorf("analysis prompt %q", analysis.argv[1])
	}
	if want := filepath.Join(root, "src", "auth"); analysis.dir != want {
		t.Errorf("analysis ran in %s, want %s", analysis.dir, want)
	}
	if a := planner.argv; len(a) != 4 || a[2] != "--output-format" {
		t.Errorf("planner argv %q (a task call is not read-only)", a)
	}
	if !strings.Contains(planner.argv[1], "# Implementation Plan: JWT authentication") || strings.Contains(planner.argv[1], "## Acceptance criteria") {
		t.Errorf("planning prompt outside its slice:\n%s", planner.argv[1])
	}
	if !strings.Contains(planner.role, "You are an action-planning agent.") {
		t.Errorf("gemini's role file held %q", planner.role)
	}
	tester := got["codex"][0]
	if strings.Join(tester.argv, " ") != "exec --json --skip-git-repo-check -" || !strings.Contains(tester.stdin, "- npm test -- tests/auth/") || strings.Contains(tester.stdin, "## Requirements") {
		t.Errorf("codex argv %q, stdin:\n%s", tester.argv, tester.stdin)
	}

	// The journal: each task a step node; its agent calls task nodes
	// below it with the agent as executor, usage and cost.
	_, tree := lastTree(t, root)
	byID := map[int64]*journal.Node{}
	var lines []string
	journal.Walk(tree, func(n *journal.Node, _ int) bool {
		byID[n.ID] = n
		if n.Kind == journal.KindTask {
			top := n
			for top.ParentID != 0 {
				top = byID[top.ParentID]
			}
			lines = append(lines, fmt.Sprintf("%s %s %s %s %d+%d", top.Name, n.Name, nodeExecutor(n), n.Status, n.Usage.InputTokens, n.Usage.OutputTokens))
		}
		return true
	})
	slices.Sort(lines)
	wantLines := []string{
		"IMPL-001 plan/action-planning-agent agent:gemini completed 70+7",
		"IMPL-002.1 plan/agent-step agent:gemini completed 70+7",
		"IMPL-002.1 plan/code-developer agent:claude completed 100+10",
		"IMPL-002.2 plan/code-developer agent:claude completed 100+10",
		"IMPL-003.1 plan/code-developer agent:claude completed 100+10",
		"IMPL-003.2 plan/test-fix-agent agent:codex completed 50+5",
		"IMPL-004 plan/doc-generator agent:gemini completed 70+7",
	}
	if !slices.Equal(lines, wantLines) {
		t.Errorf("journal task nodes:\n%s\nwant:\n%s", strings.Join(lines, "\n"), strings.Join(wantLines, "\n"))
	}
	state, _ := os.ReadFile(filepath.Join(root, ".workflow/active/WFS-jwt-auth/.process/evalrun-state.json"))
	if !strings.Contains(string(state), `"cost_usd": 0.25`) {
		t.Errorf("the cost of claude's answer is not in the state:\n%s", state)
	}
}

// nodeExecutor is notes.executor of a task node's result.
func nodeExecutor(n *journal.Node) string {
	r, ok := n.Result.(*value.TaskResult)
	if !ok {
		return "?"
	}
	v, _ := r.NotesOrEmpty().Get("executor")
	return value.Text(v)
}

// TestPlanAgentNotInstalled: an agent whose program is not on PATH fails
// its task with configuration_error as a workflow's call does.
func TestPlanAgentNotInstalled(t *testing.T) {
	root := copyExample(t)
	cfg := "[plan.agents]\n\"@action-planning-agent\" = \"mine\"\n[agents.mine]\ncommand = \"mine-agent {prompt}\"\n"
	if err := os.WriteFile(filepath.Join(root, ".evalrun", "config.toml"), []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	var stderr bytes.Buffer
	_, err := runPlan(t, root, engine.Options{Stderr: &stderr}, engine.PlanRun{Tasks: []string{"IMPL-001"}})
	var fe *plan.FailedError
	if !errors.As(err, &fe) {
		t.Fatalf("err = %v", err)
	}
	if !strings.Contains(stderr.String(), "plan: IMPL-001 failed: configuration_error: agent 'mine': program 'mine-agent' not found in PATH") {
		t.Errorf("stderr:\n%s", stderr.String())
	}
}

// TestPlanDefaultAgent: default_agent of the configuration runs the tasks
// that nothing else assigns; --agent wins over it.
func TestPlanDefaultAgent(t *testing.T) {
	root := copyExample(t)
	calls := fakeAgentBin(t)
	if err := os.WriteFile(filepath.Join(root, ".evalrun", "config.toml"), []byte("default_agent = \"codex\"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := runPlan(t, root, engine.Options{}, engine.PlanRun{Tasks: []string{"IMPL-001"}}); err != nil {
		t.Fatal(err)
	}
	if _, err := runPlan(t, root, engine.Options{}, engine.PlanRun{Tasks: []string{"IMPL-002.1"}, Agent: "claude"}); err != nil {
		t.Fatal(err)
	}
	log, _ := os.ReadFile(filepath.Join(calls, "log"))
	// IMPL-002.1 has meta.tool codex, which comes before --agent.
	if want := "codex: # IMPL-001: Design the token model\ngemini: PURPOSE: find where login issues credentials\ncodex: # IMPL-002.1: Token generation\n"; string(log) != want {
		t.Errorf("agent calls:\n%s", log)
	}
}

// TestPlanHelperProcess is the plan run that TestPlanKillAndResume kills:
// it runs only when started by that test.
func TestPlanHelperProcess(t *testing.T) {
	root := os.Getenv("EVALRUN_PLAN_HELPER_ROOT")
	if root == "" {
		t.Skip("helper process")
	}
	_, _ = runPlan(t, root, engine.Options{Journal: &engine.JournalInfo{WorkflowPath: "plan"}}, engine.PlanRun{})
}

// TestPlanKillAndResume kills a plan run with SIGKILL while a fake agent
// works on a task (after the task's first agent call completed) and
// resumes it: no completed task runs again, the completed agent call of
// the interrupted task is replayed from the journal instead of spent
// again, and the plan files are consistent at every point.
func TestPlanKillAndResume(t *testing.T) {
	root := copyExample(t)
	calls := fakeAgentBin(t)
	cmd := exec.Command(os.Args[0], "-test.run=^TestPlanHelperProcess$", "-test.count=1")
	cmd.Env = append(os.Environ(), "EVALRUN_PLAN_HELPER_ROOT="+root, "FAKE_AGENT_BLOCK=# IMPL-002.1:")
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(60 * time.Second)
	var pid []byte
	for {
		var err error
		if pid, err = os.ReadFile(filepath.Join(calls, "blocking")); err == nil {
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
	// SIGKILL leaves the agent's process group behind; end it.
	if n, err := strconv.Atoi(strings.TrimSpace(string(pid))); err == nil {
		_ = syscall.Kill(-n, syscall.SIGKILL)
	}
	before, _ := os.ReadFile(filepath.Join(calls, "log"))
	if want := "gemini: # IMPL-001: Design the token model\ngemini: PURPOSE: find where login issues credentials\n"; string(before) != want {
		t.Fatalf("calls before the kill:\n%s\n%s", before, out.String())
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
	resume, err := engine.FindResume(engine.Options{WorkDir: root, Getenv: func(k string) string {
		if k == "HOME" {
			return root
		}
		return os.Getenv(k)
	}}, rec.ID)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := runPlan(t, root, engine.Options{Journal: &engine.JournalInfo{WorkflowPath: "plan"}, Resume: resume}, engine.PlanRun{Resume: true}); err != nil {
		t.Fatal(err)
	}
	after, _ := os.ReadFile(filepath.Join(calls, "log"))
	resumed := strings.TrimPrefix(string(after), string(before))
	if strings.Contains(resumed, "IMPL-001") || strings.Contains(resumed, "PURPOSE: find where login") {
		t.Errorf("a completed call was spent again:\n%s", resumed)
	}
	if !strings.HasPrefix(resumed, "claude: # IMPL-002.1: Token generation\n") {
		t.Errorf("calls of the resumed run:\n%s", resumed)
	}
	_, tree := lastTree(t, root)
	var replayed []string
	journal.Walk(tree, func(n *journal.Node, _ int) bool {
		if n.Replayed {
			replayed = append(replayed, n.Name+" "+nodeExecutor(n))
		}
		return true
	})
	if want := []string{"plan/agent-step agent:gemini"}; !slices.Equal(replayed, want) {
		t.Errorf("replayed %q, want %q", replayed, want)
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

// openPlanEngine opens an engine over the project root with the echo
// provider and a journal.
func openPlanEngine(t *testing.T, root string) *engine.Engine {
	t.Helper()
	e, err := engine.Open(engine.Options{WorkDir: root, Provider: "echo", Stderr: &bytes.Buffer{}, Journal: &engine.JournalInfo{WorkflowPath: "<eval>"}, Getenv: func(k string) string {
		if k == "HOME" || k == "EVALRUN_HOME" {
			return root
		}
		return os.Getenv(k)
	}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.Close() })
	return e
}

func TestPlanLoadFromWorkflow(t *testing.T) {
	root := copyExample(t)
	e := openPlanEngine(t, root)
	v, err := e.Eval(context.Background(), "<eval>", `(let ((p (plan-load ".workflow/active/WFS-jwt-auth")))
  (list (keys p) (get (get p "session") "session_id") (map (lambda (t) (get t "id")) (get p "tasks")) (get p "order")))`)
	if err != nil {
		t.Fatal(err)
	}
	want := `(("session" "tasks" "order") "WFS-jwt-auth" ("IMPL-001" "IMPL-002" "IMPL-002.1" "IMPL-002.2" "IMPL-003" "IMPL-003.1" "IMPL-003.2" "IMPL-004") (("IMPL-001") ("IMPL-002.1" "IMPL-003.1") ("IMPL-002.2" "IMPL-003.2") ("IMPL-004")))`
	if got := v.String(); got != want {
		t.Errorf("plan-load:\n got %s\nwant %s", got, want)
	}
	// Applied as a value, plan-load is a primitive of the directory.
	v, err = e.Eval(context.Background(), "<eval>", `(get (apply plan-load (list ".workflow/active/WFS-jwt-auth")) "order")`)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := v.String(), `(("IMPL-001") ("IMPL-002.1" "IMPL-003.1") ("IMPL-002.2" "IMPL-003.2") ("IMPL-004"))`; got != want {
		t.Errorf("apply plan-load: %s", got)
	}
}

func TestPlanRunFromWorkflow(t *testing.T) {
	root := copyExample(t)
	e := openPlanEngine(t, root)
	v, err := e.Eval(context.Background(), "<eval>", `(step "build"
  (plan-run ".workflow/active/WFS-jwt-auth" (task "IMPL-1 IMPL-2.1") (parallel 2)))`)
	if err != nil {
		t.Fatal(err)
	}
	d, ok := v.(*value.Dict)
	if !ok {
		t.Fatalf("plan-run returned %s", v)
	}
	if got, want := strings.Join(d.Keys(), " "), "IMPL-001 IMPL-002.1"; got != want {
		t.Errorf("tasks %q, want %q", got, want)
	}
	for _, id := range d.Keys() {
		r, _ := d.Get(id)
		rd := r.(*value.Dict)
		st, _ := rd.Get("status")
		ans, _ := rd.Get("answer")
		tok, _ := rd.Get("tokens")
		if value.Text(st) != "completed" || !strings.HasPrefix(value.Text(ans), "# "+id+": ") {
			t.Errorf("%s: %s", id, rd)
		}
		if n, ok := tok.(value.Int); !ok || n <= 0 {
			t.Errorf("%s tokens %v", id, tok)
		}
	}
	e.Finish(nil, nil)
	_, tree := lastTree(t, root)
	if len(tree) != 1 || tree[0].Kind != "step" || tree[0].Name != "build" {
		t.Fatalf("top of the journal: %v", tree)
	}
	if len(tree[0].Children) != 1 || tree[0].Children[0].Name != "plan-run WFS-jwt-auth" {
		t.Fatalf("below step build: %v", tree[0].Children)
	}
	var kids []string
	for _, n := range tree[0].Children[0].Children {
		kids = append(kids, n.Kind+" "+n.Name)
		if len(n.Children) == 0 {
			t.Errorf("%s has no calls below it", n.Name)
		}
	}
	if want := []string{"step IMPL-001", "step IMPL-002.1"}; !slices.Equal(kids, want) {
		t.Errorf("children of plan-run: %q, want %q", kids, want)
	}
	p, _, err := plan.Load(filepath.Join(root, ".workflow/active/WFS-jwt-auth"), plan.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, tk := range p.Tasks {
		if want := tk.ID == "IMPL-001" || tk.ID == "IMPL-002.1"; want != (tk.Status == plan.StatusCompleted) {
			t.Errorf("%s is %s", tk.ID, tk.Status)
		}
	}
}

func TestPlanRunKeywordOptionsAndFailure(t *testing.T) {
	root := copyExample(t)
	// IMPL-001's first step fails: IMPL-001 fails, IMPL-002.1 (which
	// depends on it) does not start; neither is an evaluation error.
	f := filepath.Join(root, ".workflow/active/WFS-jwt-auth/.task/IMPL-001.json")
	data, _ := os.ReadFile(f)
	os.WriteFile(f, []byte(strings.Replace(string(data), "bash(cat src/auth/login.ts)", "bash(exit 3)", 1)), 0o644)
	e := openPlanEngine(t, root)
	v, err := e.Eval(context.Background(), "<eval>", `(plan-run ".workflow/active/WFS-jwt-auth" :task "IMPL-1 IMPL-2.1" :parallel 2)`)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := v.String(), `(dict "IMPL-001" (dict "status" "failed" "reason" "pre_analysis step \"load_current_login\": \"exit 3\": exit status 3") "IMPL-002.1" (dict "status" "not_started"))`; got != want {
		t.Errorf("plan-run:\n got %s\nwant %s", got, want)
	}
	// The plan-run's node failed with the tasks that failed; the form
	// did not.
	e.Finish(nil, nil)
	want := `  [failed]    step "plan-run WFS-jwt-auth"
    [failed]    step "IMPL-001"
      [failed]    step "IMPL-001 load_current_login"   <-- current
`
	if got := statusTree(t, root); got != want {
		t.Errorf("status:\n%s\nwant:\n%s", got, want)
	}
	if _, tree := lastTree(t, root); tree[0].Error != "1 task(s) failed: IMPL-001" || value.JSON(tree[0].Result) != value.JSON(v) {
		t.Errorf("plan-run node: error %q, value %s", tree[0].Error, value.JSON(tree[0].Result))
	}
}

func TestPlanRunManualInterventionIsAnError(t *testing.T) {
	root := copyExample(t)
	f := filepath.Join(root, ".workflow/active/WFS-jwt-auth/.task/IMPL-001.json")
	data, _ := os.ReadFile(f)
	s := strings.Replace(string(data), "bash(cat src/auth/login.ts)", "bash(exit 3)", 1)
	s = strings.Replace(s, `"on_error": "fail"`, `"on_error": "manual_intervention"`, 1)
	os.WriteFile(f, []byte(s), 0o644)
	e := openPlanEngine(t, root)
	_, err := e.Eval(context.Background(), "wf.lisp", "(list 1\n  (plan-run \".workflow/active/WFS-jwt-auth\" (task \"IMPL-1\")))")
	if err == nil {
		t.Fatal("no error")
	}
	if got, want := err.Error(), `wf.lisp:2:3: 'plan-run' stopped: IMPL-001: pre_analysis step "load_current_login" failed and needs a person (on_error manual_intervention)`; !strings.HasPrefix(got, want) {
		t.Errorf("error:\n got %s\nwant %s…", got, want)
	}
	if !strings.Contains(err.Error(), "evalrun plan run --resume") {
		t.Errorf("the error does not say how to continue: %s", err)
	}
}

func TestPlanLoadBadDirIsAnError(t *testing.T) {
	root := copyExample(t)
	f := filepath.Join(root, ".workflow/active/WFS-jwt-auth/.task/IMPL-004.json")
	data, _ := os.ReadFile(f)
	os.WriteFile(f, []byte(strings.Replace(string(data), `"id": "IMPL-004"`, `"id": "IMPL-009"`, 1)), 0o644)
	e := openPlanEngine(t, root)
	for _, tc := range []struct{ src, want string }{
		{"(list\n (plan-load \"nowhere\"))", "wf.lisp:2:2: 'plan-load': "},
		{"(let ((d \".workflow/active/WFS-jwt-auth\"))\n   (plan-run d))", "wf.lisp:2:4: 'plan-run': " + filepath.Join(root, ".workflow/active/WFS-jwt-auth/.task/IMPL-004.json") + ":2:9: error: "},
		{"(plan-run \"d\" (tasks \"IMPL-1\"))", "wf.lisp:1:15: Unknown 'plan-run' option: tasks (expected task, parallel or agent)"},
		{"(plan-run \"d\" (parallel 0))", "wf.lisp:1:25: 'plan-run' parallel must be a positive integer, got 0"},
		{"(plan-load 3)", "wf.lisp:1:1: 'plan-load' directory must be a string, got int"},
	} {
		_, err := e.Eval(context.Background(), "wf.lisp", tc.src)
		if err == nil || !strings.HasPrefix(err.Error(), tc.want) {
			t.Errorf("%s:\n got %v\nwant %s…", tc.src, err, tc.want)
		}
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

// TestPlanCheckKnowsConfiguredAgents: a pre_analysis step NAME(…) of an
// agent of the configuration is a command; before [agents.mine] exists it
// is an error listing the agents known.
func TestPlanCheckKnowsConfiguredAgents(t *testing.T) {
	root := copyExample(t)
	task := filepath.Join(root, ".workflow/active/WFS-jwt-auth/.task/IMPL-003.2.json")
	data, err := os.ReadFile(task)
	if err != nil {
		t.Fatal(err)
	}
	changed := strings.Replace(string(data), `"bash(ls tests/auth)"`, `"mine(list the tests)"`, 1)
	if changed == string(data) {
		t.Fatal("the example task changed: no bash(ls tests/auth)")
	}
	if err := os.WriteFile(task, []byte(changed), 0o644); err != nil {
		t.Fatal(err)
	}
	load := func() string {
		ws, err := engine.LoadWorkspace(engine.Options{WorkDir: root, Getenv: func(k string) string {
			if k == "HOME" {
				return root
			}
			return os.Getenv(k)
		}})
		if err != nil {
			t.Fatal(err)
		}
		_, diags, err := ws.LoadPlan(filepath.Join(root, ".workflow/active/WFS-jwt-auth"))
		if err != nil {
			t.Fatal(err)
		}
		return diags.String()
	}
	if got := load(); !strings.Contains(got, "error: command \"mine(list the tests)\" is not bash(…), Read(…), an agent NAME(…) or ccw cli (agents: aider claude codex gemini qwen)") {
		t.Errorf("without [agents.mine]:\n%s", got)
	}
	cfg := filepath.Join(root, ".evalrun", "config.toml")
	old, _ := os.ReadFile(cfg)
	if err := os.WriteFile(cfg, append(old, "\n[agents.mine]\ncommand = \"mine-agent {prompt}\"\n"...), 0o644); err != nil {
		t.Fatal(err)
	}
	if got := load(); strings.Contains(got, "error:") {
		t.Errorf("with [agents.mine]:\n%s", got)
	}
}

// TestPlanRecordAndReplay: --record keeps the answers of a plan's agents
// in the cassette, and a replay provider answers them again without the
// agents (which are not on PATH the second time).
func TestPlanRecordAndReplay(t *testing.T) {
	path := os.Getenv("PATH")
	cassette := filepath.Join(t.TempDir(), "plan.jsonl")
	calls := fakeAgentBin(t)
	first := copyExample(t)
	out, err := runPlan(t, first, engine.Options{Record: cassette}, engine.PlanRun{Tasks: []string{"IMPL-001"}})
	if err != nil || out.Answers["IMPL-001"] != "gemini did it" {
		t.Fatalf("recorded run: %v %v", out, err)
	}
	t.Setenv("PATH", path)
	t.Setenv("EVALRUN_CASSETTE", cassette)
	second := copyExample(t)
	var stderr bytes.Buffer
	out, err = runPlan(t, second, engine.Options{Provider: "replay", Stderr: &stderr}, engine.PlanRun{Tasks: []string{"IMPL-001"}})
	if err != nil {
		t.Fatalf("replayed run: %v\n%s", err, stderr.String())
	}
	if got := out.Answers["IMPL-001"]; got != "gemini did it" {
		t.Errorf("replayed answer %q", got)
	}
	if log, _ := os.ReadFile(filepath.Join(calls, "log")); string(log) != "gemini: # IMPL-001: Design the token model\n" {
		t.Errorf("agent calls:\n%s", log)
	}
}

// TestPlanAgentMaxParallel: the tasks of a plan run side by side
// (--parallel 3) share the agents' max_parallel slots: with
// max_parallel = 1 two claude processes never overlap; with 2 they do.
func TestPlanAgentMaxParallel(t *testing.T) {
	t.Setenv("FAKE_AGENT_SLOW", "claude")
	for _, tc := range []struct {
		max     int
		overlap string
	}{{1, ""}, {2, "claude\n"}} {
		root := copyExample(t)
		calls := fakeAgentBin(t)
		cfg, _ := os.ReadFile(filepath.Join(root, ".evalrun", "config.toml"))
		cfg = fmt.Appendf(cfg, "max_parallel = %d\n", tc.max) // the last table is [agents.claude]
		if err := os.WriteFile(filepath.Join(root, ".evalrun", "config.toml"), cfg, 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := runPlan(t, root, engine.Options{}, engine.PlanRun{Parallel: 3, Tasks: []string{"IMPL-002.1", "IMPL-003.1", "IMPL-001"}}); err != nil {
			t.Fatal(err)
		}
		overlap, _ := os.ReadFile(filepath.Join(calls, "overlap"))
		if string(overlap) != tc.overlap {
			t.Errorf("max_parallel %d: overlapping agents %q, want %q", tc.max, overlap, tc.overlap)
		}
	}
}

// TestPlanAgentTimeout: an agent's timeout ends its process group and
// blocks the task with execution_timeout.
func TestPlanAgentTimeout(t *testing.T) {
	root := copyExample(t)
	cfg := "[plan.agents]\n\"@action-planning-agent\" = \"slow\"\n[agents.slow]\ncommand = \"./slow.sh {prompt}\"\ntimeout = \"300ms\"\n"
	if err := os.WriteFile(filepath.Join(root, ".evalrun", "config.toml"), []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "slow.sh"), []byte("#!/bin/sh\nexec sleep 30\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	var stderr bytes.Buffer
	start := time.Now()
	_, err := runPlan(t, root, engine.Options{Stderr: &stderr}, engine.PlanRun{Tasks: []string{"IMPL-001"}})
	var fe *plan.FailedError
	if !errors.As(err, &fe) || time.Since(start) > 10*time.Second {
		t.Fatalf("err = %v after %s", err, time.Since(start))
	}
	if !strings.Contains(stderr.String(), "plan: IMPL-001 failed: execution_timeout: agent 'slow' timed out after 300ms") {
		t.Errorf("stderr:\n%s", stderr.String())
	}
	data, _ := os.ReadFile(filepath.Join(root, ".workflow/active/WFS-jwt-auth/.task/IMPL-001.json"))
	if !strings.Contains(string(data), `"status": "blocked"`) {
		t.Errorf("IMPL-001 after the timeout:\n%s", data)
	}
}

// TestPlanRunDryRunFromWorkflow: under --dry-run plan-run runs nothing and
// returns each task of the waves with its wave.
func TestPlanRunDryRunFromWorkflow(t *testing.T) {
	root := copyExample(t)
	e, err := engine.Open(engine.Options{WorkDir: root, Provider: "echo", DryRun: true, Stderr: &bytes.Buffer{}, Journal: &engine.JournalInfo{WorkflowPath: "<eval>"}, Getenv: func(k string) string {
		if k == "HOME" || k == "EVALRUN_HOME" {
			return root
		}
		return os.Getenv(k)
	}})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	v, err := e.Eval(context.Background(), "<eval>", `(plan-run ".workflow/active/WFS-jwt-auth" (task "IMPL-1 IMPL-2.1") (parallel 2))`)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := v.String(), `(dict "IMPL-001" (dict "status" "dry_run" "wave" 1) "IMPL-002.1" (dict "status" "dry_run" "wave" 2))`; got != want {
		t.Errorf("dry run:\n got %s\nwant %s", got, want)
	}
	p, _, err := plan.Load(filepath.Join(root, ".workflow/active/WFS-jwt-auth"), plan.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, tk := range p.Tasks {
		if tk.Status == plan.StatusCompleted {
			t.Errorf("%s completed under --dry-run", tk.ID)
		}
	}
}

// statusTree is `evalrun status` of the last run without its header line
// (which holds times): the journal's tree as a person reads it.
func statusTree(t *testing.T, root string) string {
	t.Helper()
	rec, tree := lastTree(t, root)
	var b strings.Builder
	if err := journal.RenderStatus(&b, rec, tree); err != nil {
		t.Fatal(err)
	}
	_, body, _ := strings.Cut(b.String(), "\n")
	return body
}

// openFakeAgentEngine opens an engine over root whose plan tasks go to the
// fake agents of the example's configuration, journaled, resuming resume
// when it is set.
func openFakeAgentEngine(t *testing.T, root string, resume *engine.Resume) *engine.Engine {
	t.Helper()
	e, err := engine.Open(engine.Options{WorkDir: root, Stderr: &bytes.Buffer{}, Journal: &engine.JournalInfo{WorkflowPath: "wf.lisp"}, Resume: resume, Getenv: testGetenv(root)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.Close() })
	return e
}

// testGetenv is the environment with HOME and EVALRUN_HOME at root.
func testGetenv(root string) func(string) string {
	return func(k string) string {
		if k == "HOME" || k == "EVALRUN_HOME" {
			return root
		}
		return os.Getenv(k)
	}
}

// findResume finds the last run of root's journal for --resume.
func findResume(t *testing.T, root string) *engine.Resume {
	t.Helper()
	rec, _ := lastTree(t, root)
	r, err := engine.FindResume(engine.Options{WorkDir: root, Getenv: testGetenv(root)}, rec.ID)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// editTask replaces old by new in the task file id of the example plan.
func editTask(t *testing.T, root, id, old, new string) {
	t.Helper()
	f := filepath.Join(root, ".workflow/active/WFS-jwt-auth/.task", id+".json")
	data, err := os.ReadFile(f)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(data), old) {
		t.Fatalf("%s holds no %q", id, old)
	}
	if err := os.WriteFile(f, []byte(strings.Replace(string(data), old, new, 1)), 0o644); err != nil {
		t.Fatal(err)
	}
}

// agentLog is what the fake agents were asked so far, one line a call.
func agentLog(t *testing.T, calls string) string {
	t.Helper()
	data, _ := os.ReadFile(filepath.Join(calls, "log"))
	return string(data)
}

// TestPlanRunStepInWorkflow: (plan-run) is a step node of its own, named
// after the plan, under the workflow's current step; the plan's tasks are
// below it with their pre_analysis steps, their agent calls and the
// command of IMPL-002.1's implementation step 2, and the workflow's other
// calls stay beside it.
func TestPlanRunStepInWorkflow(t *testing.T) {
	root := copyExample(t)
	calls := fakeAgentBin(t)
	e := openFakeAgentEngine(t, root, nil)
	_, err := e.Eval(context.Background(), "wf.lisp", `(step "build"
  (plan-run ".workflow/active/WFS-jwt-auth" (task "IMPL-1 IMPL-2.1")))
(step "after" (plan-run ".workflow/active/WFS-jwt-auth" (task "IMPL-3.1")))`)
	if err != nil {
		t.Fatal(err)
	}
	e.Finish(nil, nil)
	want := `  [completed] step "build"
    [completed] step "plan-run WFS-jwt-auth"
      [completed] step "IMPL-001"
        [completed] step "IMPL-001 load_current_login"
        [completed] task plan/action-planning-agent  1 turn  77 tokens
      [completed] step "IMPL-002.1"
        [completed] step "IMPL-002.1 load_token_model"
        [completed] step "IMPL-002.1 analyze_login"
          [completed] task plan/agent-step  1 turn  77 tokens
        [completed] task plan/code-developer  2 turns  110 tokens  $0.2500
        [completed] step "IMPL-002.1 step 2"
  [completed] step "after"
    [completed] step "plan-run WFS-jwt-auth"
      [completed] step "IMPL-003.1"
        [completed] step "IMPL-003.1 read_middleware"
        [completed] task plan/code-developer  2 turns  110 tokens  $0.2500
`
	if got := statusTree(t, root); got != want {
		t.Errorf("status:\n%s\nwant:\n%s", got, want)
	}
	if n := strings.Count(agentLog(t, calls), "\n"); n != 4 {
		t.Errorf("%d agent calls:\n%s", n, agentLog(t, calls))
	}
	// The plan-run node records its options and the dict it returned.
	_, tree := lastTree(t, root)
	pr := tree[0].Children[0]
	if got, want := value.JSON(pr.Inputs), `{"dir":"`+filepath.Join(root, ".workflow/active/WFS-jwt-auth")+`","task":["IMPL-1","IMPL-2.1"],"parallel":1}`; got != want {
		t.Errorf("plan-run inputs %s, want %s", got, want)
	}
	if d, ok := pr.Result.(*value.Dict); !ok || strings.Join(d.Keys(), " ") != "IMPL-001 IMPL-002.1" {
		t.Errorf("plan-run value %v", pr.Result)
	}
}

// TestPlanCommandStepsJournaled: the commands of implementation steps are
// step nodes under their task, an agent command's call below its node;
// a shell command's node holds its output, standard error and exit
// status, and fails with it.
func TestPlanCommandStepsJournaled(t *testing.T) {
	root := copyExample(t)
	calls := fakeAgentBin(t)
	editTask(t, root, "IMPL-003.1", `"output": "validation"
      }`, `"output": "validation"
      },
      {
        "step": 2,
        "title": "Review",
        "command": "ccw cli -p \"review the middleware\" --tool gemini --mode analysis",
        "depends_on": [1],
        "output": "review"
      },
      {
        "step": 3,
        "title": "Check",
        "command": "bash(echo partial; echo oops >&2; exit 3)",
        "depends_on": [2]
      }`)
	var stderr bytes.Buffer
	_, err := runPlan(t, root, engine.Options{Stderr: &stderr, Journal: &engine.JournalInfo{WorkflowPath: "plan"}}, engine.PlanRun{Tasks: []string{"IMPL-1", "IMPL-3.1"}})
	var fe *plan.FailedError
	if !errors.As(err, &fe) {
		t.Fatalf("err = %v\n%s", err, stderr.String())
	}
	want := `  [completed] step "IMPL-001"
    [completed] step "IMPL-001 load_current_login"
    [completed] task plan/action-planning-agent  1 turn  77 tokens
  [failed]    step "IMPL-003.1"
    [completed] step "IMPL-003.1 read_middleware"
    [completed] task plan/code-developer  2 turns  110 tokens  $0.2500
    [completed] step "IMPL-003.1 step 2"
      [completed] task plan/agent-step  1 turn  77 tokens
    [failed]    step "IMPL-003.1 step 3"   <-- current
error: 1 task(s) failed: IMPL-003.1
`
	if got := statusTree(t, root); got != want {
		t.Errorf("status:\n%s\nwant:\n%s", got, want)
	}
	if got, want := agentLog(t, calls), "gemini: # IMPL-001: Design the token model\nclaude: # IMPL-003.1: Token validation middleware\ngemini: review the middleware\n"; got != want {
		t.Errorf("agent calls:\n%s\nwant:\n%s", got, want)
	}
	_, tree := lastTree(t, root)
	nodes := map[string]*journal.Node{}
	journal.Walk(tree, func(n *journal.Node, _ int) bool {
		nodes[n.Name] = n
		return true
	})
	for _, tc := range []struct{ name, inputs, result, err string }{
		{"IMPL-003.1 step 2", `{"command":"ccw cli -p \"review the middleware\" --tool gemini --mode analysis"}`,
			`{"agent":"gemini","output":"gemini did it"}`, ""},
		{"IMPL-003.1 step 3", `{"command":"bash(echo partial; echo oops >&2; exit 3)"}`,
			`{"exit_code":3,"output":"partial","stderr":"oops\n"}`, `"echo partial; echo oops >&2; exit 3": exit status 3: oops`},
	} {
		n := nodes[tc.name]
		if n == nil {
			t.Fatalf("no node %q", tc.name)
		}
		if got := value.JSON(n.Inputs); got != tc.inputs {
			t.Errorf("%s inputs %s, want %s", tc.name, got, tc.inputs)
		}
		if got := value.JSON(n.Result); got != tc.result {
			t.Errorf("%s result %s, want %s", tc.name, got, tc.result)
		}
		if n.Error != tc.err {
			t.Errorf("%s error %q, want %q", tc.name, n.Error, tc.err)
		}
	}
	// The agent call of step 2 is read-only, in the project root.
	var review []fakeCall
	for _, c := range fakeCalls(t, calls)["gemini"] {
		if strings.Contains(strings.Join(c.argv, " "), "review the middleware") {
			review = append(review, c)
		}
	}
	if len(review) != 1 || !slices.Contains(review[0].argv, "--approval-mode") || review[0].dir != root {
		t.Errorf("gemini calls of step 2 %+v", review)
	}
}

// TestPlanRunStepResumeReplays: a resumed workflow run replays the calls
// of its (plan-run) under the same plan-run node: IMPL-002.1, left active
// (as a crash in it would leave it), starts again — which a run that
// resumes nothing refuses — with no agent started: its agent step and its
// task replayed, its commands run again.
func TestPlanRunStepResumeReplays(t *testing.T) {
	root := copyExample(t)
	calls := fakeAgentBin(t)
	const wf = `(step "build" (plan-run ".workflow/active/WFS-jwt-auth" (task "IMPL-1 IMPL-2.1")))`
	e := openFakeAgentEngine(t, root, nil)
	if _, err := e.Eval(context.Background(), "wf.lisp", wf); err != nil {
		t.Fatal(err)
	}
	e.Finish(nil, nil)
	before := agentLog(t, calls)
	if n := strings.Count(before, "\n"); n != 3 {
		t.Fatalf("%d agent calls in the first run:\n%s", n, before)
	}
	editTask(t, root, "IMPL-002.1", `"status": "completed"`, `"status": "active"`)
	resume := findResume(t, root)
	e = openFakeAgentEngine(t, root, nil)
	if _, err := e.Eval(context.Background(), "wf.lisp", wf); err == nil || !strings.Contains(err.Error(), "IMPL-002.1 is active") {
		t.Fatalf("a run that resumes nothing ran the active task: %v", err)
	}
	e.Finish(nil, errors.New("refused"))
	e = openFakeAgentEngine(t, root, resume)
	if _, err := e.Eval(context.Background(), "wf.lisp", wf); err != nil {
		t.Fatal(err)
	}
	e.Finish(nil, nil)
	if after := agentLog(t, calls); after != before {
		t.Errorf("the resumed run started agents:\n%s", strings.TrimPrefix(after, before))
	}
	want := `  [completed] step "build"
    [completed] step "plan-run WFS-jwt-auth"
      [completed] step "IMPL-002.1"
        [completed] step "IMPL-002.1 load_token_model"
        [completed] step "IMPL-002.1 analyze_login"
          [completed] task plan/agent-step  1 turn  77 tokens  (replayed)
        [completed] task plan/code-developer  2 turns  110 tokens  $0.2500  (replayed)
        [completed] step "IMPL-002.1 step 2"
`
	if got := statusTree(t, root); got != want {
		t.Errorf("status of the resumed run:\n%s\nwant:\n%s", got, want)
	}
}

// TestPlanAgentStepKeyHasReadOnlyAndDir: the replay key of a plan's agent
// step holds its read-only flag and its --cd directory: a resumed plan run
// replays the step run under the same conditions, and runs it again when
// `--mode analysis` or `--cd` changed (its prompt did not); the task's own
// call is replayed every time.
func TestPlanAgentStepKeyHasReadOnlyAndDir(t *testing.T) {
	root := copyExample(t)
	calls := fakeAgentBin(t)
	opts := func(resume *engine.Resume) engine.Options {
		return engine.Options{Stderr: &bytes.Buffer{}, Journal: &engine.JournalInfo{WorkflowPath: "plan"}, Resume: resume}
	}
	run := engine.PlanRun{Tasks: []string{"IMPL-1", "IMPL-2.1"}}
	if _, err := runPlan(t, root, opts(nil), run); err != nil {
		t.Fatal(err)
	}
	first := findResume(t, root)
	const ccw = `--tool gemini --mode analysis --cd src/auth)`
	for _, tc := range []struct {
		name, command, started string
	}{
		{"same conditions", ccw, ""},
		{"another directory", `--tool gemini --mode analysis --cd src)`, "gemini: PURPOSE: find where login issues credentials\n"},
		{"not read-only", `--tool gemini --cd src/auth)`, "gemini: PURPOSE: find where login issues credentials\n"},
		{"read-only again, in src/auth", ccw, ""},
	} {
		editTask(t, root, "IMPL-002.1", `"status": "completed"`, `"status": "pending"`)
		if tc.command != ccw {
			editTask(t, root, "IMPL-002.1", ccw, tc.command)
		}
		before := agentLog(t, calls)
		if _, err := runPlan(t, root, opts(first), run); err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if tc.command != ccw {
			editTask(t, root, "IMPL-002.1", tc.command, ccw)
		}
		if got := strings.TrimPrefix(agentLog(t, calls), before); got != tc.started {
			t.Errorf("%s: agents started %q, want %q", tc.name, got, tc.started)
		}
		_, tree := lastTree(t, root)
		var replayed []string
		journal.Walk(tree, func(n *journal.Node, _ int) bool {
			if n.Replayed {
				replayed = append(replayed, n.Name)
			}
			return true
		})
		want := []string{"plan/agent-step", "plan/code-developer"}
		if tc.started != "" {
			want = want[1:]
		}
		if !slices.Equal(replayed, want) {
			t.Errorf("%s: replayed %q, want %q", tc.name, replayed, want)
		}
	}
}

// TestPlanPromptsHaveNoEmptySections runs a plan of minimal CCW tasks (id,
// title, status, meta, context.requirements at most) on the echo provider,
// whose answer is the prompt: the built-in role templates show no heading
// without text, no bare "- " line and no empty analysis.
func TestPlanPromptsHaveNoEmptySections(t *testing.T) {
	root := t.TempDir()
	dir := filepath.Join(root, ".workflow", "active", "WFS-min")
	if err := os.MkdirAll(filepath.Join(dir, ".task"), 0o755); err != nil {
		t.Fatal(err)
	}
	write := func(name, text string) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("workflow-session.json", `{"session_id": "WFS-min", "status": "active"}`)
	roles := []string{"code-developer", "action-planning-agent", "test-fix-agent", "universal-executor"}
	for i, role := range roles {
		write(fmt.Sprintf(".task/IMPL-%d.json", i+1), fmt.Sprintf(`{"id": "IMPL-%d", "title": "Task %d", "status": "pending",
  "meta": {"type": "feature", "agent": "@%s"}, "context": {"requirements": ["Requirement %d"]}, "flow_control": {}}`, i+1, i+1, role, i+1))
	}
	write(".task/IMPL-5.json", `{"id": "IMPL-5", "title": "Bare", "status": "pending", "meta": {}, "context": {}, "flow_control": {}}`)
	out, err := runPlan(t, root, engine.Options{Provider: "echo", Stderr: &bytes.Buffer{}}, engine.PlanRun{})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{
		"IMPL-1": "# IMPL-1: Task 1\n\n## Requirements\n- Requirement 1",
		"IMPL-2": "# IMPL-2: Task 2\n\n## Requirements\n- Requirement 2",
		"IMPL-3": "# IMPL-3: Task 3",
		"IMPL-4": "# IMPL-4: Task 4\n\n## Requirements\n- Requirement 4",
		"IMPL-5": "# IMPL-5: Bare",
	}
	for id, w := range want {
		got := out.Answers[id]
		// The echo answer is the prompt, the task's after the role.
		if i := strings.Index(got, "# "+id+":"); i >= 0 {
			got = got[i:]
		}
		if strings.TrimSpace(got) != w {
			t.Errorf("%s: prompt\n%q\nwant\n%q", id, got, w)
		}
	}
}
