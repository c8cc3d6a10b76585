package journal

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/evalrun/evalrun/value"
)

func TestOpenLazyWithoutCallsCreatesNothing(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, ".evalrun", "journal.db")
	s := OpenLazy(path)
	run := must[*Run](t)(s.StartRun(RunInfo{WorkflowPath: "<eval>", OmitWithoutCalls: true}))
	must[[]*Call](t)(run.AddPendingSteps([]string{"plan"}))
	check(t, run.Finish(StatusCompleted, value.Int(3), nil))
	check(t, s.Close())
	if _, err := os.Stat(filepath.Join(dir, ".evalrun")); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("a run without calls left %s behind (stat: %v)", filepath.Join(dir, ".evalrun"), err)
	}

	// A failed run is recorded even without calls, with its pending plan.
	s = OpenLazy(path)
	defer s.Close()
	run = must[*Run](t)(s.StartRun(RunInfo{WorkflowPath: "<eval>", OmitWithoutCalls: true}))
	must[[]*Call](t)(run.AddPendingSteps([]string{"plan"}))
	check(t, run.Finish(StatusFailed, nil, errors.New("boom")))
	rec := must[*RunRecord](t)(s.Resolve("last"))
	tree := must[[]*Node](t)(s.Tree(rec.ID))
	if rec.ID != run.ID() || rec.Status != StatusFailed || rec.Error != "boom" || len(tree) != 1 || tree[0].Status != StatusPending {
		t.Fatalf("failed run %+v, tree %+v", rec, tree)
	}
}

// TestOpenLazyRecordsRunWithoutCalls: every run is recorded (SPEC §16.2),
// one that completes without a call too, with its value and plan, when it
// finishes.
func TestOpenLazyRecordsRunWithoutCalls(t *testing.T) {
	path := filepath.Join(t.TempDir(), ".evalrun", "journal.db")
	s := OpenLazy(path)
	run := must[*Run](t)(s.StartRun(RunInfo{WorkflowPath: "sum.sexp"}))
	must[[]*Call](t)(run.AddPendingSteps([]string{"plan"}))
	if exists(path) {
		t.Fatal("the journal exists before the run finished")
	}
	check(t, run.Finish(StatusCompleted, value.Int(3), nil))
	check(t, s.Close())

	s = must[*Store](t)(Open(path))
	defer s.Close()
	rec := must[*RunRecord](t)(s.Resolve("last"))
	tree := must[[]*Node](t)(s.Tree(rec.ID))
	if rec.ID != run.ID() || rec.Status != StatusCompleted || rec.Error != "" || value.JSON(rec.Final) != "3" ||
		rec.FinishedAt.IsZero() || len(tree) != 1 || tree[0].Name != "plan" {
		t.Fatalf("run %+v, tree %+v", rec, tree)
	}
}

