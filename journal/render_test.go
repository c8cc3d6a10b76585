package journal

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
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
