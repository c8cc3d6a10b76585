package serve

import (
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"
)

// The plan reader below reads CCW plan folders (SPEC §23.1) directly with
// encoding/json, for the plan page and its graph. It reads what a plan
// page shows and validates nothing: `evalrun plan check` does that.

// plansDir is where plans live below the project root.
const plansDir = ".workflow/active"

// PlanTask is a task of a plan as `plan status --json` prints it (SPEC
// §23.5), with the viewer's additions: the file's own status, the
// unfinished dependencies that block it, whether it is the current
// position, its children, its task JSON and its summary.
type PlanTask struct {
	ID         string   `json:"id"`
	Title      string   `json:"title"`
	Status     string   `json:"status"`
	Agent      string   `json:"agent"`
	DependsOn  []string `json:"depends_on"`
	Parent     *string  `json:"parent"`
	StartedAt  *string  `json:"started_at"`
	FinishedAt *string  `json:"finished_at"`
	Run        *string  `json:"run"`
	Tokens     int64    `json:"tokens"`
	CostUSD    *float64 `json:"cost_usd"`

	// FileStatus is the status written in the task file.
	FileStatus string `json:"file_status"`
	// BlockedBy lists the unfinished dependencies of a blocked task.
	BlockedBy []string `json:"blocked_by"`
	Current   bool     `json:"current"`
	Children  []string `json:"children"`
	// JSON is the task file as written; Summary the text of its
	// .summaries/ID-summary.md (null when there is none).
	JSON    json.RawMessage `json:"json"`
	Summary *string         `json:"summary"`
	// Steps are the titles of its pre_analysis and implementation steps.
	Steps []PlanStep `json:"steps"`

	num []int // the id's numbers, for ordering
}

// PlanStep is one step of a task's flow_control.
type PlanStep struct {
	Phase   string `json:"phase"` // pre_analysis or implementation
	Name    string `json:"name"`
	Command string `json:"command,omitempty"`
	Output  string `json:"output,omitempty"`
}

// Plan is /api/plans/DIR: the session metadata, the tasks in id order and
// the current task.
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

var (
	taskFileRE = regexp.MustCompile(`^IMPL-([0-9]+)(?:\.([0-9]+))?\.json$`)
	planDirRE  = regexp.MustCompile(`^WFS-[^/\\]+$`)
)

// taskFile is the part of a task file the viewer reads.
type taskFile struct {
	ID        string          `json:"id"`
	Title     string          `json:"title"`
	Status    string          `json:"status"`
	DependsOn []string        `json:"depends_on"`
	Meta      json.RawMessage `json:"meta"`
	Context   struct {
		Parent    string   `json:"parent"`
		DependsOn []string `json:"depends_on"`
	} `json:"context"`
	FlowControl struct {
		PreAnalysis []struct {
			Step     string   `json:"step"`
			Command  string   `json:"command"`
			Commands []string `json:"commands"`
			OutputTo string   `json:"output_to"`
		} `json:"pre_analysis"`
		Implementation []struct {
			Step    json.RawMessage `json:"step"`
			Title   string          `json:"title"`
			Command string          `json:"command"`
			Output  string          `json:"output"`
		} `json:"implementation_approach"`
	} `json:"flow_control"`
}

