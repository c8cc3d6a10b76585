package serve

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/evalrun/evalrun/journal"
	"github.com/evalrun/evalrun/value"
)

// The fixture is a project whose journal the tests fill through the
// journal package, as a run would: a completed run, a failed run with
// parallel task calls, an agent call, a model tool call, a failed task and
// a positioned run error, a run that resumes it with replayed calls, and a
// run still in progress. Call times are then moved (one UPDATE per call)
// so that the timeline has realistic durations.

const workflowText = `; release: plan, review each file, implement, verify
(define files (list "api.go" "store.go" "cli.go"))
(step "plan"
  (plan/generate (goal "ship 1.4")))
(step "review"
  (parallel-map (lambda (f) (review/file (path f))) files))
(step "implement"
  (code/implement (plan plan)))
(step "verify"
  (run-tests))
`

// fixture is a project with a filled journal.
type fixture struct {
	t     *testing.T
	root  string
	store *journal.Store
	db    *sql.DB // a writable connection for moving times
	base  time.Time

	completed, failed, resumed, running string
	live                                *journal.Run
	liveStep                            *journal.Call
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	root := t.TempDir()
	if err := os.WriteFile(filepath.Join(root, "release.sexp"), []byte(workflowText), 0o644); err != nil {
		t.Fatal(err)
	}
	s, err := journal.Open(filepath.Join(root, journal.DefaultPath))
	if err != nil {
		t.Fatal(err)
	}
	db, err := sql.Open("sqlite", "file:"+filepath.Join(root, journal.DefaultPath)+"?_pragma=busy_timeout(5000)")
	if err != nil {
		t.Fatal(err)
	}
	f := &fixture{t: t, root: root, store: s, db: db, base: time.Now().Add(-26 * time.Hour).Truncate(time.Second)}
	t.Cleanup(func() { db.Close(); s.Close() })
	f.fill()
	return f
}

func (f *fixture) must(err error) {
	f.t.Helper()
	if err != nil {
		f.t.Fatal(err)
	}
}

// at moves a call's start and end to these offsets from its run's start
// (end < 0: not finished).
func (f *fixture) at(c *journal.Call, run time.Time, start, end time.Duration) {
	f.t.Helper()
	var fin any
	if end >= 0 {
		fin = run.Add(end).UnixNano()
	}
	_, err := f.db.Exec("UPDATE calls SET queued_at = ?, started_at = ?, finished_at = ? WHERE id = ?", run.Add(start).UnixNano(),
		run.Add(start).UnixNano(), fin, c.ID())
	f.must(err)
}

// queued moves when a call was begun (before it waited for its slot).
func (f *fixture) queued(c *journal.Call, run time.Time, at time.Duration) {
	f.t.Helper()
	_, err := f.db.Exec("UPDATE calls SET queued_at = ? WHERE id = ?", run.Add(at).UnixNano(), c.ID())
	f.must(err)
}

// finished moves a run's end to this offset from its start.
func (f *fixture) finished(r *journal.Run, d time.Duration) {
	_, err := f.db.Exec("UPDATE runs SET finished_at = ? WHERE id = ?", r.StartedAt().Add(d).UnixNano(), r.ID())
	f.must(err)
}

func notes(pairs ...any) *value.Dict { return value.DictOf(pairs...) }

func ok(content string, parsed value.Value, n *value.Dict) *value.TaskResult {
	return &value.TaskResult{Status: value.StatusComplete, Content: content, Parsed: parsed, Notes: n}
}

const planSystem = "You are a release planner. Answer with JSON: {\"steps\": [...], \"risk\": \"low|medium|high\"}."
const planUser = "Plan the release of version 1.4.\nGoal: ship 1.4\nKeep the plan to at most five steps."
const planAnswer = `{"steps": ["freeze main", "review the changed files", "implement the changelog", "tag v1.4"], "risk": "low"}`

func planParsed() value.Value {
	return value.DictOf("steps", value.List{value.String("freeze main"), value.String("review the changed files"),
		value.String("implement the changelog"), value.String("tag v1.4")}, "risk", value.String("low"))
}

