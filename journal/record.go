package journal

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/evalrun/evalrun/value"
)

// RunInfo describes a run being started.
type RunInfo struct {
	// WorkflowPath is the workflow file as given on the command line.
	WorkflowPath string
	// WorkflowSHA256 is the lowercase hex SHA-256 of its text (HashWorkflow).
	WorkflowSHA256 string
	// Args holds the --set values and flags needed to run it again, or nil.
	Args value.Value
	// ResumedFrom is the id of the run this one resumes, or "".
	ResumedFrom string
	// StartedAt is the start time; zero means now.
	StartedAt time.Time
}

// HashWorkflow returns the lowercase hex SHA-256 of a workflow's text.
func HashWorkflow(text []byte) string {
	sum := sha256.Sum256(text)
	return hex.EncodeToString(sum[:])
}

// Usage is the token and turn count of a call.
type Usage struct {
	InputTokens  int64
	OutputTokens int64
	Turns        int
}

// Tokens returns input plus output tokens.
func (u Usage) Tokens() int64 { return u.InputTokens + u.OutputTokens }

// Run records one run. Its methods are safe for concurrent use.
type Run struct {
	store   *Store
	id      string
	started time.Time

	mu      sync.Mutex // guards seq and pending; taken after store.wmu
	seq     int
	pending []*Call
}

// StartRun records a new run with status running and returns it. Its id is
// the start time and four random hex digits, 20250106-140300-a1b2.
func (s *Store) StartRun(info RunInfo) (*Run, error) {
	start := info.StartedAt
	if start.IsZero() {
		start = s.now()
	}
	s.wmu.Lock()
	defer s.wmu.Unlock()
	var lastErr error
	for range 16 {
		id := start.Local().Format("20060102-150405") + "-" + s.random()
		var n int
		if err := s.db.QueryRow("SELECT COUNT(*) FROM runs WHERE id = ?", id).Scan(&n); err != nil {
			return nil, fmt.Errorf("journal: %w", err)
		}
		if n > 0 {
			lastErr = fmt.Errorf("journal: run id %s already taken", id)
			continue
		}
		_, err := s.db.Exec(`INSERT INTO runs (id, workflow, workflow_sha, arguments, status, resumed_from, started_at)
			VALUES (?, ?, ?, ?, ?, ?, ?)`, id, info.WorkflowPath, info.WorkflowSHA256, jsonValue(info.Args),
			StatusRunning, info.ResumedFrom, start.UnixNano())
		if err != nil {
			return nil, fmt.Errorf("journal: %w", err)
		}
		return &Run{store: s, id: id, started: start}, nil
	}
	return nil, lastErr
}

// ID returns the run id.
func (r *Run) ID() string { return r.id }

// StartedAt returns the run's start time (what {{date}} shows).
func (r *Run) StartedAt() time.Time { return r.started }

// Finish records the end of the run: its status (completed or failed), its
// final value (nil for none) and its error (nil for none).
func (r *Run) Finish(status string, final value.Value, err error) error {
	msg := ""
	if err != nil {
		msg = err.Error()
	}
	_, e := r.store.exec("UPDATE runs SET status = ?, finished_at = ?, final = ?, error = ? WHERE id = ?",
		status, r.store.now().UnixNano(), jsonValue(final), msg, r.id)
	if e != nil {
		return fmt.Errorf("journal: %w", e)
	}
	return nil
}

// Call is one node of a run's tree: a task, tool or step call. Its methods
// are safe for concurrent use.
type Call struct {
	run    *Run
	id     int64
	parent *Call
	seq    int
	kind   string
	name   string

	mu      sync.Mutex
	status  string
	claimed bool // a pending step node taken by Begin
}

// ID returns the call's row id.
func (c *Call) ID() int64 { return c.id }

// Seq returns the call's sequence number in its run, from 1.
func (c *Call) Seq() int { return c.seq }

// Kind returns task, tool or step.
func (c *Call) Kind() string { return c.kind }

// Name returns the template, tool or step name.
func (c *Call) Name() string { return c.name }

// Parent returns the parent call, or nil at the top level.
func (c *Call) Parent() *Call { return c.parent }

// Run returns the run the call belongs to.
func (c *Call) Run() *Run { return c.run }

