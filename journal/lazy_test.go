package journal

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/evalrun/evalrun/value"
)

func TestOpenLazyWithoutCallsCreatesNothing(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, ".evalrun", "journal.db")
	s := OpenLazy(path)
	run := must[*Run](t)(s.StartRun(RunInfo{WorkflowPath: "<eval>"}))
	must[[]*Call](t)(run.AddPendingSteps([]string{"plan"}))
	check(t, run.Finish(StatusCompleted, value.Int(3), nil))
	check(t, s.Close())
	if _, err := os.Stat(filepath.Join(dir, ".evalrun")); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("a run without calls left %s behind (stat: %v)", filepath.Join(dir, ".evalrun"), err)
	}

	// A failed run is recorded even without calls, with its pending plan.
	s = OpenLazy(path)
	defer s.Close()
	run = must[*Run](t)(s.StartRun(RunInfo{WorkflowPath: "<eval>"}))
	must[[]*Call](t)(run.AddPendingSteps([]string{"plan"}))
	check(t, run.Finish(StatusFailed, nil, errors.New("boom")))
	rec := must[*RunRecord](t)(s.Resolve("last"))
	tree := must[[]*Node](t)(s.Tree(rec.ID))
	if rec.ID != run.ID() || rec.Status != StatusFailed || rec.Error != "boom" || len(tree) != 1 || tree[0].Status != StatusPending {
		t.Fatalf("failed run %+v, tree %+v", rec, tree)
	}
}

func TestOpenLazyFirstCallRecordsRun(t *testing.T) {
	path := filepath.Join(t.TempDir(), ".evalrun", "journal.db")
	s := OpenLazy(path)
	defer s.Close()
	s.now = (&clock{t: t0}).now
	ids(s, "a1b2")
	run := must[*Run](t)(s.StartRun(RunInfo{WorkflowPath: "w.sexp", Args: value.DictOf("n", value.Int(1))}))
	must[[]*Call](t)(run.AddPendingSteps([]string{"plan", "verify"}))
	if _, err := os.Stat(path); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("the journal exists before the first call: %v", err)
	}
	step := must[*Call](t)(run.Begin(nil, KindStep, "plan", "", nil))
	task := must[*Call](t)(run.Begin(step, KindTask, "plan/generate", "h1", value.DictOf("x", value.String("y"))))
	check(t, task.Running())

	// Another connection (a second process) sees the run and its plan as
	// soon as the first call has begun.
	other := must[*Store](t)(Open(path))
	defer other.Close()
	rec := must[*RunRecord](t)(other.GetRun("20250106-140300-a1b2"))
	if rec.WorkflowPath != "w.sexp" || rec.Status != StatusRunning || value.JSON(rec.Args) != `{"n":1}` {
		t.Fatalf("run %+v", rec)
	}
	tree := must[[]*Node](t)(other.Tree(rec.ID))
	if len(tree) != 2 || tree[0].Name != "plan" || tree[1].Name != "verify" || tree[1].Status != StatusPending {
		t.Fatalf("tree %+v", tree)
	}

	// A completed call is committed when End returns.
	res := &value.TaskResult{Status: value.StatusComplete, Content: "done", Notes: value.NewDict(0)}
	check(t, task.End(StatusCompleted, res, "", Usage{InputTokens: 5, OutputTokens: 2, Turns: 1}, 0, false))
	tree = must[[]*Node](t)(other.Tree(rec.ID))
	if len(tree[0].Children) != 1 {
		t.Fatalf("the ended call is not visible: %+v", tree[0])
	}
	got := tree[0].Children[0]
	if got.Status != StatusCompleted || got.InputHash != "h1" || got.Usage.Tokens() != 7 || got.Seq != 3 ||
		tree[0].Status != StatusRunning {
		t.Fatalf("call %+v, step %s", got, tree[0].Status)
	}
	if r, ok := got.Result.(*value.TaskResult); !ok || r.Content != "done" {
		t.Fatalf("result %#v", got.Result)
	}
	check(t, step.End(StatusCompleted, value.String("ok"), "", Usage{}, 1, false))
	check(t, run.Finish(StatusCompleted, value.String("ok"), nil))
	if rec = must[*RunRecord](t)(other.GetRun(rec.ID)); rec.Status != StatusCompleted || rec.Calls != 2 {
		t.Fatalf("finished run %+v", rec)
	}
}

// TestQueuedWritesReachOtherReaders checks that a call begun and running,
// with nothing synchronous after it, is visible to another connection
// shortly after (a status viewer watching a long task).
func TestQueuedWritesReachOtherReaders(t *testing.T) {
	path := filepath.Join(t.TempDir(), "journal.db")
	s := must[*Store](t)(Open(path))
	defer s.Close()
	run := must[*Run](t)(s.StartRun(RunInfo{WorkflowPath: "w.sexp"}))
	c := must[*Call](t)(run.Begin(nil, KindTask, "slow", "h", nil))
	check(t, c.Running())
	other := must[*Store](t)(Open(path))
	defer other.Close()
	deadline := time.Now().Add(5 * time.Second)
	for {
		tree := must[[]*Node](t)(other.Tree(run.ID()))
		if len(tree) == 1 && tree[0].Status == StatusRunning {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the running call is not visible after 5 s: %+v", tree)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func TestWriteAfterCloseFails(t *testing.T) {
	s, _ := openTest(t)
	run := must[*Run](t)(s.StartRun(RunInfo{WorkflowPath: "w.sexp"}))
	c := must[*Call](t)(run.Begin(nil, KindTask, "t", "h", nil))
	check(t, s.Close())
	if err := c.End(StatusCompleted, nil, "", Usage{}, 0, false); !errors.Is(err, errClosed) {
		t.Fatalf("End after Close: %v", err)
	}
}

// BenchmarkCallWrites measures the journal writes of one task call (begin
// pending, input, running, end) made one after another, each End waiting
// for its commit.
func BenchmarkCallWrites(b *testing.B) {
	s := must[*Store](b)(Open(filepath.Join(b.TempDir(), "journal.db")))
	defer s.Close()
	run := must[*Run](b)(s.StartRun(RunInfo{WorkflowPath: "w.sexp"}))
	inputs := value.DictOf("text", value.String("hello"))
	res := &value.TaskResult{Status: value.StatusComplete, Content: "hello", Notes: value.NewDict(0)}
	for b.Loop() {
		c := must[*Call](b)(run.Begin(nil, KindTask, "echo", "", nil))
		if err := c.SetInput("0123456789abcdef", inputs); err != nil {
			b.Fatal(err)
		}
		if err := c.Running(); err != nil {
			b.Fatal(err)
		}
		if err := c.End(StatusCompleted, res, "", Usage{InputTokens: 10, OutputTokens: 1, Turns: 1}, 0, false); err != nil {
			b.Fatal(err)
		}
	}
}