func providerNotes(template string, in, out int, extra ...any) *value.Dict {
	n := notes("template_used", value.String(template), "template_source", value.String("local .evalrun/templates/"+strings.ReplaceAll(template, "/", "-")+".xml:1"),
		"provider", value.String("openai"), "model", value.String("gpt-4.1"),
		"usage", value.DictOf("input_tokens", value.Int(in), "output_tokens", value.Int(out), "turns", value.Int(1)))
	for i := 0; i+1 < len(extra); i += 2 {
		n.Set(extra[i].(string), extra[i+1].(value.Value))
	}
	return n
}

func (f *fixture) fill() {
	s := f.store
	sha := journal.HashWorkflow([]byte(workflowText))
	args := value.DictOf("version", value.String("1.4"))

	// 1. A completed run, two days ago.
	t1 := f.base.Add(-24 * time.Hour)
	r1, err := s.StartRun(journal.RunInfo{WorkflowPath: "release.sexp", WorkflowSHA256: sha, Args: args, StartedAt: t1})
	f.must(err)
	f.completed = r1.ID()
	steps, err := r1.AddPendingSteps([]string{"plan"})
	f.must(err)
	st, _ := r1.Begin(nil, journal.KindStep, "plan", "", nil)
	task, _ := r1.Begin(st, journal.KindTask, "plan/generate", "3f9a", value.DictOf("goal", value.String("ship 1.4")))
	f.must(task.SetPrompt(planSystem, planUser))
	f.must(task.Running())
	f.must(task.End(journal.StatusCompleted, ok(planAnswer, planParsed(), providerNotes("plan/generate", 812, 96, "cost_usd", value.Float(0.0024))), "",
		journal.Usage{InputTokens: 812, OutputTokens: 96, Turns: 1}, 0, false))
	f.must(st.End(journal.StatusCompleted, value.String("planned"), "", journal.Usage{}, 1, false))
	f.must(r1.Finish(journal.StatusCompleted, value.String("released"), nil))
	f.at(steps[0], t1, 0, 4200*time.Millisecond)
	f.at(task, t1, 100*time.Millisecond, 4100*time.Millisecond)
	f.finished(r1, 4300*time.Millisecond)

	// 2. A failed run: parallel reviews (one by an agent), a model tool
	// call, a task that ran out of turns, and a positioned run error.
	t2 := f.base
	r2, err := s.StartRun(journal.RunInfo{WorkflowPath: "release.sexp", WorkflowSHA256: sha, Args: args, StartedAt: t2})
	f.must(err)
	f.failed = r2.ID()
	pend, err := r2.AddPendingSteps([]string{"plan", "review", "implement", "verify"})
	f.must(err)
	plan, _ := r2.Begin(nil, journal.KindStep, "plan", "", nil)
	gen, _ := r2.Begin(plan, journal.KindTask, "plan/generate", "3f9a", value.DictOf("goal", value.String("ship 1.4")))
	f.must(gen.SetPrompt(planSystem, planUser))
	f.must(gen.Running())
	f.must(gen.End(journal.StatusCompleted, ok(planAnswer, planParsed(), providerNotes("plan/generate", 812, 96, "cost_usd", value.Float(0.0024))), "",
		journal.Usage{InputTokens: 812, OutputTokens: 96, Turns: 1}, 0, false))
	f.must(plan.End(journal.StatusCompleted, value.String("planned"), "", journal.Usage{}, 1, false))
	review, _ := r2.Begin(nil, journal.KindStep, "review", "", nil)
	files := []string{"api.go", "store.go", "cli.go"}
	var reviews []*journal.Call
	for i, file := range files {
		c, _ := r2.Begin(review, journal.KindTask, "review/file", fmt.Sprintf("77%02d", i), value.DictOf("path", value.String(file)))
		f.must(c.SetPrompt("You review Go code for bugs. Be brief.", "Review the file "+file+" and list at most three problems."))
		f.must(c.Running())
		reviews = append(reviews, c)
	}
	// The model of the first review reads the file with a tool.
	tool, _ := r2.Begin(reviews[0], journal.KindTool, "read_file", "aa01", value.DictOf("path", value.String("api.go")))
	f.must(tool.Running())
	f.must(tool.End(journal.StatusCompleted, ok("package api\n\nfunc Serve() {}\n", nil, notes()), "", journal.Usage{}, 0, false))
	answers := []string{"1. Serve ignores the context.\n2. No timeout on the listener.", "No problems found.", "1. The --addr flag is not validated."}
	for i, c := range reviews {
		n := providerNotes("review/file", 1500+i*310, 120+i*14)
		tokens := journal.Usage{InputTokens: int64(1500 + i*310), OutputTokens: int64(120 + i*14), Turns: 1}
		if i == 1 { // the second review ran on an agent
			n = notes("template_used", value.String("review/file"), "template_source", value.String("local .evalrun/templates/review-file.xml:1"),
				"executor", value.String("agent:claude"), "cost_usd", value.Float(0.0191), "turns", value.Int(3))
			tokens.Turns = 3
		}
		f.must(c.End(journal.StatusCompleted, ok(answers[i], nil, n), "", tokens, 0, false))
	}
	f.must(review.End(journal.StatusCompleted, value.List{value.String("ok")}, "", journal.Usage{}, 1, false))
	impl, _ := r2.Begin(nil, journal.KindStep, "implement", "", nil)
	code, _ := r2.Begin(impl, journal.KindTask, "code/implement", "c0de", value.DictOf("plan", value.String("freeze main; tag v1.4")))
	f.must(code.SetPrompt("You implement changes in a Go repository.", "Implement the plan:\nfreeze main; tag v1.4"))
	f.must(code.Running())
	exhausted := &value.TaskResult{Status: value.StatusFailed, Content: "turn limit reached (10/10)", Notes: notes(
		"template_used", value.String("code/implement"), "template_source", value.String("local .evalrun/templates/code-implement.xml:1"),
		"provider", value.String("openai"), "model", value.String("gpt-4.1"),
		"error", value.DictOf("type", value.String("RESOURCE_EXHAUSTION"), "resource", value.String("turns"),
			"message", value.String("turn limit reached (10/10)"), "metrics", value.DictOf("used", value.Int(10), "limit", value.Int(10)))),
	}
	f.must(code.End(journal.StatusFailed, exhausted, "", journal.Usage{InputTokens: 6100, OutputTokens: 1803, Turns: 10}, 0, false))
	f.must(impl.End(journal.StatusFailed, nil, "code/implement failed: turn limit reached (10/10)", journal.Usage{}, 1, false))
	f.must(r2.Finish(journal.StatusFailed, nil, fmt.Errorf("release.sexp:10:4: unbound symbol: run-tests")))
	f.at(pend[0], t2, 0, 3900*time.Millisecond)
	f.at(gen, t2, 50*time.Millisecond, 3850*time.Millisecond)
	f.at(pend[1], t2, 3950*time.Millisecond, 15200*time.Millisecond)
	f.at(reviews[0], t2, 4000*time.Millisecond, 11800*time.Millisecond)
	f.at(tool, t2, 5200*time.Millisecond, 5350*time.Millisecond)
	f.at(reviews[1], t2, 4010*time.Millisecond, 15100*time.Millisecond)
	f.at(reviews[2], t2, 11850*time.Millisecond, 15000*time.Millisecond)
	f.queued(reviews[2], t2, 4020*time.Millisecond) // it waited for a slot: two reviews at once
	f.at(pend[2], t2, 15300*time.Millisecond, 41000*time.Millisecond)
	f.at(code, t2, 15350*time.Millisecond, 40900*time.Millisecond)
	f.finished(r2, 41200*time.Millisecond)

	// 3. A run resuming the failed one: plan and reviews replayed.
	t3 := f.base.Add(20 * time.Minute)
	r3, err := s.StartRun(journal.RunInfo{WorkflowPath: "release.sexp", WorkflowSHA256: sha, Args: args, ResumedFrom: f.failed, StartedAt: t3})
	f.must(err)
	f.resumed = r3.ID()
	pend3, _ := r3.AddPendingSteps([]string{"plan", "review", "implement"})
	p3, _ := r3.Begin(nil, journal.KindStep, "plan", "", nil)
	g3, _ := r3.Begin(p3, journal.KindTask, "plan/generate", "3f9a", value.DictOf("goal", value.String("ship 1.4")))
	f.must(g3.SetPrompt(planSystem, planUser))
	n3 := providerNotes("plan/generate", 812, 96, "cost_usd", value.Float(0.0024))
	n3.Set("replayed", value.Bool(true))
	f.must(g3.End(journal.StatusCompleted, ok(planAnswer, planParsed(), n3), "", journal.Usage{InputTokens: 812, OutputTokens: 96, Turns: 1, CostUSD: journal.Cost(0.0024, true)}, 0, true))
	f.must(p3.End(journal.StatusCompleted, value.String("planned"), "", journal.Usage{}, 1, false))
	rv3, _ := r3.Begin(nil, journal.KindStep, "review", "", nil)
	f.must(rv3.End(journal.StatusCompleted, value.List{}, "", journal.Usage{}, 1, false))
	i3, _ := r3.Begin(nil, journal.KindStep, "implement", "", nil)
	c3, _ := r3.Begin(i3, journal.KindTask, "code/implement", "c0de", value.DictOf("plan", value.String("freeze main; tag v1.4")))
	f.must(c3.SetPrompt("You implement changes in a Go repository.", "Implement the plan:\nfreeze main; tag v1.4"))
	f.must(c3.Running())
	f.must(c3.End(journal.StatusCompleted, ok("Done: CHANGELOG.md updated, v1.4 tagged.", nil, providerNotes("code/implement", 5400, 910, "cost_usd", value.Float(0.0182))), "",
		journal.Usage{InputTokens: 5400, OutputTokens: 910, Turns: 4}, 0, false))
	f.must(i3.End(journal.StatusCompleted, value.String("done"), "", journal.Usage{}, 1, false))
	f.must(r3.Finish(journal.StatusCompleted, value.String("released"), nil))
	f.at(pend3[0], t3, 0, 30*time.Millisecond)
	f.at(g3, t3, 5*time.Millisecond, 25*time.Millisecond)
	f.at(pend3[1], t3, 40*time.Millisecond, 60*time.Millisecond)
	f.at(pend3[2], t3, 70*time.Millisecond, 21000*time.Millisecond)
	f.at(c3, t3, 90*time.Millisecond, 20900*time.Millisecond)
	f.finished(r3, 21100*time.Millisecond)

	// 4. A run in progress (started a few seconds ago): the plan step runs.
	r4, err := s.StartRun(journal.RunInfo{WorkflowPath: "release.sexp", WorkflowSHA256: sha, Args: args, StartedAt: time.Now().Add(-3 * time.Second)})
	f.must(err)
	f.running = r4.ID()
	f.live = r4
	_, err = r4.AddPendingSteps([]string{"plan", "review"})
	f.must(err)
	f.liveStep, _ = r4.Begin(nil, journal.KindStep, "plan", "", nil)
	// The journal batches its writes; ID waits for them to be committed,
	// so the viewer's first read sees the running run as it stands.
	_ = f.liveStep.ID()
}

