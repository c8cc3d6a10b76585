package plan

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

// The statuses of a task file (SPEC §23.2).
const (
	StatusPending   = "pending"
	StatusActive    = "active"
	StatusCompleted = "completed"
	StatusBlocked   = "blocked"
	StatusContainer = "container"
)

// Statuses lists the valid values of a task's status, in the order
// messages print them.
var Statuses = []string{StatusPending, StatusActive, StatusCompleted, StatusBlocked, StatusContainer}

// OnErrorPolicies lists the valid values of a pre_analysis step's
// on_error.
var OnErrorPolicies = []string{"skip_optional", "fail", "retry_once", "manual_intervention", "continue"}

// TaskTypes lists the meta.type values CCW's planners use.
var TaskTypes = []string{"feature", "bugfix", "refactor", "test-gen", "test-fix", "docs", "test-fix-iteration", "infrastructure", "enhancement", "fix", "testing", "chore"}

// Roles are the agent roles with a built-in template plan/ROLE.
var Roles = []string{"@code-developer", "@action-planning-agent", "@test-fix-agent", "@universal-executor"}

// DefaultMaxTasks is the task cap when [plan] max_tasks is not set.
const DefaultMaxTasks = 10

// Plan is a session directory read from disk: its tasks in id order,
// containers included, and the session metadata.
type Plan struct {
	// Dir is the session directory as given (.workflow/active/WFS-x).
	Dir string
	// Root is the project root: the directory holding .workflow.
	Root string
	// Topic is the session's name without the WFS- prefix.
	Topic string
	// Session is workflow-session.json, or nil when it is absent or not
	// valid JSON.
	Session *File
	// Tasks are all tasks in id order (IMPL-2 before IMPL-10, IMPL-1
	// before IMPL-1.1).
	Tasks []*Task
	byKey map[string]*Task
}

// File is a JSON file of the plan as read: its bytes, its tree and what
// change detection compares before a write.
type File struct {
	Path  string
	Src   []byte
	Root  *Node
	lines *lineIndex
	stamp stamp
}

// pos returns the line and column of an offset in the file.
func (f *File) pos(off int) (int, int) {
	if f.lines == nil {
		f.lines = newLineIndex(f.Src)
	}
	return f.lines.pos(off)
}

// lineText returns the text of a 1-based line of the file.
func (f *File) lineText(line int) string {
	if f.lines == nil {
		f.lines = newLineIndex(f.Src)
	}
	return f.lines.text(line)
}

// Task is one task file, with the fields evalrun reads.
type Task struct {
	// ID is the id as the file name writes it (IMPL-001, IMPL-1.2).
	ID string
	// Key is the canonical id: numbers without leading zeros (IMPL-1).
	Key string
	// Num holds the numbers of the id: [N] or [N, M].
	Num  []int
	File *File

	Title  string
	Status string
	// Type, Agent and Tool are meta.type, meta.agent and meta.tool.
	Type, Agent, Tool string
	// DependsOn is the union of the top-level and context depends_on
	// lists, as canonical keys, without duplicates.
	DependsOn    []string
	Parent       *Task
	Subtasks     []*Task
	FocusPaths   []string
	Requirements []string
	Acceptance   []string
	TargetFiles  []string
	PreAnalysis  []PreStep
	Approach     []ApproachStep
	// HasFlow reports whether flow_control is present (or the task is
	// Flat, whose steps stand at the top level).
	HasFlow bool
	// Flat reports a task in CCW's unified flat schema: description,
	// focus_paths, convergence, files, pre_analysis and implementation
	// at the top level, without context and flow_control.
	Flat bool
}

// IsContainer reports whether the task has subtasks.
func (t *Task) IsContainer() bool { return len(t.Subtasks) > 0 }

// PreStep is one step of flow_control.pre_analysis.
type PreStep struct {
	Name     string
	Action   string
	Commands []string
	OutputTo string
	// OnError is the policy; "" means fail.
	OnError string
	Node    *Node
}

// ApproachStep is one step of flow_control.implementation_approach.
type ApproachStep struct {
	Number      int
	Title       string
	Description string
	// Points are the modification_points and logic_flow lines.
	Points    []string
	DependsOn []int
	Command   string
	Output    string
	Node      *Node
}

// Task returns the task whose canonical or written id is id.
func (p *Plan) Task(id string) (*Task, bool) {
	k, ok := canonical(id)
	if !ok {
		return nil, false
	}
	t, ok := p.byKey[k]
	return t, ok
}

// Leaves returns the tasks without subtasks in id order.
func (p *Plan) Leaves() []*Task {
	var out []*Task
	for _, t := range p.Tasks {
		if !t.IsContainer() {
			out = append(out, t)
		}
	}
	return out
}

// Containers returns the number of tasks with subtasks.
func (p *Plan) Containers() int {
	n := 0
	for _, t := range p.Tasks {
		if t.IsContainer() {
			n++
		}
	}
	return n
}

// moduleBase encodes the module letter of a multi-module id in its first
// number: IMPL-B3 is (2 × moduleBase + 3), so that the ids of a module
// sort together, after the plain ids and in module order.
const moduleBase = 1_000_000

// fixModule is the module number of the fix tasks CCW's test cycle adds
// to a session, IMPL-fix-N: after every module of letters.
const fixModule = 27

