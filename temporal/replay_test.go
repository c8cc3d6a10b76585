package temporal_test

import (
	"context"
	"flag"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/evalrun/evalrun/tasksystem"
	"github.com/evalrun/evalrun/temporal"
	commonpb "go.temporal.io/api/common/v1"
	enumspb "go.temporal.io/api/enums/v1"
	historypb "go.temporal.io/api/history/v1"
	taskqueuepb "go.temporal.io/api/taskqueue/v1"
	"go.temporal.io/api/temporalproto"
	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/converter"
	"go.temporal.io/sdk/worker"
)

var update = flag.Bool("update", false, "record the replay histories under testdata again")

// replayCase is a program whose history is recorded under testdata.
// Rounds are how many calls each workflow task schedules: the calls of a
// round all complete before the next workflow task, as a server that
// delivers their completions together records it.
type replayCase struct {
	file   string
	src    string
	rounds []int
	// usage records calls that report what they used (usageTasks): their
	// results are CallResults with usage.
	usage bool
	// budget is the run's budget (RunInput.Budget).
	budget tasksystem.Budget
}

var replayCases = []replayCase{
	{"replay-sequential.json", `(list (get-field (greet (name "a")) "content") (get-field (greet (name "b")) "content"))`, []int{1, 1}, false, tasksystem.Budget{}},
	{"replay-parallel-nested.json", `(parallel-map (lambda (n) (get-field (greet (name (get-field (greet (name n)) "content"))) "content")) (list "a" "b" "c"))`, []int{3, 3}, false, tasksystem.Budget{}},
	{"replay-defatom.json", `(defatom hi (params (name string)) (instructions "Hi {{name}}")) (parallel-map (lambda (n) (get-field (hi (name n)) "content")) (list "a" "b"))`, []int{2}, false, tasksystem.Budget{}},
	{"replay-tool-context.json", `(list (get-field (upper (text "x")) "content") (get-field (get-context "auth") "summary"))`, []int{1, 1}, false, tasksystem.Budget{}},
	{"replay-usage.json", `(log-message "start") (list (get-field (greet (name "a")) "content") (get-field (run-usage) "input_tokens"))`, []int{1}, true, tasksystem.Budget{}},
	// plan-load, then plan-run's preparation and its steps: IMPL-1, then
	// IMPL-2 and IMPL-4 side by side, then IMPL-3 (plan_test.go).
	{"replay-plan.json", `(list (get (plan-load "plans/a") "order") (keys (plan-run "plans/a" (parallel 3))))`, []int{1, 1, 1, 2, 1}, false, tasksystem.Budget{}},
	// max_tokens 30: greet a and b use 16 tokens each; c is refused and
	// schedules nothing, nor does the plan-run's first step after its
	// preparation.
	{"replay-budget.json", `(list (get-field (greet (name "a")) "content") (get-field (greet (name "b")) "content") (get-field (greet (name "c")) "content") (plan-run "plans/a"))`, []int{1, 1, 1}, true, tasksystem.Budget{MaxTokens: 30}},
}

// TestReplay replays the recorded histories with today's workflow: a change
// that makes the evaluator schedule other calls, in another order, or
// schedule them differently fails here with a nondeterminism error.
func TestReplay(t *testing.T) {
	for _, c := range replayCases {
		t.Run(c.file, func(t *testing.T) {
			path := filepath.Join("testdata", c.file)
			if *update {
				record(t, c, path)
			}
			r := newReplayer(t)
			if err := r.ReplayWorkflowHistoryFromJSONFile(quietLogger(), path); err != nil {
				t.Fatalf("replay of %s: %v", path, err)
			}
		})
	}
}

// TestReplayDetectsChange: the recorded sequential history, replayed with
// a workflow input whose program calls a tool where it called a task, fails.
func TestReplayDetectsChange(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("testdata", "replay-sequential.json"))
	if err != nil {
		t.Fatal(err)
	}
	h, err := client.HistoryFromJSON(strings.NewReader(string(b)), client.HistoryJSONOptions{})
	if err != nil {
		t.Fatal(err)
	}
	attrs := h.Events[0].GetWorkflowExecutionStartedEventAttributes()
	var in temporal.RunInput
	if err := converter.GetDefaultDataConverter().FromPayloads(attrs.Input, &in); err != nil {
		t.Fatal(err)
	}
	in.Sources[0].Text = strings.Replace(in.Sources[0].Text, `(greet (name "b"))`, `(upper (text "b"))`, 1)
	if attrs.Input, err = converter.GetDefaultDataConverter().ToPayloads(in); err != nil {
		t.Fatal(err)
	}
	err = newReplayer(t).ReplayWorkflowHistory(quietLogger(), h)
	if err == nil || !strings.Contains(err.Error(), "nondeterministic") {
		t.Fatalf("replay of a changed program: %v, want a nondeterminism error", err)
	}
}

