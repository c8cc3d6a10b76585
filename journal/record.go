package journal

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
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
	// MaxCostUSD and MaxTokens are the budgets given for the run
	// (--max-cost, --max-tokens; 0 when none), which a run resuming it
	// keeps unless it is given new ones (SPEC §14.9).
	MaxCostUSD float64
	MaxTokens  int64
	// OmitWithoutCalls leaves out of a lazy store (OpenLazy) a run that
	// completes without making a call: nothing of it is written (evalrun
	// eval of an expression). Every other run is recorded.
	OmitWithoutCalls bool
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
	// CostUSD is the call's cost in US dollars (SPEC §14.9), nil when it
	// is unknown; the column cost_usd is then NULL.
	CostUSD *float64
}

// Cost returns a known cost as a pointer for Usage.CostUSD: nil when not
// known.
func Cost(usd float64, known bool) *float64 {
	if !known {
		return nil
	}
	return &usd
}

// costArg is the SQL argument of a cost: NULL when unknown.
func costArg(c *float64) any {
	if c == nil {
		return nil
	}
	return *c
}

// Tokens returns input plus output tokens.
func (u Usage) Tokens() int64 { return u.InputTokens + u.OutputTokens }

// Run records one run. Its methods are safe for concurrent use.
type Run struct {
	store   *Store
	started time.Time
	info    RunInfo

	recordMu sync.Mutex // serialises record

	mu       sync.Mutex // guards the fields below; never held while waiting for a commit
	id       string
	seq      int
	pending  []*Call
	recorded bool // the run's writes go to the store's queue
	held     []op // the writes of a run not recorded yet (OpenLazy)
	// rowTicket is the ticket of the last write queueHeld queued (the
	// run's row and its planned steps); rowCommitted is set once it is
	// known to be committed (waitRow).
	rowTicket    uint64
	rowCommitted atomic.Bool
}

// StartRun starts a run with status running and returns it. Its id is the
// start time and four random hex digits, 20250106-140300-a1b2. On a store
// opened with Open the run is written now; with OpenLazy, when its first
// call begins or when it finishes (see Finish).
func (s *Store) StartRun(info RunInfo) (*Run, error) {
	start := info.StartedAt
	if start.IsZero() {
		start = s.now()
	}
	info.StartedAt = start
	r := &Run{store: s, started: start, info: info, id: s.newRunID(start)}
	r.held = []op{r.insertRun}
	if !s.lazy {
		if err := r.record(); err != nil {
			return nil, err
		}
	}
	return r, nil
}

func (s *Store) newRunID(start time.Time) string {
	return start.Local().Format("20060102-150405") + "-" + s.random()
}

// insertRun writes the run's row. An id already taken (by another process
// started in the same second that drew the same random digits) is never
// overwritten: the run takes new random digits and tries again. The check
// is the insert itself, so two processes cannot both see an id free; no
// call of the run has been written yet, so nothing refers to the old id.
func (r *Run) insertRun(w *stmts) error {
	info := r.info
	for range 16 {
		id := r.ID()
		res, err := w.insertRun.ExecContext(w.ctx, id, info.WorkflowPath, info.WorkflowSHA256, jsonValue(info.Args),
			StatusRunning, info.ResumedFrom, r.started.UnixNano(), info.MaxCostUSD, info.MaxTokens,
			r.store.owner.PID, r.store.owner.Host, r.store.owner.Start)
		if err != nil {
			return err
		}
		if n, err := res.RowsAffected(); err != nil || n == 1 {
			return err
		}
		r.mu.Lock()
		r.id = r.store.newRunID(r.started)
		r.mu.Unlock()
	}
	return fmt.Errorf("run id %s already taken", r.ID())
}

// record writes the run and its held writes (its pending steps), once,
// and returns when they are committed.
func (r *Run) record() error {
	if t := r.queueHeld(); t != 0 {
		return r.store.wait(t)
	}
	return nil
}

