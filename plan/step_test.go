package plan

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestScheduleNext: the pure schedule starts ready tasks in id order, up
// to parallel, never two with overlapping focus_paths, and after a failure
// leaves its dependants not started.
func TestScheduleNext(t *testing.T) {
	p := loadExample(t, copyTree(t, "../examples/plan"))
	s := NewSchedule(p, nil, nil, 3)
	// IMPL-003.1 works where IMPL-002.1 does.
	s.Task("IMPL-003.1").Focus = []string{"src/auth/login.ts"}
	steps := []struct {
		finish            string
		completed, failed bool
		want              string
	}{
		{"", false, false, "IMPL-001"},
		{"", false, false, ""},
		{"IMPL-001", true, false, "IMPL-002.1"},
		// IMPL-002.2 (src/auth) starts first, in id order; IMPL-003.1
		// then overlaps it.
		{"IMPL-002.1", true, false, "IMPL-002.2"},
		{"IMPL-002.2", false, true, "IMPL-003.1"},
		{"IMPL-003.1", true, false, "IMPL-003.2"},
		{"IMPL-003.2", true, false, ""},
	}
	for i, st := range steps {
		if st.finish != "" {
			s.Finish(st.finish, st.completed, st.failed)
		}
		if got := strings.Join(s.Next(), " "); got != st.want {
			t.Fatalf("step %d: next %q, want %q", i, got, st.want)
		}
	}
	if s.Running() != 0 {
		t.Fatalf("%d running", s.Running())
	}
	want := []NotStarted{{"IMPL-004", "waiting for IMPL-002"}}
	if diff := cmp.Diff(want, s.NotStarted()); diff != "" {
		t.Errorf("not started (-want +got):\n%s", diff)
	}
	// Without the overlap, both start side by side.
	s = NewSchedule(p, nil, nil, 3)
	s.Next()
	s.Finish("IMPL-001", true, false)
	if got := strings.Join(s.Next(), " "); got != "IMPL-002.1 IMPL-003.1" {
		t.Errorf("next %q", got)
	}
}

// TestStepsMatchRun: Prepare and RunStep driven one task at a time by the
// Schedule leave exactly the files of Run.
func TestStepsMatchRun(t *testing.T) {
	opts := RunOptions{Options: exampleOpts, Now: fixedNow, RunID: "20250106-140300-a1b2", Parallel: 1}
	runRoot := copyTree(t, "../examples/plan")
	if _, err := Run(context.Background(), loadExample(t, runRoot), &fakeExec{}, opts); err != nil {
		t.Fatal(err)
	}
	stepRoot := copyTree(t, "../examples/plan")
	s, err := Prepare(loadExample(t, stepRoot), opts)
	if err != nil {
		t.Fatal(err)
	}
	var order []string
	for {
		ids := s.Next()
		if len(ids) == 0 {
			break
		}
		for _, id := range ids {
			// Each step reads the plan afresh, as a worker does.
			r := RunStep(context.Background(), loadExample(t, stepRoot), &fakeExec{}, opts, id, s.Task(id).Sums)
			if r.Err != nil || !r.Completed || !strings.HasPrefix(r.Answer, "done "+id) || r.Tokens != 100 {
				t.Fatalf("%s: %+v", id, r)
			}
			s.Finish(id, true, false)
			order = append(order, id)
		}
	}
	if got := strings.Join(order, " "); got != "IMPL-001 IMPL-002.1 IMPL-002.2 IMPL-003.1 IMPL-003.2 IMPL-004" {
		t.Errorf("order %s", got)
	}
	a, b := treeFiles(t, runRoot), treeFiles(t, stepRoot)
	delete(a, ".workflow/active/WFS-jwt-auth/.process/evalrun.lock")
	delete(b, ".workflow/active/WFS-jwt-auth/.process/evalrun-step.lock")
	if diff := cmp.Diff(a, b); diff != "" {
		t.Errorf("files of Run (-) and of the steps (+):\n%s", diff)
	}
	if !strings.Contains(b[".workflow/active/WFS-jwt-auth/.task/IMPL-002.json"], `"status": "completed"`) {
		t.Errorf("the container is not completed:\n%s", b[".workflow/active/WFS-jwt-auth/.task/IMPL-002.json"])
	}
}

// TestRunStepChangedFile: a step whose task file is not as the run read
// it stops with *ChangedError and writes nothing; one left active by an
// earlier attempt of the step runs.
func TestRunStepChangedFile(t *testing.T) {
	root := copyTree(t, "../examples/plan")
	p := loadExample(t, root)
	s, err := Prepare(p, RunOptions{Options: exampleOpts})
	if err != nil {
		t.Fatal(err)
	}
	f := filepath.Join(p.Dir, ".task", "IMPL-001.json")
	data, _ := os.ReadFile(f)
	if err := os.WriteFile(f, append(data, '\n'), 0o644); err != nil {
		t.Fatal(err)
	}
	r := RunStep(context.Background(), loadExample(t, root), &fakeExec{}, RunOptions{Options: exampleOpts}, "IMPL-001", s.Task("IMPL-001").Sums)
	var ce *ChangedError
	if !errors.As(r.Err, &ce) || ce.Path != f || r.Completed || r.Failed {
		t.Fatalf("got %+v", r)
	}
	if _, err := os.Stat(filepath.Join(p.Dir, ".summaries", "IMPL-001-summary.md")); err == nil {
		t.Error("a summary was written")
	}
	// As an attempt lost with its worker leaves it: status active.
	if err := os.WriteFile(f, []byte(strings.Replace(string(data), `"status": "pending"`, `"status": "active"`, 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	r = RunStep(context.Background(), loadExample(t, root), &fakeExec{}, RunOptions{Options: exampleOpts}, "IMPL-001", s.Task("IMPL-001").Sums)
	if r.Err != nil || !r.Completed {
		t.Fatalf("second attempt: %+v", r)
	}
	// An active task needs --resume, as for Run.
	g := filepath.Join(p.Dir, ".task", "IMPL-003.1.json")
	data, _ = os.ReadFile(g)
	if err := os.WriteFile(g, []byte(strings.Replace(string(data), `"status": "pending"`, `"status": "active"`, 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err = Prepare(loadExample(t, root), RunOptions{Options: exampleOpts})
	var ue *UsageError
	if !errors.As(err, &ue) || ue.Msg != "IMPL-003.1 is active: an earlier run stopped in it; continue with evalrun plan run --resume" {
		t.Errorf("prepare with an active task: %v", err)
	}
	s, err = Prepare(loadExample(t, root), RunOptions{Options: exampleOpts, Resume: true})
	if err != nil || !s.Task("IMPL-003.1").Restart {
		t.Errorf("prepare --resume: %v", err)
	}
}

// treeFiles reads every file under root, by slash path.
func treeFiles(t *testing.T, root string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		out[filepath.ToSlash(rel)] = string(data)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}