// TestFinalValueBounded: a final value whose JSON is over MaxFinalBytes is
// recorded as FinalTooLarge; one of exactly MaxFinalBytes is kept whole.
func TestFinalValueBounded(t *testing.T) {
	s, _ := openTest(t)
	for _, c := range []struct {
		final value.Value
		want  string
	}{
		// A JSON string of MaxFinalBytes bytes: the text and two quotes.
		{value.String(strings.Repeat("x", MaxFinalBytes-2)), "whole"},
		{value.String(strings.Repeat("x", MaxFinalBytes-1)), FinalTooLarge},
		{value.List{value.String(strings.Repeat("y", 600<<10)), value.String(strings.Repeat("z", 600<<10))}, FinalTooLarge},
	} {
		run := must[*Run](t)(s.StartRun(RunInfo{WorkflowPath: "big.sexp"}))
		check(t, run.Finish(StatusCompleted, c.final, nil))
		rec := must[*RunRecord](t)(s.GetRun(run.ID()))
		got := value.JSON(rec.Final)
		if c.want == "whole" {
			if got != value.JSON(c.final) {
				t.Errorf("a final value of %d bytes of JSON was not kept whole (%d bytes)", len(value.JSON(c.final)), len(got))
			}
		} else if got != value.JSON(value.String(c.want)) {
			t.Errorf("final of %d bytes of JSON recorded as %.80s", len(value.JSON(c.final)), got)
		}
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

	// Another connection (a second process) sees the run and its plan
	// shortly after the first call has begun (they are committed in the
	// background, while the call goes on).
	var other *Store
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(5 * time.Millisecond) {
		if other == nil && exists(path) {
			other = must[*Store](t)(Open(path))
			defer other.Close()
		}
		if other != nil {
			if runs := must[[]*RunRecord](t)(other.Runs(0)); len(runs) == 1 {
				break
			}
		}
		if time.Now().After(deadline) {
			t.Fatal("the run is not visible 5 s after its first call began")
		}
	}
	rec := must[*RunRecord](t)(other.GetRun("20250106-140300-a1b2"))
	if rec.WorkflowPath != "w.sexp" || rec.Status != StatusRunning || value.JSON(rec.Args) != `{"n":1}` {
		t.Fatalf("run %+v", rec)
	}
	tree := must[[]*Node](t)(other.Tree(rec.ID))
	if len(tree) != 2 || tree[0].Name != "plan" || tree[1].Name != "verify" || tree[1].Status != StatusPending {
		t.Fatalf("tree %+v", tree)
	}

	// A completed call reaches the database shortly after End returns
	// (it is durable at once in the call log: TestEndDurableInCallLog).
	res := &value.TaskResult{Status: value.StatusComplete, Content: "done", Notes: value.NewDict(0)}
	check(t, task.End(StatusCompleted, res, "", Usage{InputTokens: 5, OutputTokens: 2, Turns: 1}, 0, false))
	if callLogSupported {
		// Opening the journal again leaves the call log of a live store alone.
		again := must[*Store](t)(Open(path))
		check(t, again.Close())
		if l := s.log.Load(); l == nil || !exists(l.path) {
			t.Fatal("the call log of a live store is missing (taken for a dead process's?)")
		}
	}
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(5 * time.Millisecond) {
		tree = must[[]*Node](t)(other.Tree(rec.ID))
		if len(tree[0].Children) == 1 && tree[0].Children[0].Status == StatusCompleted {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the ended call is not visible after 5 s: %+v", tree[0])
		}
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

// TestEndDurableInCallLog: a process that dies right after a call ended,
// before the call reached the database, leaves its call log behind; the
// next process to open the journal writes the call into the database.
func TestEndDurableInCallLog(t *testing.T) {
	if !callLogSupported {
		t.Skip("no call log on this system")
	}
	if path := os.Getenv("EVALRUN_JOURNAL_CHILD"); path != "" {
		dieAfterEnd(path)
		return
	}
	path := filepath.Join(t.TempDir(), ".evalrun", "journal.db")
	cmd := exec.Command(os.Args[0], "-test.run=^TestEndDurableInCallLog$")
	cmd.Env = append(os.Environ(), "EVALRUN_JOURNAL_CHILD="+path)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("child: %v\n%s", err, out)
	}
	logs, _ := filepath.Glob(path + callLogInfix + "*")
	if len(logs) != 1 {
		t.Fatalf("the child left %d call logs, want 1", len(logs))
	}
	s := must[*Store](t)(Open(path))
	defer s.Close()
	rec := must[*RunRecord](t)(s.Resolve("last"))
	tree := must[[]*Node](t)(s.Tree(rec.ID))
	if len(tree) != 1 || len(tree[0].Children) != 2 {
		t.Fatalf("tree %+v", tree)
	}
	for i, c := range tree[0].Children {
		r, ok := c.Result.(*value.TaskResult)
		if c.Status != StatusCompleted || c.Seq != i+2 || c.InputHash != fmt.Sprint("h", i) || !ok ||
			r.Content != fmt.Sprint("answer ", i) || c.Usage != (Usage{InputTokens: 5, OutputTokens: 2, Turns: 1}) ||
			c.StartedAt.IsZero() || c.FinishedAt.IsZero() {
			t.Errorf("call %d: %+v", i, c)
		}
		if value.JSON(c.Inputs) != fmt.Sprintf(`{"i":%d}`, i) {
			t.Errorf("call %d inputs %s", i, value.JSON(c.Inputs))
		}
	}
	// The step was left running by the child, which is gone: it reads as
	// halted, the run as failed.
	if tree[0].Status != StatusFailed || tree[0].Error != HaltedEndedError || !rec.Ended || rec.Status != StatusFailed {
		t.Errorf("step %s %q, run %s (ended %v)", tree[0].Status, tree[0].Error, rec.Status, rec.Ended)
	}
	// The recovered log is gone (this store has made none: it ended no call).
	if after, _ := filepath.Glob(path + callLogInfix + "*"); len(after) != 0 {
		t.Errorf("call logs after recovery: %q", after)
	}
}

// dieAfterEnd records a step and two completed task calls, the second
// begun and ended after the step's insert was committed, then exits
// without closing the store: nothing is flushed after the last End.
func dieAfterEnd(path string) {
	s := OpenLazy(path)
	s.flushDelay = time.Hour
	run, err := s.StartRun(RunInfo{WorkflowPath: "w.sexp"})
	if err != nil {
		panic(err)
	}
	step, err := run.Begin(nil, KindStep, "all", "", nil)
	if err != nil {
		panic(err)
	}
	for i := range 2 {
		c, err := run.Begin(step, KindTask, "t", fmt.Sprint("h", i), value.DictOf("i", value.Int(i)))
		if err != nil {
			panic(err)
		}
		if err := c.Running(); err != nil {
			panic(err)
		}
		if i == 0 {
			if err := s.flush(); err != nil { // the first call is in the database, running
				panic(err)
			}
		}
		res := &value.TaskResult{Status: value.StatusComplete, Content: fmt.Sprint("answer ", i), Notes: value.NewDict(0)}
		if err := c.End(StatusCompleted, res, "", Usage{InputTokens: 5, OutputTokens: 2, Turns: 1}, 0, false); err != nil {
			panic(err)
		}
	}
	os.Exit(0)
}

func exists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

// BenchmarkOneCallRun measures what the journal adds to a process making
// one task call, on an existing journal: open, the run and its call
// (begin, end), finish, close.
func BenchmarkOneCallRun(b *testing.B) {
	path := filepath.Join(b.TempDir(), "journal.db")
	s := must[*Store](b)(Open(path))
	check(b, s.Close())
	res := &value.TaskResult{Status: value.StatusComplete, Content: "hello", Notes: value.NewDict(0)}
	var first time.Duration
	for b.Loop() {
		s := OpenLazy(path)
		run := must[*Run](b)(s.StartRun(RunInfo{WorkflowPath: "task greet"}))
		start := time.Now()
		c := must[*Call](b)(run.Begin(nil, KindTask, "greet", "h", nil))
		first += time.Since(start)
		check(b, c.Running())
		check(b, c.End(StatusCompleted, res, "", Usage{InputTokens: 10, OutputTokens: 1, Turns: 1}, 0, false))
		check(b, run.Finish(StatusCompleted, res, nil))
		check(b, s.Close())
	}
	b.ReportMetric(float64(first.Microseconds())/float64(b.N), "first-begin-µs")
}

// TestOpenLazyFirstCallDoesNotWaitForTheDatabase: the first Begin queues the
// run and goes on while the database opens; a database that cannot be
// opened fails the call's End, which must make the call durable, and the
// run's Finish.
func TestOpenLazyFirstCallDoesNotWaitForTheDatabase(t *testing.T) {
	dir := t.TempDir()
	blocker := filepath.Join(dir, ".evalrun")
	if err := os.WriteFile(blocker, []byte("a file where the directory should be"), 0o644); err != nil {
		t.Fatal(err)
	}
	s := OpenLazy(filepath.Join(blocker, "journal.db"))
	defer s.Close()
	run, err := s.StartRun(RunInfo{WorkflowPath: "w.sexp"})
	if err != nil {
		t.Fatal(err)
	}
	c, err := run.Begin(nil, KindTask, "greet", "h", nil)
	if err != nil {
		t.Fatalf("Begin: %v (the run is written in the background)", err)
	}
	err = c.End(StatusCompleted, value.String("hi"), "", Usage{}, 0, false)
	if err == nil || !strings.Contains(err.Error(), "not a directory") {
		t.Fatalf("End: %v, want the error opening the database", err)
	}
	if err := run.Finish(StatusCompleted, nil, nil); err == nil || !strings.Contains(err.Error(), "not a directory") {
		t.Fatalf("Finish: %v, want the error opening the database", err)
	}
}

// TestFirstEndUsesTheCallLog: a call that ends at once, while its run may
// still be committing in the background, is made durable by the call log
// (not by a commit of its own), and so are the calls after it.
func TestFirstEndUsesTheCallLog(t *testing.T) {
	if !callLogSupported {
		t.Skip("no call log without file locks")
	}
	for i := range 20 {
		s := OpenLazy(filepath.Join(t.TempDir(), ".evalrun", "journal.db"))
		run := must[*Run](t)(s.StartRun(RunInfo{WorkflowPath: "w.sexp"}))
		c := must[*Call](t)(run.Begin(nil, KindTask, "greet", "h", nil))
		check(t, c.End(StatusCompleted, value.String("hi"), "", Usage{}, 0, false))
		if s.log.Load() == nil {
			t.Fatalf("round %d: the first End made no call log", i)
		}
		check(t, s.Close())
	}
}

// TestFirstEndKeepsItsRun: a process that dies right after the first call
// of a lazy store's run ended leaves the run's row with the call: the
// call's end is durable only once the run's row is committed.
func TestFirstEndKeepsItsRun(t *testing.T) {
	if !callLogSupported {
		t.Skip("no call log on this system")
	}
	if path := os.Getenv("EVALRUN_JOURNAL_FIRST_END"); path != "" {
		s := OpenLazy(path)
		s.flushDelay = time.Hour
		run := must[*Run](t)(s.StartRun(RunInfo{WorkflowPath: "w.sexp"}))
		c := must[*Call](t)(run.Begin(nil, KindTask, "t", "h", nil))
		res := &value.TaskResult{Status: value.StatusComplete, Content: "answer", Notes: value.NewDict(0)}
		if err := c.End(StatusCompleted, res, "", Usage{Turns: 1}, 0, false); err != nil {
			panic(err)
		}
		os.Exit(0)
	}
	path := filepath.Join(t.TempDir(), ".evalrun", "journal.db")
	cmd := exec.Command(os.Args[0], "-test.run=^TestFirstEndKeepsItsRun$")
	cmd.Env = append(os.Environ(), "EVALRUN_JOURNAL_FIRST_END="+path)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("child: %v\n%s", err, out)
	}
	s := must[*Store](t)(Open(path))
	defer s.Close()
	rec, err := s.Resolve("last")
	if err != nil {
		t.Fatal(err)
	}
	tree := must[[]*Node](t)(s.Tree(rec.ID))
	if len(tree) != 1 || tree[0].Status != StatusCompleted || tree[0].Name != "t" {
		t.Errorf("run %s %s, tree %+v", rec.ID, rec.Status, tree)
	}
}