func newReplayer(t *testing.T) worker.WorkflowReplayer {
	t.Helper()
	r := worker.NewWorkflowReplayer()
	temporal.RegisterWorkflow(r, newFake())
	return r
}

// record runs the case's program in the test environment, captures the
// activities it schedules, runs them, and writes the history a server
// records for that run. Within a round after the first, the test
// environment schedules the calls in the order their predecessors
// happened to complete, so their inputs may be recorded in another order
// than a replay makes them; the replayer compares the calls' types and
// ids, not their inputs, so the history stays valid.
func record(t *testing.T, c replayCase, path string) {
	type call struct {
		typ  string
		args *commonpb.Payloads
	}
	var (
		mu    sync.Mutex
		calls = map[int]call{}
	)
	f := newFake()
	env := newEnv(t, f)
	acts := &temporal.Activities{Tasks: newFake()}
	if c.usage {
		env = usageEnv(t, 0)
		acts = &temporal.Activities{Tasks: usageTasks{newFake()}}
	}
	dc := converter.GetDefaultDataConverter()
	env.SetOnActivityStartedListener(func(info *activity.Info, ctx context.Context, args converter.EncodedValues) {
		id, _ := strconv.Atoi(info.ActivityID)
		var (
			p   *commonpb.Payloads
			err error
		)
		switch info.ActivityType.Name {
		case temporal.TaskActivityName:
			var in temporal.TaskInput
			_ = args.Get(&in)
			p, err = dc.ToPayloads(in)
		case temporal.ToolActivityName:
			var in temporal.ToolInput
			_ = args.Get(&in)
			p, err = dc.ToPayloads(in)
		case temporal.ContextActivityName:
			var in temporal.ContextInput
			_ = args.Get(&in)
			p, err = dc.ToPayloads(in)
		default:
			p, err = planPayload(info.ActivityType.Name, args)
		}
		if err != nil {
			panic(err)
		}
		mu.Lock()
		calls[id] = call{info.ActivityType.Name, p}
		mu.Unlock()
	})
	in := temporal.RunInput{Sources: source(c.src), Budget: c.budget}
	env.ExecuteWorkflow(temporal.WorkflowName, in)
	if err := env.GetWorkflowError(); err != nil {
		t.Fatal(err)
	}
	var out temporal.RunOutput
	if err := env.GetWorkflowResult(&out); err != nil {
		t.Fatal(err)
	}
	ids := make([]int, 0, len(calls))
	for id := range calls {
		ids = append(ids, id)
	}
	sort.Ints(ids)

	const queue = "evalrun"
	var events []*historypb.HistoryEvent
	add := func(typ enumspb.EventType, attrs any) int64 {
		e := &historypb.HistoryEvent{EventId: int64(len(events) + 1), EventType: typ}
		switch a := attrs.(type) {
		case *historypb.WorkflowExecutionStartedEventAttributes:
			e.Attributes = &historypb.HistoryEvent_WorkflowExecutionStartedEventAttributes{WorkflowExecutionStartedEventAttributes: a}
		case *historypb.WorkflowTaskScheduledEventAttributes:
			e.Attributes = &historypb.HistoryEvent_WorkflowTaskScheduledEventAttributes{WorkflowTaskScheduledEventAttributes: a}
		case *historypb.WorkflowTaskStartedEventAttributes:
			e.Attributes = &historypb.HistoryEvent_WorkflowTaskStartedEventAttributes{WorkflowTaskStartedEventAttributes: a}
		case *historypb.WorkflowTaskCompletedEventAttributes:
			e.Attributes = &historypb.HistoryEvent_WorkflowTaskCompletedEventAttributes{WorkflowTaskCompletedEventAttributes: a}
		case *historypb.ActivityTaskScheduledEventAttributes:
			e.Attributes = &historypb.HistoryEvent_ActivityTaskScheduledEventAttributes{ActivityTaskScheduledEventAttributes: a}
		case *historypb.ActivityTaskStartedEventAttributes:
			e.Attributes = &historypb.HistoryEvent_ActivityTaskStartedEventAttributes{ActivityTaskStartedEventAttributes: a}
		case *historypb.ActivityTaskCompletedEventAttributes:
			e.Attributes = &historypb.HistoryEvent_ActivityTaskCompletedEventAttributes{ActivityTaskCompletedEventAttributes: a}
		case *historypb.WorkflowExecutionCompletedEventAttributes:
			e.Attributes = &historypb.HistoryEvent_WorkflowExecutionCompletedEventAttributes{WorkflowExecutionCompletedEventAttributes: a}
		}
		events = append(events, e)
		return e.EventId
	}
	input, err := dc.ToPayloads(in)
	if err != nil {
		t.Fatal(err)
	}
	add(enumspb.EVENT_TYPE_WORKFLOW_EXECUTION_STARTED, &historypb.WorkflowExecutionStartedEventAttributes{
		WorkflowType: &commonpb.WorkflowType{Name: temporal.WorkflowName},
		TaskQueue:    &taskqueuepb.TaskQueue{Name: queue},
		Input:        input,
	})
	workflowTask := func() int64 {
		s := add(enumspb.EVENT_TYPE_WORKFLOW_TASK_SCHEDULED, &historypb.WorkflowTaskScheduledEventAttributes{TaskQueue: &taskqueuepb.TaskQueue{Name: queue}})
		st := add(enumspb.EVENT_TYPE_WORKFLOW_TASK_STARTED, &historypb.WorkflowTaskStartedEventAttributes{ScheduledEventId: s})
		return add(enumspb.EVENT_TYPE_WORKFLOW_TASK_COMPLETED, &historypb.WorkflowTaskCompletedEventAttributes{ScheduledEventId: s, StartedEventId: st})
	}
	next := 0
	for _, n := range c.rounds {
		done := workflowTask()
		scheduled := make([]int64, n)
		for k := 0; k < n; k++ {
			cl := calls[ids[next+k]]
			id := int64(len(events) + 1)
			scheduled[k] = add(enumspb.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED, &historypb.ActivityTaskScheduledEventAttributes{
				ActivityId:                   strconv.FormatInt(id, 10),
				ActivityType:                 &commonpb.ActivityType{Name: cl.typ},
				TaskQueue:                    &taskqueuepb.TaskQueue{Name: queue},
				Input:                        cl.args,
				WorkflowTaskCompletedEventId: done,
			})
		}
		for k := 0; k < n; k++ {
			cl := calls[ids[next+k]]
			result := runActivity(t, acts, cl.typ, cl.args)
			st := add(enumspb.EVENT_TYPE_ACTIVITY_TASK_STARTED, &historypb.ActivityTaskStartedEventAttributes{ScheduledEventId: scheduled[k], Attempt: 1})
			add(enumspb.EVENT_TYPE_ACTIVITY_TASK_COMPLETED, &historypb.ActivityTaskCompletedEventAttributes{ScheduledEventId: scheduled[k], StartedEventId: st, Result: result})
		}
		next += n
	}
	if next != len(ids) {
		t.Fatalf("the rounds cover %d calls, the run made %d", next, len(ids))
	}
	done := workflowTask()
	result, err := dc.ToPayloads(out)
	if err != nil {
		t.Fatal(err)
	}
	add(enumspb.EVENT_TYPE_WORKFLOW_EXECUTION_COMPLETED, &historypb.WorkflowExecutionCompletedEventAttributes{Result: result, WorkflowTaskCompletedEventId: done})
	b, err := temporalproto.CustomJSONMarshalOptions{Indent: "  "}.Marshal(&historypb.History{Events: events})
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, append(b, '\n'), 0o644); err != nil {
		t.Fatal(err)
	}
}

// runActivity runs one recorded call directly and returns its result
// payload.
func runActivity(t *testing.T, a *temporal.Activities, typ string, args *commonpb.Payloads) *commonpb.Payloads {
	t.Helper()
	dc := converter.GetDefaultDataConverter()
	var (
		v   any
		err error
	)
	ctx := context.Background()
	switch typ {
	case temporal.TaskActivityName:
		var in temporal.TaskInput
		if err = dc.FromPayloads(args, &in); err == nil {
			v, err = a.Task(ctx, in)
		}
	case temporal.ToolActivityName:
		var in temporal.ToolInput
		if err = dc.FromPayloads(args, &in); err == nil {
			v, err = a.Tool(ctx, in)
		}
	case temporal.ContextActivityName:
		var in temporal.ContextInput
		if err = dc.FromPayloads(args, &in); err == nil {
			v, err = a.GetContext(ctx, in)
		}
	default:
		v, err = runPlanActivity(ctx, a, typ, args)
	}
	if err != nil {
		t.Fatal(err)
	}
	p, err := dc.ToPayloads(v)
	if err != nil {
		t.Fatal(err)
	}
	return p
}