// recordAsync writes the run and its held writes, once, without waiting:
// they are committed in the background, opening the database first when
// that has not happened yet, while the first call goes on (a model call
// takes far longer). A failure is reported by the next synchronous write
// or End, which waits for this commit as for its own.
func (r *Run) recordAsync() {
	t := r.queueHeld()
	if t == 0 {
		return
	}
	s := r.store
	s.q.mu.Lock()
	if s.q.closed {
		s.q.mu.Unlock()
		return // Close commits what is queued
	}
	s.q.timerWG.Add(1) // Close waits for it as for the flush timer
	s.q.mu.Unlock()
	go func() {
		defer s.q.timerWG.Done()
		if err := s.flushTo(t); err != nil {
			s.q.mu.Lock()
			if s.q.asyncErr == nil {
				s.q.asyncErr = err
			}
			s.q.mu.Unlock()
		}
	}()
}

// queueHeld queues the run's held writes, the first time only, and
// returns the ticket of the last; 0 when the run was recorded before.
func (r *Run) queueHeld() uint64 {
	r.recordMu.Lock()
	defer r.recordMu.Unlock()
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.recorded {
		return 0
	}
	var ticket uint64
	for _, o := range r.held {
		ticket = r.store.enqueue(o, false)
	}
	r.held, r.recorded, r.rowTicket = nil, true, ticket
	return ticket
}

// waitRow returns once the run's row is committed. A call's end made
// durable in the call log must not outlive its run's row: a process
// killed after the end and before the row's commit would leave calls
// that no run holds.
func (r *Run) waitRow() error {
	if r.rowCommitted.Load() {
		return nil
	}
	r.mu.Lock()
	t := r.rowTicket
	r.mu.Unlock()
	if t == 0 {
		return nil // not queued: written with the call's own commit
	}
	if err := r.store.flushTo(t); err != nil {
		return err
	}
	q := &r.store.q
	q.mu.Lock()
	failed := q.failFrom < t && t <= q.failTo
	q.mu.Unlock()
	if failed {
		return errors.New("journal: the run's row was not written")
	}
	r.rowCommitted.Store(true)
	return nil
}

// queue queues a write of the run; the caller holds r.mu.
func (r *Run) queue(o op) {
	if r.recorded {
		r.store.enqueue(o, true)
	} else {
		r.held = append(r.held, o)
	}
}

// ID returns the run id.
func (r *Run) ID() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.id
}

// StartedAt returns the run's start time (what {{date}} shows).
func (r *Run) StartedAt() time.Time { return r.started }

// Finish records the end of the run: its status (completed or failed), its
// final value (nil for none) and its error (nil for none). A run of a lazy
// store (OpenLazy) that made no call is written now, with its pending
// steps and its end in one commit; with RunInfo.OmitWithoutCalls, only
// when it failed, so that status can show why.
func (r *Run) Finish(status string, final value.Value, err error) error {
	r.mu.Lock()
	recorded := r.recorded
	r.mu.Unlock()
	if !recorded && status != StatusFailed && r.info.OmitWithoutCalls {
		return nil
	}
	msg := ""
	if err != nil {
		msg = err.Error()
	}
	finished, finalJSON := r.store.now().UnixNano(), finalValueJSON(final)
	r.queueHeld() // committed with the end, in one batch
	return r.store.sync(func(w *stmts) error {
		_, err := w.finishRun.ExecContext(w.ctx, status, finished, finalJSON, msg, r.ID())
		return err
	})
}

// MaxFinalBytes bounds the JSON of a run's final value in the journal. A
// larger final value (a program whose result is a 10 MB datum) is recorded
// as the string FinalTooLarge instead, so that recording the run costs
// neither a copy of it in memory nor megabytes of database: the value was
// printed, and replaying a run never needs it (docs/runs.md).
const MaxFinalBytes = 1 << 20

// FinalTooLarge is the final value recorded for one whose JSON is over
// MaxFinalBytes.
const FinalTooLarge = "#<final value not journaled: over 1 MiB of JSON>"

// finalValueJSON is the JSON recorded for a run's final value: nil for
// none, FinalTooLarge (as a JSON string) past MaxFinalBytes, measured in
// time proportional to the bound.
func finalValueJSON(v value.Value) any {
	if v != nil && value.JSONSize(v, MaxFinalBytes) > MaxFinalBytes {
		return value.JSON(value.String(FinalTooLarge))
	}
	return jsonValue(v)
}