// Status returns the status last recorded.
func (c *Call) Status() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.status
}

// TaskID returns RUN-ID/SEQ, the notes.task_id of SPEC §11.5.
func (c *Call) TaskID() string { return c.run.id + "/" + strconv.Itoa(c.seq) }

func checkKind(kind string) error {
	switch kind {
	case KindTask, KindTool, KindStep:
		return nil
	}
	return fmt.Errorf("journal: unknown call kind %q", kind)
}

// Begin records a call made inside parent (nil at the top level) and
// assigns it the next seq. Tasks and tools start pending (waiting for a
// concurrency slot: call Running when they get one); steps start running.
//
// A step first claims the first unclaimed pending node of the same name
// under the same parent (AddPendingSteps), which then keeps its seq and
// becomes running; only when there is none is a new node created.
func (r *Run) Begin(parent *Call, kind, name, inputHash string, inputs value.Value) (*Call, error) {
	if err := checkKind(kind); err != nil {
		return nil, err
	}
	if parent != nil && parent.run != r {
		return nil, fmt.Errorf("journal: parent call %s is not in run %s", parent.TaskID(), r.id)
	}
	s := r.store
	s.wmu.Lock()
	defer s.wmu.Unlock()
	r.mu.Lock()
	defer r.mu.Unlock()
	now := s.now()
	if kind == KindStep {
		for _, p := range r.pending {
			p.mu.Lock()
			if p.claimed || p.parent != parent || p.name != name {
				p.mu.Unlock()
				continue
			}
			_, err := s.db.Exec("UPDATE calls SET status = ?, input_hash = ?, inputs = ?, started_at = ? WHERE id = ?",
				StatusRunning, inputHash, jsonValue(inputs), now.UnixNano(), p.id)
			if err != nil {
				p.mu.Unlock()
				return nil, fmt.Errorf("journal: %w", err)
			}
			p.claimed = true
			p.status = StatusRunning
			p.mu.Unlock()
			return p, nil
		}
	}
	status := StatusPending
	var started any
	if kind == KindStep {
		status, started = StatusRunning, now.UnixNano()
	}
	return r.insert(parent, kind, name, status, inputHash, inputs, started)
}

// insert adds a node; the caller holds store.wmu and r.mu.
func (r *Run) insert(parent *Call, kind, name, status, inputHash string, inputs value.Value, started any) (*Call, error) {
	var parentID any
	if parent != nil {
		parentID = parent.id
	}
	seq := r.seq + 1
	res, err := r.store.db.Exec(`INSERT INTO calls (run_id, parent_id, seq, kind, name, status, input_hash, inputs, started_at)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`, r.id, parentID, seq, kind, name, status, inputHash, jsonValue(inputs), started)
	if err != nil {
		return nil, fmt.Errorf("journal: %w", err)
	}
	id, err := res.LastInsertId()
	if err != nil {
		return nil, fmt.Errorf("journal: %w", err)
	}
	r.seq = seq
	return &Call{run: r, id: id, parent: parent, seq: seq, kind: kind, name: name, status: status}, nil
}

// AddPendingSteps creates pending top-level step nodes, in order, for the
// plan shown by the checklist (SPEC §16.2). A later Begin of a step with
// the same name claims them one by one.
func (r *Run) AddPendingSteps(names []string) ([]*Call, error) {
	return r.addPending(nil, names)
}

// AddPendingSteps creates pending step nodes inside the step c, in order:
// the statically known steps nested in it.
func (c *Call) AddPendingSteps(names []string) ([]*Call, error) {
	return c.run.addPending(c, names)
}

func (r *Run) addPending(parent *Call, names []string) ([]*Call, error) {
	s := r.store
	s.wmu.Lock()
	defer s.wmu.Unlock()
	r.mu.Lock()
	defer r.mu.Unlock()
	out := make([]*Call, 0, len(names))
	for _, n := range names {
		c, err := r.insert(parent, KindStep, n, StatusPending, "", nil, nil)
		if err != nil {
			return out, err
		}
		r.pending = append(r.pending, c)
		out = append(out, c)
	}
	return out, nil
}

