package journal

import (
	"context"
	"fmt"
	"testing"

	"github.com/evalrun/evalrun/trace"
	"github.com/evalrun/evalrun/value"
	"github.com/google/go-cmp/cmp"
)

// tree is one line per node of the run: seq, kind, name, status, input
// hash, replayed, indented by depth.
func tree(t *testing.T, s *Store, run *Run) []string {
	t.Helper()
	root := must[[]*Node](t)(s.Tree(run.ID()))
	var out []string
	Walk(root, func(n *Node, depth int) bool {
		out = append(out, fmt.Sprintf("%*s%d %s %s %s %s%s", 2*depth, "", n.Seq, n.Kind, n.Name, n.Status, n.InputHash,
			map[bool]string{true: " replayed"}[n.Replayed]))
		return true
	})
	return out
}

// TestSink: a call waiting for its slot is a pending node, which the
// call's span then claims with its request hash and inputs; an internal
// task started before the claim gets a node of its own beside it; the
// model's tool calls are children of their task; spans of kinds the
// journal does not record are passed through to their parents; steps claim
// their planned nodes.
func TestSink(t *testing.T) {
	s, _ := openTest(t)
	run := must[*Run](t)(s.StartRun(RunInfo{WorkflowPath: "w.sexp"}))
	must[[]*Call](t)(run.AddPendingSteps([]string{"plan"}))
	var errs []error
	sink := NewSink(run, nil, func(err error) { errs = append(errs, err) })
	ctx := trace.WithSinks(context.Background(), sink)

	sctx, step := trace.Start(ctx, trace.Step, "plan", nil)
	wctx := trace.Wait(sctx, trace.Task, "greet")
	if diff := cmp.Diff([]string{"1 step plan running ", "  2 task greet pending "}, tree(t, s, run)); diff != "" {
		t.Errorf("waiting: (-want +got)\n%s", diff)
	}
	lctx, lookup := trace.Start(wctx, trace.GetContext, "query", nil)
	_, internal := trace.Start(lctx, trace.Task, "internal:match", nil, trace.Key("h0"))
	internal.End(trace.ResultOf(&value.TaskResult{Status: value.StatusComplete}, false), trace.Usage{})
	lookup.End(trace.Result{Status: trace.Completed}, trace.Usage{})
	tctx, task := trace.Start(wctx, trace.Task, "greet", value.DictOf("name", value.String("Ann")), trace.Key("h1"))
	task.Running()
	if got, want := task.Ref(), run.ID()+"/2"; got != want {
		t.Errorf("Ref %q, want %q", got, want)
	}
	params := value.DictOf("directory_path", value.String("."))
	_, tool := trace.Start(tctx, trace.Tool, "system_list_directory", params)
	tool.Running()
	if _, ok := tool.Before(); ok {
		t.Error("a tool call was replayed without a resumed run")
	}
	tool.End(trace.ResultOf(&value.TaskResult{Status: value.StatusComplete, Content: "a.txt"}, false), trace.Usage{})
	task.End(trace.ResultOf(&value.TaskResult{Status: value.StatusComplete, Content: "hi"}, false), trace.Usage{InputTokens: 3, OutputTokens: 1, Turns: 1})
	step.End(trace.Result{Status: trace.Completed, Value: value.String("hi"), Attempts: 1}, trace.Usage{})
	want := []string{
		"1 step plan completed ",
		"  2 task greet completed h1",
		"    4 tool system_list_directory completed " + ToolHash("system_list_directory", params),
		"  3 task internal:match completed h0",
	}
	if diff := cmp.Diff(want, tree(t, s, run)); diff != "" {
		t.Errorf("after: (-want +got)\n%s", diff)
	}
	nodes := must[[]*Node](t)(s.Tree(run.ID()))
	if g := nodes[0].Children[0]; g.Usage.InputTokens != 3 || g.Usage.Turns != 1 || value.JSON(g.Inputs) != `{"name":"Ann"}` {
		t.Errorf("greet: %d tokens, %d turns, inputs %s", g.Usage.InputTokens, g.Usage.Turns, value.JSON(g.Inputs))
	}
	if nodes[0].Attempts != 1 {
		t.Errorf("step attempts %d", nodes[0].Attempts)
	}
	check(t, run.Finish(StatusCompleted, nil, nil))
	if len(errs) > 0 {
		t.Errorf("write errors: %v", errs)
	}

	// A resumed run: the task and the workflow-level tool call are
	// answered from the record, the model's tool call inside a task is not.
	wf := value.DictOf("command", value.String("ls"))
	first := must[*Run](t)(s.StartRun(RunInfo{WorkflowPath: "w.sexp"}))
	fsink := NewSink(first, nil, nil)
	fctx := trace.WithSinks(context.Background(), fsink)
	_, wtool := trace.Start(fctx, trace.Tool, "shell", wf)
	wtool.End(trace.ResultOf(&value.TaskResult{Status: value.StatusComplete, Content: "listed"}, false), trace.Usage{})
	check(t, first.Finish(StatusCompleted, nil, nil))
	second := must[*Run](t)(s.StartRun(RunInfo{WorkflowPath: "w.sexp", ResumedFrom: first.ID()}))
	rsink := NewSink(second, must[*Replayer](t)(s.NewReplayer(first.ID())), nil)
	rctx := trace.WithSinks(context.Background(), rsink)
	_, again := trace.Start(trace.Wait(rctx, trace.Tool, "shell"), trace.Tool, "shell", wf)
	again.Running()
	a, ok := again.Before()
	r, isResult := a.Value.(*value.TaskResult)
	if !ok || !isResult || r.Content != "listed" {
		t.Fatalf("Before = %+v, %v", a, ok)
	}
	again.End(trace.ResultOf(r, true), a.Usage)
	if diff := cmp.Diff([]string{"1 tool shell completed " + ToolHash("shell", wf) + " replayed"}, tree(t, s, second)); diff != "" {
		t.Errorf("resumed: (-want +got)\n%s", diff)
	}
}

