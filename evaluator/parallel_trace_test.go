package evaluator_test

import (
	"context"
	"sync"
	"testing"

	"github.com/evalrun/evalrun/evaluator"
	"github.com/evalrun/evalrun/trace"
	"github.com/evalrun/evalrun/value"
)

// spanLog is a sink that keeps the parallel-map spans' events and the
// parents of the other spans.
type spanLog struct {
	mu      sync.Mutex
	group   *trace.Span
	advance []int
	ended   trace.Status
	parents map[string]*trace.Span
}

func (l *spanLog) Observe(e trace.Event) {
	l.mu.Lock()
	defer l.mu.Unlock()
	sp := e.Span
	switch {
	case sp.Kind() == trace.ParallelMap && e.Type == trace.Started:
		l.group = sp
	case sp.Kind() == trace.ParallelMap && e.Type == trace.Progress:
		l.advance = append(l.advance, e.Done)
	case sp.Kind() == trace.ParallelMap && e.Type == trace.Ended:
		l.ended = sp.Result().Status
	case e.Type == trace.Started:
		l.parents[sp.Name()] = sp.Parent()
	}
}

// TestParallelMapSpan: a parallel-map is one span with the number of its
// items, advanced once per finished item, and the calls of its items are
// its children (SPEC §17.3.1: the display's group).
func TestParallelMapSpan(t *testing.T) {
	in := evaluator.New(evaluator.Options{Tasks: newFakeTasks()})
	log := &spanLog{parents: map[string]*trace.Span{}}
	ctx := trace.WithSinks(context.Background(), log)
	v, err := in.EvalString(ctx, "<eval>", `(step "s" (parallel-map (lambda (x) (step "item" (* x 2))) (list 1 2 3)))`)
	if err != nil || v.String() != "(2 4 6)" {
		t.Fatalf("value %v, error %v", v, err)
	}
	if log.group == nil || log.group.Total() != 3 || log.group.Name() != "parallel-map" || log.group.Parent().Name() != "s" {
		t.Fatalf("group span %+v", log.group)
	}
	if len(log.advance) != 3 || log.group.Done() != 3 || log.ended != trace.Completed {
		t.Fatalf("advances %v, done %d, ended %q", log.advance, log.group.Done(), log.ended)
	}
	if log.parents["item"] != log.group {
		t.Fatalf("an item's step is not a child of the group")
	}
	// A failing item ends the group failed.
	_, err = in.EvalString(ctx, "<eval>", `(parallel-map (lambda (x) (/ 1 x)) (list 1 0))`)
	if err == nil || log.ended != trace.Failed {
		t.Fatalf("error %v, group ended %q", err, log.ended)
	}
}

// argsLog keeps the arguments of the task and tool calls that waited for
// their slot.
type argsLog struct {
	mu   sync.Mutex
	args map[string]bool
}

func (l *argsLog) Observe(e trace.Event) {
	if e.Type != trace.Waiting {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	l.args[string(e.Span.Kind())+" "+e.Span.Name()+" "+value.Brief(e.Span.Args(), 80)] = true
}

// TestWaitingCallsCarryTheirArguments: a task or tool call waiting for its
// slot has no inputs yet, but its span carries the arguments it was made
// with (positional, then named), which tell the items of a parallel-map
// apart.
func TestWaitingCallsCarryTheirArguments(t *testing.T) {
	in := evaluator.New(evaluator.Options{Tasks: newFakeTasks()})
	log := &argsLog{args: map[string]bool{}}
	ctx := trace.WithSinks(context.Background(), log)
	_, err := in.EvalString(ctx, "<eval>", `(defatom review (params path focus) (instructions "Review {{path}}"))
(parallel-map (lambda (f) (review (path f) (focus "security"))) (list "api.go" "store.go"))
(map review (list "cli.go"))
(echo-tool (path "x.go"))`)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{`task review ("api.go" "security")`, `task review ("store.go" "security")`, `task review ("cli.go")`, `tool echo-tool (dict "path" "x.go")`}
	for _, w := range want {
		if !log.args[w] {
			t.Errorf("no waiting call %s in %v", w, log.args)
		}
	}
}
