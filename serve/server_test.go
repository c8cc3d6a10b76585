package serve

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/evalrun/evalrun/journal"
	"github.com/evalrun/evalrun/value"
)

func testServer(t *testing.T, f *fixture) *httptest.Server {
	t.Helper()
	s := New(Options{Root: f.root, Templates: fixtureTemplates, Poll: 20 * time.Millisecond})
	ts := httptest.NewServer(s)
	t.Cleanup(func() { ts.Close(); s.Close() })
	return ts
}

// get fetches path and decodes the JSON answer into out, checking the
// status code.
func get(t *testing.T, ts *httptest.Server, path string, code int, out any) http.Header {
	t.Helper()
	resp, err := http.Get(ts.URL + path)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != code {
		t.Fatalf("GET %s: status %d, want %d: %s", path, resp.StatusCode, code, body)
	}
	if out != nil {
		if err := json.Unmarshal(body, out); err != nil {
			t.Fatalf("GET %s: %v: %s", path, err, body)
		}
	}
	return resp.Header
}

func TestAPIRunsListsEveryRunNewestFirst(t *testing.T) {
	f := newFixture(t)
	ts := testServer(t, f)
	var runs []RunJSON
	hdr := get(t, ts, "/api/runs", 200, &runs)
	var ids []string
	for _, r := range runs {
		ids = append(ids, r.ID+" "+r.Status)
	}
	want := []string{f.running + " running", f.resumed + " completed", f.failed + " failed", f.completed + " completed"}
	if !reflect.DeepEqual(ids, want) {
		t.Fatalf("runs = %v, want %v", ids, want)
	}
	if hdr.Get("X-Total-Count") != "4" {
		t.Errorf("X-Total-Count = %q", hdr.Get("X-Total-Count"))
	}
	failed := runs[2]
	if failed.Calls != 9 || failed.Tokens != 14643 || failed.CostUnknownCalls != 3 || failed.DurationSeconds != 41.2 ||
		failed.Workflow != "release.sexp" || failed.Error != "release.sexp:10:4: unbound symbol: run-tests" || failed.FinishedAt == nil {
		t.Errorf("failed run = %+v", failed)
	}
	if failed.CostUSD < 0.02149 || failed.CostUSD > 0.02151 {
		t.Errorf("failed run cost = %v, want 0.0215", failed.CostUSD)
	}
	if string(failed.Args) != `{"version":"1.4"}` || string(failed.Final) != "null" {
		t.Errorf("args %s, final %s", failed.Args, failed.Final)
	}
	if runs[1].ResumedFrom != f.failed {
		t.Errorf("resumed_from = %q", runs[1].ResumedFrom)
	}
	// The resumed run paid for its one new call; what it replayed is apart.
	if c := runs[1].CostUSD; fmt.Sprintf("%.4f + %.4f", c, runs[1].ReplayedCostUSD) != "0.0182 + 0.0024" {
		t.Errorf("resumed run cost = %v + %v replayed, want 0.0182 + 0.0024", c, runs[1].ReplayedCostUSD)
	}
	if failed.ReplayedCostUSD != 0 {
		t.Errorf("failed run replayed cost = %v, want 0", failed.ReplayedCostUSD)
	}
	if runs[0].FinishedAt != nil || runs[0].CostUSD != 0 {
		t.Errorf("running run = %+v", runs[0])
	}

	// The keys are those of `evalrun runs --json`, plus the viewer's.
	var raw []map[string]any
	get(t, ts, "/api/runs", 200, &raw)
	keys := sortedKeys(raw[0])
	wantKeys := "args calls cost_unknown_calls cost_usd duration_seconds error final finished_at id replayed_cost_usd resumed_from started_at status tokens workflow workflow_sha256"
	if strings.Join(keys, " ") != wantKeys {
		t.Errorf("run keys = %v", keys)
	}

	// Filters and pages.
	for _, c := range []struct {
		query string
		want  []string
		total string
	}{
		{"?status=failed", []string{f.failed}, "1"},
		{"?status=completed", []string{f.resumed, f.completed}, "2"},
		{"?q=" + f.completed[9:], []string{f.completed}, "1"},
		{"?q=RUN-TESTS", []string{f.failed}, "1"},
		{"?q=release&limit=2&offset=1", []string{f.resumed, f.failed}, "4"},
		{"?q=nothing-matches", []string{}, "0"},
	} {
		var got []RunJSON
		hdr := get(t, ts, "/api/runs"+c.query, 200, &got)
		ids := []string{}
		for _, r := range got {
			ids = append(ids, r.ID)
		}
		if !reflect.DeepEqual(ids, c.want) || hdr.Get("X-Total-Count") != c.total {
			t.Errorf("%s: %v (total %s), want %v (total %s)", c.query, ids, hdr.Get("X-Total-Count"), c.want, c.total)
		}
	}
	var e map[string]string
	get(t, ts, "/api/runs?limit=-1", 400, &e)
	if e["error"] != `limit: not a non-negative integer: "-1"` {
		t.Errorf("bad limit error = %q", e["error"])
	}
}