// sourced is a span detail with a template's provenance, as a
// *templates.Template has it.
type sourced string

func (s sourced) Source() string { return string(s) }

// TestSinkRecordsTheExecutorWhenACallStarts: a task's executor and its
// template's provenance are in the journal from its start, while it
// runs (a call waiting for its slot has none yet); once it ends, its
// result's notes name them. Steps and tools have none.
func TestSinkRecordsTheExecutorWhenACallStarts(t *testing.T) {
	s, _ := openTest(t)
	run := must[*Run](t)(s.StartRun(RunInfo{WorkflowPath: "w.sexp"}))
	sink := NewSink(run, nil, nil)
	ctx := trace.WithSinks(context.Background(), sink)
	executors := func() []string {
		root := must[[]*Node](t)(s.Tree(run.ID()))
		var out []string
		Walk(root, func(n *Node, depth int) bool {
			out = append(out, fmt.Sprintf("%d %s %s %q %q", n.Seq, n.Status, n.Name, n.Executor, n.TemplateSource))
			return true
		})
		return out
	}
	sctx, step := trace.Start(ctx, trace.Step, "review", nil)
	wctx := trace.Wait(sctx, trace.Task, "review/file")
	_, agent := trace.Start(sctx, trace.Task, "code/implement", value.DictOf("plan", value.String("p")), trace.Key("h2"),
		trace.Executor("agent:claude"), trace.Detail(sourced("local .evalrun/templates/code-implement.xml:1")))
	agent.Running()
	want := []string{
		`1 running review "" ""`,
		`2 pending review/file "" ""`,
		`3 running code/implement "agent:claude" "local .evalrun/templates/code-implement.xml:1"`,
	}
	if diff := cmp.Diff(want, executors()); diff != "" {
		t.Errorf("started without waiting: (-want +got)\n%s", diff)
	}
	// The waiting call claims its node, which gets its executor then.
	tctx, task := trace.Start(wctx, trace.Task, "review/file", value.DictOf("path", value.String("a.go")), trace.Key("h1"),
		trace.Executor("openai:gpt-4.1"), trace.Detail(sourced("global review-file.xml:3")))
	task.Running()
	_, tool := trace.Start(tctx, trace.Tool, "system_read_file", value.DictOf("path", value.String("a.go")))
	tool.Running()
	want[1] = `2 running review/file "openai:gpt-4.1" "global review-file.xml:3"`
	want = append(want[:2], append([]string{`4 running system_read_file "" ""`}, want[2:]...)...)
	if diff := cmp.Diff(want, executors()); diff != "" {
		t.Errorf("claimed: (-want +got)\n%s", diff)
	}
	// A call that failed before its template was found holds a nil one.
	var none *nilSourced
	_, early := trace.Start(sctx, trace.Task, "missing", nil, trace.Detail(none))
	early.End(trace.Result{Status: trace.Failed, Error: "no template missing"}, trace.Usage{})
	tool.End(trace.Result{Status: trace.Completed}, trace.Usage{})
	// The result's notes, once it has ended, are what it names.
	task.End(trace.ResultOf(&value.TaskResult{Status: value.StatusComplete, Notes: value.DictOf(
		"provider", value.String("openai"), "model", value.String("gpt-4.1-mini"),
		"template_source", value.String("global review-file.xml:3"))}, false), trace.Usage{})
	agent.End(trace.ResultOf(&value.TaskResult{Status: value.StatusComplete, Notes: value.NewDict(0)}, false), trace.Usage{})
	step.End(trace.Result{Status: trace.Completed}, trace.Usage{})
	want = []string{
		`1 completed review "" ""`,
		`2 completed review/file "openai:gpt-4.1-mini" "global review-file.xml:3"`,
		`4 completed system_read_file "" ""`,
		`3 completed code/implement "agent:claude" "local .evalrun/templates/code-implement.xml:1"`,
		`5 failed missing "" ""`,
	}
	if diff := cmp.Diff(want, executors()); diff != "" {
		t.Errorf("ended: (-want +got)\n%s", diff)
	}
}