// parseID reads IMPL-N, IMPL-N.M or deeper ids (as written in a file name
// or a reference) into its numbers; ok is false for anything else,
// lower case included. The first part may carry the module letter of
// CCW's multi-module plans, IMPL-A1 (one capital letter, then N), or be a
// fix task of CCW's test cycle, IMPL-fix-N.
func parseID(s string) (nums []int, ok bool) {
	rest, found := strings.CutPrefix(s, "IMPL-")
	if !found || rest == "" {
		return nil, false
	}
	for part := range strings.SplitSeq(rest, ".") {
		module := 0
		if len(nums) == 0 && part != "" && part[0] >= 'A' && part[0] <= 'Z' {
			module, part = int(part[0]-'A')+1, part[1:]
		} else if fix, ok := strings.CutPrefix(part, "fix-"); ok && len(nums) == 0 {
			module, part = fixModule, fix
		}
		if part == "" || strings.Trim(part, "0123456789") != "" {
			return nil, false
		}
		n, err := strconv.Atoi(part)
		if err != nil || n <= 0 || n >= moduleBase {
			return nil, false
		}
		nums = append(nums, module*moduleBase+n)
	}
	return nums, true
}

// keyOf writes numbers as a canonical id.
func keyOf(nums []int) string {
	parts := make([]string, len(nums))
	for i, n := range nums {
		parts[i] = strconv.Itoa(n % moduleBase)
		if m := n / moduleBase; i == 0 && m == fixModule {
			parts[i] = "fix-" + parts[i]
		} else if i == 0 && m > 0 {
			parts[i] = string(rune('A'+m-1)) + parts[i]
		}
	}
	return "IMPL-" + strings.Join(parts, ".")
}

// canonical returns the canonical form of an id (IMPL-001.02 → IMPL-1.2).
func canonical(id string) (string, bool) {
	nums, ok := parseID(id)
	if !ok {
		return "", false
	}
	return keyOf(nums), true
}

// lessNums orders ids numerically, a parent before its subtasks.
func lessNums(a, b []int) int { return slices.Compare(a, b) }

// FindSession returns the session directory under root/.workflow/active
// when there is exactly one WFS-* directory; otherwise an error of kind
// *SessionError listing what it found. With none there, the WFS-*
// directories of root/.workflow itself count, where older CCW versions
// put their sessions.
func FindSession(root string) (string, error) {
	base := filepath.Join(root, ".workflow", "active")
	found, err := sessionDirs(base)
	if err != nil {
		return "", err
	}
	if len(found) == 0 {
		older := filepath.Join(root, ".workflow")
		if found, err = sessionDirs(older); err != nil {
			return "", err
		}
		if len(found) > 0 {
			base = older
		}
	}
	if len(found) == 1 {
		return found[0], nil
	}
	return "", &SessionError{Base: base, Found: found}
}

// sessionDirs lists the WFS-* directories of base; none when base does
// not exist.
func sessionDirs(base string) ([]string, error) {
	entries, err := os.ReadDir(base)
	if err != nil && !os.IsNotExist(err) {
		return nil, err
	}
	var found []string
	for _, e := range entries {
		if e.IsDir() && strings.HasPrefix(e.Name(), "WFS-") {
			found = append(found, filepath.Join(base, e.Name()))
		}
	}
	return found, nil
}

// FindSessionFrom looks for .workflow/active in dir and its ancestors and
// returns FindSession of the first that has one, as a path relative to
// dir when it can be; with none anywhere it is FindSession(dir).
func FindSessionFrom(dir string) (string, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return FindSession(dir)
	}
	for d := abs; ; {
		older, _ := sessionDirs(filepath.Join(d, ".workflow"))
		if fi, err := os.Stat(filepath.Join(d, ".workflow", "active")); err == nil && fi.IsDir() || len(older) > 0 {
			found, err := FindSession(d)
			if se, ok := err.(*SessionError); ok {
				se.Base = relTo(abs, se.Base)
				for i := range se.Found {
					se.Found[i] = relTo(abs, se.Found[i])
				}
			}
			if err != nil {
				return "", err
			}
			if rel, err := filepath.Rel(abs, found); err == nil {
				return rel, nil
			}
			return found, nil
		}
		parent := filepath.Dir(d)
		if parent == d {
			return FindSession(dir)
		}
		d = parent
	}
}

// relTo returns path relative to base when it can be.
func relTo(base, path string) string {
	if rel, err := filepath.Rel(base, path); err == nil {
		return rel
	}
	return path
}

// SessionError says that no session directory, or several, exist where
// one was expected; the command line maps it to a usage error.
type SessionError struct {
	Base  string
	Found []string
}

// Error returns the message.
func (e *SessionError) Error() string {
	if len(e.Found) == 0 {
		return fmt.Sprintf("no WFS-* session directory under %s; give the plan directory", e.Base)
	}
	return fmt.Sprintf("%d session directories under %s, give one of them:\n  %s", len(e.Found), e.Base, strings.Join(e.Found, "\n  "))
}

// projectRoot returns the directory holding the .workflow directory that
// contains dir, or dir's parent when there is none.
func projectRoot(dir string) string {
	abs, err := filepath.Abs(dir)
	if err != nil {
		abs = dir
	}
	for d := abs; ; {
		if filepath.Base(d) == ".workflow" {
			return filepath.Dir(d)
		}
		parent := filepath.Dir(d)
		if parent == d {
			break
		}
		d = parent
	}
	return filepath.Dir(abs)
}
