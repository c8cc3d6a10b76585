package journal

import (
	"bytes"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/evalrun/evalrun/value"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		check(t, os.WriteFile(path, []byte(got), 0o644))
	}
	want, err := os.ReadFile(path)
	check(t, err)
	if got != string(want) {
		t.Fatalf("%s mismatch:\n got:\n%s\nwant:\n%s", name, got, want)
	}
}

// TestRenderStatusGolden reproduces the example of SPEC §16.3, with the
// costs of SPEC §14.9: two calls with a known cost, one without.
func TestRenderStatusGolden(t *testing.T) {
	s, clk := openTest(t)
	ids(s, "a1b2")
	run := must[*Run](t)(s.StartRun(RunInfo{WorkflowPath: "plan.sexp"}))
	pend := must[[]*Call](t)(run.AddPendingSteps([]string{"plan", "lint", "implement", "verify"}))

	plan := must[*Call](t)(run.Begin(nil, KindStep, "plan", "", nil))
	if plan != pend[0] {
		t.Fatal("step plan did not claim its pending node")
	}
	gen := must[*Call](t)(run.Begin(plan, KindTask, "plan/generate", "h0", value.DictOf("goal", value.String("g"))))
	check(t, gen.Running())
	check(t, gen.End(StatusCompleted, result("{}"), "", Usage{InputTokens: 3000, OutputTokens: 1102, Turns: 1, CostUSD: Cost(0.0123, true)}, 0, false))
	check(t, plan.End(StatusCompleted, value.String("{}"), "", Usage{}, 1, false))

	lint := must[*Call](t)(run.Begin(nil, KindStep, "lint", "", nil))
	check(t, lint.End(StatusSkipped, value.Null{}, "command exited with status 1", Usage{}, 1, false))

	impl := must[*Call](t)(run.Begin(nil, KindStep, "implement", "", nil))
	t1 := must[*Call](t)(run.Begin(impl, KindTask, "code/implement", "h1", nil))
	check(t, t1.End(StatusCompleted, result("diff"), "", Usage{InputTokens: 7000, OutputTokens: 903, Turns: 3, CostUSD: Cost(0.0456, true)}, 0, false))
	t2 := must[*Call](t)(run.Begin(impl, KindTask, "code/implement", "h2", nil))
	exhausted := &value.TaskResult{Status: value.StatusFailed, Content: "turn limit reached",
		Notes: value.DictOf("error", value.DictOf("type", value.String("RESOURCE_EXHAUSTION"),
			"resource", value.String("turns"), "message", value.String("turn limit reached"),
			"metrics", value.DictOf("used", value.Int(10), "limit", value.Int(10))))}
	check(t, t2.End(StatusFailed, exhausted, "", Usage{InputTokens: 6000, OutputTokens: 209, Turns: 10}, 0, false))
	check(t, impl.End(StatusFailed, nil, "step 'implement' failed: turn limit reached", Usage{}, 2, false))

	clk.set(t0.Add(2*time.Minute + 13*time.Second + 300*time.Millisecond))
	check(t, run.Finish(StatusFailed, nil, nil))

	rec := must[*RunRecord](t)(s.Resolve("last"))
	tree := must[[]*Node](t)(s.Tree(rec.ID))
	var b bytes.Buffer
	check(t, RenderStatus(&b, rec, tree))
	golden(t, "status.golden", b.String())

	b.Reset()
	check(t, RenderRuns(&b, []*RunRecord{rec}))
	golden(t, "runs.golden", b.String())
}

// TestRenderStatusError: a run that ended with an error says why on its
// last line, even when it made no call (the first line of a positioned
// error only).
func TestRenderStatusError(t *testing.T) {
	s, _ := openTest(t)
	ids(s, "c3d4")
	run := must[*Run](t)(s.StartRun(RunInfo{WorkflowPath: "<eval>"}))
	check(t, run.Finish(StatusFailed, nil, errors.New("<eval>:1:1: boom\n(error \"boom\")\n^")))
	rec := must[*RunRecord](t)(s.Resolve("last"))
	var b bytes.Buffer
	check(t, RenderStatus(&b, rec, must[[]*Node](t)(s.Tree(rec.ID))))
	want := "run 20250106-140300-c3d4  failed  <eval>  started 2025-01-06 14:03:00  0s  0 calls  0 tokens\nerror: <eval>:1:1: boom\n"
	if b.String() != want {
		t.Fatalf("status:\n%s\nwant:\n%s", b.String(), want)
	}
}