func sortedKeys(m map[string]any) []string {
	var keys []string
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

func TestAPIRunHasTheShapeOfStatusJSON(t *testing.T) {
	f := newFixture(t)
	ts := testServer(t, f)
	var page struct {
		Run     map[string]any   `json:"run"`
		Nodes   []map[string]any `json:"nodes"`
		Current *int             `json:"current"`
	}
	get(t, ts, "/api/runs/"+f.failed, 200, &page)
	if page.Current == nil || *page.Current != 10 {
		t.Fatalf("current = %v, want 10", page.Current)
	}
	var top []string
	for _, n := range page.Nodes {
		top = append(top, n["name"].(string))
	}
	if strings.Join(top, ",") != "plan,review,implement,verify" {
		t.Errorf("top-level nodes = %v", top)
	}
	// Every key of `status --json` nodes is there, with the viewer's additions.
	keys := strings.Join(sortedKeys(page.Nodes[0]), " ")
	want := "attempts children cost_usd end_ms error executor finished_at input_hash input_tokens inputs kind label name output_tokens parent queued_ms replayed result seq start_ms started_at status summary template_source turns"
	if keys != want {
		t.Errorf("node keys = %s", keys)
	}
	review := page.Nodes[1]
	kids := review["children"].([]any)
	if len(kids) != 3 {
		t.Fatalf("review children = %d", len(kids))
	}
	first := kids[0].(map[string]any)
	if first["executor"] != "openai:gpt-4.1" || first["template_source"] != "local .evalrun/templates/review-file.xml:1" ||
		first["inputs"].(map[string]any)["path"] != "api.go" || len(first["children"].([]any)) != 1 {
		t.Errorf("first review = %v", first)
	}
	if res := first["result"].(map[string]any); res["content"] != "1. Serve ignores the context.\n2. No timeout on the listener." {
		t.Errorf("first review result = %v", res)
	}
	// The calls of one template side by side are told apart by their labels.
	var labels []string
	for _, k := range kids {
		labels = append(labels, k.(map[string]any)["label"].(string))
	}
	if strings.Join(labels, ",") != "api.go,store.go,cli.go" || review["label"] != "" {
		t.Errorf("review labels = %q, step label %q", labels, review["label"])
	}
	agent := kids[1].(map[string]any)
	if agent["executor"] != "agent:claude" || agent["cost_usd"] != 0.0191 || agent["turns"] != 3.0 {
		t.Errorf("agent call = %v", agent)
	}
	// Parallel calls overlap in time.
	if !(first["start_ms"].(float64) < agent["end_ms"].(float64) && agent["start_ms"].(float64) < first["end_ms"].(float64)) {
		t.Errorf("parallel reviews do not overlap: %v–%v and %v–%v", first["start_ms"], first["end_ms"], agent["start_ms"], agent["end_ms"])
	}
	// The third review waited for a slot from 4.02 s to 11.85 s.
	third := kids[2].(map[string]any)
	if third["queued_ms"] != 4020.0 || third["start_ms"] != 11850.0 || first["queued_ms"] != first["start_ms"] {
		t.Errorf("waiting: third %v→%v, first %v→%v", third["queued_ms"], third["start_ms"], first["queued_ms"], first["start_ms"])
	}
	code := page.Nodes[2]["children"].([]any)[0].(map[string]any)
	if code["summary"] != "RESOURCE_EXHAUSTION turns (10/10)" || code["status"] != "failed" {
		t.Errorf("failed task = %v", code)
	}
	if page.Nodes[2]["summary"] != "code/implement failed: turn limit reached (10/10)" {
		t.Errorf("failed step summary = %v", page.Nodes[2]["summary"])
	}
	disp := page.Run["error_display"].(map[string]any)
	if disp["text"] != "release.sexp:10:4: unbound symbol: run-tests\n  (run-tests))\n   ^\n" {
		t.Errorf("run error display = %q", disp["text"])
	}

	// The flat view: depth-first, no inputs, results or children.
	var flat RunPageJSON
	get(t, ts, "/api/runs/"+f.failed+"?view=flat", 200, &flat)
	var order []int
	for _, n := range flat.Nodes {
		order = append(order, n.Seq)
		if string(n.Inputs) != "null" || string(n.Result) != "null" || len(n.Children) != 0 {
			t.Errorf("flat node %d carries %s %s %d", n.Seq, n.Inputs, n.Result, len(n.Children))
		}
	}
	if !reflect.DeepEqual(order, []int{1, 5, 2, 6, 9, 7, 8, 3, 10, 4}) {
		t.Errorf("flat order = %v", order)
	}

	// The resumed run marks its replayed call.
	get(t, ts, "/api/runs/"+f.resumed+"?view=flat", 200, &flat)
	var replayed []string
	for _, n := range flat.Nodes {
		if n.Replayed {
			replayed = append(replayed, n.Name)
		}
	}
	if flat.Run.ResumedFrom != f.failed || strings.Join(replayed, ",") != "plan/generate" {
		t.Errorf("resumed run: from %q, replayed %v", flat.Run.ResumedFrom, replayed)
	}

	// A run is named as evalrun status names it: a unique prefix or last.
	var byRef RunPageJSON
	get(t, ts, "/api/runs/last?view=flat", 200, &byRef)
	if byRef.Run.ID != f.running {
		t.Errorf("last = %s, want %s", byRef.Run.ID, f.running)
	}
	get(t, ts, "/api/runs/"+f.failed[:18]+"?view=flat", 200, &byRef)
	if byRef.Run.ID != f.failed {
		t.Errorf("prefix %s = %s", f.failed[:18], byRef.Run.ID)
	}
	var e map[string]string
	get(t, ts, "/api/runs/"+f.failed[:4], 400, &e)
	if !strings.HasPrefix(e["error"], `run "`+f.failed[:4]+`" is ambiguous: `) {
		t.Errorf("ambiguous prefix: %q", e["error"])
	}
	get(t, ts, "/api/runs/20990101-000000-0000", 404, &e)
	if e["error"] != "run 20990101-000000-0000: not found" {
		t.Errorf("unknown run error = %q", e["error"])
	}
}

func TestAPICallHasPromptsAnswerAndParsedContent(t *testing.T) {
	f := newFixture(t)
	ts := testServer(t, f)
	var c map[string]any
	get(t, ts, "/api/runs/"+f.failed+"/calls/5", 200, &c)
	if c["system_prompt"] != planSystem || c["user_prompt"] != planUser || c["answer"] != planAnswer {
		t.Errorf("prompts and answer = %q / %q / %q", c["system_prompt"], c["user_prompt"], c["answer"])
	}
	parsed := c["parsed_content"].(map[string]any)
	if parsed["risk"] != "low" || len(parsed["steps"].([]any)) != 4 {
		t.Errorf("parsed_content = %v", parsed)
	}
	if n := c["notes"].(map[string]any); n["model"] != "gpt-4.1" || n["cost_usd"] != 0.0024 {
		t.Errorf("notes = %v", n)
	}
	if c["run_id"] != f.failed || c["seq"] != 5.0 || c["kind"] != "task" {
		t.Errorf("call = %v", c)
	}
	// A step has no prompt; its value is its result.
	get(t, ts, "/api/runs/"+f.failed+"/calls/3", 200, &c)
	if c["system_prompt"] != nil || c["answer"] != nil || c["error"] != "code/implement failed: turn limit reached (10/10)" {
		t.Errorf("step = %v", c)
	}
	// A tool call made by the model: its parameters and its answer.
	get(t, ts, "/api/runs/"+f.failed+"/calls/9", 200, &c)
	if c["answer"] != "package api\n\nfunc Serve() {}\n" || c["inputs"].(map[string]any)["path"] != "api.go" || c["parent"] != 6.0 {
		t.Errorf("tool = %v", c)
	}
	var e map[string]string
	get(t, ts, "/api/runs/"+f.failed+"/calls/99", 404, &e)
	if e["error"] != "call "+f.failed+"/99: not found" {
		t.Errorf("unknown call = %q", e["error"])
	}
	get(t, ts, "/api/runs/"+f.failed+"/calls/x", 400, &e)
	if e["error"] != "call: not a seq number: x" {
		t.Errorf("bad seq = %q", e["error"])
	}
}

func TestAPIPlans(t *testing.T) {
	f := newFixture(t)
	writePlan(t, f.root)
	ts := testServer(t, f)
	var list []PlanSummary
	get(t, ts, "/api/plans", 200, &list)
	if len(list) != 1 || list[0].Dir != "WFS-auth" || list[0].Tasks != 6 || *list[0].Current != "IMPL-2.2" {
		t.Fatalf("plans = %+v", list)
	}
	var p Plan
	get(t, ts, "/api/plans/WFS-auth", 200, &p)
	var got []string
	for _, task := range p.Tasks {
		s := task.ID + "=" + task.Status
		if len(task.BlockedBy) > 0 {
			s += "(" + strings.Join(task.BlockedBy, ",") + ")"
		}
		got = append(got, s)
	}
	want := "IMPL-1=completed IMPL-2=active IMPL-2.1=completed IMPL-2.2=pending IMPL-3=blocked(IMPL-2) IMPL-4=pending"
	if strings.Join(got, " ") != want {
		t.Errorf("states = %s\nwant     %s", strings.Join(got, " "), want)
	}
	byID := map[string]*PlanTask{}
	for _, task := range p.Tasks {
		byID[task.ID] = task
	}
	if d := byID["IMPL-4"].DependsOn; len(d) != 1 || d[0] != "IMPL-1" {
		t.Errorf("IMPL-4 depends_on = %v (IMPL-001 names IMPL-1)", d)
	}
	if d := byID["IMPL-3"].DependsOn; len(d) != 1 || d[0] != "IMPL-2" {
		t.Errorf("IMPL-3 depends_on (top level) = %v", d)
	}
	if byID["IMPL-1"].Summary == nil || !strings.Contains(*byID["IMPL-1"].Summary, "short-lived JWTs") || byID["IMPL-3"].Summary != nil {
		t.Errorf("summaries: %v %v", byID["IMPL-1"].Summary, byID["IMPL-3"].Summary)
	}
	if *byID["IMPL-2.1"].Parent != "IMPL-2" || strings.Join(byID["IMPL-2"].Children, ",") != "IMPL-2.1,IMPL-2.2" {
		t.Errorf("hierarchy: %v %v", byID["IMPL-2.1"].Parent, byID["IMPL-2"].Children)
	}
	if byID["IMPL-1"].Agent != "@action-planning-agent" || len(byID["IMPL-1"].Steps) != 2 || byID["IMPL-1"].Steps[0].Command != "bash(ls src/auth)" {
		t.Errorf("IMPL-1 = %+v", byID["IMPL-1"])
	}

	resp, err := http.Get(ts.URL + "/api/plans/WFS-auth/graph.svg")
	if err != nil {
		t.Fatal(err)
	}
	svg, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if ct := resp.Header.Get("Content-Type"); ct != "image/svg+xml" {
		t.Errorf("graph content type %q", ct)
	}
	s := string(svg)
	if n := strings.Count(s, `<g class="node`); n != 6 {
		t.Errorf("graph has %d nodes", n)
	}
	// Dependencies: 2.2→2.1, 2→1, 3→2, 4→1; containers: 2→2.1, 2→2.2.
	if d, p := strings.Count(s, `class="edge dep"`), strings.Count(s, `class="edge parent"`); d != 4 || p != 2 {
		t.Errorf("graph edges: %d dependencies, %d parent links", d, p)
	}
	if !strings.Contains(s, `<g class="node st-pending current" data-id="IMPL-2.2"`) || !strings.Contains(s, `<title>IMPL-3 Documentation (blocked: IMPL-2)</title>`) {
		t.Errorf("graph:\n%s", s)
	}

	var e map[string]string
	get(t, ts, "/api/plans/WFS-none", 404, &e)
	get(t, ts, "/api/plans/..%2F..%2Fetc", 404, &e)
	get(t, ts, "/api/plans/WFS-..", 404, &e)
}

// TestAPIPlanRunRecords reads a plan that has run: the times, run, tokens
// and cost of each task come from .process/evalrun-state.json, and its
// step outputs from the journal run recorded there.
func TestAPIPlanRunRecords(t *testing.T) {
	f := newFixture(t)
	writePlan(t, f.root)
	run := writePlanRun(f)
	ts := testServer(t, f)
	var list []PlanSummary
	get(t, ts, "/api/plans", 200, &list)
	if len(list) != 1 || list[0].Tasks != 6 || *list[0].Current != "IMPL-2.2" || list[0].Counts["completed"] != 2 {
		t.Fatalf("plans = %+v", list)
	}
	var p Plan
	get(t, ts, "/api/plans/WFS-auth", 200, &p)
	byID := map[string]*PlanTask{}
	for _, task := range p.Tasks {
		byID[task.ID] = task
	}
	start := f.base.Add(-2 * time.Hour).UTC()
	t1 := byID["IMPL-1"]
	if t1.Run == nil || *t1.Run != run || t1.StartedAt == nil || *t1.StartedAt != start.Format(time.RFC3339) ||
		t1.FinishedAt == nil || *t1.FinishedAt != start.Add(3*time.Second).Format(time.RFC3339) || t1.Tokens != 1050 || t1.CostUSD != 0.0031 {
		t.Errorf("IMPL-1 = %+v", t1.TaskStatus)
	}
	if t1.Call == nil || *t1.Call != 1 {
		t.Errorf("IMPL-1 call = %v, want seq 1", t1.Call)
	}
	var outs []string
	for _, o := range t1.Outputs {
		out := "<nil>"
		if o.Output != nil {
			out = *o.Output
		}
		outs = append(outs, fmt.Sprintf("%d %s %s %s %d %q", o.Seq, o.Kind, o.Name, o.Status, o.Tokens, out))
	}
	want := []string{
		fmt.Sprintf("2 step gather completed 0 %q", planRunGather),
		fmt.Sprintf("3 task plan/action-planning-agent completed 1050 %q", planRunDesign),
	}
	if strings.Join(outs, "\n") != strings.Join(want, "\n") {
		t.Errorf("IMPL-1 outputs:\n%s\nwant\n%s", strings.Join(outs, "\n"), strings.Join(want, "\n"))
	}
	if g := t1.Outputs[0]; g.StartedAt == nil || *g.StartedAt != start.Add(10*time.Millisecond).Format(time.RFC3339Nano) ||
		g.FinishedAt == nil || *g.FinishedAt != start.Add(40*time.Millisecond).Format(time.RFC3339Nano) {
		t.Errorf("gather times %v %v", g.StartedAt, g.FinishedAt)
	}
	t21 := byID["IMPL-2.1"]
	if t21.Run == nil || *t21.Run != run || t21.Tokens != 1500 || t21.CostUSD != 0 || t21.Call == nil || *t21.Call != 4 ||
		len(t21.Outputs) != 2 || t21.Outputs[1].Output == nil || *t21.Outputs[1].Output != planRunToken {
		t.Errorf("IMPL-2.1 = %+v outputs %+v", t21.TaskStatus, t21.Outputs)
	} else if lint := t21.Outputs[0]; lint.Name != "lint" || lint.Status != "failed" || lint.Error != planRunLintError || lint.Output != nil {
		t.Errorf("IMPL-2.1 lint = %+v", lint)
	}
	for _, id := range []string{"IMPL-2", "IMPL-2.2", "IMPL-3", "IMPL-4"} {
		if x := byID[id]; x.Run != nil || x.StartedAt != nil || x.Call != nil || len(x.Outputs) != 0 {
			t.Errorf("%s has not run: %+v %+v", id, x.TaskStatus, x.Outputs)
		}
	}
	// The list does not read the journal; the plan's JSON has the
	// outputs under "outputs" and the fields of plan status --json.
	resp, err := http.Get(ts.URL + "/api/plans/WFS-auth")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	for _, s := range []string{`"run":"` + run + `"`, `"tokens":1050`, `"cost_usd":0.0031`, `"outputs":[{"seq":2,"kind":"step","name":"gather","status":"completed","output":"src/auth/login.ts\nsrc/auth/token.ts"`} {
		if !strings.Contains(string(body), s) {
			t.Errorf("plan JSON lacks %s", s)
		}
	}
}

// TestAPIPlanStateUnreadable: a state file that is not JSON leaves the
// tasks without run records and is named among the problems, with the
// position of the fault.
func TestAPIPlanStateUnreadable(t *testing.T) {
	f := newFixture(t)
	writePlan(t, f.root)
	path := filepath.Join(f.root, ".workflow", "active", "WFS-auth", ".process", "evalrun-state.json")
	f.must(os.MkdirAll(filepath.Dir(path), 0o755))
	f.must(os.WriteFile(path, []byte("{not json"), 0o644))
	ts := testServer(t, f)
	var p Plan
	get(t, ts, "/api/plans/WFS-auth", 200, &p)
	if len(p.Problems) != 1 || !strings.HasPrefix(p.Problems[0], path+":1:2: invalid JSON: ") || p.Tasks[0].Run != nil || *p.Current != "IMPL-2.2" {
		t.Errorf("problems %q, IMPL-1 run %v", p.Problems, p.Tasks[0].Run)
	}
}

// TestAPIPlanProblems: what plan check reports is listed with positions
// relative to the project, and a task file that is not JSON is shown
// without its JSON rather than failing the page.
func TestAPIPlanProblems(t *testing.T) {
	f := newFixture(t)
	writePlan(t, f.root)
	bad := filepath.Join(f.root, ".workflow", "active", "WFS-auth", ".task", "IMPL-5.json")
	f.must(os.WriteFile(bad, []byte("{\"id\": \"IMPL-5\",\n  \"title\": }"), 0o644))
	ts := testServer(t, f)
	var p Plan
	get(t, ts, "/api/plans/WFS-auth", 200, &p)
	if len(p.Problems) != 1 || p.Problems[0] != ".workflow/active/WFS-auth/.task/IMPL-5.json:2:12: error: invalid JSON: unexpected character '}', expected a value" {
		t.Errorf("problems = %q", p.Problems)
	}
	last := p.Tasks[len(p.Tasks)-1]
	if last.ID != "IMPL-5" || string(last.JSON) != "null" || len(p.Tasks) != 7 {
		t.Errorf("last task = %+v", last)
	}
}

func TestAPITemplates(t *testing.T) {
	f := newFixture(t)
	ts := testServer(t, f)
	var list []Template
	get(t, ts, "/api/templates", 200, &list)
	if len(list) != 4 || list[1].ShadowedBy == nil || *list[1].ShadowedBy != "local" || list[2].ShadowedBy != nil || list[1].Source != "global ~/.config/evalrun/templates/review.xml:1" {
		t.Errorf("templates = %+v", list)
	}
	s := New(Options{Root: f.root})
	defer s.Close()
	rec := httptest.NewRecorder()
	s.ServeHTTP(rec, httptest.NewRequest("GET", "http://127.0.0.1/api/templates", nil))
	if strings.TrimSpace(rec.Body.String()) != "[]" {
		t.Errorf("no registry: %s", rec.Body)
	}
}

func TestPageAndAssetsAreEmbeddedAndOffline(t *testing.T) {
	f := newFixture(t)
	ts := testServer(t, f)
	for _, path := range []string{"/", "/runs/" + f.failed, "/plans", "/plans/WFS-auth", "/templates"} {
		resp, err := http.Get(ts.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 200 || !strings.Contains(string(body), `<script src="/assets/app.js"></script>`) {
			t.Errorf("GET %s: %d %.80s", path, resp.StatusCode, body)
		}
	}
	for name, ctype := range map[string]string{"app.js": "text/javascript; charset=utf-8", "app.css": "text/css; charset=utf-8", "theme.js": "text/javascript; charset=utf-8"} {
		resp, err := http.Get(ts.URL + "/assets/" + name)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != ctype {
			t.Errorf("asset %s: %d %q", name, resp.StatusCode, resp.Header.Get("Content-Type"))
		}
	}
	var e map[string]string
	get(t, ts, "/assets/missing.js", 404, &e)
	get(t, ts, "/api/nothing", 404, &e)
	// No asset refers to anything but the server itself.
	for _, name := range []string{"index.html", "app.js", "app.css", "theme.js"} {
		b, err := embedded.ReadFile("assets/" + name)
		if err != nil {
			t.Fatal(err)
		}
		for _, bad := range []string{"http://", "https://", "//cdn", "@import"} {
			if strings.Contains(string(b), bad) {
				t.Errorf("asset %s refers to %q", name, bad)
			}
		}
	}
}

func TestHostHeaderAndMethodRules(t *testing.T) {
	for _, c := range []struct {
		addr, host string
		ok         bool
	}{
		{"127.0.0.1:7700", "127.0.0.1:7700", true},
		{"127.0.0.1:7700", "localhost:7700", true},
		{"127.0.0.1:7700", "LOCALHOST:7700", true},
		{"127.0.0.1:7700", "localhost", true},
		{"127.0.0.1:7700", "127.0.0.1:7701", false},
		{"127.0.0.1:7700", "evil.example:7700", false},
		{"127.0.0.1:7700", "evil.example", false},
		{"127.0.0.1:7700", "127.0.0.2:7700", false},
		{"127.0.0.1:7700", "", false},
		{"[::1]:7700", "[::1]:7700", true},
		{"[::1]:7700", "localhost:7700", true},
		{"0.0.0.0:7700", "192.168.1.20:7700", true},
		{"0.0.0.0:7700", "rebind.evil.example:7700", false},
		{"192.168.1.20:7700", "192.168.1.20:7700", true},
		{"192.168.1.20:7700", "my-laptop.local:7700", false},
	} {
		if got := HostAllowed(c.addr, c.host); got != c.ok {
			t.Errorf("HostAllowed(%q, %q) = %v, want %v", c.addr, c.host, got, c.ok)
		}
	}

	f := newFixture(t)
	s := New(Options{Root: f.root})
	defer s.Close()
	s.AllowHosts("127.0.0.1:7700")
	for _, c := range []struct {
		method, host string
		code         int
	}{
		{"GET", "127.0.0.1:7700", 200},
		{"HEAD", "localhost:7700", 200},
		{"GET", "evil.example:7700", 403},
		{"POST", "127.0.0.1:7700", 405},
		{"DELETE", "127.0.0.1:7700", 405},
		{"OPTIONS", "127.0.0.1:7700", 405},
	} {
		req := httptest.NewRequest(c.method, "/api/runs", nil)
		req.Host = c.host
		req.Header.Set("Origin", "http://evil.example")
		rec := httptest.NewRecorder()
		s.ServeHTTP(rec, req)
		if rec.Code != c.code {
			t.Errorf("%s Host %s: %d, want %d: %s", c.method, c.host, rec.Code, c.code, rec.Body)
		}
		for k := range rec.Header() {
			if strings.HasPrefix(k, "Access-Control-") {
				t.Errorf("%s Host %s: CORS header %s", c.method, c.host, k)
			}
		}
		if c.code == 403 && !strings.Contains(rec.Body.String(), `host \"evil.example:7700\" is not allowed`) {
			t.Errorf("403 body = %s", rec.Body)
		}
	}
}

func TestViewerWritesNothingAndOpensReadOnly(t *testing.T) {
	f := newFixture(t)
	writePlan(t, f.root)
	journalPath := filepath.Join(f.root, journal.DefaultPath)
	f.store.Close()
	f.db.Close()
	before := snapshot(t, f.root)
	s := New(Options{Root: f.root, Templates: fixtureTemplates})
	ts := httptest.NewServer(s)
	for _, p := range []string{"/api/runs", "/api/runs/" + f.failed, "/api/runs/" + f.failed + "/calls/5", "/api/plans", "/api/plans/WFS-auth",
		"/api/plans/WFS-auth/graph.svg", "/api/templates", "/"} {
		resp, err := http.Get(ts.URL + p)
		if err != nil {
			t.Fatal(err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
	}
	db, err := s.db.open()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec("UPDATE runs SET status = 'x'"); err == nil {
		t.Error("the viewer's connection could write")
	}
	ts.Close()
	s.Close()
	after := snapshot(t, f.root)
	for name, sum := range before {
		if filepath.Ext(name) == ".db-shm" || strings.HasSuffix(name, "-shm") || strings.HasSuffix(name, "-wal") {
			continue // SQLite's shared-memory index and log, not the data
		}
		if after[name] != sum {
			t.Errorf("%s changed", name)
		}
	}
	if _, err := os.Stat(journalPath); err != nil {
		t.Fatal(err)
	}
}

// snapshot maps every file under root to its content.
func snapshot(t *testing.T, root string) map[string]string {
	t.Helper()
	out := map[string]string{}
	filepath.Walk(root, func(p string, info os.FileInfo, err error) error {
		if err == nil && !info.IsDir() {
			b, _ := os.ReadFile(p)
			out[p] = string(b)
		}
		return nil
	})
	return out
}

func TestNoJournalYetShowsNoRuns(t *testing.T) {
	root := t.TempDir()
	s := New(Options{Root: root})
	ts := httptest.NewServer(s)
	defer func() { ts.Close(); s.Close() }()
	var runs []RunJSON
	get(t, ts, "/api/runs", 200, &runs)
	if len(runs) != 0 {
		t.Errorf("runs = %v", runs)
	}
	if _, err := os.Stat(filepath.Join(root, ".evalrun")); !os.IsNotExist(err) {
		t.Errorf("the viewer created .evalrun: %v", err)
	}
	// The journal appears once a run starts.
	js, err := journal.Open(filepath.Join(root, journal.DefaultPath))
	if err != nil {
		t.Fatal(err)
	}
	defer js.Close()
	if _, err := js.StartRun(journal.RunInfo{WorkflowPath: "w.sexp"}); err != nil {
		t.Fatal(err)
	}
	get(t, ts, "/api/runs", 200, &runs)
	if len(runs) != 1 || runs[0].Workflow != "w.sexp" {
		t.Errorf("runs after the first run = %v", runs)
	}
}

// sseEvent is one server-sent event.
type sseEvent struct{ name, data string }

// readEvents reads events from r into a channel.
func readEvents(r io.Reader) <-chan sseEvent {
	ch := make(chan sseEvent, 64)
	go func() {
		defer close(ch)
		sc := bufio.NewScanner(r)
		sc.Buffer(make([]byte, 1<<20), 16<<20)
		var ev sseEvent
		for sc.Scan() {
			line := sc.Text()
			switch {
			case strings.HasPrefix(line, "event: "):
				ev.name = line[7:]
			case strings.HasPrefix(line, "data: "):
				ev.data = line[6:]
			case line == "" && ev.name != "":
				ch <- ev
				ev = sseEvent{}
			}
		}
	}()
	return ch
}

func next(t *testing.T, ch <-chan sseEvent, name string) string {
	t.Helper()
	select {
	case ev, ok := <-ch:
		if !ok {
			t.Fatalf("stream ended, waiting for %s", name)
		}
		if ev.name != name {
			t.Fatalf("event %s (%s), want %s", ev.name, ev.data, name)
		}
		return ev.data
	case <-time.After(5 * time.Second):
		t.Fatalf("no %s event after 5s", name)
	}
	return ""
}

func TestSSEStreamsTheCallsOfARunningRun(t *testing.T) {
	f := newFixture(t)
	ts := testServer(t, f)
	resp, err := http.Get(ts.URL + "/api/runs/" + f.running + "/events")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.Header.Get("Content-Type") != "text/event-stream" {
		t.Fatalf("content type %q", resp.Header.Get("Content-Type"))
	}
	events := readEvents(resp.Body)
	decode := func(s string) CallsEvent {
		var ev CallsEvent
		if err := json.Unmarshal([]byte(s), &ev); err != nil {
			t.Fatal(err)
		}
		return ev
	}
	summary := func(ev CallsEvent) string {
		var parts []string
		for _, n := range ev.Nodes {
			parts = append(parts, n.Name+"="+n.Status)
		}
		cur := "none"
		if ev.Current != nil {
			cur = string(rune('0' + *ev.Current))
		}
		return strings.Join(parts, " ") + " current " + cur
	}
	// The first event holds every node.
	if got := summary(decode(next(t, events, "calls"))); got != "plan=running review=pending current 1" {
		t.Fatalf("first event: %s", got)
	}
	// A new call: an event with it, while the run writes on.
	c := f.addLiveCall("plan/generate", "live")
	var ev CallsEvent
	for {
		ev = decode(next(t, events, "calls"))
		if strings.Contains(summary(ev), "plan/generate=running") {
			break
		}
	}
	if got := summary(ev); !strings.HasSuffix(got, "current 3") {
		t.Errorf("after a new call: %s", got)
	}
	if n := ev.Nodes[len(ev.Nodes)-1]; n.Seq != 3 || n.Parent != 1 || string(n.Inputs) != "null" {
		t.Errorf("new node = %+v", n)
	}
	f.must(c.End(journal.StatusCompleted, ok("done", nil, providerNotes("plan/generate", 5, 5)), "", journal.Usage{InputTokens: 5, OutputTokens: 5, Turns: 1}, 0, false))
	for {
		ev = decode(next(t, events, "calls"))
		if strings.Contains(summary(ev), "plan/generate=completed") {
			break
		}
	}
	if ev.Run.Tokens != 10 {
		t.Errorf("run tokens after the call = %d", ev.Run.Tokens)
	}
	f.must(f.live.Finish(journal.StatusCompleted, value.String("ok"), nil))
	for {
		select {
		case e, open := <-events:
			if !open {
				t.Fatal("stream ended without an end event")
			}
			if e.name == "end" {
				var r RunJSON
				json.Unmarshal([]byte(e.data), &r)
				if r.Status != "completed" {
					t.Errorf("end event status %s", r.Status)
				}
				if _, open := <-events; open {
					t.Error("the stream goes on after end")
				}
				return
			}
		case <-time.After(5 * time.Second):
			t.Fatal("no end event")
		}
	}
}

func TestSSERunsEventsAnnounceNewRuns(t *testing.T) {
	f := newFixture(t)
	ts := testServer(t, f)
	resp, err := http.Get(ts.URL + "/api/events")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	events := readEvents(resp.Body)
	next(t, events, "hello")
	r, err := f.store.StartRun(journal.RunInfo{WorkflowPath: "new.sexp"})
	f.must(err)
	deadline := time.After(5 * time.Second)
	for {
		select {
		case ev := <-events:
			if ev.name != "runs" {
				continue
			}
			var runs []RunJSON
			json.Unmarshal([]byte(ev.data), &runs)
			for _, x := range runs {
				if x.ID == r.ID() && x.Workflow == "new.sexp" && x.Status == "running" {
					return
				}
			}
		case <-deadline:
			t.Fatal("no runs event with the new run")
		}
	}
}

func TestUnknownRunEventsIs404(t *testing.T) {
	f := newFixture(t)
	ts := testServer(t, f)
	var e map[string]string
	get(t, ts, "/api/runs/nope/events", 404, &e)
}

// TestARunNeverWaitsForThePage holds a read open on the viewer's
// connection, as a slow page would, while the run writes calls and
// finishes: under SQLite's WAL a reader never blocks a writer.
func TestARunNeverWaitsForThePage(t *testing.T) {
	f := newFixture(t)
	s := New(Options{Root: f.root})
	defer s.Close()
	db, err := s.db.open()
	if err != nil {
		t.Fatal(err)
	}
	rows, err := db.Query("SELECT id, result FROM calls ORDER BY id")
	if err != nil {
		t.Fatal(err)
	}
	if !rows.Next() { // the read transaction is now open, mid-scan
		t.Fatal("no calls")
	}
	start := time.Now()
	for i := 0; i < 50; i++ {
		c := f.addLiveCall("plan/generate", fmt.Sprintf("call %d", i))
		f.must(c.End(journal.StatusCompleted, ok("done", nil, notes()), "", journal.Usage{}, 0, false))
	}
	f.must(f.live.Finish(journal.StatusCompleted, value.String("ok"), nil))
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("200 journal writes under an open read took %v", d)
	}
	rows.Close()
	// And the page then sees them all.
	ts := httptest.NewServer(s)
	defer ts.Close()
	var page RunPageJSON
	get(t, ts, "/api/runs/"+f.running+"?view=flat", 200, &page)
	if len(page.Nodes) != 52 || page.Run.Status != "completed" {
		t.Errorf("after the writes: %d nodes, status %s", len(page.Nodes), page.Run.Status)
	}
}

// A run without calls has "nodes": [] in both views, as `status --json`
// prints it, never null.
func TestAPIRunWithoutCallsHasEmptyNodes(t *testing.T) {
	f := newFixture(t)
	r, err := f.store.StartRun(journal.RunInfo{WorkflowPath: "release.sexp"})
	f.must(err)
	f.must(r.Finish(journal.StatusFailed, nil, fmt.Errorf("release.sexp:10:4: unbound symbol: run-tests")))
	ts := testServer(t, f)
	for _, q := range []string{"", "?view=flat"} {
		var page map[string]json.RawMessage
		get(t, ts, "/api/runs/"+r.ID()+q, 200, &page)
		if got := string(page["nodes"]); got != "[]" {
			t.Errorf("/api/runs/ID%s nodes = %s, want []", q, got)
		}
	}
}

// The run objects of /api/runs and /api/runs/ID have cost_usd as `evalrun
// runs --json` and `status --json` print it: a number, 0 when no call had
// a known cost (never null), with cost_unknown_calls saying how many had
// none.
func TestAPIRunCostIsANumberAsInRunsJSON(t *testing.T) {
	f := newFixture(t)
	// A run whose only call has no known price (an agent printing plain text).
	r, err := f.store.StartRun(journal.RunInfo{WorkflowPath: "plain.sexp"})
	f.must(err)
	c, err := r.Begin(nil, journal.KindTask, "summarise", "h1", nil)
	f.must(err)
	f.must(c.Running())
	f.must(c.End(journal.StatusCompleted, ok("done", nil, notes("executor", value.String("agent:slow"))), "", journal.Usage{InputTokens: 3, OutputTokens: 2, Turns: 1}, 0, false))
	f.must(r.Finish(journal.StatusCompleted, value.String("done"), nil))
	ts := testServer(t, f)
	rec, err := f.store.Resolve(r.ID())
	f.must(err)
	if rec.CostUSD != 0 || rec.CostUnknown != 1 {
		t.Fatalf("journal record: cost %v, unknown %d", rec.CostUSD, rec.CostUnknown)
	}
	var raw []map[string]any
	get(t, ts, "/api/runs", 200, &raw)
	for _, run := range raw {
		var page struct {
			Run map[string]any `json:"run"`
		}
		get(t, ts, "/api/runs/"+run["id"].(string), 200, &page)
		for where, got := range map[string]map[string]any{"/api/runs": run, "/api/runs/ID": page.Run} {
			if _, isNum := got["cost_usd"].(float64); !isNum {
				t.Errorf("%s: run %s (%s): cost_usd = %#v, want a number", where, got["id"], got["status"], got["cost_usd"])
			}
			if got["id"] == r.ID() && (got["cost_usd"] != 0.0 || got["cost_unknown_calls"] != 1.0) {
				t.Errorf("%s: run of unknown cost: cost_usd %v, cost_unknown_calls %v; want 0 and 1 as runs --json", where, got["cost_usd"], got["cost_unknown_calls"])
			}
		}
	}
}

// A status filter that no run can have is a malformed query (400), not an
// empty list that looks like "no such runs".
func TestAPIRunsUnknownStatusIs400(t *testing.T) {
	f := newFixture(t)
	ts := testServer(t, f)
	var e map[string]string
	get(t, ts, "/api/runs?status=complete", 400, &e)
	if want := `status: "complete" is not a run status (running, completed or failed)`; e["error"] != want {
		t.Errorf("error = %q, want %q", e["error"], want)
	}
	var runs []map[string]any
	get(t, ts, "/api/runs?status=completed", 200, &runs)
	if len(runs) != 2 {
		t.Errorf("completed runs = %d, want 2", len(runs))
	}
}

func TestAPIRunsTextFilterIgnoresCaseInUnicode(t *testing.T) {
	f := newFixture(t)
	r, err := f.store.StartRun(journal.RunInfo{WorkflowPath: "prüfung-ünï.sexp", WorkflowSHA256: "x"})
	f.must(err)
	f.must(r.Finish(journal.StatusFailed, nil, errors.New("Größe überschritten: ΣΊΣΥΦΟΣ")))
	ts := testServer(t, f)
	for _, c := range []struct {
		q    string
		want int
	}{
		{"ünï", 1}, {"ÜNÏ", 1}, {"PRÜFUNG-Ünï", 1}, {"GRÖßE", 1}, {"größe ÜBERSCHRITTEN", 1},
		{"σίσυφος", 1}, {"ΣΊΣΥΦΟΣ", 1},
		{"RELEASE", 4}, {"%", 0}, {"_", 0}, {"ünïx", 0},
	} {
		var got []RunJSON
		hdr := get(t, ts, "/api/runs?q="+url.QueryEscape(c.q), 200, &got)
		if len(got) != c.want || hdr.Get("X-Total-Count") != fmt.Sprint(c.want) {
			t.Errorf("q=%s: %d runs (total %s), want %d", c.q, len(got), hdr.Get("X-Total-Count"), c.want)
		}
		if c.want == 1 && c.q != "RELEASE" && (len(got) != 1 || got[0].ID != r.ID()) {
			t.Errorf("q=%s: %v, want run %s", c.q, got, r.ID())
		}
	}
}

func TestFoldCase(t *testing.T) {
	for _, c := range [][2]string{{"ÜNÏ", "ünï"}, {"Kelvin \u212a", "kelvin k"}, {"ΣΊΣΥΦΟΣ", "σίσυφοσ"}, {"plain-ascii_1", "plain-ascii_1"}} {
		if got, want := foldCase(c[0]), foldCase(c[1]); got != want {
			t.Errorf("foldCase(%q) = %q, foldCase(%q) = %q: want equal", c[0], got, c[1], want)
		}
	}
}
