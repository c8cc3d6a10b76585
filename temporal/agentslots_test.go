package temporal_test

import (
	"path/filepath"
	"testing"
	"time"

	"github.com/evalrun/evalrun/evaluator"
	"github.com/evalrun/evalrun/templates"
	"github.com/evalrun/evalrun/temporal"
	"go.temporal.io/sdk/testsuite"
	"go.temporal.io/sdk/worker"
)

// agentFake is fakeTasks whose template slow runs the agent claude, with
// max_parallel claude calls at once (0: no limit), and greet a provider.
type agentFake struct {
	*fakeTasks
	max int
	// template is the template that runs claude; "" means slow.
	template string
}

func (a agentFake) CallAgent(t *templates.Template) string {
	if t.Name == a.template || (a.template == "" && t.Name == "slow") {
		return "claude"
	}
	return ""
}

func (a agentFake) MaxParallel(name string) int {
	if name == "claude" {
		return a.max
	}
	return 0
}

var _ temporal.AgentPolicy = agentFake{}

// TestAgentMaxParallelAcrossWorkers: the workflow holds a slot of a
// call's agent around its activity, so with max_parallel 1 the four agent
// calls of a parallel-map under concurrency 4 never run two at once,
// whichever worker runs them; with 2, two do; without a limit, four.
func TestAgentMaxParallelAcrossWorkers(t *testing.T) {
	for _, c := range []struct {
		max  int
		want int64
	}{{1, 1}, {2, 2}, {0, 4}} {
		f := newFake()
		f.delay = 100 * time.Millisecond
		var s testsuite.WorkflowTestSuite
		s.SetLogger(quietLogger())
		env := s.NewTestWorkflowEnvironment()
		env.SetTestTimeout(30 * time.Second)
		reg := agentFake{f, c.max, ""}
		temporal.RegisterWorkflow(env, reg)
		temporal.RegisterActivities(env, &temporal.Activities{Tasks: f})
		src := `(list (length (parallel-map (lambda (n) (slow (n n))) (range 4))) (get-field (greet (name "a")) "content"))`
		got, err := runWorkflow(t, env, temporal.RunInput{Sources: source(src), Limits: evaluator.Limits{Concurrency: 4}})
		if err != nil {
			t.Fatal(err)
		}
		if got != `(4 "Hello a")` {
			t.Fatalf("max_parallel %d: got %s", c.max, got)
		}
		if m := f.maxActive.Load(); m != c.want {
			t.Errorf("max_parallel %d: at most %d claude calls ran at once, want %d", c.max, m, c.want)
		}
	}
}

// TestAgentSlotsReplayOldHistory: a history recorded before the workflow
// held agent slots (three greet calls at once, no version marker) replays
// with a registry under which greet runs an agent limited to one process:
// such a run keeps running without the slots.
func TestAgentSlotsReplayOldHistory(t *testing.T) {
	r := worker.NewWorkflowReplayer()
	temporal.RegisterWorkflow(r, agentFake{newFake(), 1, "greet"})
	if err := r.ReplayWorkflowHistoryFromJSONFile(quietLogger(), filepath.Join("testdata", "replay-parallel-nested.json")); err != nil {
		t.Fatal(err)
	}
}