// TestRenderMarkdownGolden reproduces the example of SPEC §20.4: an
// interrupted run of release.sexp.
func TestRenderMarkdownGolden(t *testing.T) {
	s, _ := openTest(t)
	run := must[*Run](t)(s.StartRun(RunInfo{WorkflowPath: "release.sexp"}))
	must[[]*Call](t)(run.AddPendingSteps([]string{"plan", "baseline-tests", "lint", "implement"}))
	shell := ToolHash("system_execute_shell_command", value.DictOf("command", value.String("go test ./...")))

	plan := must[*Call](t)(run.Begin(nil, KindStep, "plan", "", nil))
	record(t, run, plan, KindTask, "plan/generate", "h0", StatusCompleted, result("{}"), Usage{Turns: 1})
	check(t, plan.End(StatusCompleted, value.String("{}"), "", Usage{}, 1, false))

	tests := must[*Call](t)(run.Begin(nil, KindStep, "baseline-tests", "", nil))
	record(t, run, tests, KindTool, "system_execute_shell_command", shell, StatusCompleted, result("ok"), Usage{})
	check(t, tests.End(StatusCompleted, result("ok"), "", Usage{}, 1, false))

	lint := must[*Call](t)(run.Begin(nil, KindStep, "lint", "", nil))
	vet := must[*Call](t)(run.Begin(lint, KindTool, "system_execute_shell_command", "hv", nil))
	check(t, vet.End(StatusFailed, nil, "command exited with status 1:\n./client.go:12:2: unreachable code", Usage{}, 0, false))
	check(t, lint.End(StatusSkipped, value.Null{}, "command exited with status 1:", Usage{}, 1, false))

	impl := must[*Call](t)(run.Begin(nil, KindStep, "implement", "", nil))
	s1 := must[*Call](t)(run.Begin(impl, KindStep, "Parse Retry-After", "", nil))
	record(t, run, s1, KindTask, "code/implement", "h1", StatusCompleted, result("diff"), Usage{Turns: 2})
	check(t, s1.End(StatusCompleted, result("diff"), "", Usage{}, 1, false))
	s2 := must[*Call](t)(run.Begin(impl, KindStep, "Use the delay in the retry loop", "", nil))
	cancelled := value.Failed("execution_halted", "cancelled", nil)
	record(t, run, s2, KindTask, "code/implement", "h2", StatusFailed, cancelled, Usage{})
	// Interrupted: the steps and the run never end.

	tree := must[[]*Node](t)(s.Tree(run.ID()))
	var b bytes.Buffer
	check(t, RenderMarkdown(&b, tree))
	golden(t, "markdown.golden", b.String())
}

// TestRenderResumedCostGolden renders a run that resumed another: its
// replayed call keeps its recorded cost, marked, while the header and the
// COST column of runs show what the run paid and, apart, what it replayed.
func TestRenderResumedCostGolden(t *testing.T) {
	s, clk := openTest(t)
	ids(s, "a1b2", "c3d4")
	first := must[*Run](t)(s.StartRun(RunInfo{WorkflowPath: "plan.sexp"}))
	gen := must[*Call](t)(first.Begin(nil, KindTask, "plan/generate", "h0", nil))
	check(t, gen.End(StatusCompleted, result("{}"), "", Usage{InputTokens: 3000, OutputTokens: 1102, Turns: 1, CostUSD: Cost(0.0123, true)}, 0, false))
	impl := must[*Call](t)(first.Begin(nil, KindTask, "code/implement", "h1", nil))
	check(t, impl.End(StatusFailed, nil, "agent crashed", Usage{}, 0, false))
	clk.set(t0.Add(time.Minute))
	check(t, first.Finish(StatusFailed, nil, nil))

	second := must[*Run](t)(s.StartRun(RunInfo{WorkflowPath: "plan.sexp", ResumedFrom: first.ID()}))
	rgen := must[*Call](t)(second.Begin(nil, KindTask, "plan/generate", "h0", nil))
	check(t, rgen.End(StatusCompleted, result("{}"), "", Usage{InputTokens: 3000, OutputTokens: 1102, Turns: 1, CostUSD: Cost(0.0123, true)}, 0, true))
	rimpl := must[*Call](t)(second.Begin(nil, KindTask, "code/implement", "h1", nil))
	check(t, rimpl.End(StatusCompleted, result("diff"), "", Usage{InputTokens: 7000, OutputTokens: 903, Turns: 3, CostUSD: Cost(0.0456, true)}, 0, false))
	clk.set(t0.Add(2 * time.Minute))
	check(t, second.Finish(StatusCompleted, value.String("diff"), nil))

	rec := must[*RunRecord](t)(s.Resolve("last"))
	if rec.CostUSD != 0.0456 || rec.ReplayedCostUSD != 0.0123 {
		t.Fatalf("resumed run cost = %v + %v replayed, want 0.0456 + 0.0123", rec.CostUSD, rec.ReplayedCostUSD)
	}
	tree := must[[]*Node](t)(s.Tree(rec.ID))
	var b bytes.Buffer
	check(t, RenderStatus(&b, rec, tree))
	golden(t, "status_resumed.golden", b.String())

	b.Reset()
	check(t, RenderRuns(&b, must[[]*RunRecord](t)(s.Runs(0))))
	golden(t, "runs_resumed.golden", b.String())
}

