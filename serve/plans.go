package serve

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/evalrun/evalrun/plan"
)

// The plan page reads a session directory (SPEC §23.1) with package plan
// — plan.Load, the derived states and the current position of
// `plan status` — and the run records the plan runner keeps in
// .process/evalrun-state.json; the outputs of a task's steps come from
// the journal run recorded there. It writes nothing: not the state file,
// not TODO_LIST.md, not the journal.

// plansDir is where plans live below the project root.
const plansDir = ".workflow/active"

// PlanTask is a task of a plan as `plan status --json` prints it (SPEC
// §23.5: id, title, status, agent, depends_on, parent, started_at,
// finished_at, run, tokens, cost_usd, and reason for a blocked task),
// with the viewer's additions: the file's own status, the unfinished
// dependencies that block it, whether it is the current position, its
// subtasks, its task JSON, its summary, its steps as written and the
// outputs of its last run.
type PlanTask struct {
	plan.TaskStatus

	// FileStatus is the status written in the task file.
	FileStatus string `json:"file_status"`
	// BlockedBy lists the unfinished dependencies (its own and its
	// container's) of a task that is not completed.
	BlockedBy []string `json:"blocked_by"`
	Current   bool     `json:"current"`
	Children  []string `json:"children"`
	// JSON is the task file as written (null when it is not valid JSON);
	// Summary the text of its .summaries/ID-summary.md (null when there
	// is none).
	JSON    json.RawMessage `json:"json"`
	Summary *string         `json:"summary"`
	// Steps are its pre_analysis and implementation steps as written.
	Steps []PlanStep `json:"steps"`
	// Call is the seq of the task's node in its run (null when the
	// journal has none); Outputs the nodes under it: its steps with their
	// outputs and its agent or model calls with their answers.
	Call    *int          `json:"call"`
	Outputs []*StepOutput `json:"outputs"`
}

// PlanStep is one step of a task's flow_control as written.
type PlanStep struct {
	Phase   string `json:"phase"` // pre_analysis or implementation
	Name    string `json:"name"`
	Command string `json:"command,omitempty"`
	Output  string `json:"output,omitempty"`
}

// StepOutput is one journal node under a task's node in the run that
// last ran it: a step (a pre_analysis step, whose result is its output)
// or a task or tool call (an implementation step's agent or model call,
// whose answer is its output).
type StepOutput struct {
	Seq  int    `json:"seq"`
	Kind string `json:"kind"`
	// Name is the step's name without the task id the runner puts before
	// it, or the call's template or tool.
	Name       string  `json:"name"`
	Status     string  `json:"status"`
	Output     *string `json:"output"`
	Error      string  `json:"error,omitempty"`
	Tokens     int64   `json:"tokens"`
	StartedAt  *string `json:"started_at"`
	FinishedAt *string `json:"finished_at"`
}

// Plan is /api/plans/DIR: the session metadata, the tasks in id order,
// the current task and the problems `plan check` reports.
type Plan struct {
	Dir       string          `json:"dir"`
	Path      string          `json:"path"`
	Session   json.RawMessage `json:"session"`
	Tasks     []*PlanTask     `json:"tasks"`
	Current   *string         `json:"current"`
	Problems  []string        `json:"problems"`
	UpdatedAt *string         `json:"updated_at"`
	Counts    map[string]int  `json:"counts"`
}

// PlanSummary is one item of /api/plans.
type PlanSummary struct {
	Dir       string         `json:"dir"`
	Path      string         `json:"path"`
	Tasks     int            `json:"tasks"`
	Counts    map[string]int `json:"counts"`
	Current   *string        `json:"current"`
	UpdatedAt *string        `json:"updated_at"`
}

var planDirRE = regexp.MustCompile(`^WFS-[^/\\]+$`)