// nilSourced is a pointer type with a Source method that a nil value
// cannot run.
type nilSourced struct{ src string }

func (s *nilSourced) Source() string { return s.src }

// TestSinkLabelsAWaitingCallWithItsArguments: a call waiting for its slot
// is labelled with the arguments it was made with (trace.Args), then, once
// started, with its inputs.
func TestSinkLabelsAWaitingCallWithItsArguments(t *testing.T) {
	s, _ := openTest(t)
	run := must[*Run](t)(s.StartRun(RunInfo{WorkflowPath: "w.sexp"}))
	ctx := trace.WithSinks(context.Background(), NewSink(run, nil, nil))
	labels := func() []string {
		var out []string
		Walk(must[[]*Node](t)(s.Tree(run.ID())), func(n *Node, depth int) bool {
			out = append(out, fmt.Sprintf("%d %s %s %q", n.Seq, n.Status, n.Name, n.Label))
			return true
		})
		return out
	}
	w1 := trace.Wait(ctx, trace.Task, "review/file", trace.Args(value.List{value.String("api.go")}))
	trace.Wait(ctx, trace.Task, "review/file", trace.Args(value.List{value.String("store.go")}))
	trace.Wait(ctx, trace.Tool, "read_file", trace.Args(value.DictOf("path", value.String("x.go"))))
	want := []string{`1 pending review/file "api.go"`, `2 pending review/file "store.go"`, `3 pending read_file "x.go"`}
	if diff := cmp.Diff(want, labels()); diff != "" {
		t.Errorf("waiting: (-want +got)\n%s", diff)
	}
	_, sp := trace.Start(w1, trace.Task, "review/file", value.DictOf("path", value.String("api.go"), "focus", value.String("all")), trace.Key("h"))
	sp.Running()
	want[0] = `1 running review/file "api.go, all"`
	if diff := cmp.Diff(want, labels()); diff != "" {
		t.Errorf("started: (-want +got)\n%s", diff)
	}
}