func TestRunCostText(t *testing.T) {
	for _, c := range []struct {
		usd, replayed float64
		unknown       int
		want          string
	}{
		{0, 0, 0, ""},
		{0.0123, 0, 1, "$0.0123, cost unknown for 1 call"},
		{0, 0.0183, 0, "$0.0000 spent + $0.0183 replayed"},
		{0.0012, 0.0183, 2, "$0.0012 spent + $0.0183 replayed, cost unknown for 2 calls"},
	} {
		if got := RunCostText(c.usd, c.replayed, c.unknown); got != c.want {
			t.Errorf("RunCostText(%v, %v, %d) = %q, want %q", c.usd, c.replayed, c.unknown, got, c.want)
		}
	}
	for _, c := range []struct {
		r    RunRecord
		want string
	}{
		{RunRecord{}, "-"},
		{RunRecord{CostUSD: 0.0123}, "$0.0123"},
		{RunRecord{ReplayedCostUSD: 0.0183}, "$0.0000+r"},
		{RunRecord{CostUSD: 0.0012, ReplayedCostUSD: 0.0183, CostUnknown: 1}, "$0.0012+?+r"},
		{RunRecord{CostUnknown: 1, ReplayedCostUSD: 0.0183}, "$0.0000+?+r"},
	} {
		if got := runCost(&c.r); got != c.want {
			t.Errorf("runCost(%+v) = %q, want %q", c.r, got, c.want)
		}
	}
}

// TestRenderStatusRunError: a run that ended with an error ends with the
// line "error: " and the error's first line, whether its tree says why (a
// failed node) or not (it failed before any call, or between calls).
func TestRenderStatusRunError(t *testing.T) {
	s, _ := openTest(t)
	ids(s, "a1b2", "c3d4")
	run := must[*Run](t)(s.StartRun(RunInfo{WorkflowPath: "w.sexp"}))
	must[[]*Call](t)(run.AddPendingSteps([]string{"plan"}))
	check(t, run.Finish(StatusFailed, nil, errors.New("w.sexp:2:1: Undefined variable: x")))
	rec := must[*RunRecord](t)(s.GetRun(run.ID()))
	var b bytes.Buffer
	check(t, RenderStatus(&b, rec, must[[]*Node](t)(s.Tree(rec.ID))))
	want := "run 20250106-140300-a1b2  failed  w.sexp  started " + t0.Local().Format(timeLayout) + "  0s  0 calls  0 tokens\n" +
		"  [pending]   step \"plan\"   <-- current\n" +
		"error: w.sexp:2:1: Undefined variable: x\n"
	if b.String() != want {
		t.Errorf("status:\n%s\nwant:\n%s", b.String(), want)
	}

	run = must[*Run](t)(s.StartRun(RunInfo{WorkflowPath: "w.sexp"}))
	c := must[*Call](t)(run.Begin(nil, KindTool, "shell", "h", nil))
	check(t, c.End(StatusFailed, nil, "exit status 1", Usage{}, 1, false))
	check(t, run.Finish(StatusFailed, nil, errors.New("w.sexp:1:1: exit status 1")))
	rec = must[*RunRecord](t)(s.GetRun(run.ID()))
	b.Reset()
	check(t, RenderStatus(&b, rec, must[[]*Node](t)(s.Tree(rec.ID))))
	if !strings.HasSuffix(b.String(), "\nerror: w.sexp:1:1: exit status 1\n") {
		t.Errorf("status does not end with the run's error:\n%s", b.String())
	}
}