// listPlans returns the plan directories under root, newest first,
// without reading the journal.
func (s *Server) listPlans(ctx context.Context) ([]*PlanSummary, error) {
	ents, err := os.ReadDir(filepath.Join(s.opts.Root, plansDir))
	if os.IsNotExist(err) {
		return []*PlanSummary{}, nil
	}
	if err != nil {
		return nil, err
	}
	out := []*PlanSummary{}
	for _, e := range ents {
		if !e.IsDir() || !planDirRE.MatchString(e.Name()) {
			continue
		}
		p, err := s.readPlan(ctx, e.Name(), false)
		if err != nil {
			continue
		}
		out = append(out, &PlanSummary{Dir: p.Dir, Path: p.Path, Tasks: len(p.Tasks), Counts: p.Counts, Current: p.Current, UpdatedAt: p.UpdatedAt})
	}
	sort.SliceStable(out, func(i, j int) bool {
		a, b := "", ""
		if out[i].UpdatedAt != nil {
			a = *out[i].UpdatedAt
		}
		if out[j].UpdatedAt != nil {
			b = *out[j].UpdatedAt
		}
		if a != b {
			return a > b
		}
		return out[i].Dir < out[j].Dir
	})
	return out, nil
}

// readPlan reads the plan directory .workflow/active/DIR with plan.Load
// and its run records; withOutputs adds each task's step outputs from
// the journal.
func (s *Server) readPlan(ctx context.Context, dir string, withOutputs bool) (*Plan, error) {
	if !planDirRE.MatchString(dir) {
		return nil, fmt.Errorf("plan %s: %w", dir, errNotFound)
	}
	base := filepath.Join(s.opts.Root, plansDir, dir)
	st, err := os.Stat(base)
	if err != nil || !st.IsDir() {
		return nil, fmt.Errorf("plan %s: %w", dir, errNotFound)
	}
	pl, diags, err := plan.Load(base, s.opts.Plan)
	if err != nil {
		return nil, fmt.Errorf("plan %s: %w", dir, err)
	}
	p := &Plan{Dir: dir, Path: filepath.ToSlash(filepath.Join(plansDir, dir)), Session: jsonNull, Tasks: []*PlanTask{},
		Problems: []string{}, Counts: map[string]int{}}
	for _, d := range diags {
		if rel, err := filepath.Rel(s.opts.Root, d.Path); err == nil && !strings.HasPrefix(rel, "..") {
			d.Path = filepath.ToSlash(rel)
		}
		p.Problems = append(p.Problems, d.String())
	}
	recs, err := pl.ReadState()
	if err != nil {
		// A state file that cannot be read leaves the tasks without
		// their run records; the problem is shown.
		p.Problems = append(p.Problems, err.Error())
		recs = map[string]*plan.RunRecord{}
	}
	status, err := pl.StatusJSON(recs)
	if err != nil {
		return nil, err
	}
	var rows []plan.TaskStatus
	if err := json.Unmarshal(status, &rows); err != nil {
		return nil, err
	}
	newest := st.ModTime()
	if pl.Session != nil {
		p.Session = json.RawMessage(pl.Session.Src)
	}
	for _, f := range []string{filepath.Join(base, "workflow-session.json"), pl.StatePath()} {
		if fi, err := os.Stat(f); err == nil && fi.ModTime().After(newest) {
			newest = fi.ModTime()
		}
	}
	for i, t := range pl.Tasks {
		row := rows[i]
		pt := &PlanTask{TaskStatus: row, FileStatus: t.Status, BlockedBy: []string{}, Current: row.Current,
			Children: []string{}, JSON: jsonNull, Steps: []PlanStep{}, Outputs: []*StepOutput{}}
		if fi, err := os.Stat(t.File.Path); err == nil && fi.ModTime().After(newest) {
			newest = fi.ModTime()
		}
		if t.File.Root != nil {
			pt.JSON = json.RawMessage(t.File.Src)
		}
		for _, c := range t.Subtasks {
			pt.Children = append(pt.Children, c.ID)
		}
		if !pl.Completed(t) {
			pt.BlockedBy = unfinished(pl, t)
		}
		for _, s := range t.PreAnalysis {
			pt.Steps = append(pt.Steps, PlanStep{Phase: "pre_analysis", Name: s.Name, Command: strings.Join(s.Commands, "; "), Output: s.OutputTo})
		}
		for _, s := range t.Approach {
			name := s.Title
			if name == "" {
				name = s.Description
			}
			if name == "" {
				name = fmt.Sprintf("step %d", s.Number)
			}
			pt.Steps = append(pt.Steps, PlanStep{Phase: "implementation", Name: name, Command: s.Command, Output: s.Output})
		}
		if b, err := os.ReadFile(filepath.Join(base, ".summaries", t.ID+"-summary.md")); err == nil {
			text := string(b)
			pt.Summary = &text
		}
		p.Tasks = append(p.Tasks, pt)
		p.Counts[pt.Status]++
		if pt.Current {
			id := pt.ID
			p.Current = &id
		}
	}
	if withOutputs {
		if err := s.stepOutputs(ctx, p.Tasks); err != nil {
			return nil, err
		}
	}
	u := newest.Local().Format(time.RFC3339)
	p.UpdatedAt = &u
	return p, nil
}

