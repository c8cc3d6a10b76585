package journal

import (
	"sync"
	"testing"

	"github.com/evalrun/evalrun/value"
)

func result(content string) *value.TaskResult {
	return &value.TaskResult{Status: value.StatusComplete, Content: content,
		Notes: value.DictOf("model", value.String("m"))}
}

// record adds a finished call under parent.
func record(t *testing.T, run *Run, parent *Call, kind, name, hash, status string, res value.Value, u Usage) *Call {
	t.Helper()
	c := must[*Call](t)(run.Begin(parent, kind, name, hash, nil))
	check(t, c.End(status, res, "", u, 0, false))
	return c
}

func TestReplayer(t *testing.T) {
	s, _ := openTest(t)
	ids(s, "aaaa", "bbbb", "cccc")
	a := must[*Run](t)(s.StartRun(RunInfo{WorkflowPath: "w.sexp"}))
	record(t, a, nil, KindTask, "t", "h1", StatusCompleted, result("a1"), Usage{InputTokens: 1, OutputTokens: 2, Turns: 1})
	record(t, a, nil, KindTask, "t", "h1", StatusFailed, result("bad"), Usage{})
	record(t, a, nil, KindTask, "t", "h1", StatusCompleted, result("a2"), Usage{})
	record(t, a, nil, KindTask, "t", "h1", StatusCompleted, result("a3"), Usage{})
	record(t, a, nil, KindTask, "u", "h1", StatusCompleted, result("u1"), Usage{})
	toolHash := ToolHash("shell", value.DictOf("command", value.String("go test")))
	task := record(t, a, nil, KindTask, "t", "h2", StatusCompleted, result("h2"), Usage{})
	record(t, a, task, KindTool, "shell", toolHash, StatusCompleted, result("model's tool"), Usage{}) // not replayable
	record(t, a, nil, KindTool, "shell", toolHash, StatusCompleted, result("tool1"), Usage{})
	check(t, a.Finish(StatusFailed, nil, nil))

	b := must[*Run](t)(s.StartRun(RunInfo{WorkflowPath: "w.sexp", ResumedFrom: a.ID()}))
	c := must[*Call](t)(b.Begin(nil, KindTask, "t", "h1", nil))
	check(t, c.End(StatusCompleted, result("b1"), "", Usage{}, 0, true))
	cRun := must[*Run](t)(s.StartRun(RunInfo{WorkflowPath: "w.sexp", ResumedFrom: b.ID()}))

	rp := must[*Replayer](t)(s.NewReplayer(cRun.ID()))
	if got := rp.Chain(); len(got) != 3 || got[0] != cRun.ID() || got[2] != a.ID() {
		t.Fatalf("chain %v", got)
	}
	type req struct{ kind, name, hash, want string }
	reqs := []req{
		{KindTask, "t", "h1", "b1"}, // the newest run that has a first one
		{KindTask, "t", "h1", "a2"}, // b has no second: a's second completed call
		{KindTask, "u", "h1", "u1"}, // counted per template
		{KindTask, "t", "h1", "a3"},
		{KindTask, "t", "h1", ""},
		{KindTask, "t", "zz", ""},
		{KindTool, "shell", toolHash, "tool1"}, // the workflow-level call only
		{KindTool, "shell", toolHash, ""},
		{KindTask, "t", "h2", "h2"},
	}
	for i, r := range reqs {
		var v value.Value
		var ok bool
		if r.kind == KindTool {
			v, _, ok = rp.NextTool(r.name, r.hash)
		} else {
			v, _, ok = rp.Next(r.name, r.hash)
		}
		if ok != (r.want != "") {
			t.Fatalf("request %d (%s %s): ok %v, want %q", i, r.name, r.hash, ok, r.want)
		}
		if !ok {
			continue
		}
		tr, isTR := v.(*value.TaskResult)
		if !isTR || tr.Content != r.want {
			t.Fatalf("request %d: got %v, want %q", i, v, r.want)
		}
		if rep, _ := tr.Notes.Get("replayed"); rep != value.Bool(true) {
			t.Fatalf("request %d: notes.replayed = %v", i, rep)
		}
		if m, _ := tr.Notes.Get("model"); m != value.String("m") {
			t.Fatalf("request %d: notes lost: %v", i, tr.Notes)
		}
	}

	rpA := must[*Replayer](t)(s.NewReplayer(a.ID()))
	if _, u, ok := rpA.Next("t", "h1"); !ok || u != (Usage{InputTokens: 1, OutputTokens: 2, Turns: 1}) {
		t.Fatalf("usage %+v ok %v", u, ok)
	}
	if _, err := s.NewReplayer("missing"); err == nil {
		t.Fatal("replayer of an unknown run")
	}
	var nilRp *Replayer
	if _, _, ok := nilRp.Next("t", "h1"); ok {
		t.Fatal("nil replayer replayed")
	}
}

func TestReplayerConcurrent(t *testing.T) {
	s, _ := openTest(t)
	a := must[*Run](t)(s.StartRun(RunInfo{WorkflowPath: "w.sexp"}))
	const n = 30
	for range n {
		record(t, a, nil, KindTask, "t", "h", StatusCompleted, result("x"), Usage{})
	}
	rp := must[*Replayer](t)(s.NewReplayer(a.ID()))
	var wg sync.WaitGroup
	var mu sync.Mutex
	hits := 0
	for range n + 10 {
		wg.Go(func() {
			if _, _, ok := rp.Next("t", "h"); ok {
				mu.Lock()
				hits++
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	if hits != n {
		t.Fatalf("%d replays, want %d", hits, n)
	}
}
