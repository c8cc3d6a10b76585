//go:build linux

package journal

import (
	"database/sql"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// deadOwner starts a process, waits for its end and returns it as an
// owner of this host.
func deadOwner(t *testing.T) Owner {
	t.Helper()
	cmd := exec.Command("cat")
	stdin, err := cmd.StdinPipe()
	check(t, err)
	check(t, cmd.Start())
	o := Owner{PID: cmd.Process.Pid, Host: CurrentOwner().Host, Start: processStart(cmd.Process.Pid)}
	if o.Gone() {
		t.Errorf("a running process %+v is taken for gone", o)
	}
	stdin.Close()
	check(t, cmd.Wait())
	return o
}

func TestOwnerGone(t *testing.T) {
	me := CurrentOwner()
	if me.PID == 0 || me.Host == "" || len(startFields(me.Start, 4)) != 4 || strings.HasSuffix(me.Start, " -") {
		t.Fatalf("this process: %+v", me)
	}
	if me.Gone() {
		t.Error("this process is taken for gone")
	}
	dead := deadOwner(t)
	if !dead.Gone() {
		t.Errorf("a process that ended %+v is not taken for gone", dead)
	}
	f := startFields(me.Start, 4)
	for _, c := range []struct {
		name string
		o    Owner
		gone bool
	}{
		{"unknown owner", Owner{}, false},
		{"another host", Owner{PID: dead.PID, Host: me.Host + "-other", Start: dead.Start}, false},
		{"pid reused", Owner{PID: me.PID, Host: me.Host, Start: f[0] + " " + f[1] + " " + f[2] + " 1"}, true},
		{"restarted since", Owner{PID: me.PID, Host: me.Host, Start: f[0] + " another-boot " + f[2] + " " + f[3]}, true},
		{"another machine of that name", Owner{PID: dead.PID, Host: me.Host, Start: "another-machine another-boot x 1"}, false},
		{"another pid namespace", Owner{PID: dead.PID, Host: me.Host, Start: f[0] + " " + f[1] + " pid:[1] 1"}, false},
		{"no start recorded", Owner{PID: dead.PID, Host: me.Host}, false},
	} {
		if got := c.o.Gone(); got != c.gone {
			t.Errorf("%s: Gone() = %v, want %v", c.name, got, c.gone)
		}
	}
}

func TestParseStat(t *testing.T) {
	line := "4242 (a (weird) name) S 1 4242 4242 0 -1 4194560 100 0 0 0 1 2 0 0 20 0 1 0 987654 1000 200\n"
	state, start, ok := parseStat([]byte(line))
	if !ok || state != 'S' || start != "987654" {
		t.Errorf("parseStat: %c %q %v", state, start, ok)
	}
	if _, _, ok := parseStat([]byte("4242 (short) S 1 2")); ok {
		t.Error("a short line parsed")
	}
}

// TestRunOfGoneProcess: a run recorded running by a process that is gone
// reads as failed with the error naming the process, and its unfinished
// calls as failed execution_halted; the row itself is not changed. A run
// whose process runs still, or of an unknown process, reads as running.
func TestRunOfGoneProcess(t *testing.T) {
	s := must[*Store](t)(Open(filepath.Join(t.TempDir(), "journal.db")))
	defer s.Close()
	dead := deadOwner(t)
	s.owner = dead
	ids(s, "dead")
	r := must[*Run](t)(s.StartRun(RunInfo{WorkflowPath: "w.sexp"}))
	must[[]*Call](t)(r.AddPendingSteps([]string{"a", "b"}))
	step := must[*Call](t)(r.Begin(nil, KindStep, "a", "", nil))
	record(t, r, step, KindTask, "done", "h1", StatusCompleted, result("x"), Usage{Turns: 1})
	task := must[*Call](t)(r.Begin(step, KindTask, "slow", "h2", nil))
	check(t, task.Running())
	s.owner = CurrentOwner()
	ids(s, "live")
	live := must[*Run](t)(s.StartRun(RunInfo{WorkflowPath: "w.sexp"}))
	s.owner = Owner{}
	ids(s, "unkn")
	unknown := must[*Run](t)(s.StartRun(RunInfo{WorkflowPath: "w.sexp"}))

	want := map[string]string{
		r.ID():       "failed the process running it (pid " + strconv.Itoa(dead.PID) + " on " + dead.Host + ") ended without finishing it",
		live.ID():    "running ",
		unknown.ID(): "running ",
	}
	runs := must[[]*RunRecord](t)(s.Runs(0))
	if len(runs) != 3 {
		t.Fatalf("%d runs", len(runs))
	}
	for _, rec := range runs {
		if got := rec.Status + " " + rec.Error; got != want[rec.ID] {
			t.Errorf("Runs: run %s: %q, want %q", rec.ID, got, want[rec.ID])
		}
		if rec.Ended != (rec.ID == r.ID()) {
			t.Errorf("run %s: Ended %v", rec.ID, rec.Ended)
		}
	}
	for _, ref := range []string{r.ID(), r.ID()[:len(r.ID())-2]} {
		if rec := must[*RunRecord](t)(s.Resolve(ref)); rec.Status+" "+rec.Error != want[r.ID()] || rec.Owner != dead {
			t.Errorf("Resolve(%s): %q, owner %+v", ref, rec.Status+" "+rec.Error, rec.Owner)
		}
	}
	var got []string
	Walk(must[[]*Node](t)(s.Tree(r.ID())), func(n *Node, _ int) bool {
		got = append(got, n.Kind+" "+n.Name+" "+n.Status+" "+n.Error)
		return true
	})
	wantTree := []string{
		"step a failed execution_halted: the process running the run ended",
		"task done completed ",
		"task slow failed execution_halted: the process running the run ended",
		"step b pending ",
	}
	if strings.Join(got, "\n") != strings.Join(wantTree, "\n") {
		t.Errorf("tree:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(wantTree, "\n"))
	}
	if n := CurrentPosition(must[[]*Node](t)(s.Tree(r.ID()))); n == nil || n.Name != "slow" {
		t.Errorf("current position %+v, want task slow", n)
	}
	var status string
	check(t, must[*sql.DB](t)(s.reader()).QueryRow("SELECT status FROM runs WHERE id = ?", r.ID()).Scan(&status))
	if status != StatusRunning {
		t.Errorf("the row's status became %q: reading must not write", status)
	}
}