// HaltedReason is the error reason of the calls a run left unfinished when
// its process exited without waiting for them (Run.Abort), or died
// (SPEC §6.7's execution_halted).
const HaltedReason = "execution_halted"

// haltCalls is the update that fails the calls of a run that have not
// ended: running ones, and task and tool calls still waiting for a slot.
// Planned steps that never started stay pending, as in any failed run.
const haltCalls = `UPDATE calls SET status = 'failed', error = ?, started_at = COALESCE(started_at, ?), finished_at = ?
	WHERE run_id = ? AND (status = 'running' OR (status = 'pending' AND kind <> 'step'))`

// Halted reports whether a call with this status and kind is one Abort
// fails (and a reader fails for a run whose process is gone): running, or
// a task or tool call waiting for a slot.
func Halted(status, kind string) bool {
	return status == StatusRunning || (status == StatusPending && kind != KindStep)
}

// Abort records the end of a run whose process exits now, without waiting
// for its calls to end (a second Ctrl-C): every call that has not ended
// fails with the error "execution_halted: MSG", then the run fails with
// the error msg. It returns once that is committed; a call that still ends
// afterwards overwrites its own row. Abort always records the run, even
// one of a lazy store that made no call.
func (r *Run) Abort(msg string) error {
	now := r.store.now().UnixNano()
	r.queueHeld() // committed with the end, in one batch
	id := r.ID()
	return r.store.sync(func(w *stmts) error {
		if _, err := w.conn.ExecContext(w.ctx, haltCalls, HaltedReason+": "+msg, now, now, id); err != nil {
			return err
		}
		_, err := w.finishRun.ExecContext(w.ctx, StatusFailed, now, nil, msg, id)
		return err
	})
}

// Call is one node of a run's tree: a task, tool or step call. Its methods
// are safe for concurrent use.
type Call struct {
	run    *Run
	id     int64 // set when its insert is written (under the store's batch lock)
	parent *Call
	seq    int
	kind   string
	name   string

	mu      sync.Mutex
	status  string
	claimed bool // a pending step node taken by Begin

	// cur holds the call's columns as last recorded. While queued (its
	// insert not yet executed), later writes change cur instead of
	// queueing an update, so that a short call is one INSERT; ticket is the
	// insert's place in the store's queue (0: held by an unrecorded run).
	// Guarded by run.mu.
	cur    callRow
	queued bool
	ticket uint64
}

// callRow holds the columns of a call that change.
type callRow struct {
	status            string
	inputHash         string
	inputs, result    any
	errMsg            string
	attempts          int
	usage             Usage
	replayed          bool
	started, finished any
	queuedAt          int64  // when Begin was called, Unix nanoseconds
	system, user      any    // the prompt (SetPrompt), nil for none
	executor, source  string // SetExecutor
	label             string // CallLabel of the inputs of a task or tool
}

// ID returns the call's row id, once its writes are committed.
func (c *Call) ID() int64 {
	_ = c.run.store.flush()
	return c.id
}

// parentID is the parent's row id for the insert of a child; NULL at the
// top level. It runs in the writer, after the parent's insert.
func (c *Call) parentID() any {
	if c.parent == nil {
		return nil
	}
	return c.parent.id
}

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
func (c *Call) TaskID() string { return c.run.ID() + "/" + strconv.Itoa(c.seq) }

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
// The first Begin of a run writes the run (OpenLazy), in the background;
// the call itself is committed with the next synchronous write (End,
// Finish) or shortly after.
//
// A step first claims the first unclaimed pending node of the same name
// under the same parent (AddPendingSteps), which then keeps its seq and
// becomes running; only when there is none is a new node created.
func (r *Run) Begin(parent *Call, kind, name, inputHash string, inputs value.Value) (*Call, error) {
	return r.begin(parent, kind, name, inputHash, inputs, labelOf(kind, inputs))
}

