//go:build linux

package serve

import (
	"os/exec"
	"strconv"
	"strings"
	"testing"

	"github.com/evalrun/evalrun/journal"
)

// endRunningRun records the fixture's running run as run by a process of
// this host that is gone, and returns that process.
func endRunningRun(f *fixture) journal.Owner {
	f.t.Helper()
	cmd := exec.Command("true")
	f.must(cmd.Run())
	o := journal.CurrentOwner()
	o.PID = cmd.Process.Pid // same host, boot and namespace: gone, as /proc says
	_, err := f.db.Exec("UPDATE runs SET owner_pid = ?, owner_host = ?, owner_start = ? WHERE id = ?", o.PID, o.Host, o.Start, f.running)
	f.must(err)
	return o
}

// TestAPIRunOfGoneProcess: a run recorded as running whose process is gone
// is shown, listed and filtered as failed with the error naming the
// process, its unfinished calls as failed execution_halted, and its event
// stream ends; the journal is not written.
func TestAPIRunOfGoneProcess(t *testing.T) {
	f := newFixture(t)
	f.addLiveCall("plan/generate", "live")
	o := endRunningRun(f)
	ts := testServer(t, f)
	wantErr := o.EndedError()

	var runs []RunJSON
	get(t, ts, "/api/runs", 200, &runs)
	if len(runs) != 4 || runs[0].ID != f.running || runs[0].Status != "failed" || runs[0].Error != wantErr {
		t.Fatalf("/api/runs first run: %+v", runs[0])
	}
	for q, want := range map[string]string{
		"running": "",
		"failed":  f.running + " " + f.failed,
	} {
		var got []RunJSON
		hdr := get(t, ts, "/api/runs?status="+q, 200, &got)
		var ids []string
		for _, r := range got {
			ids = append(ids, r.ID)
		}
		if strings.Join(ids, " ") != want || hdr.Get("X-Total-Count") != strconv.Itoa(len(ids)) {
			t.Errorf("status=%s: %v (total %s), want %s", q, ids, hdr.Get("X-Total-Count"), want)
		}
	}

	var page RunPageJSON
	get(t, ts, "/api/runs/"+f.running, 200, &page)
	if page.Run.Status != "failed" || page.Run.Error != wantErr {
		t.Errorf("run: %s %q", page.Run.Status, page.Run.Error)
	}
	var nodes []string
	var walk func([]*NodeJSON)
	walk = func(ns []*NodeJSON) {
		for _, n := range ns {
			nodes = append(nodes, n.Name+" "+n.Status+" "+n.Error)
			walk(n.Children)
		}
	}
	walk(page.Nodes)
	want := []string{
		"plan failed " + journal.HaltedEndedError,
		"plan/generate failed " + journal.HaltedEndedError,
		"review pending ",
	}
	if strings.Join(nodes, "\n") != strings.Join(want, "\n") {
		t.Errorf("nodes:\n%s\nwant:\n%s", strings.Join(nodes, "\n"), strings.Join(want, "\n"))
	}
	if page.Current == nil || *page.Current != 3 {
		t.Errorf("current %v, want 3", page.Current)
	}

	var call CallJSON
	get(t, ts, "/api/runs/"+f.running+"/calls/3", 200, &call)
	if call.Status != "failed" || call.Error != journal.HaltedEndedError {
		t.Errorf("call 3: %s %q", call.Status, call.Error)
	}

	resp, err := ts.Client().Get(ts.URL + "/api/runs/" + f.running + "/events")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	events := readEvents(resp.Body)
	if ev := next(t, events, "calls"); strings.Contains(ev, `"status":"running"`) {
		t.Errorf("calls event shows a running call: %s", ev)
	}
	if ev := next(t, events, "end"); !strings.Contains(ev, `"status":"failed"`) {
		t.Errorf("end event: %s", ev)
	}

	var status string
	f.must(f.db.QueryRow("SELECT status FROM runs WHERE id = ?", f.running).Scan(&status))
	if status != "running" {
		t.Errorf("the viewer changed the run's row to %q", status)
	}
}
