package serve_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/evalrun/evalrun/engine"
	"github.com/evalrun/evalrun/journal"
	"github.com/evalrun/evalrun/plan"
	"github.com/evalrun/evalrun/serve"
)

// copyExamplePlan copies examples/plan into a temporary project.
func copyExamplePlan(t *testing.T) string {
	t.Helper()
	src, err := filepath.Abs("../examples/plan")
	if err != nil {
		t.Fatal(err)
	}
	dst := t.TempDir()
	if err := os.CopyFS(dst, os.DirFS(src)); err != nil {
		t.Fatal(err)
	}
	return dst
}

// TestPlanPageAfterEngineRun runs the example plan through the engine
// under the echo provider, then reads it through the viewer: every task
// carries the times, run, tokens and cost of the plan runner's state file,
// the states and current position are those of `plan status --json`, and
// a task's step outputs are those of the journal run.
func TestPlanPageAfterEngineRun(t *testing.T) {
	root := copyExamplePlan(t)
	home := t.TempDir()
	getenv := func(k string) string {
		switch k {
		case "HOME", "EVALRUN_HOME":
			return home
		}
		return os.Getenv(k)
	}
	e, err := engine.Open(engine.Options{WorkDir: root, Provider: "echo", Getenv: getenv, Journal: &engine.JournalInfo{WorkflowPath: "plan"}})
	if err != nil {
		t.Fatal(err)
	}
	dir, err := plan.FindSession(root)
	if err != nil {
		t.Fatal(err)
	}
	opts := e.Workspace().PlanOptions()
	p, diags, err := plan.Load(dir, opts)
	if err != nil || diags.HasErrors() {
		t.Fatalf("load: %v\n%s", err, diags)
	}
	// The first two tasks only: the plan is then part done, with a current
	// task and blocked ones.
	_, err = e.RunPlan(context.Background(), p, engine.PlanRun{Tasks: []string{"IMPL-001", "IMPL-002.1"}})
	e.Finish(nil, err)
	e.Close()
	if err != nil {
		t.Fatal(err)
	}

	store, err := journal.Open(filepath.Join(root, journal.DefaultPath))
	if err != nil {
		t.Fatal(err)
	}
	last, err := store.Resolve("last")
	store.Close()
	if err != nil {
		t.Fatal(err)
	}
	p, _, err = plan.Load(dir, opts)
	if err != nil {
		t.Fatal(err)
	}
	recs, err := p.ReadState()
	if err != nil {
		t.Fatal(err)
	}
	rec := recs["IMPL-1"]
	if rec == nil || rec.Run != last.ID || rec.StartedAt == "" || rec.FinishedAt == "" {
		t.Fatalf("state of IMPL-1: %+v (run %s)", rec, last.ID)
	}
	wantStatus, err := p.StatusJSON(recs)
	if err != nil {
		t.Fatal(err)
	}

	srv := serve.New(serve.Options{Root: root, Plan: opts})
	defer srv.Close()
	ts := httptest.NewServer(srv)
	defer ts.Close()

	var list []serve.PlanSummary
	getJSON(t, ts.URL+"/api/plans", &list)
	if len(list) != 1 || list[0].Dir != "WFS-jwt-auth" || list[0].Tasks != 8 || list[0].Current == nil || *list[0].Current != "IMPL-002.2" ||
		list[0].Counts["completed"] != 2 {
		t.Fatalf("plans = %+v", list[0])
	}

	var pg serve.Plan
	getJSON(t, ts.URL+"/api/plans/WFS-jwt-auth", &pg)
	// The states, times, runs, tokens and costs are those of
	// `plan status --json`, field for field.
	var want []plan.TaskStatus
	if err := json.Unmarshal(wantStatus, &want); err != nil {
		t.Fatal(err)
	}
	if len(pg.Tasks) != len(want) {
		t.Fatalf("%d tasks, plan status has %d", len(pg.Tasks), len(want))
	}
	for i, task := range pg.Tasks {
		// "current" is the viewer's field (always written), which the
		// decoder fills in place of the embedded one.
		task.TaskStatus.Current = task.Current
		got, _ := json.Marshal(task.TaskStatus)
		exp, _ := json.Marshal(want[i])
		if string(got) != string(exp) {
			t.Errorf("task %d:\n got %s\nwant %s", i, got, exp)
		}
	}
	byID := map[string]*serve.PlanTask{}
	for _, task := range pg.Tasks {
		byID[task.ID] = task
	}
	t1 := byID["IMPL-001"]
	if t1.Run == nil || *t1.Run != last.ID || t1.StartedAt == nil || *t1.StartedAt != rec.StartedAt ||
		t1.FinishedAt == nil || *t1.FinishedAt != rec.FinishedAt || t1.Tokens != rec.Tokens || t1.Status != "completed" {
		t.Errorf("IMPL-001 = %+v, record %+v", t1.TaskStatus, rec)
	}
	if t1.Tokens == 0 {
		t.Errorf("IMPL-001 has no tokens: %+v", rec)
	}
	if byID["IMPL-003"].Run != nil || byID["IMPL-003"].StartedAt != nil || byID["IMPL-003"].Call != nil || len(byID["IMPL-003"].Outputs) != 0 {
		t.Errorf("IMPL-003 never ran: %+v", byID["IMPL-003"])
	}
	if !byID["IMPL-002.2"].Current || pg.Current == nil || *pg.Current != "IMPL-002.2" {
		t.Errorf("current = %v", pg.Current)
	}

	// The step outputs of IMPL-001: its pre_analysis step (the two files,
	// as cat printed them) and the call of its role template.
	login, _ := os.ReadFile(filepath.Join(root, "src/auth/login.ts"))
	mw, _ := os.ReadFile(filepath.Join(root, "src/middleware/auth.ts"))
	if t1.Call == nil {
		t.Fatal("IMPL-001 has no node in its run")
	}
	var names []string
	for _, o := range t1.Outputs {
		names = append(names, o.Kind+" "+o.Name+" "+o.Status)
	}
	if got := strings.Join(names, ", "); got != "step load_current_login completed, task plan/action-planning-agent completed" {
		t.Fatalf("IMPL-001 outputs: %s", got)
	}
	step := t1.Outputs[0]
	wantOut := strings.TrimSuffix(string(login), "\n") + "\n\n" + strings.TrimSuffix(string(mw), "\n")
	if step.Output == nil || *step.Output != wantOut || step.Seq <= *t1.Call || step.StartedAt == nil || step.FinishedAt == nil {
		t.Errorf("step output = %+v\nwant %q", step, wantOut)
	}
	call := t1.Outputs[1]
	if call.Output == nil || !strings.Contains(*call.Output, "Design the token model") || call.Tokens != t1.Tokens {
		t.Errorf("call output = %+v (task tokens %d)", call, t1.Tokens)
	}
	// IMPL-002.1's implementation step 2 is a command: its output is
	// the output member of the command's record, the file it listed.
	var cmd *serve.StepOutput
	for _, o := range byID["IMPL-002.1"].Outputs {
		if o.Name == "step 2" {
			cmd = o
		}
	}
	if cmd == nil || cmd.Kind != "step" || cmd.Status != "completed" || cmd.Output == nil || *cmd.Output != "login.ts" {
		t.Errorf("IMPL-002.1 step 2 = %+v", cmd)
	}
	// The run page has the node the task links to.
	var run struct {
		Nodes []struct {
			Seq  int    `json:"seq"`
			Name string `json:"name"`
		} `json:"nodes"`
	}
	getJSON(t, ts.URL+"/api/runs/"+last.ID, &run)
	found := false
	for _, n := range run.Nodes {
		found = found || n.Seq == *t1.Call && n.Name == "IMPL-001"
	}
	if !found {
		t.Errorf("run %s has no node %d named IMPL-001: %+v", last.ID, *t1.Call, run.Nodes)
	}
}

func getJSON(t *testing.T, url string, v any) {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Fatalf("GET %s: %s", url, resp.Status)
	}
	if err := json.NewDecoder(resp.Body).Decode(v); err != nil {
		t.Fatalf("GET %s: %v", url, err)
	}
}