// unfinished returns the dependencies of t, its own and its container's,
// that are not completed, as their files write the ids.
func unfinished(pl *plan.Plan, t *plan.Task) []string {
	deps := append([]string(nil), t.DependsOn...)
	if t.Parent != nil {
		deps = append(deps, t.Parent.DependsOn...)
	}
	out := []string{}
	for _, d := range deps {
		u, ok := pl.Task(d)
		switch {
		case !ok:
			out = append(out, d)
		case !pl.Completed(u) && !slices.Contains(out, u.ID):
			out = append(out, u.ID)
		}
	}
	return out
}

// stepOutputs fills Call and Outputs of the tasks that have a run: in
// each run, the last step node named by the task's id, and the nodes
// directly below it. One query per run.
func (s *Server) stepOutputs(ctx context.Context, tasks []*PlanTask) error {
	byRun := map[string][]*PlanTask{}
	var runs []string
	for _, t := range tasks {
		if t.Run == nil || *t.Run == "" {
			continue
		}
		if _, ok := byRun[*t.Run]; !ok {
			runs = append(runs, *t.Run)
		}
		byRun[*t.Run] = append(byRun[*t.Run], t)
	}
	if len(runs) == 0 {
		return nil
	}
	db, err := s.db.open()
	if errors.Is(err, errNoJournal) {
		return nil
	}
	if err != nil {
		return err
	}
	for _, run := range runs {
		if err := taskOutputs(ctx, db, run, byRun[run]); err != nil {
			return err
		}
	}
	return nil
}

