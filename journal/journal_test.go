package journal

import (
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/evalrun/evalrun/value"
)

// clock is a settable fake time source.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *clock) set(t time.Time) {
	c.mu.Lock()
	c.t = t
	c.mu.Unlock()
}

var t0 = time.Date(2025, 1, 6, 14, 3, 0, 0, time.Local)

func openTest(t *testing.T) (*Store, *clock) {
	t.Helper()
	s, err := Open(filepath.Join(t.TempDir(), ".evalrun", "journal.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	c := &clock{t: t0}
	s.now = c.now
	return s, c
}

// ids makes the store hand out these random suffixes in order.
func ids(s *Store, suffixes ...string) {
	var mu sync.Mutex
	s.random = func() string {
		mu.Lock()
		defer mu.Unlock()
		x := suffixes[0]
		if len(suffixes) > 1 {
			suffixes = suffixes[1:]
		}
		return x
	}
}

func must[T any](t testing.TB) func(T, error) T {
	return func(v T, err error) T {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
}

func check(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func TestRunIDAndReopen(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, ".evalrun", "journal.db")
	s, err := Open(path)
	check(t, err)
	s.now = func() time.Time { return t0 }
	ids(s, "a1b2", "a1b2", "c3d4")
	r1 := must[*Run](t)(s.StartRun(RunInfo{WorkflowPath: "plan.sexp", Args: value.DictOf("goal", value.String("x"))}))
	r2 := must[*Run](t)(s.StartRun(RunInfo{WorkflowPath: "plan.sexp"}))
	if r1.ID() != "20250106-140300-a1b2" || r2.ID() != "20250106-140300-c3d4" {
		t.Fatalf("ids %s %s", r1.ID(), r2.ID())
	}
	check(t, r1.Finish(StatusCompleted, value.List{value.Int(1), value.String("a")}, nil))
	check(t, s.Close())

	s, err = Open(path)
	check(t, err)
	defer s.Close()
	got := must[*RunRecord](t)(s.GetRun(r1.ID()))
	if got.Status != StatusCompleted || value.JSON(got.Final) != `[1,"a"]` || value.JSON(got.Args) != `{"goal":"x"}` {
		t.Fatalf("run read back: %+v", got)
	}
	if _, err := s.db.Exec("UPDATE schema_version SET version = 99"); err != nil {
		t.Fatal(err)
	}
	s.Close()
	if _, err := Open(path); err == nil || !strings.Contains(err.Error(), "schema version 99") {
		t.Fatalf("want schema version error, got %v", err)
	}
}

func TestConcurrentCalls(t *testing.T) {
	s, _ := openTest(t)
	run := must[*Run](t)(s.StartRun(RunInfo{WorkflowPath: "w.sexp"}))
	step := must[*Call](t)(run.Begin(nil, KindStep, "all", "", nil))
	const n = 40
	var wg sync.WaitGroup
	errs := make(chan error, n)
	taskIDs := make(chan string, n)
	for i := range n {
		wg.Go(func() {
			c, err := run.Begin(step, KindTask, "t", fmt.Sprint("h", i), value.DictOf("i", value.Int(i)))
			if err != nil {
				errs <- err
				return
			}
			if c.Status() != StatusPending {
				errs <- fmt.Errorf("new task status %s", c.Status())
			}
			if err := c.Running(); err != nil {
				errs <- err
			}
			tr := &value.TaskResult{Status: value.StatusComplete, Content: fmt.Sprint(i)}
			if err := c.End(StatusCompleted, tr, "", Usage{InputTokens: 10, OutputTokens: 5, Turns: 1}, 0, false); err != nil {
				errs <- err
			}
			taskIDs <- c.TaskID()
		})
	}
	wg.Wait()
	close(errs)
	close(taskIDs)
	for err := range errs {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for id := range taskIDs {
		if seen[id] {
			t.Fatalf("duplicate task id %s", id)
		}
		seen[id] = true
	}
	check(t, step.End(StatusCompleted, value.Null{}, "", Usage{}, 1, false))
	tree := must[[]*Node](t)(s.Tree(run.ID()))
	if len(tree) != 1 || len(tree[0].Children) != n || tree[0].Seq != 1 || tree[0].Attempts != 1 {
		t.Fatalf("tree shape: %d roots", len(tree))
	}
	for i, c := range tree[0].Children {
		if c.Seq != i+2 || c.Status != StatusCompleted || c.Usage.Tokens() != 15 {
			t.Fatalf("child %d: seq %d status %s", i, c.Seq, c.Status)
		}
		if _, ok := c.Result.(*value.TaskResult); !ok {
			t.Fatalf("result %T, want *value.TaskResult", c.Result)
		}
		if !seen[run.ID()+"/"+fmt.Sprint(c.Seq)] {
			t.Fatalf("seq %d not handed out", c.Seq)
		}
	}
	rec := must[*RunRecord](t)(s.GetRun(run.ID()))
	if rec.Calls != n+1 || rec.Tokens != 15*n {
		t.Fatalf("calls %d tokens %d", rec.Calls, rec.Tokens)
	}
}

func TestStatusTransitions(t *testing.T) {
	s, _ := openTest(t)
	run := must[*Run](t)(s.StartRun(RunInfo{WorkflowPath: "w.sexp"}))
	c := must[*Call](t)(run.Begin(nil, KindTool, "system_execute_shell_command", "h", nil))
	steps := []struct {
		do   func() error
		want string
	}{
		{func() error { return nil }, StatusPending},
		{c.Running, StatusRunning},
		{func() error { return c.End(StatusFailed, nil, "boom", Usage{}, 0, false) }, StatusFailed},
	}
	for i, st := range steps {
		check(t, st.do())
		tree := must[[]*Node](t)(s.Tree(run.ID()))
		if tree[0].Status != st.want || c.Status() != st.want {
			t.Fatalf("step %d: status %s / %s, want %s", i, tree[0].Status, c.Status(), st.want)
		}
	}
	if err := c.End(StatusRunning, nil, "", Usage{}, 0, false); err == nil {
		t.Fatal("End with running accepted")
	}
	if _, err := run.Begin(nil, "lambda", "x", "", nil); err == nil {
		t.Fatal("unknown kind accepted")
	}
}

func TestPendingStepsClaimedInOrder(t *testing.T) {
	s, _ := openTest(t)
	run := must[*Run](t)(s.StartRun(RunInfo{WorkflowPath: "w.sexp"}))
	pend := must[[]*Call](t)(run.AddPendingSteps([]string{"a", "b", "a"}))
	inner := must[[]*Call](t)(pend[1].AddPendingSteps([]string{"x"}))
	begin := func(parent *Call, name string) *Call {
		t.Helper()
		return must[*Call](t)(run.Begin(parent, KindStep, name, "", nil))
	}
	tests := []struct {
		parent  *Call
		name    string
		wantSeq int
	}{
		{nil, "a", 1},
		{nil, "x", 5},     // x is pending only inside b: a new node
		{nil, "a", 3},     // the second pending a
		{nil, "a", 6},     // none left: a new node
		{pend[1], "x", 4}, // claimed inside b
		{pend[1], "x", 7},
		{nil, "b", 2},
	}
	for _, tt := range tests {
		c := begin(tt.parent, tt.name)
		if c.Seq() != tt.wantSeq || c.Status() != StatusRunning {
			t.Fatalf("step %s: seq %d status %s, want seq %d running", tt.name, c.Seq(), c.Status(), tt.wantSeq)
		}
	}
	if inner[0].Status() != StatusRunning {
		t.Fatal("claimed node not running")
	}
	tree := must[[]*Node](t)(s.Tree(run.ID()))
	var got []string
	Walk(tree, func(n *Node, depth int) bool {
		got = append(got, fmt.Sprintf("%s%s#%d", strings.Repeat(".", depth), n.Name, n.Seq))
		return true
	})
	want := "a#1 b#2 .x#4 .x#7 a#3 x#5 a#6"
	if strings.Join(got, " ") != want {
		t.Fatalf("tree %q, want %q", strings.Join(got, " "), want)
	}
}

func node(status string, children ...*Node) *Node {
	return &Node{Status: status, Children: children}
}

func TestCurrentPosition(t *testing.T) {
	leaf := func(name, status string) *Node { return &Node{Name: name, Status: status} }
	tests := []struct {
		name string
		tree []*Node
		want string
	}{
		{"empty", nil, ""},
		{"all completed", []*Node{leaf("a", StatusCompleted), leaf("b", StatusSkipped)}, ""},
		{"first pending", []*Node{leaf("a", StatusCompleted), leaf("b", StatusPending), leaf("c", StatusPending)}, "b"},
		{"skipped ancestor hides failed child", []*Node{
			node(StatusSkipped, leaf("lint-tool", StatusFailed)), leaf("next", StatusPending)}, "next"},
		{"completed ancestor hides running child", []*Node{
			node(StatusCompleted, leaf("stale", StatusRunning)), leaf("next", StatusRunning)}, "next"},
		{"failed step descends", []*Node{
			node(StatusFailed, leaf("ok", StatusCompleted), leaf("bad", StatusFailed)), leaf("later", StatusPending)}, "bad"},
		{"node with children is never current", []*Node{
			node(StatusRunning, leaf("done", StatusCompleted)), leaf("later", StatusPending)}, "later"},
		{"deep", []*Node{node(StatusRunning, node(StatusRunning, leaf("deep", StatusRunning)))}, "deep"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := CurrentPosition(tt.tree)
			name := ""
			if got != nil {
				name = got.Name
			}
			if name != tt.want {
				t.Fatalf("current %q, want %q", name, tt.want)
			}
		})
	}
}

func TestResolve(t *testing.T) {
	s, c := openTest(t)
	ids(s, "a1b2", "a1c3", "ffff")
	must[*Run](t)(s.StartRun(RunInfo{WorkflowPath: "a.sexp"}))
	must[*Run](t)(s.StartRun(RunInfo{WorkflowPath: "b.sexp"}))
	c.set(t0.Add(19 * time.Hour))
	must[*Run](t)(s.StartRun(RunInfo{WorkflowPath: "c.sexp"}))
	tests := []struct {
		ref, want, err string
	}{
		{"last", "20250107-090300-ffff", ""},
		{"", "20250107-090300-ffff", ""},
		{"20250106-140300-a1b2", "20250106-140300-a1b2", ""},
		{"20250106-140300-a1c", "20250106-140300-a1c3", ""},
		{"20250107", "20250107-090300-ffff", ""},
		{"20250106", "", "ambiguous"},
		{"2025010_", "", "no run matches"},
		{"%", "", "no run matches"},
		{"nope", "", "no run matches"},
	}
	for _, tt := range tests {
		t.Run(tt.ref, func(t *testing.T) {
			r, err := s.Resolve(tt.ref)
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("err %v, want %q", err, tt.err)
				}
				return
			}
			if err != nil || r.ID != tt.want {
				t.Fatalf("got %v %v, want %s", r, err, tt.want)
			}
		})
	}
	runs := must[[]*RunRecord](t)(s.Runs(2))
	if len(runs) != 2 || runs[0].WorkflowPath != "c.sexp" {
		t.Fatalf("Runs(2) = %d runs, first %s", len(runs), runs[0].WorkflowPath)
	}
	empty, _ := openTest(t)
	if _, err := empty.Resolve("last"); err == nil {
		t.Fatal("last in an empty journal resolved")
	}
}

func TestToolHash(t *testing.T) {
	a := ToolHash("system_execute_shell_command", value.DictOf("command", value.String("go vet"), "cwd", value.String(".")))
	b := ToolHash("system_execute_shell_command", value.DictOf("cwd", value.String("."), "command", value.String("go vet")))
	if a != b || len(a) != 64 {
		t.Fatalf("hash depends on key order: %s %s", a, b)
	}
	if a == ToolHash("other", value.DictOf("command", value.String("go vet"), "cwd", value.String("."))) {
		t.Fatal("name not hashed")
	}
	if ToolHash("x", nil) != ToolHash("x", value.NewDict(0)) {
		t.Fatal("nil params differ from {}")
	}
	if got := CanonicalJSON(value.DictOf("b", value.List{value.Float(1.5)}, "a", value.String("<&>"))); got != `{"a":"<&>","b":[1.5]}` {
		t.Fatalf("canonical %s", got)
	}
}

func TestThousandsAndFirstLine(t *testing.T) {
	for n, want := range map[int64]string{0: "0", 999: "999", 1000: "1,000", 18214: "18,214", 1234567: "1,234,567", -4102: "-4,102"} {
		if got := Thousands(n); got != want {
			t.Errorf("Thousands(%d) = %s", n, got)
		}
	}
	for in, want := range map[string]string{
		"cancelled":                          "cancelled",
		"exit 1:\nmore":                      "exit 1: …",
		"one\n\n":                            "one",
		strings.Repeat("é", 70):              strings.Repeat("é", 60) + " …",
		"  padded  ":                         "padded",
		"command exited with status 1:\nvet": "command exited with status 1: …",
	} {
		if got := FirstLine(in, 60); got != want {
			t.Errorf("FirstLine(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestRunIDCollisionAcrossProcesses: runs started in the same second by
// different processes (stores with connections of their own) that draw
// the same random suffix all get recorded, each under an id of its own:
// the creation of a run retries with a new suffix when the id is taken,
// however the writes of the processes interleave.
func TestRunIDCollisionAcrossProcesses(t *testing.T) {
	path := filepath.Join(t.TempDir(), ".evalrun", "journal.db")
	check(t, must[*Store](t)(Open(path)).Close())
	const procs, rounds = 6, 15
	for round := range rounds {
		stores := make([]*Store, procs)
		for i := range stores {
			s := must[*Store](t)(Open(path))
			defer s.Close()
			s.now = func() time.Time { return t0.Add(time.Duration(round) * time.Second) }
			// The same first suffix everywhere, then one of its own.
			ids(s, "a1b2", fmt.Sprintf("%02x%02x", round, i))
			stores[i] = s
		}
		var wg sync.WaitGroup
		start := make(chan struct{})
		errs := make([]error, procs)
		runIDs := make([]string, procs)
		for i, s := range stores {
			wg.Add(1)
			go func() {
				defer wg.Done()
				<-start
				r, err := s.StartRun(RunInfo{WorkflowPath: "w.sexp"})
				if err == nil {
					err = r.Finish(StatusCompleted, value.Int(int64(i)), nil)
					runIDs[i] = r.ID()
				}
				errs[i] = err
			}()
		}
		close(start)
		wg.Wait()
		seen := map[string]bool{}
		for i, err := range errs {
			if err != nil {
				t.Fatalf("round %d, process %d: %v", round, i, err)
			}
			if seen[runIDs[i]] {
				t.Fatalf("round %d: id %s handed out twice", round, runIDs[i])
			}
			seen[runIDs[i]] = true
			rec := must[*RunRecord](t)(stores[0].GetRun(runIDs[i]))
			if value.JSON(rec.Final) != fmt.Sprint(i) {
				t.Fatalf("round %d: run %s holds %s, want %d", round, runIDs[i], value.JSON(rec.Final), i)
			}
		}
	}
}

// TestAbort: Abort fails the calls that have not ended (running ones and
// calls waiting for a slot) with execution_halted and the run with the
// message; ended calls and planned steps never started keep their state.
func TestAbort(t *testing.T) {
	s, err := Open(filepath.Join(t.TempDir(), "journal.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	run, err := s.StartRun(RunInfo{WorkflowPath: "w.sexp"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := run.AddPendingSteps([]string{"a", "later"}); err != nil {
		t.Fatal(err)
	}
	step, _ := run.Begin(nil, KindStep, "a", "", nil)
	done, _ := run.Begin(step, KindTask, "done", "h1", nil)
	done.Running()
	if err := done.End(StatusCompleted, nil, "", Usage{}, 0, false); err != nil {
		t.Fatal(err)
	}
	running, _ := run.Begin(step, KindTask, "running", "h2", nil)
	running.Running()
	run.Begin(step, KindTool, "waiting", "", nil) // pending: waits for a slot
	if err := run.Abort("interrupted"); err != nil {
		t.Fatal(err)
	}
	rec, err := s.GetRun(run.ID())
	if err != nil {
		t.Fatal(err)
	}
	if rec.Status != StatusFailed || rec.Error != "interrupted" || rec.FinishedAt.IsZero() {
		t.Errorf("run: %q %q %v; want failed, interrupted, a finish time", rec.Status, rec.Error, rec.FinishedAt)
	}
	tree, err := s.Tree(run.ID())
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	Walk(tree, func(n *Node, _ int) bool {
		got = append(got, fmt.Sprintf("%s %s %s %q finished=%v", n.Kind, n.Name, n.Status, n.Error, !n.FinishedAt.IsZero()))
		return true
	})
	want := []string{
		`step a failed "execution_halted: interrupted" finished=true`,
		`task done completed "" finished=true`,
		`task running failed "execution_halted: interrupted" finished=true`,
		`tool waiting failed "execution_halted: interrupted" finished=true`,
		`step later pending "" finished=false`,
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("calls:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