// begin is Begin with the call's label: its inputs', or, for a call begun
// before its inputs are known, its arguments' (Sink).
func (r *Run) begin(parent *Call, kind, name, inputHash string, inputs value.Value, label string) (*Call, error) {
	if err := checkKind(kind); err != nil {
		return nil, err
	}
	if parent != nil && parent.run != r {
		return nil, fmt.Errorf("journal: parent call %s is not in run %s", parent.TaskID(), r.ID())
	}
	r.recordAsync()
	s := r.store
	inputsJSON := jsonValue(inputs)
	r.mu.Lock()
	defer r.mu.Unlock()
	now := s.now().UnixNano()
	if kind == KindStep {
		for _, p := range r.pending {
			p.mu.Lock()
			if p.claimed || p.parent != parent || p.name != name {
				p.mu.Unlock()
				continue
			}
			p.claimed = true
			p.status = StatusRunning
			p.mu.Unlock()
			p.cur.status, p.cur.inputHash, p.cur.inputs, p.cur.started = StatusRunning, inputHash, inputsJSON, now
			if p.queued {
				return p, nil
			}
			r.queue(func(w *stmts) error {
				_, err := w.claimStep.ExecContext(w.ctx, StatusRunning, inputHash, inputsJSON, now, p.id)
				return err
			})
			return p, nil
		}
	}
	status := StatusPending
	var started any
	if kind == KindStep {
		status, started = StatusRunning, now
	}
	c := r.insert(parent, kind, name, status, inputHash, inputsJSON, started)
	c.cur.label = label
	return c, nil
}

// labelOf is the label a call of kind records: its inputs' CallLabel for
// a task or tool, none for a step (its name tells it apart).
func labelOf(kind string, inputs value.Value) string {
	if kind == KindStep {
		return ""
	}
	return CallLabel(inputs)
}

// insert adds a node; the caller holds r.mu.
func (r *Run) insert(parent *Call, kind, name, status, inputHash string, inputsJSON, started any) *Call {
	r.seq++
	c := &Call{run: r, parent: parent, seq: r.seq, kind: kind, name: name, status: status}
	c.cur = callRow{status: status, inputHash: inputHash, inputs: inputsJSON, started: started, queuedAt: r.store.now().UnixNano()}
	c.queued = true
	o := func(w *stmts) error {
		r.mu.Lock()
		row, id := c.cur, r.id
		c.queued = false // later writes are updates
		r.mu.Unlock()
		res, err := w.insertCall.ExecContext(w.ctx, id, c.parentID(), c.seq, kind, name, row.status, row.inputHash,
			row.inputs, row.result, row.errMsg, row.attempts, row.usage.InputTokens, row.usage.OutputTokens,
			row.usage.Turns, costArg(row.usage.CostUSD), row.replayed, row.started, row.finished, row.queuedAt,
			row.system, row.user, row.executor, row.source, row.label)
		if err != nil {
			return err
		}
		c.id, err = res.LastInsertId()
		return err
	}
	if r.recorded {
		c.ticket = r.store.enqueue(o, true)
	} else {
		r.held = append(r.held, o)
	}
	return c
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
	r.mu.Lock()
	defer r.mu.Unlock()
	out := make([]*Call, 0, len(names))
	for _, n := range names {
		c := r.insert(parent, KindStep, n, StatusPending, "", nil, nil)
		r.pending = append(r.pending, c)
		out = append(out, c)
	}
	return out, nil
}

// SetStatus records a new status without ending the call (pending or
// running; use End for the final ones).
func (c *Call) SetStatus(status string) error {
	c.mu.Lock()
	c.status = status
	c.mu.Unlock()
	r := c.run
	now := r.store.now().UnixNano()
	r.mu.Lock()
	defer r.mu.Unlock()
	c.cur.status = status
	if status == StatusRunning && c.cur.started == nil {
		c.cur.started = now
	}
	if c.queued {
		return nil
	}
	if status == StatusRunning {
		r.queue(func(w *stmts) error {
			_, err := w.setRunning.ExecContext(w.ctx, status, now, c.id)
			return err
		})
	} else {
		r.queue(func(w *stmts) error {
			_, err := w.setStatus.ExecContext(w.ctx, status, c.id)
			return err
		})
	}
	return nil
}