// taskOutputs reads the task nodes of one run and the nodes below them.
func taskOutputs(ctx context.Context, db *sql.DB, run string, tasks []*PlanTask) error {
	names := make([]any, 0, len(tasks)+1)
	names = append(names, run)
	marks := make([]string, len(tasks))
	byName := map[string]*PlanTask{}
	for i, t := range tasks {
		names = append(names, t.ID)
		marks[i] = "?"
		byName[t.ID] = t
	}
	// The task nodes: the last step node of each name (a run that ran a
	// task twice, through two plan-run calls, shows the later one).
	rows, err := db.QueryContext(ctx, `SELECT id, seq, name FROM calls WHERE run_id = ? AND kind = 'step' AND name IN (`+
		strings.Join(marks, ", ")+`) ORDER BY seq`, names...)
	if err != nil {
		return fmt.Errorf("journal: %w", err)
	}
	node := map[int64]*PlanTask{}
	last := map[*PlanTask]int64{}
	for rows.Next() {
		var id int64
		var seq int
		var name string
		if err := rows.Scan(&id, &seq, &name); err != nil {
			rows.Close()
			return fmt.Errorf("journal: %w", err)
		}
		t := byName[name]
		if old, ok := last[t]; ok {
			delete(node, old)
		}
		node[id], last[t] = t, id
		sq := seq
		t.Call = &sq
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return fmt.Errorf("journal: %w", err)
	}
	if len(node) == 0 {
		return nil
	}
	parents := make([]any, 0, len(node)+1)
	parents = append(parents, run)
	pm := make([]string, 0, len(node))
	for id := range node {
		parents = append(parents, id)
		pm = append(pm, "?")
	}
	rows, err = db.QueryContext(ctx, `SELECT parent_id, seq, kind, name, status, error, result, input_tokens + output_tokens,
		started_at, finished_at FROM calls WHERE run_id = ? AND parent_id IN (`+strings.Join(pm, ", ")+`) ORDER BY seq`, parents...)
	if err != nil {
		return fmt.Errorf("journal: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var parent int64
		var o StepOutput
		var result sql.NullString
		var started, finished sql.NullInt64
		if err := rows.Scan(&parent, &o.Seq, &o.Kind, &o.Name, &o.Status, &o.Error, &result, &o.Tokens, &started, &finished); err != nil {
			return fmt.Errorf("journal: %w", err)
		}
		t := node[parent]
		o.Name = strings.TrimPrefix(o.Name, t.ID+" ")
		o.Output = outputOf(o.Kind, result)
		o.StartedAt, o.FinishedAt = stamp(started), stamp(finished)
		t.Outputs = append(t.Outputs, &o)
	}
	return rows.Err()
}

// outputOf is the output of a node's stored result: a step's value (a
// string as its text, the output member of a plan command's record
// {"exit_code", "output", "stderr"} or {"agent", "output"}, anything else
// as JSON), a call's answer (the TaskResult's content).
func outputOf(kind string, result sql.NullString) *string {
	if !result.Valid || !json.Valid([]byte(result.String)) {
		return nil
	}
	raw := []byte(result.String)
	var r struct {
		Content *string `json:"content"`
		Output  *string `json:"output"`
	}
	if bytes.HasPrefix(raw, []byte("{")) && json.Unmarshal(raw, &r) == nil {
		if kind != "step" && r.Content != nil {
			return r.Content
		}
		if kind == "step" && r.Output != nil {
			return r.Output
		}
	}
	var text string
	if json.Unmarshal(raw, &text) == nil {
		return &text
	}
	out := string(raw)
	return &out
}

// stamp writes a journal time (UnixNano) as RFC 3339 in UTC, as the plan
// runner writes its records; null for none.
func stamp(n sql.NullInt64) *string {
	if !n.Valid || n.Int64 == 0 {
		return nil
	}
	s := time.Unix(0, n.Int64).UTC().Format(time.RFC3339Nano)
	return &s
}

// apiPlans is GET /api/plans: the plan directories under .workflow/active.
func (s *Server) apiPlans(w http.ResponseWriter, r *http.Request) {
	ps, err := s.listPlans(r.Context())
	if err != nil {
		fail(w, err)
		return
	}
	writeJSON(w, ps)
}

// apiPlan is GET /api/plans/DIR: one plan with its tasks and their
// step outputs.
func (s *Server) apiPlan(w http.ResponseWriter, r *http.Request) {
	p, err := s.readPlan(r.Context(), r.PathValue("dir"), true)
	if err != nil {
		fail(w, err)
		return
	}
	writeJSON(w, p)
}

// apiPlanGraph is GET /api/plans/DIR/graph.svg: the dependency graph.
func (s *Server) apiPlanGraph(w http.ResponseWriter, r *http.Request) {
	p, err := s.readPlan(r.Context(), r.PathValue("dir"), false)
	if err != nil {
		fail(w, err)
		return
	}
	w.Header().Set("Content-Type", "image/svg+xml")
	w.Header().Set("Cache-Control", "no-store")
	w.Write([]byte(planGraph(p)))
}
