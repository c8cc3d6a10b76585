package trace_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"

	"github.com/evalrun/evalrun/trace"
	"github.com/evalrun/evalrun/value"
	"github.com/google/go-cmp/cmp"
)

// recorder is a sink that writes one line per event.
type recorder struct {
	mu    sync.Mutex
	lines []string
}

func (r *recorder) Observe(e trace.Event) {
	r.mu.Lock()
	defer r.mu.Unlock()
	s := e.Span
	parent := "-"
	if s.Parent() != nil {
		parent = fmt.Sprint(s.Parent().ID())
	}
	line := fmt.Sprintf("%s %d %s %s parent=%s", e.Type, s.ID(), s.Kind(), s.Name(), parent)
	switch e.Type {
	case trace.Started:
		line += fmt.Sprintf(" key=%q inputs=%v", s.Key(), s.Inputs())
	case trace.Progress:
		line += " " + e.Text
	case trace.Ended:
		r := s.Result()
		line += fmt.Sprintf(" %s %v tokens=%d", r.Status, r.Value, s.Usage().InputTokens+s.Usage().OutputTokens)
	}
	r.lines = append(r.lines, line)
}

// replayer is a sink and a gate that answers the task "cached".
type replayer struct{ recorder }

func (r *replayer) Before(s *trace.Span) (trace.Answer, bool) {
	if s.Name() == "cached" {
		return trace.Answer{Value: value.String("from the record"), Usage: trace.Usage{Turns: 1}}, true
	}
	if s.Name() == "refused" {
		return trace.Answer{Err: errors.New("no")}, true
	}
	return trace.Answer{}, false
}

func TestSpans(t *testing.T) {
	rec := &replayer{}
	ctx := trace.WithSinks(context.Background(), rec)
	sctx, step := trace.Start(ctx, trace.Step, "plan", nil)
	step.Running()
	// A call waits for its slot; an internal call made before the claim
	// is a sibling, the claiming Start gets the waiting span.
	wctx := trace.Wait(sctx, trace.Task, "greet")
	_, internal := trace.Start(wctx, trace.Task, "internal:match", nil)
	internal.End(trace.ResultOf(&value.TaskResult{Status: value.StatusComplete}, false), trace.Usage{})
	tctx, task := trace.Start(wctx, trace.Task, "greet", value.String("Ann"), trace.Key("h1"), trace.Executor("echo:m"))
	if task.Executor() != "echo:m" || task.State() != trace.Started {
		t.Errorf("executor %q state %v", task.Executor(), task.State())
	}
	// A second Start of the same kind and name does not claim it again.
	_, again := trace.Start(wctx, trace.Task, "greet", nil)
	if again == task {
		t.Error("a waiting span was claimed twice")
	}
	again.End(trace.ResultOf(nil, false), trace.Usage{})
	task.Running()
	task.Progress("thinking")
	_, tool := trace.Start(tctx, trace.Tool, "ls", nil)
	tool.End(trace.Result{Status: trace.Completed}, trace.Usage{})
	if _, ok := task.Before(); ok {
		t.Error("Before answered an unrecorded call")
	}
	task.End(trace.ResultOf(&value.TaskResult{Status: value.StatusComplete, Content: "hi"}, false), trace.Usage{InputTokens: 3, OutputTokens: 2})
	task.End(trace.Result{Status: trace.Failed}, trace.Usage{}) // only the first End counts
	step.End(trace.Result{Status: trace.Completed, Value: value.Int(1), Attempts: 1}, trace.Usage{})

	_, cached := trace.Start(ctx, trace.Task, "cached", nil)
	if a, ok := cached.Before(); !ok || a.Value != value.String("from the record") || a.Usage.Turns != 1 {
		t.Errorf("Before = %+v, %v", a, ok)
	}
	_, refused := trace.Start(ctx, trace.Task, "refused", nil)
	if a, ok := refused.Before(); !ok || a.Err == nil {
		t.Errorf("Before = %+v, %v", a, ok)
	}
	want := []string{
		`started 1 step plan parent=- key="" inputs=<nil>`,
		"running 1 step plan parent=-",
		"waiting 2 task greet parent=1",
		`started 3 task internal:match parent=1 key="" inputs=<nil>`,
		`ended 3 task internal:match parent=1 completed #<TaskResult COMPLETE ""> tokens=0`,
		`started 2 task greet parent=1 key="h1" inputs="Ann"`,
		`started 4 task greet parent=1 key="" inputs=<nil>`,
		"ended 4 task greet parent=1 failed <nil> tokens=0",
		"running 2 task greet parent=1",
		"progress 2 task greet parent=1 thinking",
		`started 5 tool ls parent=2 key="" inputs=<nil>`,
		"ended 5 tool ls parent=2 completed <nil> tokens=0",
		`ended 2 task greet parent=1 completed #<TaskResult COMPLETE "hi"> tokens=5`,
		"ended 1 step plan parent=- completed 1 tokens=0",
		`started 6 task cached parent=- key="" inputs=<nil>`,
		`started 7 task refused parent=- key="" inputs=<nil>`,
	}
	if diff := cmp.Diff(want, rec.lines); diff != "" {
		t.Errorf("events (-want +got):\n%s", diff)
	}
}