// TestRenderStatusLabelsCallsOfOneTemplate: the calls of one template made
// side by side (a parallel-map) show their labels — their input values —
// so that their lines can be told apart; a call without such a sibling
// keeps the line of SPEC §16.3.
func TestRenderStatusLabelsCallsOfOneTemplate(t *testing.T) {
	s, _ := openTest(t)
	ids(s, "a1b2")
	run := must[*Run](t)(s.StartRun(RunInfo{WorkflowPath: "review.sexp"}))
	step := must[*Call](t)(run.Begin(nil, KindStep, "review", "", nil))
	plan := must[*Call](t)(run.Begin(step, KindTask, "plan/generate", "h0", value.DictOf("goal", value.String("ship 1.4"))))
	check(t, plan.End(StatusCompleted, result("{}"), "", Usage{InputTokens: 10, OutputTokens: 2, Turns: 1}, 0, false))
	for i, f := range []string{"api.go", "store.go"} {
		c := must[*Call](t)(run.Begin(step, KindTask, "review/file", "h"+f, value.DictOf("path", value.String(f), "focus", value.Null{})))
		if i == 0 {
			check(t, c.End(StatusCompleted, result("ok"), "", Usage{InputTokens: 100, OutputTokens: 20, Turns: 1}, 0, false))
		}
	}
	// A call waiting for its slot gets its label with its inputs.
	waiting := must[*Call](t)(run.Begin(step, KindTask, "review/file", "", nil))
	long := strings.Repeat("internal/server/handlers/", 3) + "auth.go"
	check(t, waiting.SetInput("hl", value.DictOf("path", value.String(long), "focus", value.String("security"))))
	rec := must[*RunRecord](t)(s.Resolve("last"))
	tree := must[[]*Node](t)(s.Tree(rec.ID))
	var b bytes.Buffer
	check(t, RenderStatus(&b, rec, tree))
	lines := strings.Split(b.String(), "\n")[1:]
	want := []string{
		`  [running]   step "review"`,
		`    [completed] task plan/generate  1 turn  12 tokens`,
		`    [completed] task review/file "api.go"  1 turn  120 tokens`,
		`    [pending]   task review/file "store.go"   <-- current`,
		`    [pending]   task review/file "internal/server/handlers/internal/serve…"`,
		``,
	}
	if strings.Join(lines, "\n") != strings.Join(want, "\n") {
		t.Errorf("status:\n%s\nwant:\n%s", strings.Join(lines, "\n"), strings.Join(want, "\n"))
	}
	b.Reset()
	check(t, RenderMarkdown(&b, tree))
	if got := b.String(); !strings.Contains(got, "\n  - [x] task plan/generate\n  - [x] task review/file \"api.go\"\n  - [ ] task review/file \"store.go\"  <-- current\n") {
		t.Errorf("markdown:\n%s", got)
	}
	if got := tree[0].Children[0].Label; got != "ship 1.4" {
		t.Errorf("label of a single call = %q, want it recorded all the same", got)
	}
}

func TestCallLabel(t *testing.T) {
	for _, c := range []struct {
		in   value.Value
		want string
	}{
		{nil, ""},
		{value.DictOf(), ""},
		{value.DictOf("path", value.String("api.go")), "api.go"},
		{value.DictOf("path", value.String("api.go"), "focus", value.String("security")), "api.go, security"},
		{value.DictOf("n", value.Int(3), "skip", value.Null{}, "tags", value.List{value.String("a"), value.String("b")}), `3, ("a" "b")`},
		{value.DictOf("text", value.String("first line\n  second\tline")), "first line second line"},
		{value.List{value.String("x"), value.Int(1)}, "x, 1"},
		{value.String(strings.Repeat("ü", 50)), strings.Repeat("ü", 39) + "…"},
		{value.String(strings.Repeat("ab ", 1<<20)), strings.TrimSpace(strings.Repeat("ab ", 13)) + "…"},
		{value.String(strings.Repeat("é", 161) + "x"), strings.Repeat("é", 39) + "…"},
	} {
		if got := CallLabel(c.in); got != c.want {
			t.Errorf("CallLabel(%v) = %q, want %q", c.in, got, c.want)
		}
	}
}