// listPlans returns the plan directories under root, newest first.
func listPlans(root string) ([]*PlanSummary, error) {
	ents, err := os.ReadDir(filepath.Join(root, plansDir))
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
		p, err := readPlan(root, e.Name())
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

// readPlan reads the plan directory .workflow/active/DIR under root.
func readPlan(root, dir string) (*Plan, error) {
	if !planDirRE.MatchString(dir) {
		return nil, fmt.Errorf("plan %s: %w", dir, errNotFound)
	}
	base := filepath.Join(root, plansDir, dir)
	st, err := os.Stat(base)
	if err != nil || !st.IsDir() {
		return nil, fmt.Errorf("plan %s: %w", dir, errNotFound)
	}
	p := &Plan{Dir: dir, Path: filepath.ToSlash(filepath.Join(plansDir, dir)), Session: jsonNull, Tasks: []*PlanTask{},
		Problems: []string{}, Counts: map[string]int{}}
	newest := st.ModTime()
	if b, err := os.ReadFile(filepath.Join(base, "workflow-session.json")); err == nil && json.Valid(b) {
		p.Session = json.RawMessage(b)
	}
	ents, _ := os.ReadDir(filepath.Join(base, ".task"))
	for _, e := range ents {
		m := taskFileRE.FindStringSubmatch(e.Name())
		if m == nil || e.IsDir() {
			continue
		}
		path := filepath.Join(base, ".task", e.Name())
		b, err := os.ReadFile(path)
		if err != nil {
			p.Problems = append(p.Problems, fmt.Sprintf("%s: %v", e.Name(), err))
			continue
		}
		if info, err := e.Info(); err == nil && info.ModTime().After(newest) {
			newest = info.ModTime()
		}
		var tf taskFile
		if err := json.Unmarshal(b, &tf); err != nil {
			p.Problems = append(p.Problems, fmt.Sprintf("%s: not valid JSON: %v", e.Name(), err))
			continue
		}
		id := strings.TrimSuffix(e.Name(), ".json")
		t := &PlanTask{ID: id, Title: tf.Title, FileStatus: tf.Status, JSON: json.RawMessage(b),
			DependsOn: []string{}, BlockedBy: []string{}, Children: []string{}, Steps: []PlanStep{}}
		t.num = idNumbers(m)
		t.ID = canonicalID(t.num)
		var meta struct {
			Agent string `json:"agent"`
		}
		_ = json.Unmarshal(tf.Meta, &meta)
		t.Agent = meta.Agent
		seen := map[string]bool{}
		for _, d := range append(append([]string{}, tf.DependsOn...), tf.Context.DependsOn...) {
			if d = normaliseID(d); d != "" && !seen[d] {
				seen[d] = true
				t.DependsOn = append(t.DependsOn, d)
			}
		}
		if len(t.num) == 2 {
			parent := canonicalID(t.num[:1])
			t.Parent = &parent
		}
		for _, s := range tf.FlowControl.PreAnalysis {
			cmd := s.Command
			if cmd == "" && len(s.Commands) > 0 {
				cmd = strings.Join(s.Commands, "; ")
			}
			t.Steps = append(t.Steps, PlanStep{Phase: "pre_analysis", Name: s.Step, Command: cmd, Output: s.OutputTo})
		}
		for _, s := range tf.FlowControl.Implementation {
			name := s.Title
			if name == "" {
				name = strings.Trim(string(s.Step), `"`)
			}
			t.Steps = append(t.Steps, PlanStep{Phase: "implementation", Name: name, Command: s.Command, Output: s.Output})
		}
		if b, err := os.ReadFile(filepath.Join(base, ".summaries", t.ID+"-summary.md")); err == nil {
			s := string(b)
			t.Summary = &s
		}
		p.Tasks = append(p.Tasks, t)
	}
	sort.Slice(p.Tasks, func(i, j int) bool { return lessNums(p.Tasks[i].num, p.Tasks[j].num) })
	derive(p)
	u := newest.Local().Format(time.RFC3339)
	p.UpdatedAt = &u
	return p, nil
}

// idNumbers returns the numbers of IMPL-N or IMPL-N.M.
func idNumbers(m []string) []int {
	n, _ := strconv.Atoi(m[1])
	out := []int{n}
	if m[2] != "" {
		k, _ := strconv.Atoi(m[2])
		out = append(out, k)
	}
	return out
}

// canonicalID writes numbers as IMPL-N[.M] without zero padding.
func canonicalID(num []int) string {
	parts := make([]string, len(num))
	for i, n := range num {
		parts[i] = strconv.Itoa(n)
	}
	return "IMPL-" + strings.Join(parts, ".")
}

// normaliseID turns IMPL-001 into IMPL-1; other text is kept.
func normaliseID(id string) string {
	id = strings.TrimSpace(id)
	if m := taskFileRE.FindStringSubmatch(id + ".json"); m != nil {
		return canonicalID(idNumbers(m))
	}
	return id
}

func lessNums(a, b []int) bool {
	for i := 0; i < len(a) && i < len(b); i++ {
		if a[i] != b[i] {
			return a[i] < b[i]
		}
	}
	return len(a) < len(b)
}

// derive sets each task's derived state (SPEC §23.5): completed; active
// (the file says active); blocked (the file says blocked, or a dependency
// — its own or its container's — is not completed); else pending. A
// container is completed when all its subtasks are, active when any has
// started, blocked when all unfinished ones are, else pending. The current
// task is the first incomplete leaf in id order whose dependencies are met.
func derive(p *Plan) {
	byID := map[string]*PlanTask{}
	for _, t := range p.Tasks {
		byID[t.ID] = t
	}
	for _, t := range p.Tasks {
		if t.Parent != nil {
			if par := byID[*t.Parent]; par != nil {
				par.Children = append(par.Children, t.ID)
			}
		}
	}
	done := func(id string) bool {
		t := byID[id]
		if t == nil {
			return false
		}
		if len(t.Children) == 0 {
			return t.FileStatus == "completed"
		}
		for _, c := range t.Children {
			if byID[c].FileStatus != "completed" {
				return false
			}
		}
		return true
	}
	unmet := func(t *PlanTask) []string {
		var out []string
		deps := t.DependsOn
		if t.Parent != nil {
			if par := byID[*t.Parent]; par != nil {
				deps = append(append([]string{}, deps...), par.DependsOn...)
			}
		}
		for _, d := range deps {
			if !done(d) {
				out = append(out, d)
			}
		}
		return out
	}
	for _, t := range p.Tasks {
		if len(t.Children) > 0 {
			continue
		}
		switch t.FileStatus {
		case "completed":
			t.Status = "completed"
		case "active":
			t.Status = "active"
		case "blocked":
			t.Status = "blocked"
			t.BlockedBy = append(t.BlockedBy, unmet(t)...)
		default:
			if u := unmet(t); len(u) > 0 {
				t.Status, t.BlockedBy = "blocked", u
			} else {
				t.Status = "pending"
			}
		}
	}
	for _, t := range p.Tasks {
		if len(t.Children) == 0 {
			continue
		}
		n := map[string]int{}
		for _, c := range t.Children {
			n[byID[c].Status]++
		}
		switch {
		case n["completed"] == len(t.Children):
			t.Status = "completed"
		case n["active"] > 0 || (n["completed"] > 0 && n["pending"] > 0):
			t.Status = "active"
		case n["blocked"]+n["completed"] == len(t.Children):
			t.Status = "blocked"
			t.BlockedBy = unmet(t)
		default:
			t.Status = "pending"
		}
	}
	for _, t := range p.Tasks {
		p.Counts[t.Status]++
		if p.Current == nil && len(t.Children) == 0 && t.Status != "completed" && len(unmet(t)) == 0 {
			t.Current = true
			id := t.ID
			p.Current = &id
		}
	}
}

// apiPlans is GET /api/plans: the plan directories under .workflow/active.
func (s *Server) apiPlans(w http.ResponseWriter, r *http.Request) {
	ps, err := listPlans(s.opts.Root)
	if err != nil {
		fail(w, err)
		return
	}
	writeJSON(w, ps)
}

// apiPlan is GET /api/plans/DIR: one plan with its tasks.
func (s *Server) apiPlan(w http.ResponseWriter, r *http.Request) {
	p, err := readPlan(s.opts.Root, r.PathValue("dir"))
	if err != nil {
		fail(w, err)
		return
	}
	writeJSON(w, p)
}

// apiPlanGraph is GET /api/plans/DIR/graph.svg: the dependency graph.
func (s *Server) apiPlanGraph(w http.ResponseWriter, r *http.Request) {
	p, err := readPlan(s.opts.Root, r.PathValue("dir"))
	if err != nil {
		fail(w, err)
		return
	}
	w.Header().Set("Content-Type", "image/svg+xml")
	w.Header().Set("Cache-Control", "no-store")
	w.Write([]byte(planGraph(p)))
}