// TestNoSinks: without sinks nothing is made and a nil span does nothing.
func TestNoSinks(t *testing.T) {
	ctx := context.Background()
	if got := trace.Wait(ctx, trace.Tool, "ls"); got != ctx {
		t.Error("Wait without sinks changed the context")
	}
	got, s := trace.Start(ctx, trace.Task, "greet", value.String("x"))
	if got != ctx || s != nil || trace.Enabled(ctx) {
		t.Fatalf("Start without sinks: %v %v", got, s)
	}
	s.Running()
	s.Progress("x")
	s.SetRef("r")
	s.End(trace.Result{Status: trace.Completed}, trace.Usage{})
	if _, ok := s.Before(); ok || s.Ref() != "" || s.Parent() != nil || s.Name() != "" {
		t.Error("a nil span answered")
	}
}

// TestConcurrentClaim: of many Starts racing for one waiting span, one
// claims it.
func TestConcurrentClaim(t *testing.T) {
	rec := &recorder{}
	ctx := trace.Wait(trace.WithSinks(context.Background(), rec), trace.Task, "t")
	var wg sync.WaitGroup
	spans := make([]*trace.Span, 8)
	for i := range spans {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, spans[i] = trace.Start(ctx, trace.Task, "t", nil)
		}()
	}
	wg.Wait()
	claimed := 0
	for _, s := range spans {
		if s.ID() == 1 {
			claimed++
		}
	}
	if claimed != 1 {
		t.Errorf("%d Starts claimed the waiting span, want 1", claimed)
	}
}

// TestTotalTitleAdvance: the attributes of a group and a plan task, and
// Advance's Progress events with the count of finished parts.
func TestTotalTitleAdvance(t *testing.T) {
	var (
		mu   sync.Mutex
		done []int
	)
	sink := sinkFunc(func(e trace.Event) {
		if e.Type == trace.Progress {
			mu.Lock()
			done = append(done, e.Done)
			mu.Unlock()
		}
	})
	ctx := trace.WithSinks(context.Background(), sink)
	_, g := trace.Start(ctx, trace.ParallelMap, "parallel-map", nil, trace.Total(3), trace.Title("files"))
	var wg sync.WaitGroup
	for i := 0; i < 3; i++ {
		wg.Add(1)
		go func() { defer wg.Done(); g.Advance() }()
	}
	wg.Wait()
	if g.Total() != 3 || g.Title() != "files" || g.Done() != 3 {
		t.Fatalf("total %d, title %q, done %d", g.Total(), g.Title(), g.Done())
	}
	if len(done) != 3 {
		t.Fatalf("progress events %v, want three", done)
	}
	seen := map[int]bool{}
	for _, n := range done {
		seen[n] = true
	}
	if !seen[1] || !seen[2] || !seen[3] {
		t.Fatalf("progress counts %v, want 1, 2 and 3", done)
	}
	var nilSpan *trace.Span
	nilSpan.Advance()
	if nilSpan.Total() != 0 || nilSpan.Done() != 0 || nilSpan.Title() != "" {
		t.Fatal("a nil span has attributes")
	}
}

type sinkFunc func(trace.Event)

func (f sinkFunc) Observe(e trace.Event) { f(e) }

// TestAbandon: a waiting span whose call never starts ends with the
// result given; a claimed span, or a context without a waiting span, is
// left alone.
func TestAbandon(t *testing.T) {
	rec := &recorder{}
	ctx := trace.WithSinks(context.Background(), rec)
	w := trace.Wait(ctx, trace.Task, "slow")
	trace.Abandon(w, trace.Result{Status: trace.Failed, Error: "cancelled"})
	trace.Abandon(w, trace.Result{Status: trace.Skipped}) // once only
	_, again := trace.Start(w, trace.Task, "slow", nil)   // not the abandoned span
	again.End(trace.Result{Status: trace.Completed}, trace.Usage{})
	w2 := trace.Wait(ctx, trace.Tool, "ls")
	_, tool := trace.Start(w2, trace.Tool, "ls", nil)
	trace.Abandon(w2, trace.Result{Status: trace.Failed, Error: "cancelled"}) // claimed: no effect
	tool.End(trace.Result{Status: trace.Completed}, trace.Usage{})
	trace.Abandon(ctx, trace.Result{Status: trace.Failed})
	want := []string{
		"waiting 1 task slow parent=-",
		"ended 1 task slow parent=- failed <nil> tokens=0",
		`started 2 task slow parent=- key="" inputs=<nil>`,
		"ended 2 task slow parent=- completed <nil> tokens=0",
		"waiting 3 tool ls parent=-",
		`started 3 tool ls parent=- key="" inputs=<nil>`,
		"ended 3 tool ls parent=- completed <nil> tokens=0",
	}
	if diff := cmp.Diff(want, rec.lines); diff != "" {
		t.Errorf("(-want +got)\n%s", diff)
	}
}
