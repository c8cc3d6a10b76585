//go:build temporal

package engine

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/evalrun/evalrun/progress"
	"github.com/evalrun/evalrun/temporal"
	"github.com/evalrun/evalrun/value"
	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/converter"
	"go.temporal.io/sdk/log"
	sdktemporal "go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/testsuite"
)

const planDir = ".workflow/active/WFS-jwt-auth"

// planProject copies examples/plan into a temporary project and applies
// edits: file (under the plan directory) → old → new.
func planProject(t *testing.T, edits ...[3]string) string {
	t.Helper()
	src, err := filepath.Abs("../examples/plan")
	if err != nil {
		t.Fatal(err)
	}
	dst := t.TempDir()
	if err := os.CopyFS(dst, os.DirFS(src)); err != nil {
		t.Fatal(err)
	}
	for _, e := range edits {
		f := filepath.Join(dst, planDir, e[0])
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Contains(data, []byte(e[1])) {
			t.Fatalf("%s does not hold %q", e[0], e[1])
		}
		if err := os.WriteFile(f, bytes.Replace(data, []byte(e[1]), []byte(e[2]), 1), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dst
}

// openEchoEngine opens root with the echo provider.
func openEchoEngine(t *testing.T, root string) *Engine {
	t.Helper()
	return openEngine(t, root, "echo")
}

// openEngine opens root with the provider ("" for the configuration's).
func openEngine(t *testing.T, root, provider string) *Engine {
	t.Helper()
	e, err := Open(Options{WorkDir: root, Provider: provider, Stderr: &bytes.Buffer{}, Getenv: func(k string) string {
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

// stepSpan is the time one plan step activity ran.
type stepSpan struct {
	id         string
	start, end time.Time
}

// planWorkflow is one run of src as the evalrun.Run workflow on a worker
// of the engine of root: its value or error, the names of the activities
// it ran, and the span of each plan step.
type planWorkflow struct {
	value value.Value
	err   error
	// output is the workflow's result (its usage, its budget's refusal).
	output     temporal.RunOutput
	activities []string
	steps      []stepSpan
}

func runPlanWorkflow(t *testing.T, root, src string) planWorkflow {
	t.Helper()
	return runPlanWorkflowWith(t, root, src, "echo")
}

// runPlanWorkflowWith is runPlanWorkflow with the worker's --provider;
// setup may change the environment and the input before the run.
func runPlanWorkflowWith(t *testing.T, root, src, provider string, setup ...func(*testsuite.TestWorkflowEnvironment, *temporal.RunInput)) planWorkflow {
	t.Helper()
	e := openEngine(t, root, provider)
	var s testsuite.WorkflowTestSuite
	s.SetLogger(quietLog())
	env := s.NewTestWorkflowEnvironment()
	env.SetTestTimeout(time.Minute)
	temporal.RegisterWorker(env, workerTasks{e, e.tasks}, e.runTasks, false)
	var mu sync.Mutex
	var out planWorkflow
	open := map[string]int{}
	env.SetOnActivityStartedListener(func(info *activity.Info, _ context.Context, args converter.EncodedValues) {
		mu.Lock()
		defer mu.Unlock()
		out.activities = append(out.activities, info.ActivityType.Name)
		if info.ActivityType.Name == temporal.PlanStepActivityName {
			var in temporal.PlanStepInput
			if err := args.Get(&in); err != nil {
				t.Error(err)
			}
			open[info.ActivityID] = len(out.steps)
			out.steps = append(out.steps, stepSpan{id: in.TaskID, start: time.Now()})
		}
	})
	env.SetOnActivityCompletedListener(func(info *activity.Info, _ converter.EncodedValue, _ error) {
		mu.Lock()
		defer mu.Unlock()
		if i, ok := open[info.ActivityID]; ok {
			out.steps[i].end = time.Now()
		}
	})
	in := temporal.RunInput{Sources: []temporal.Source{{Name: "wf.sexp", Text: src}}, Limits: e.limits}
	for _, f := range setup {
		f(env, &in)
	}
	env.ExecuteWorkflow(temporal.WorkflowName, in)
	if !env.IsWorkflowCompleted() {
		t.Fatal("workflow did not complete")
	}
	if err := env.GetWorkflowError(); err != nil {
		var app *sdktemporal.ApplicationError
		if errors.As(err, &app) && app.Type() == temporal.EvaluationErrorType {
			var ee temporal.EvaluationError
			if derr := app.Details(&ee); derr != nil {
				t.Fatal(derr)
			}
			out.err = errors.New(ee.Message)
			return out
		}
		t.Fatal(err)
	}
	var ro temporal.RunOutput
	if err := env.GetWorkflowResult(&ro); err != nil {
		t.Fatal(err)
	}
	v, err := temporal.Decode(ro.Value)
	if err != nil {
		t.Fatal(err)
	}
	out.value, out.output = v, ro
	return out
}

// runPlanLocal evaluates src in this process on the engine of root.
func runPlanLocal(t *testing.T, root, src string) (value.Value, error) {
	t.Helper()
	e := openEchoEngine(t, root)
	return e.Eval(context.Background(), "wf.sexp", src)
}

var (
	timestamp     = regexp.MustCompile(`\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ`)
	runLine       = regexp.MustCompile(`- Run: [^\n\\]*`)
	tokenCount    = regexp.MustCompile(`"tokens" \d+`)
	tokensCounted = regexp.MustCompile(`"tokens" [1-9]\d+`)
)

// normalRun is a printed plan-run dict without times, run ids and token
// counts.
func normalRun(s string) string {
	return tokenCount.ReplaceAllString(runLine.ReplaceAllString(timestamp.ReplaceAllString(s, "TIME"), "- Run: RUN"), `"tokens" N`)
}

// planFiles returns the files of the plan directory of root with their
// contents, times and run ids taken out (they differ between any two
// runs, and the echo provider's token counts with them), lock files left
// out.
func planFiles(t *testing.T, root string) map[string]string {
	t.Helper()
	out := map[string]string{}
	dir := filepath.Join(root, planDir)
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || strings.HasSuffix(path, ".lock") {
			return err
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, path)
		if rel == filepath.Join(".process", "evalrun-state.json") {
			var doc struct {
				Tasks map[string]map[string]any `json:"tasks"`
			}
			if err := json.Unmarshal(data, &doc); err != nil {
				return err
			}
			for _, r := range doc.Tasks {
				delete(r, "run")
				delete(r, "tokens")
			}
			data, _ = json.Marshal(doc)
		}
		out[rel] = runLine.ReplaceAllString(timestamp.ReplaceAllString(string(data), "TIME"), "- Run: RUN")
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestPlanRunOnTemporal: (plan-run) in a workflow on Temporal gives the
// dict of a local run and leaves the same files; the preparation is one
// activity and every task one plan step activity (their calls run inside
// it, none is a task activity of its own); (plan-load) is one activity
// with the local dict.
func TestPlanRunOnTemporal(t *testing.T) {
	src := `(plan-run "` + planDir + `")`
	localRoot := planProject(t)
	local, err := runPlanLocal(t, localRoot, src)
	if err != nil {
		t.Fatal(err)
	}
	root := planProject(t)
	w := runPlanWorkflow(t, root, src)
	if w.err != nil {
		t.Fatal(w.err)
	}
	// The summaries in the answers name the run and its time, and the
	// echo provider's token counts depend on them.
	if wv, lv := normalRun(w.value.String()), normalRun(local.String()); wv != lv {
		t.Fatalf("workflow:\n%s\nlocal:\n%s", wv, lv)
	}
	if !tokensCounted.MatchString(w.value.String()) {
		t.Errorf("no tokens counted: %s", w.value)
	}
	if !strings.Contains(local.String(), `"IMPL-004" (dict "status" "completed" "answer" "# IMPL-004: `) {
		t.Fatalf("local run did not complete IMPL-004: %s", local)
	}
	want := []string{temporal.PlanPrepareActivityName}
	for range 6 {
		want = append(want, temporal.PlanStepActivityName)
	}
	if !slices.Equal(w.activities, want) {
		t.Errorf("activities %q, want %q", w.activities, want)
	}
	var ids []string
	for _, s := range w.steps {
		ids = append(ids, s.id)
	}
	if got := strings.Join(ids, " "); got != "IMPL-001 IMPL-002.1 IMPL-002.2 IMPL-003.1 IMPL-003.2 IMPL-004" {
		t.Errorf("steps %s", got)
	}
	// The summaries written on the worker name the workflow as their run.
	sum, err := os.ReadFile(filepath.Join(root, planDir, ".summaries", "IMPL-004-summary.md"))
	if err != nil || !strings.Contains(string(sum), "\n- Run: default-test-workflow-id\n") {
		t.Errorf("summary of IMPL-004 (%v):\n%s", err, sum)
	}
	lf, wf := planFiles(t, localRoot), planFiles(t, root)
	if len(lf) < 12 {
		t.Fatalf("only %d plan files: %v", len(lf), slices.Sorted(func(yield func(string) bool) {
			for k := range lf {
				if !yield(k) {
					return
				}
			}
		}))
	}
	for name, l := range lf {
		if wf[name] != l {
			t.Errorf("%s differs:\nworkflow:\n%s\nlocal:\n%s", name, wf[name], l)
		}
	}
	for name := range wf {
		if _, ok := lf[name]; !ok {
			t.Errorf("the workflow wrote %s, the local run did not", name)
		}
	}

	load := `(let ((p (plan-load "` + planDir + `"))) (list (keys p) (get p "order")))`
	lv, err := runPlanLocal(t, planProject(t), load)
	if err != nil {
		t.Fatal(err)
	}
	lw := runPlanWorkflow(t, planProject(t), load)
	if lw.err != nil || lw.value.String() != lv.String() || !slices.Equal(lw.activities, []string{temporal.PlanLoadActivityName}) {
		t.Fatalf("plan-load: %v %v %q, local %s", lw.value, lw.err, lw.activities, lv)
	}
}

// TestPlanRunOnTemporalParallel: (parallel 2) runs IMPL-002.1 and
// IMPL-003.1 side by side; when their focus_paths overlap they never run
// at the same time, as in a local run.
func TestPlanRunOnTemporalParallel(t *testing.T) {
	slow := [][3]string{
		{".task/IMPL-002.1.json", "bash(ls src/auth)", "bash(sleep 0.4; ls src/auth)"},
		{".task/IMPL-003.1.json", "bash(wc -l src/middleware/auth.ts)", "bash(sleep 0.4; wc -l src/middleware/auth.ts)"},
	}
	src := `(plan-run "` + planDir + `" (task "IMPL-2.1 IMPL-3.1") (parallel 2))`
	overlapped := func(w planWorkflow) bool {
		if len(w.steps) != 2 || w.steps[0].end.IsZero() || w.steps[1].end.IsZero() {
			t.Fatalf("steps %+v", w.steps)
		}
		a, b := w.steps[0], w.steps[1]
		return a.start.Before(b.end) && b.start.Before(a.end)
	}
	// IMPL-001 completed, so that both are ready.
	done := [3]string{".task/IMPL-001.json", `"status": "pending"`, `"status": "completed"`}
	w := runPlanWorkflow(t, planProject(t, append(slow, done)...), src)
	if w.err != nil {
		t.Fatal(w.err)
	}
	if !overlapped(w) {
		t.Errorf("IMPL-002.1 and IMPL-003.1 did not run side by side: %+v", w.steps)
	}
	same := [3]string{".task/IMPL-003.1.json", `"src/middleware/auth.ts"
    ]`, `"src/auth/login.ts"
    ]`}
	w = runPlanWorkflow(t, planProject(t, append(slow, done, same)...), src)
	if w.err != nil {
		t.Fatal(w.err)
	}
	if overlapped(w) {
		t.Errorf("IMPL-002.1 and IMPL-003.1 share a focus path but ran side by side: %+v", w.steps)
	}
	if got := w.value.String(); !strings.Contains(got, `"IMPL-002.1" (dict "status" "completed"`) || !strings.Contains(got, `"IMPL-003.1" (dict "status" "completed"`) {
		t.Errorf("value %s", got)
	}
}

// TestPlanRunOnTemporalFailureAndStop: a failed task is an entry of the
// dict and its dependants are not started; a manual_intervention step is
// the evaluation error of a local run; a task file changed by someone
// else stops the run.
func TestPlanRunOnTemporalFailureAndStop(t *testing.T) {
	fail := [3]string{".task/IMPL-001.json", "bash(cat src/auth/login.ts)", "bash(exit 3)"}
	src := `(plan-run "` + planDir + `" :task "IMPL-1 IMPL-2.1" :parallel 2)`
	w := runPlanWorkflow(t, planProject(t, fail), src)
	if w.err != nil {
		t.Fatal(w.err)
	}
	want := `(dict "IMPL-001" (dict "status" "failed" "reason" "pre_analysis step \"load_current_login\": \"exit 3\": exit status 3") "IMPL-002.1" (dict "status" "not_started"))`
	if got := w.value.String(); got != want {
		t.Errorf("plan-run:\n got %s\nwant %s", got, want)
	}

	manual := [3]string{".task/IMPL-001.json", `"on_error": "fail"`, `"on_error": "manual_intervention"`}
	src = "(list 1\n  (plan-run \"" + planDir + "\" (task \"IMPL-1\")))"
	localRoot := planProject(t, fail, manual)
	_, lerr := runPlanLocal(t, localRoot, src)
	root := planProject(t, fail, manual)
	w = runPlanWorkflow(t, root, src)
	if w.err == nil || lerr == nil || w.err.Error() != lerr.Error() {
		t.Fatalf("manual stop:\nworkflow %v\nlocal    %v", w.err, lerr)
	}
	if !strings.HasPrefix(w.err.Error(), `wf.sexp:2:3: 'plan-run' stopped: IMPL-001: pre_analysis step "load_current_login" failed and needs a person`) {
		t.Errorf("error %v", w.err)
	}
	if lf, wf := planFiles(t, localRoot), planFiles(t, root); wf[".task/IMPL-001.json"] != lf[".task/IMPL-001.json"] || !strings.Contains(wf[".task/IMPL-001.json"], `"status": "active"`) {
		t.Errorf("IMPL-001 after the stop:\n%s", wf[".task/IMPL-001.json"])
	}

	// IMPL-002.1 changes on disk while IMPL-001 runs (its pre-step
	// rewrites the file): its step refuses to run and the run stops.
	change := [3]string{".task/IMPL-001.json", "bash(cat src/auth/login.ts)",
		`bash(echo >> .workflow/active/WFS-jwt-auth/.task/IMPL-002.1.json)`}
	w = runPlanWorkflow(t, planProject(t, change), `(plan-run "`+planDir+`" (task "IMPL-1 IMPL-2.1"))`)
	if w.err == nil || !strings.Contains(w.err.Error(), "IMPL-002.1.json was changed by someone else while the plan ran") {
		t.Fatalf("changed file: %v %v", w.value, w.err)
	}
}

func quietLog() log.Logger {
	return log.NewStructuredLogger(slog.New(slog.NewTextHandler(io.Discard, nil)))
}

// slowClaude is a fake claude that takes 0.3 s and answers in claude's
// JSON; gemini answers at once.
const (
	slowClaude = `#!/bin/sh
cat > /dev/null
sleep 0.3
printf '{"type":"result","is_error":false,"num_turns":1,"result":"claude did it","session_id":"s1","total_cost_usd":0.25,"usage":{"input_tokens":100,"cache_read_input_tokens":0,"cache_creation_input_tokens":0,"output_tokens":10}}\n'
`
	quickGemini = `#!/bin/sh
printf '{"response":"gemini did it","stats":{"models":{"gemini-2.5-pro":{"tokens":{"prompt":70,"candidates":7}}}}}\n'
`
)

// TestPlanStepsHoldAgentSlots: the plan steps of IMPL-002.1 and
// IMPL-003.1, both run by claude, run side by side under (parallel 2);
// with [agents.claude] max_parallel = 1 the workflow holds claude's slot
// around each step, so the steps — not only the processes of one worker —
// never overlap.
func TestPlanStepsHoldAgentSlots(t *testing.T) {
	bin := t.TempDir()
	for name, text := range map[string]string{"claude": slowClaude, "gemini": quickGemini} {
		if err := os.WriteFile(filepath.Join(bin, name), []byte(text), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	done := [3]string{".task/IMPL-001.json", `"status": "pending"`, `"status": "completed"`}
	src := `(plan-run "` + planDir + `" (task "IMPL-2.1 IMPL-3.1") (parallel 2))`
	for _, c := range []struct {
		max     int
		overlap bool
	}{{2, true}, {1, false}} {
		root := planProject(t, done)
		cfg := filepath.Join(root, ".evalrun", "config.toml")
		data, err := os.ReadFile(cfg)
		if err != nil {
			t.Fatal(err)
		}
		// The last table of the example's configuration is [agents.claude].
		if err := os.WriteFile(cfg, fmt.Appendf(data, "max_parallel = %d\n", c.max), 0o644); err != nil {
			t.Fatal(err)
		}
		w := runPlanWorkflowWith(t, root, src, "")
		if w.err != nil {
			t.Fatal(w.err)
		}
		if got := w.value.String(); !strings.Contains(got, `"IMPL-002.1" (dict "status" "completed" "answer" "`) || !strings.Contains(got, `"IMPL-003.1" (dict "status" "completed" "answer" "claude did it`) {
			t.Fatalf("max_parallel %d: %s", c.max, got)
		}
		if len(w.steps) != 2 {
			t.Fatalf("steps %+v", w.steps)
		}
		a, b := w.steps[0], w.steps[1]
		if got := a.start.Before(b.end) && b.start.Before(a.end); got != c.overlap {
			t.Errorf("max_parallel %d: steps overlapped %v, want %v: %+v", c.max, got, c.overlap, w.steps)
		}
	}
}

// blockingClaude writes its pid to $PLAN_AGENT_PID and sleeps.
const blockingClaude = `#!/bin/sh
echo $$ > "$PLAN_AGENT_PID.tmp" && mv "$PLAN_AGENT_PID.tmp" "$PLAN_AGENT_PID"
exec sleep 60
`

// TestPlanStepCancellation: cancelling the workflow while a plan step's
// agent runs ends the run as an interruption and kills the agent's
// process: the step heartbeats, and its context reaches the agent.
func TestPlanStepCancellation(t *testing.T) {
	bin := t.TempDir()
	if err := os.WriteFile(filepath.Join(bin, "claude"), []byte(blockingClaude), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	pidFile := filepath.Join(t.TempDir(), "pid")
	t.Setenv("PLAN_AGENT_PID", pidFile)
	root := planProject(t, [3]string{".task/IMPL-001.json", `"status": "pending"`, `"status": "completed"`})
	w := runPlanWorkflowWith(t, root, `(plan-run "`+planDir+`" (task "IMPL-3.1"))`, "", func(env *testsuite.TestWorkflowEnvironment, in *temporal.RunInput) {
		in.Calls.Heartbeat = 2 * time.Second
		env.RegisterDelayedCallback(env.CancelWorkflow, time.Second)
	})
	if w.err == nil || !strings.HasSuffix(w.err.Error(), "interrupted") {
		t.Fatalf("got %v %v", w.value, w.err)
	}
	data, err := os.ReadFile(pidFile)
	if err != nil {
		t.Fatalf("the agent did not start: %v", err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(data)))
	if err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for syscall.Kill(pid, 0) == nil && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	if syscall.Kill(pid, 0) == nil {
		syscall.Kill(pid, syscall.SIGKILL)
		t.Fatalf("the agent's process %d still runs", pid)
	}
}

// TestPlanRunOnTemporalDisplay: a followed (plan-run) shows what a local
// run's display shows: its step "plan-run WFS-…" with the whole plan
// announced below it (titles, agents, containers with their subtasks)
// before the first task runs, each task taking over its announced line.
func TestPlanRunOnTemporalDisplay(t *testing.T) {
	var during temporal.ProgressPage
	var env *testsuite.TestWorkflowEnvironment
	query := func(after int) temporal.ProgressPage {
		v, err := env.QueryWorkflow(temporal.ProgressQuery, after)
		if err != nil {
			t.Fatalf("progress query: %v", err)
		}
		var p temporal.ProgressPage
		if err := v.Get(&p); err != nil {
			t.Fatal(err)
		}
		return p
	}
	w := runPlanWorkflowWith(t, planProject(t), `(plan-run "`+planDir+`")`, "echo", func(e *testsuite.TestWorkflowEnvironment, _ *temporal.RunInput) {
		env = e
		e.SetOnActivityCompletedListener(func(info *activity.Info, _ converter.EncodedValue, _ error) {
			if info.ActivityType.Name == temporal.PlanStepActivityName && during.Next == 0 {
				during = query(0)
			}
		})
	})
	if w.err != nil {
		t.Fatal(w.err)
	}
	if len(during.Events) == 0 {
		t.Fatal("no progress events while IMPL-001 ran")
	}
	// The events carry the workflow's clock.
	start := during.Events[0].Time
	m := progress.NewModel(start)
	frame := func(evs []temporal.ProgressEvent) string {
		for _, e := range evs {
			m.Apply(e.Event)
		}
		return strings.Join(progress.Frame(m, progress.Size{Width: 100, Height: 20}, start.Add(2*time.Second), false), "\n")
	}
	want := `0 done · 0 running · 0 waiting · 2s
  ▸ step plan-run WFS-jwt-auth  0/6 tasks  2s
    [ ] IMPL-001 Design the token model (@action-planning-agent, active)  <-- current
    [ ] IMPL-002 Token issuing (@code-developer, pending)
      [ ] IMPL-002.1 Token generation (@code-developer, pending)
      [ ] IMPL-002.2 Refresh tokens (@code-developer, pending)
    [ ] IMPL-003 Request validation (@code-developer, pending)
      [ ] IMPL-003.1 Token validation middleware (@code-developer, pending)
      [ ] IMPL-003.2 Middleware tests (@test-fix-agent, pending)
    [ ] IMPL-004 Document the authentication flow (@doc-generator, pending)`
	if g := frame(during.Events); g != want {
		t.Fatalf("frame while IMPL-001 runs:\n%s\nwant:\n%s", g, want)
	}
	var ended []string
	for _, e := range query(during.Next).Events {
		if e.Phase == progress.Ended {
			ended = append(ended, e.Name+" "+e.Status)
		}
	}
	if g := strings.Join(ended, ", "); g != "IMPL-001 completed, IMPL-002.1 completed, IMPL-002.2 completed, IMPL-003.1 completed, IMPL-003.2 completed, IMPL-004 completed, plan-run WFS-jwt-auth completed" {
		t.Errorf("ended after IMPL-001: %s", g)
	}
}