// SetInput records the input hash and inputs of a call begun before they
// were known (a call waiting for its concurrency slot).
func (c *Call) SetInput(inputHash string, inputs value.Value) error {
	inputsJSON, label := jsonValue(inputs), labelOf(c.kind, inputs)
	r := c.run
	r.mu.Lock()
	defer r.mu.Unlock()
	c.cur.inputHash, c.cur.inputs, c.cur.label = inputHash, inputsJSON, label
	if c.queued {
		return nil
	}
	r.queue(func(w *stmts) error {
		_, err := w.setInput.ExecContext(w.ctx, inputHash, inputsJSON, label, c.id)
		return err
	})
	return nil
}

// SetExecutor records, as soon as the call starts, what executes it
// ("openai:gpt-4.1", "agent:claude") and its template's provenance
// (SCOPE PATH:LINE), which its result's notes hold only once it has
// ended: `evalrun status --json` and the run viewer show them for a call
// still running. Either may be "" when not known. While the call's insert
// is queued they are written by that insert (a call that starts without
// waiting for a slot is still one INSERT); otherwise the update is queued.
func (c *Call) SetExecutor(executor, templateSource string) error {
	r := c.run
	r.mu.Lock()
	defer r.mu.Unlock()
	c.cur.executor, c.cur.source = executor, templateSource
	if c.queued {
		return nil
	}
	r.queue(func(w *stmts) error {
		_, err := w.setExecutor.ExecContext(w.ctx, executor, templateSource, c.id)
		return err
	})
	return nil
}

// Running marks the call running: it has its concurrency slot.
func (c *Call) Running() error { return c.SetStatus(StatusRunning) }

// End records the outcome of the call: status completed, failed or
// skipped; its result (a TaskResult for tasks and tools, the step's value
// for steps; nil for none); the error message ("" for none); the usage
// summed over its session; the number of attempts (steps; 0 otherwise);
// and whether the result was replayed from an earlier run. When it returns
// the outcome is durable — appended to the store's call log, whose rows a
// later process recovers should this one die before committing them, or
// committed where there is no call log — so a later run can replay the
// result as soon as it is used.
func (c *Call) End(status string, result value.Value, errMsg string, usage Usage, attempts int, replayed bool) error {
	switch status {
	case StatusCompleted, StatusFailed, StatusSkipped:
	default:
		return fmt.Errorf("journal: call %s cannot end with status %q", c.TaskID(), status)
	}
	s := c.run.store
	now := s.now().UnixNano()
	resultJSON := jsonValue(result)
	c.mu.Lock()
	c.status = status
	c.mu.Unlock()
	r := c.run
	r.mu.Lock()
	row := &c.cur
	row.status, row.result, row.errMsg, row.attempts = status, resultJSON, errMsg, attempts
	row.usage, row.replayed, row.finished = usage, replayed, now
	if row.started == nil {
		row.started = now
	}
	var t uint64
	switch {
	case c.queued && c.ticket == 0: // a pending step of a run not recorded
		r.mu.Unlock()
		return nil
	case c.queued: // the insert, not executed yet, writes the outcome too
		t = c.ticket
	default:
		started := row.started
		t = s.enqueue(func(w *stmts) error {
			_, err := w.endCall.ExecContext(w.ctx, status, resultJSON, errMsg, attempts, usage.InputTokens,
				usage.OutputTokens, usage.Turns, costArg(usage.CostUSD), replayed, started, now, c.id)
			return err
		}, true)
	}
	r.mu.Unlock()
	var entry *logEntry
	log := s.callLog()
	if log != nil {
		r.mu.Lock()
		entry = c.logEntry()
		r.mu.Unlock()
	}
	if entry != nil && r.waitRow() == nil && log.append(entry, t) == nil {
		return s.takeAsyncErr() // durable in the call log, committed shortly
	}
	return s.wait(t)
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

// FirstLine returns the first line of s, cut to max code points; a cut
// (or dropped further lines) is shown with " …". The journal's summaries
// and the viewer's use it.
func FirstLine(s string, max int) string {
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
