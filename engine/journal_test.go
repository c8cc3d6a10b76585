package engine

import (
	"context"
	"fmt"
	"io"
	"testing"
	"time"

	"github.com/evalrun/evalrun/handler"
	"github.com/evalrun/evalrun/journal"
	"github.com/evalrun/evalrun/sexp"
	"github.com/evalrun/evalrun/value"
	"github.com/google/go-cmp/cmp"
)

func TestPlannedSteps(t *testing.T) {
	tests := []struct {
		src  string
		want []string
	}{
		{`(step "a" 1) (step "b" 2 :on-error skip-optional)`, []string{"a", "b"}},
		{`(define x (get-field (step "plan" (f)) "content")) (list (step "c" 1))`, []string{"plan", "c"}},
		{`(step name 1) (step "n" (step "inner" 1))`, []string{"n"}},
		{`(if c (step "no" 1) 2) (when c (step "no" 1)) (cond (c (step "no" 1))) (and (step "no" 1))`, nil},
		{`(lambda () (step "no" 1)) (define (f) (step "no" 1)) (try (step "no" 1) (catch e 1))`, nil},
		{`(loop (step "no" 1)) (parallel (step "no" 1)) '(step "no" 1) (quote (step "no" 1))`, nil},
	}
	for _, tt := range tests {
		forms, err := sexp.Parse(sexp.NewSource("t", tt.src))
		if err != nil {
			t.Fatalf("%s: %v", tt.src, err)
		}
		if diff := cmp.Diff(tt.want, plannedSteps(forms)); diff != "" {
			t.Errorf("%s: (-want +got)\n%s", tt.src, diff)
		}
	}
}

// TestWaitingCall: a call waiting for its slot is a pending node, which
// the call then claims with its request hash and inputs; another task
// under the same context (an internal memory call) gets a node of its own.
func TestWaitingCall(t *testing.T) {
	root := t.TempDir()
	j, err := openJournal(root, &JournalInfo{WorkflowPath: "w.sexp"}, time.Now(), &lockedWriter{w: io.Discard})
	if err != nil {
		t.Fatal(err)
	}
	defer j.close()
	ctx := j.waiting(context.Background(), journal.KindTask, "greet")
	status := func() []string {
		tree, err := j.store.Tree(j.run.ID())
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		journal.Walk(tree, func(n *journal.Node, _ int) bool {
			out = append(out, fmt.Sprintf("%d %s %s %s %s", n.Seq, n.Kind, n.Name, n.Status, n.InputHash))
			return true
		})
		return out
	}
	if diff := cmp.Diff([]string{"1 task greet pending "}, status()); diff != "" {
		t.Errorf("waiting: (-want +got)\n%s", diff)
	}
	internal := j.BeginTask(ctx, "internal:match", "h0", nil)
	rec := j.BeginTask(ctx, "greet", "h1", value.DictOf("name", value.String("Ann")))
	rec.Running()
	if got, want := rec.TaskID(), j.run.ID()+"/1"; got != want {
		t.Errorf("TaskID %q, want %q", got, want)
	}
	// A tool call of the model is a child of its task.
	params := value.DictOf("directory_path", value.String("."))
	end := rec.ToolRecorder().BeginToolCall(ctx, handler.ToolCall{Name: "system_list_directory"}, params)
	end(&value.TaskResult{Status: value.StatusComplete, Content: "a.txt"})
	rec.End(&value.TaskResult{Status: value.StatusComplete, Content: "hi"}, handler.Usage{InputTokens: 3, OutputTokens: 1}, 1, false)
	internal.End(&value.TaskResult{Status: value.StatusComplete}, handler.Usage{}, 0, false)
	want := []string{
		"1 task greet completed h1",
		"3 tool system_list_directory completed " + journal.ToolHash("system_list_directory", params),
		"2 task internal:match completed h0",
	}
	if diff := cmp.Diff(want, status()); diff != "" {
		t.Errorf("after: (-want +got)\n%s", diff)
	}
}
