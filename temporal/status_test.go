package temporal_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/evalrun/evalrun/temporal"
	"go.temporal.io/sdk/client"
)

// stateOf reads the recorded history file of testdata.
func stateOf(t *testing.T, file string) *temporal.RunState {
	t.Helper()
	f, err := os.Open(filepath.Join("testdata", file))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	h, err := client.HistoryFromJSON(f, client.HistoryJSONOptions{})
	if err != nil {
		t.Fatal(err)
	}
	rs, err := temporal.StateFromHistory(h.Events)
	if err != nil {
		t.Fatal(err)
	}
	return rs
}

// TestStateFromHistory reads recorded histories: the workflow's files,
// each call activity with its name, inputs, result and usage in the order
// it was scheduled, the run's value, usage and budget error.
func TestStateFromHistory(t *testing.T) {
	rs := stateOf(t, "replay-budget.json")
	if len(rs.Sources) != 1 || !strings.Contains(rs.Sources[0].Text, `(greet (name "c"))`) {
		t.Fatalf("sources %+v", rs.Sources)
	}
	var got []string
	for _, c := range rs.Calls {
		line := fmt.Sprintf("%s %s seq=%d in=%v closed=%v attempt=%d", c.Activity, c.Name, c.Seq, c.Inputs, c.Closed, c.Attempt)
		if c.Result != nil {
			line += " result=" + c.Result.String()
		}
		if c.Usage != nil {
			line += fmt.Sprintf(" tokens=%d+%d cost=%g", c.Usage.Call.InputTokens, c.Usage.Call.OutputTokens, c.Usage.Call.CostUSD)
		}
		got = append(got, line)
	}
	want := []string{
		`evalrun.Task greet seq=1 in=(dict "name" "a") closed=true attempt=1 result=#<TaskResult COMPLETE "Hello a"> tokens=11+5 cost=0.001`,
		`evalrun.Task greet seq=2 in=(dict "name" "b") closed=true attempt=1 result=#<TaskResult COMPLETE "Hello b"> tokens=11+5 cost=0.001`,
		`evalrun.PlanPrepare  seq=0 in=<nil> closed=true attempt=1`,
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("calls:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if rs.Error != "budget spent: 32 of 30 tokens" || rs.Usage.Calls != 2 || rs.Usage.InputTokens != 22 || rs.Value == nil {
		t.Fatalf("error %q usage %+v value %v", rs.Error, rs.Usage, rs.Value)
	}

	rs = stateOf(t, "replay-plan.json")
	var steps []string
	for _, c := range rs.Calls {
		if c.Activity == temporal.PlanStepActivityName {
			if c.Step == nil || !c.Step.Completed {
				t.Fatalf("step %s: %+v", c.Name, c.Step)
			}
			steps = append(steps, c.Name)
		}
	}
	if strings.Join(steps, " ") != "IMPL-1 IMPL-2 IMPL-4 IMPL-3" {
		t.Fatalf("plan steps %v", steps)
	}

	rs = stateOf(t, "replay-tool-context.json")
	if c := rs.Calls[0]; c.Activity != temporal.ToolActivityName || c.Name != "upper" || c.Inputs.String() != `(dict "text" "x")` || c.Result.Content != "X" {
		t.Fatalf("tool call %+v", c)
	}
}
