//go:build temporal

package engine

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/evalrun/evalrun/progress"
	"github.com/evalrun/evalrun/sexp"
	"github.com/evalrun/evalrun/temporal"
	commonpb "go.temporal.io/api/common/v1"
	enumspb "go.temporal.io/api/enums/v1"
	historypb "go.temporal.io/api/history/v1"
	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/converter"
	"go.temporal.io/sdk/log"
	sdktemporal "go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/testsuite"
	"google.golang.org/protobuf/types/known/timestamppb"
)

// statusProgram has a step around a parallel-map of task calls, a tool
// call that fails, a later task call, and a step whose task call is an
// evaluation error (its parameter has the wrong type), which ends the run.
const statusProgram = `(defatom summarize
  (params (topic string))
  (instructions "Summarise {{topic}} in one sentence."))
(step "fan" (parallel-map (lambda (t) (summarize (topic t))) (list "retries" "backoff")))
(step "look" (task-ok? (system_list_directory (directory_path "no-such-dir"))))
(step "last" (get-field (summarize (topic "jitter")) "content"))
(step "check" (summarize (topic 42)))
`

// TestTemporalStatusIsLocalStatus runs a program locally with its journal
// and as a workflow in the SDK's test environment, and renders the
// workflow's status from its progress events and the history its calls
// make: text, markdown and the nodes of --json are the local run's, but
// for the run's id, times and durations.
func TestTemporalStatusIsLocalStatus(t *testing.T) {
	dir := t.TempDir()
	if err := os.Mkdir(filepath.Join(dir, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	const file = "status.sexp"
	if err := os.WriteFile(filepath.Join(dir, file), []byte(statusProgram), 0o644); err != nil {
		t.Fatal(err)
	}
	getenv := func(string) string { return "" }
	le, err := Open(Options{WorkDir: dir, Provider: "echo", Stderr: io.Discard, Getenv: getenv,
		Journal: &JournalInfo{WorkflowPath: file, WorkflowText: statusProgram}})
	if err != nil {
		t.Fatal(err)
	}
	prog, err := Compile(sexp.NewSource(file, statusProgram))
	if err != nil {
		t.Fatal(err)
	}
	v, err := le.Run(context.Background(), prog)
	if err == nil || !strings.Contains(err.Error(), "expects string") {
		t.Fatalf("local run: %v, want the error of step check", err)
	}
	le.Finish(v, err)
	le.Close()
	h, ok, err := OpenHistory(Options{WorkDir: dir, Getenv: getenv})
	if err != nil || !ok {
		t.Fatalf("history: %v %v", ok, err)
	}
	defer h.Close()

	e, err := Open(Options{WorkDir: dir, Provider: "echo", Stderr: io.Discard, Getenv: getenv})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	rs := runOnTestEnv(t, e, file, statusProgram)
	if !rs.Answered || len(rs.Calls) != 5 {
		t.Fatalf("answered %v, %d calls", rs.Answered, len(rs.Calls))
	}
	rec, tree := TemporalJournal(rs)
	norm := regexp.MustCompile(`run \S+  (\S+)  (\S+)  started [-0-9]+ [:0-9]+  \S+`)
	for _, f := range []StatusFormat{StatusText, StatusMarkdown} {
		var local, remote bytes.Buffer
		if err := h.WriteStatus(&local, "last", f); err != nil {
			t.Fatal(err)
		}
		if err := writeStatus(&remote, rec, tree, f); err != nil {
			t.Fatal(err)
		}
		l, r := norm.ReplaceAllString(local.String(), "run ID  $1  $2  started T  D"), norm.ReplaceAllString(remote.String(), "run ID  $1  $2  started T  D")
		// The two calls of the parallel-map are numbered in the order
		// they happen to start, here and there.
		if sortedLines(l) != sortedLines(r) || !strings.HasPrefix(r, strings.SplitN(l, "\n", 2)[0]) {
			t.Fatalf("format %d on Temporal:\n%s\nlocal:\n%s", f, r, l)
		}
		if f == StatusText && (!strings.Contains(l, "[failed]") || !strings.Contains(l, "[failed]    tool system_list_directory  tool_execution_error") ||
			!strings.Contains(l, "step \"fan\"") || !strings.Contains(l, "run ID  failed  status.sexp")) {
			t.Fatalf("the program did not make the tree the test expects:\n%s", l)
		}
	}
	// The nodes of --json: the same but for what the workflow does not
	// record (times, a step's value, a task's request hash and model
	// attempts, the task_id of a result's notes); the current position
	// is the same node.
	var local, remote bytes.Buffer
	if err := h.WriteStatus(&local, "last", StatusJSON); err != nil {
		t.Fatal(err)
	}
	if err := writeStatus(&remote, rec, tree, StatusJSON); err != nil {
		t.Fatal(err)
	}
	if l, r := jsonNodes(t, local.Bytes()), jsonNodes(t, remote.Bytes()); l != r {
		t.Fatalf("--json nodes on Temporal:\n%s\nlocal:\n%s", r, l)
	}
}

// jsonNodes is the nodes and current position of status --json, one node
// a line, sorted, without the fields a run on Temporal does not have.
func jsonNodes(t *testing.T, b []byte) string {
	t.Helper()
	var out struct {
		Nodes   []map[string]any
		Current any
	}
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatal(err)
	}
	var lines []string
	var walk func(ns []map[string]any, depth int)
	walk = func(ns []map[string]any, depth int) {
		for _, n := range ns {
			kids, _ := json.Marshal(n["children"])
			var children []map[string]any
			json.Unmarshal(kids, &children)
			for _, k := range []string{"children", "started_at", "finished_at", "input_hash", "attempts"} {
				delete(n, k)
			}
			if depth > 0 {
				delete(n, "seq") // parallel calls: in the order they started
			}
			if n["kind"] == "step" {
				delete(n, "result")
			} else if r, ok := n["result"].(map[string]any); ok {
				delete(r["notes"].(map[string]any), "task_id")
			}
			x, _ := json.Marshal(n)
			lines = append(lines, strings.Repeat("  ", depth)+string(x))
			walk(children, depth+1)
		}
	}
	walk(out.Nodes, 0)
	sort.Strings(lines)
	return fmt.Sprintf("current %v\n%s", out.Current, strings.Join(lines, "\n"))
}

// runOnTestEnv runs src as the evalrun.Run workflow in the SDK's test
// environment with e's task system, and returns what temporal.Inspect
// would read of it from a server: the progress query's events, and the
// state read from a history made of the activities the workflow ran.
func runOnTestEnv(t *testing.T, e *Engine, file, src string) *temporal.RunState {
	t.Helper()
	var s testsuite.WorkflowTestSuite
	s.SetLogger(log.NewStructuredLogger(slog.New(slog.NewTextHandler(io.Discard, nil))))
	env := s.NewTestWorkflowEnvironment()
	temporal.RegisterWorker(env, workerTasks{e, e.tasks}, e.runTasks, false)
	dc := converter.GetDefaultDataConverter()
	start := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	var events []*historypb.HistoryEvent
	add := func(typ enumspb.EventType, set func(*historypb.HistoryEvent)) {
		ev := &historypb.HistoryEvent{EventId: int64(len(events) + 1), EventType: typ, EventTime: timestamppb.New(start)}
		set(ev)
		events = append(events, ev)
	}
	in := temporal.RunInput{Sources: []temporal.Source{{Name: file, Text: src}}, Limits: e.limits}
	payloads := func(v any) *commonpb.Payloads {
		p, err := dc.ToPayloads(v)
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	add(enumspb.EVENT_TYPE_WORKFLOW_EXECUTION_STARTED, func(ev *historypb.HistoryEvent) {
		ev.Attributes = &historypb.HistoryEvent_WorkflowExecutionStartedEventAttributes{
			WorkflowExecutionStartedEventAttributes: &historypb.WorkflowExecutionStartedEventAttributes{Input: payloads(in)}}
	})
	scheduled := map[string]int64{}
	env.SetOnActivityStartedListener(func(info *activity.Info, _ context.Context, args converter.EncodedValues) {
		var x any
		switch info.ActivityType.Name {
		case temporal.TaskActivityName:
			var ti temporal.TaskInput
			if err := args.Get(&ti); err != nil {
				t.Error(err)
			}
			x = ti
		case temporal.ToolActivityName:
			var ti temporal.ToolInput
			if err := args.Get(&ti); err != nil {
				t.Error(err)
			}
			x = ti
		}
		add(enumspb.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED, func(ev *historypb.HistoryEvent) {
			ev.Attributes = &historypb.HistoryEvent_ActivityTaskScheduledEventAttributes{
				ActivityTaskScheduledEventAttributes: &historypb.ActivityTaskScheduledEventAttributes{
					ActivityType: &commonpb.ActivityType{Name: info.ActivityType.Name}, Input: payloads(x)}}
		})
		scheduled[info.ActivityID] = int64(len(events))
	})
	env.SetOnActivityCompletedListener(func(info *activity.Info, result converter.EncodedValue, err error) {
		var out temporal.CallResult
		if err == nil {
			err = result.Get(&out)
		}
		if err != nil {
			t.Error(err)
		}
		add(enumspb.EVENT_TYPE_ACTIVITY_TASK_COMPLETED, func(ev *historypb.HistoryEvent) {
			ev.Attributes = &historypb.HistoryEvent_ActivityTaskCompletedEventAttributes{
				ActivityTaskCompletedEventAttributes: &historypb.ActivityTaskCompletedEventAttributes{
					ScheduledEventId: scheduled[info.ActivityID], Result: payloads(out)}}
		})
	})
	env.ExecuteWorkflow(temporal.WorkflowName, in)
	werr := env.GetWorkflowError()
	if werr == nil {
		t.Fatal("the workflow did not fail")
	}
	var ae *sdktemporal.ApplicationError
	if !errors.As(werr, &ae) {
		t.Fatalf("workflow error %v", werr)
	}
	failure := sdktemporal.GetDefaultFailureConverter().ErrorToFailure(ae)
	add(enumspb.EVENT_TYPE_WORKFLOW_EXECUTION_FAILED, func(ev *historypb.HistoryEvent) {
		ev.Attributes = &historypb.HistoryEvent_WorkflowExecutionFailedEventAttributes{
			WorkflowExecutionFailedEventAttributes: &historypb.WorkflowExecutionFailedEventAttributes{Failure: failure}}
	})
	rs, err := temporal.StateFromHistory(events)
	if err != nil {
		t.Fatal(err)
	}
	qv, err := env.QueryWorkflow(temporal.ProgressQuery, 0)
	if err != nil {
		t.Fatal(err)
	}
	var page temporal.ProgressPage
	if err := qv.Get(&page); err != nil {
		t.Fatal(err)
	}
	rs.Events, rs.Answered = page.Events, true
	rs.Status = temporal.Status{ID: "evalrun-test", State: "failed", Start: start, Closed: start.Add(time.Second)}
	return rs
}

// sortedLines is s with its lines sorted.
func sortedLines(s string) string {
	l := strings.Split(s, "\n")
	sort.Strings(l)
	return strings.Join(l, "\n")
}

// TestTemporalStatusFromHistory: without an answer to the progress query,
// the tree is the history's calls, at the top level, with their results.
func TestTemporalStatusFromHistory(t *testing.T) {
	f, err := os.Open(filepath.Join("..", "temporal", "testdata", "replay-budget.json"))
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
	start := time.Date(2026, 1, 2, 3, 4, 5, 0, time.Local)
	rs.Status = temporal.Status{ID: "evalrun-x", State: "completed", Start: start, Closed: start.Add(75 * time.Second)}
	rec, tree := TemporalJournal(rs)
	var b bytes.Buffer
	if err := writeStatus(&b, rec, tree, StatusText); err != nil {
		t.Fatal(err)
	}
	want := `run evalrun-x  failed  wf.sexp  started 2026-01-02 03:04:05  1m15s  2 calls  32 tokens  $0.0020
  [completed] task greet "a"  1 turn  16 tokens  $0.0010
  [completed] task greet "b"  1 turn  16 tokens  $0.0010
error: budget spent: 32 of 30 tokens
`
	if b.String() != want {
		t.Fatalf("status:\n%s\nwant:\n%s", b.String(), want)
	}
}

// TestTemporalStatusRunning: a running workflow's tree from its events
// has its running call as the current position, its planned steps not
// reached yet pending, a parallel-map's calls under the step around it,
// and of a plan's announced tasks only the one that started.
func TestTemporalStatusRunning(t *testing.T) {
	at := time.Date(2026, 1, 2, 3, 4, 5, 0, time.Local)
	ev := func(phase progress.Phase, id, parent uint64, kind, name, status string) temporal.ProgressEvent {
		return temporal.ProgressEvent{Event: progress.Event{Time: at, Phase: phase, ID: id, Parent: parent, Kind: kind, Name: name, Status: status}}
	}
	done := ev(progress.Ended, 3, 2, progress.KindTask, "summarize", "completed")
	done.InputTokens, done.OutputTokens, done.Turns, done.Cost, done.CostKnown = 1200, 34, 2, 0.25, true
	rs := &temporal.RunState{
		Status:   temporal.Status{ID: "evalrun-y", State: "running", Start: at},
		Sources:  []temporal.Source{{Name: "a.sexp", Text: `(step "fan" (parallel-map summarize xs)) (step "end" 1)`}},
		Answered: true,
		Events: []temporal.ProgressEvent{
			ev(progress.Running, 1, 0, progress.KindStep, "fan", ""),
			ev(progress.Running, 2, 1, progress.KindGroup, "parallel-map", ""),
			ev(progress.Waiting, 3, 2, progress.KindTask, "summarize", ""),
			ev(progress.Waiting, 4, 2, progress.KindAgent, "summarize", ""),
			ev(progress.Running, 3, 2, progress.KindTask, "summarize", ""),
			done,
			ev(progress.Running, 4, 2, progress.KindAgent, "summarize", ""),
			{Print: "log: x\n"},
			// A plan's tasks announced below the step: only the one that
			// starts is a node, as in a local run's journal.
			ev(progress.Planned, 5, 1, progress.KindPlanTask, "IMPL-1", ""),
			ev(progress.Planned, 6, 1, progress.KindPlanTask, "IMPL-2", ""),
			ev(progress.Ended, 7, 1, progress.KindPlanTask, "IMPL-0", "completed"),
			ev(progress.Running, 6, 1, progress.KindPlanTask, "IMPL-2", ""),
		},
		LastEvent: at.Add(10 * time.Second),
	}
	rec, tree := TemporalJournal(rs)
	var b bytes.Buffer
	if err := writeStatus(&b, rec, tree, StatusText); err != nil {
		t.Fatal(err)
	}
	want := `run evalrun-y  running  a.sexp  started 2026-01-02 03:04:05  10s  4 calls  1,234 tokens  $0.2500
  [running]   step "fan"
    [completed] task summarize  2 turns  1,234 tokens  $0.2500
    [running]   task summarize   <-- current
    [running]   step "IMPL-2"
  [pending]   step "end"
`
	if b.String() != want {
		t.Fatalf("status:\n%s\nwant:\n%s", b.String(), want)
	}
	b.Reset()
	if err := writeStatus(&b, rec, tree, StatusMarkdown); err != nil {
		t.Fatal(err)
	}
	want = `- [ ] step fan
  - [x] task summarize
  - [ ] task summarize  <-- current
  - [ ] step IMPL-2
- [ ] step end
`
	if b.String() != want {
		t.Fatalf("markdown:\n%s\nwant:\n%s", b.String(), want)
	}
}