// addLiveCall adds a task call to the running run, as the run would, and
// returns it running.
func (f *fixture) addLiveCall(name, user string) *journal.Call {
	c, err := f.live.Begin(f.liveStep, journal.KindTask, name, "beef", value.DictOf("goal", value.String("ship 1.4")))
	f.must(err)
	f.must(c.SetPrompt(planSystem, user))
	f.must(c.Running())
	return c
}

// planFiles is a CCW plan: a completed design task, a container whose
// first subtask is done and second is running, documentation blocked on
// the container, and a release task that depends on the design only.
var planFiles = map[string]string{
	"workflow-session.json": `{"session_id": "WFS-auth", "project": "JWT authentication", "status": "active"}`,
	".task/IMPL-1.json": `{"id": "IMPL-1", "title": "Design the authentication module", "status": "completed",
  "meta": {"type": "feature", "agent": "@action-planning-agent"}, "context": {"requirements": ["JWT"], "depends_on": []},
  "flow_control": {"pre_analysis": [{"step": "gather", "command": "bash(ls src/auth)", "output_to": "files"}],
    "implementation_approach": [{"step": 1, "title": "Write the design", "depends_on": [], "output": "design"}]}}`,
	".task/IMPL-2.json": `{"id": "IMPL-2", "title": "Implement JWT authentication", "status": "container",
  "meta": {"type": "feature"}, "context": {"depends_on": ["IMPL-1"]}}`,
	".task/IMPL-2.1.json": `{"id": "IMPL-2.1", "title": "Token generation", "status": "completed",
  "meta": {"type": "feature", "agent": "@code-developer"}, "context": {"parent": "IMPL-2"}, "flow_control": {}}`,
	".task/IMPL-2.2.json": `{"id": "IMPL-2.2", "title": "Refresh tokens", "status": "pending",
  "meta": {"type": "feature", "agent": "@code-developer"}, "context": {"parent": "IMPL-2", "depends_on": ["IMPL-2.1"]}, "flow_control": {}}`,
	".task/IMPL-3.json": `{"id": "IMPL-3", "title": "Documentation", "status": "pending", "depends_on": ["IMPL-2"],
  "meta": {"type": "docs", "agent": "@universal-executor"}, "context": {}, "flow_control": {}}`,
	".task/IMPL-4.json": `{"id": "IMPL-4", "title": "Release notes", "status": "pending",
  "meta": {"type": "docs", "tool": "gemini"}, "context": {"depends_on": ["IMPL-001"]}, "flow_control": {}}`,
	".summaries/IMPL-1-summary.md": "# IMPL-1: Design the authentication module\n\nAgent: @action-planning-agent\n\nThe design uses short-lived JWTs with refresh tokens.\n",
}

