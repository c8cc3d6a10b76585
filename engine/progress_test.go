package engine_test

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/evalrun/evalrun/engine"
)

// lockedBuffer is a strings.Builder safe for the display's goroutine.
type lockedBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// TestPlanProgress: during a plan run the display shows the whole task
// tree (SPEC §23.5) with [x] / [ ], states, agents and <-- current on the
// task that runs; after Close nothing of it stays.
func TestPlanProgress(t *testing.T) {
	root := copyExample(t)
	fakeAgentBin(t)
	t.Setenv("FAKE_AGENT_SLOW", "claude") // a claude task takes a second, so frames show it running
	cfg := "[plan.agents]\n\"@code-developer\" = \"claude\"\n\"@action-planning-agent\" = \"gemini\"\n\"@test-fix-agent\" = \"codex\"\n"
	if err := os.WriteFile(filepath.Join(root, ".evalrun", "config.toml"), []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	var out lockedBuffer
	prog, err := engine.NewProgress(engine.ProgressAlways, &out, func(k string) string {
		if k == "NO_COLOR" {
			return "1"
		}
		return ""
	})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := runPlan(t, root, engine.Options{Progress: prog, Stderr: prog, Journal: &engine.JournalInfo{WorkflowPath: "plan"}}, engine.PlanRun{}); err != nil {
		t.Fatal(err)
	}
	if err := prog.Close(); err != nil {
		t.Fatal(err)
	}
	// The frames are what follows each erase (ESC[J).
	frames := strings.Split(out.String(), "\x1b[J")
	want := regexp.MustCompile(`(?m)^\d+ done · 1 running · 0 waiting · [0-9,]+ tokens · ([^·\n]+ · )?\ds\n` +
		`  \[x\] IMPL-001 Design the token model \(@action-planning-agent, completed\)\n` +
		`  \[ \] IMPL-002 Token issuing \(@code-developer, active\)\n` +
		`    \[x\] IMPL-002\.1 Token generation \(@code-developer, completed\)\n` +
		`    \[ \] IMPL-002\.2 Refresh tokens \(@code-developer, active\)  <-- current\n` +
		`      ▸ agent plan/code-developer  agent:claude  \ds\n` +
		`  \[ \] IMPL-003 Request validation \(@code-developer, pending\)\n` +
		`    \[ \] IMPL-003\.1 Token validation middleware \(@code-developer, pending\)\n`)
	found := false
	for _, f := range frames {
		if want.MatchString(f) {
			t.Logf("frame:\n%s", f)
			found = true
			break
		}
	}
	if !found {
		t.Fatalf("no frame shows the tree with IMPL-002.2 current; frames:\n%s", strings.Join(frames, "\n-----\n"))
	}
	if n := strings.Count(out.String(), "\x1b[J"); n < 5 {
		t.Errorf("%d redraws for a run of about 2 s", n)
	}
}

// TestWorkflowPlanRunProgress: in a workflow, the tasks a (plan-run)
// announces are drawn below its step node — with its tasks done/total —
// not at the top beside the workflow's other steps; once the plan-run
// has ended they are gone from the frame, and the header counts the
// agent calls the plan made.
func TestWorkflowPlanRunProgress(t *testing.T) {
	root := copyExample(t)
	calls := fakeAgentBin(t)
	t.Setenv("FAKE_AGENT_SLOW", "claude") // IMPL-002.1 takes a second, so frames show it running
	var out lockedBuffer
	prog, err := engine.NewProgress(engine.ProgressAlways, &out, func(k string) string {
		if k == "NO_COLOR" {
			return "1"
		}
		return ""
	})
	if err != nil {
		t.Fatal(err)
	}
	e, err := engine.Open(engine.Options{WorkDir: root, Progress: prog, Stderr: prog, Journal: &engine.JournalInfo{WorkflowPath: "wf.lisp"}, Getenv: testGetenv(root)})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	v, err := e.Eval(context.Background(), "wf.lisp", `(define p (step "prepare" (plan-load ".workflow/active/WFS-jwt-auth")))
(define r (plan-run ".workflow/active/WFS-jwt-auth" (task "IMPL-1 IMPL-2.1")))
(step "report" (list (length (get p "tasks")) (keys r)))`)
	e.Finish(v, err)
	if err != nil {
		t.Fatal(err)
	}
	if err := prog.Close(); err != nil {
		t.Fatal(err)
	}
	if got, want := v.String(), `(8 ("IMPL-001" "IMPL-002.1"))`; got != want {
		t.Fatalf("workflow value %s, want %s", got, want)
	}
	if n := strings.Count(agentLog(t, calls), "\n"); n != 3 {
		t.Fatalf("%d agent calls, want 3 (gemini for IMPL-001, gemini and claude for IMPL-002.1):\n%s", n, agentLog(t, calls))
	}
	// The frames are what follows each erase (ESC[J), from the header on
	// (lines the run printed come before it), up to the next erase.
	header := regexp.MustCompile(`(?m)^\d+ done · `)
	var frames []string
	for _, f := range strings.Split(out.String(), "\x1b[J")[1:] {
		loc := header.FindStringIndex(f)
		if loc == nil {
			continue
		}
		f = f[loc[0]:]
		if i := strings.LastIndex(f, "\r"); i >= 0 {
			f = f[:i]
		}
		frames = append(frames, f)
	}
	if len(frames) < 5 {
		t.Fatalf("%d frames for a run of about a second:\n%s", len(frames), strings.Join(frames, "\n-----\n"))
	}
	topTask := regexp.MustCompile(`(?m)^  \[[x ]\] IMPL-`)
	firstTask := regexp.MustCompile(`(?m)^.*\n\s*\[[x ]\] IMPL-`)
	underStep := regexp.MustCompile(`^  ▸ step plan-run WFS-jwt-auth  \d/6 tasks  \ds\n    \[`)
	for _, f := range frames {
		if topTask.MatchString(f) {
			t.Fatalf("a plan task is drawn at the top, outside its plan-run:\n%s", f)
		}
		if loc := firstTask.FindStringIndex(f); loc != nil && !underStep.MatchString(f[loc[0]:]) {
			t.Fatalf("the first plan task does not follow its plan-run step:\n%s", f)
		}
	}
	// While IMPL-002.1 runs on claude (the second of its agent calls), the
	// frame shows the plan's whole tree below the plan-run step.
	want := regexp.MustCompile(`(?m)^2 done · 1 running · 0 waiting · [0-9,]+ tokens · [^\n]+ · \ds\n` +
		`  ▸ step plan-run WFS-jwt-auth  1/6 tasks  \ds\n` +
		`    \[x\] IMPL-001 Design the token model \(@action-planning-agent, completed\)\n` +
		`    \[ \] IMPL-002 Token issuing \(@code-developer, active\)\n` +
		`      \[ \] IMPL-002\.1 Token generation \(@code-developer, active\)  <-- current\n` +
		`        ▸ agent plan/code-developer  agent:claude  \ds\n` +
		`      \[ \] IMPL-002\.2 Refresh tokens \(@code-developer, pending\)\n` +
		`    \[ \] IMPL-003 Request validation \(@code-developer, pending\)\n` +
		`      \[ \] IMPL-003\.1 Token validation middleware \(@code-developer, pending\)\n` +
		`      \[ \] IMPL-003\.2 Middleware tests \(@test-fix-agent, pending\)\n` +
		`    \[ \] IMPL-004 Document the authentication flow \(@doc-generator, pending\)$`)
	found := false
	for _, f := range frames {
		if want.MatchString(f) {
			found = true
			break
		}
	}
	if !found {
		t.Fatalf("no frame shows the plan's tree below its plan-run with IMPL-002.1 current; frames:\n%s", strings.Join(frames, "\n-----\n"))
	}
}

// TestWorkflowPlanRunWithoutTerminal: with stderr not a terminal (auto),
// a workflow's plan-run prints only the plan's own lines, no frame.
func TestWorkflowPlanRunWithoutTerminal(t *testing.T) {
	root := copyExample(t)
	fakeAgentBin(t)
	var out lockedBuffer
	prog, err := engine.NewProgress(engine.ProgressAuto, &out, nil)
	if err != nil {
		t.Fatal(err)
	}
	if prog.On() {
		t.Fatal("the display is on for a stderr that is no terminal")
	}
	e, err := engine.Open(engine.Options{WorkDir: root, Progress: prog, Stderr: prog, Journal: &engine.JournalInfo{WorkflowPath: "wf.lisp"}, Getenv: testGetenv(root)})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	v, err := e.Eval(context.Background(), "wf.lisp", `(step "prepare" (plan-load ".workflow/active/WFS-jwt-auth"))
(plan-run ".workflow/active/WFS-jwt-auth" (task "IMPL-1 IMPL-2.1"))
(step "report" "done")`)
	e.Finish(v, err)
	if err != nil {
		t.Fatal(err)
	}
	if err := prog.Close(); err != nil {
		t.Fatal(err)
	}
	want := "plan: IMPL-001 started (@action-planning-agent via gemini)\n" +
		"agent gemini from local (.evalrun/config.toml:13): GEMINI_SYSTEM_MD={role_file} gemini --prompt={prompt} -m {model} --output-format json\n" +
		"plan: IMPL-001 completed\n" +
		"plan: IMPL-002.1 started (@code-developer via claude)\n" +
		"agent claude from local (.evalrun/config.toml:18): claude -p --output-format json --model {model} --append-system-prompt {role}\n" +
		"plan: IMPL-002.1 completed\n"
	if got := out.String(); got != want {
		t.Fatalf("stderr:\n%q\nwant:\n%q", got, want)
	}
}