// SetStatus records a new status without ending the call (pending or
// running; use End for the final ones).
func (c *Call) SetStatus(status string) error {
	s := c.run.store
	s.wmu.Lock()
	defer s.wmu.Unlock()
	var err error
	if status == StatusRunning {
		_, err = s.db.Exec("UPDATE calls SET status = ?, started_at = COALESCE(started_at, ?) WHERE id = ?",
			status, s.now().UnixNano(), c.id)
	} else {
		_, err = s.db.Exec("UPDATE calls SET status = ? WHERE id = ?", status, c.id)
	}
	if err != nil {
		return fmt.Errorf("journal: %w", err)
	}
	c.mu.Lock()
	c.status = status
	c.mu.Unlock()
	return nil
}

// SetInput records the input hash and inputs of a call begun before they
// were known (a call waiting for its concurrency slot).
func (c *Call) SetInput(inputHash string, inputs value.Value) error {
	s := c.run.store
	s.wmu.Lock()
	defer s.wmu.Unlock()
	if _, err := s.db.Exec("UPDATE calls SET input_hash = ?, inputs = ? WHERE id = ?", inputHash, jsonValue(inputs), c.id); err != nil {
		return fmt.Errorf("journal: %w", err)
	}
	return nil
}

// Running marks the call running: it has its concurrency slot.
func (c *Call) Running() error { return c.SetStatus(StatusRunning) }

// End records the outcome of the call: status completed, failed or
// skipped; its result (a TaskResult for tasks and tools, the step's value
// for steps; nil for none); the error message ("" for none); the usage
// summed over its session; the number of attempts (steps; 0 otherwise);
// and whether the result was replayed from an earlier run.
func (c *Call) End(status string, result value.Value, errMsg string, usage Usage, attempts int, replayed bool) error {
	switch status {
	case StatusCompleted, StatusFailed, StatusSkipped:
	default:
		return fmt.Errorf("journal: call %s cannot end with status %q", c.TaskID(), status)
	}
	s := c.run.store
	s.wmu.Lock()
	defer s.wmu.Unlock()
	now := s.now().UnixNano()
	_, err := s.db.Exec(`UPDATE calls SET status = ?, result = ?, error = ?, attempts = ?, input_tokens = ?,
		output_tokens = ?, turns = ?, replayed = ?, started_at = COALESCE(started_at, ?), finished_at = ? WHERE id = ?`,
		status, jsonValue(result), errMsg, attempts, usage.InputTokens, usage.OutputTokens, usage.Turns,
		replayed, now, now, c.id)
	if err != nil {
		return fmt.Errorf("journal: %w", err)
	}
	c.mu.Lock()
	c.status = status
	c.mu.Unlock()
	return nil
}

// decodeResult reads a stored result: for tasks and tools, an object with
// the four TaskResult keys becomes a *value.TaskResult again.
func decodeResult(kind, text string) (value.Value, error) {
	v, err := value.ParseJSON(text)
	if err != nil {
		return nil, err
	}
	if kind == KindStep {
		return v, nil
	}
	return asTaskResult(v), nil
}

func asTaskResult(v value.Value) value.Value {
	d, ok := v.(*value.Dict)
	if !ok || d.Len() != 4 {
		return v
	}
	st, ok1 := d.Get("status")
	content, ok2 := d.Get("content")
	parsed, ok3 := d.Get("parsedContent")
	notes, ok4 := d.Get("notes")
	sst, okS := st.(value.String)
	sc, okC := content.(value.String)
	nd, okN := notes.(*value.Dict)
	if !ok1 || !ok2 || !ok3 || !ok4 || !okS || !okC || !okN {
		return v
	}
	if _, isNull := parsed.(value.Null); isNull {
		parsed = nil
	}
	return &value.TaskResult{Status: string(sst), Content: string(sc), Parsed: parsed, Notes: nd}
}

// firstLine returns the first line of s, cut to max code points; a cut
// (or dropped further lines) is shown with " …".
func firstLine(s string, max int) string {
	s = strings.TrimSpace(s)
	line, rest, more := strings.Cut(s, "\n")
	line = strings.TrimRight(line, " \t\r")
	cut := more && strings.TrimSpace(rest) != ""
	if r := []rune(line); len(r) > max {
		line, cut = strings.TrimRight(string(r[:max]), " "), true
	}
	if cut {
		return line + " …"
	}
	return line
}