// writePlan writes planFiles as .workflow/active/WFS-auth under root.
func writePlan(t *testing.T, root string) {
	t.Helper()
	for name, text := range planFiles {
		p := filepath.Join(root, ".workflow", "active", "WFS-auth", filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// fixtureTemplates is the registry the tests list: a built-in template, a
// global one shadowed by a local one of the same name, and a local one.
func fixtureTemplates(context.Context) ([]Template, error) {
	local := "local"
	gdr := "gdr"
	return []Template{
		{Name: "plan/generate", Type: "plan", Subtype: "generate", Description: "Plan a release in at most five steps", Scope: "builtin", Path: "<builtin>", Line: 1,
			Source: "builtin <builtin>:1", XML: "<task name=\"plan/generate\">\n  <description>Plan a release in at most five steps</description>\n  <instructions>Plan the release of {{goal}}.</instructions>\n</task>\n"},
		{Name: "review/git-diff", Alias: &gdr, Type: "review", Subtype: "git-diff", Description: "Security review of the diff", Scope: "global", Path: "review.xml", Line: 1,
			ShadowedBy: &local, Dir: "~/.config/evalrun/templates", Source: "global ~/.config/evalrun/templates/review.xml:1",
			XML: "<task name=\"review/git-diff\" alias=\"gdr\">\n  <instructions>Review {{diff}} for security problems.</instructions>\n</task>\n"},
		{Name: "review/git-diff", Alias: &gdr, Type: "review", Subtype: "git-diff", Description: "Review the staged git diff for bugs", Scope: "local", Path: "review.xml", Line: 1,
			Dir: ".evalrun/templates", Source: "local .evalrun/templates/review.xml:1",
			XML: "<task name=\"review/git-diff\" alias=\"gdr\">\n  <!-- the team's review -->\n  <instructions>Review {{diff | truncate(4000)}} for bugs.</instructions>\n</task>\n"},
		{Name: "review/file", Type: "review", Subtype: "file", Description: "Review one Go file", Scope: "local", Path: "review-file.xml", Line: 1,
			Dir: ".evalrun/templates", Source: "local .evalrun/templates/review-file.xml:1",
			XML: "<task name=\"review/file\">\n  <instructions>Review the file {{path}} and list at most three problems.</instructions>\n</task>\n"},
	}, nil
}

// The plan run of writePlanRun: what its steps and calls answered.
const (
	planRunGather = "src/auth/login.ts\nsrc/auth/token.ts"
	planRunDesign = "The design uses short-lived JWTs with refresh tokens; access tokens live 15 minutes."
	planRunToken  = "Token generation: issueToken signs {sub, exp, iat} with HS256."
	// planRunLintError is the error of IMPL-2.1's skipped lint step.
	planRunLintError = `"eslint src/auth": exit status 127: sh: 1: eslint: not found`
)

// writePlanRun records a plan run of the plan of writePlan as the plan
// runner does: a journal run whose step nodes are the tasks IMPL-1 and
// IMPL-2.1, with IMPL-1's pre_analysis step (named "IMPL-1 gather", its
// output the result), IMPL-2.1's failed optional step and the agent calls
// of both below them, and the run
// records of .process/evalrun-state.json. It returns the run id.
func writePlanRun(f *fixture) string {
	f.t.Helper()
	start := f.base.Add(-2 * time.Hour)
	r, err := f.store.StartRun(journal.RunInfo{WorkflowPath: "plan", StartedAt: start})
	f.must(err)
	t1, _ := r.Begin(nil, journal.KindStep, "IMPL-1", "", nil)
	gather, _ := r.Begin(t1, journal.KindStep, "IMPL-1 gather", "", nil)
	f.must(gather.End(journal.StatusCompleted, value.String(planRunGather), "", journal.Usage{}, 1, false))
	design, _ := r.Begin(t1, journal.KindTask, "plan/action-planning-agent", "d351", value.DictOf("task", value.String("IMPL-1")))
	f.must(design.SetPrompt("You plan software changes.", "Design the authentication module."))
	f.must(design.Running())
	f.must(design.End(journal.StatusCompleted, ok(planRunDesign, nil, providerNotes("plan/action-planning-agent", 900, 150, "cost_usd", value.Float(0.0031))), "",
		journal.Usage{InputTokens: 900, OutputTokens: 150, Turns: 1}, 0, false))
	f.must(t1.End(journal.StatusCompleted, value.String(planRunDesign), "", journal.Usage{}, 1, false))
	t21, _ := r.Begin(nil, journal.KindStep, "IMPL-2.1", "", nil)
	// An optional step that failed and was skipped (on_error skip_optional).
	lint, _ := r.Begin(t21, journal.KindStep, "IMPL-2.1 lint", "", nil)
	f.must(lint.End(journal.StatusFailed, nil, planRunLintError, journal.Usage{}, 1, false))
	code, _ := r.Begin(t21, journal.KindTask, "plan/code-developer", "c0de", value.DictOf("task", value.String("IMPL-2.1")))
	f.must(code.Running())
	f.must(code.End(journal.StatusCompleted, ok(planRunToken, nil, providerNotes("plan/code-developer", 1200, 300)), "",
		journal.Usage{InputTokens: 1200, OutputTokens: 300, Turns: 1}, 0, false))
	f.must(t21.End(journal.StatusCompleted, value.String(planRunToken), "", journal.Usage{}, 1, false))
	f.must(r.Finish(journal.StatusCompleted, nil, nil))
	f.at(t1, start, 0, 3*time.Second)
	f.at(gather, start, 10*time.Millisecond, 40*time.Millisecond)
	f.at(design, start, 50*time.Millisecond, 2900*time.Millisecond)
	f.at(t21, start, 3100*time.Millisecond, 7*time.Second)
	f.at(code, start, 3150*time.Millisecond, 6900*time.Millisecond)
	f.finished(r, 7100*time.Millisecond)
	utc := func(d time.Duration) string { return start.Add(d).UTC().Format(time.RFC3339) }
	state := fmt.Sprintf(`{
  "tasks": {
    "IMPL-1": {"agent": "@action-planning-agent", "started_at": %q, "finished_at": %q, "run": %q, "tokens": 1050, "cost_usd": 0.0031},
    "IMPL-2.1": {"agent": "@code-developer", "started_at": %q, "finished_at": %q, "run": %q, "tokens": 1500}
  }
}
`, utc(0), utc(3*time.Second), r.ID(), utc(3100*time.Millisecond), utc(7*time.Second), r.ID())
	path := filepath.Join(f.root, ".workflow", "active", "WFS-auth", ".process", "evalrun-state.json")
	f.must(os.MkdirAll(filepath.Dir(path), 0o755))
	f.must(os.WriteFile(path, []byte(state), 0o644))
	return r.ID()
}
