package serve

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"time"

	"github.com/evalrun/evalrun/journal"

	_ "modernc.org/sqlite" // the pure-Go SQLite driver, registered as "sqlite"
)

// reader reads the journal through a read-only connection pool (mode=ro,
// query_only, a busy timeout): the viewer never takes a write lock, so a
// run is never kept waiting by a page (SPEC §24.3). The database is opened
// lazily, so a viewer started before the first run shows the runs once the
// journal appears.
type reader struct {
	path string

	mu   sync.Mutex
	db   *sql.DB
	cols map[string]bool // the calls table's optional columns present
	// owners is set when the runs table records the process running a
	// run (journal schema version 3).
	owners bool

	cmu   sync.Mutex // guards the caches
	cache map[int64]cachedInfo
	costs map[string]cachedCost
}

// errNoJournal is returned while the journal file does not exist.
var errNoJournal = errors.New("no journal yet")

func newReader(path string) *reader { return &reader{path: path} }

// readOnlyDSN is the DSN of a read-only connection to the database at path.
func readOnlyDSN(path string) (string, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return "", err
	}
	q := url.Values{}
	q.Set("mode", "ro")
	for _, p := range []string{"busy_timeout(5000)", "query_only(1)"} {
		q.Add("_pragma", p)
	}
	return "file:" + (&url.URL{Path: filepath.ToSlash(abs)}).EscapedPath() + "?" + q.Encode(), nil
}

// open returns the connection pool, opening it on first use.
func (r *reader) open() (*sql.DB, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.db != nil {
		return r.db, nil
	}
	if _, err := os.Stat(r.path); errors.Is(err, fs.ErrNotExist) {
		return nil, errNoJournal
	}
	dsn, err := readOnlyDSN(r.path)
	if err != nil {
		return nil, err
	}
	db, err := sql.Open("sqlite", dsn)
	if err != nil {
		return nil, fmt.Errorf("journal %s: %w", r.path, err)
	}
	db.SetMaxOpenConns(8)
	db.SetMaxIdleConns(4)
	cols := map[string]bool{}
	rows, err := db.Query("SELECT name FROM pragma_table_info('calls')")
	if err != nil {
		db.Close()
		return nil, fmt.Errorf("journal %s: %w", r.path, err)
	}
	for rows.Next() {
		var name string
		if err := rows.Scan(&name); err == nil {
			cols[name] = true
		}
	}
	rows.Close()
	if len(cols) == 0 { // created but not yet initialised by a run
		db.Close()
		return nil, errNoJournal
	}
	var owners int
	if err := db.QueryRow("SELECT COUNT(*) FROM pragma_table_info('runs') WHERE name IN ('owner_pid', 'owner_host', 'owner_start')").Scan(&owners); err != nil {
		db.Close()
		return nil, fmt.Errorf("journal %s: %w", r.path, err)
	}
	r.db, r.cols, r.owners = db, cols, owners == 3
	return db, nil
}

func (r *reader) close() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.db == nil {
		return nil
	}
	err := r.db.Close()
	r.db = nil
	return err
}

// has reports whether the calls table has the optional column name.
func (r *reader) has(name string) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.cols[name]
}

// RunFilter selects runs for the runs list.
type RunFilter struct {
	// Status keeps runs with this status ("" for all).
	Status string
	// Text keeps runs whose id, workflow or error contains it, in any
	// case (Unicode simple case folding).
	Text string
	// Limit and Offset page the list (Limit <= 0: all).
	Limit, Offset int
}

// runRow is a run as the viewer reads it.
type runRow struct {
	ID, Workflow, SHA, Status, ResumedFrom, Error string
	// Owner is the process that ran it; Ended is set for a run recorded
	// as running whose process is gone (journal.Owner.Gone), shown as
	// failed with the error journal.Owner.EndedError as `evalrun runs`
	// shows it.
	Owner              journal.Owner
	Ended              bool
	Args, Final        json.RawMessage
	Started            int64
	Finished, Last     sql.NullInt64
	Calls, CostUnknown int
	Tokens             int64
	// Cost is what the run paid (its calls that were not replayed), valid
	// when any of its task calls had a known cost; ReplayedCost the
	// recorded cost of the calls it replayed (SPEC §14.9).
	Cost         sql.NullFloat64
	ReplayedCost float64
}

func (r *reader) runSelect() string {
	return `SELECT r.id, r.workflow, r.workflow_sha, r.arguments, r.status, r.resumed_from, r.started_at, r.finished_at,
	r.final, r.error, ` + r.ownerColumns() + `,
	(SELECT COUNT(*) FROM calls c WHERE c.run_id = r.id AND c.status <> 'pending'),
	(SELECT COALESCE(SUM(c.input_tokens + c.output_tokens), 0) FROM calls c WHERE c.run_id = r.id AND c.kind = 'task'),
	(SELECT MAX(COALESCE(c.finished_at, c.started_at)) FROM calls c WHERE c.run_id = r.id)
	FROM runs r`
}

// ownerColumns are the owner columns of runs r, or constants standing
// for an unknown owner in a journal that has none.
func (r *reader) ownerColumns() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.owners {
		return "r.owner_pid, r.owner_host, r.owner_start"
	}
	return "0, '', ''"
}

func scanRunRow(sc interface{ Scan(...any) error }) (*runRow, error) {
	var x runRow
	var args, final sql.NullString
	if err := sc.Scan(&x.ID, &x.Workflow, &x.SHA, &args, &x.Status, &x.ResumedFrom, &x.Started, &x.Finished, &final,
		&x.Error, &x.Owner.PID, &x.Owner.Host, &x.Owner.Start, &x.Calls, &x.Tokens, &x.Last); err != nil {
		return nil, err
	}
	x.Args, x.Final = rawJSON(args), rawJSON(final)
	if x.Status == journal.StatusRunning && x.Owner.Gone() {
		x.Status, x.Error, x.Ended = journal.StatusFailed, x.Owner.EndedError(), true
	}
	return &x, nil
}

// endedRuns returns the ids of the runs recorded as running whose process
// is gone (runRow.Ended).
func (r *reader) endedRuns(ctx context.Context, db *sql.DB) ([]any, error) {
	rows, err := db.QueryContext(ctx, "SELECT r.id, "+r.ownerColumns()+" FROM runs r WHERE r.status = 'running'")
	if err != nil {
		return nil, fmt.Errorf("journal: %w", err)
	}
	defer rows.Close()
	var ids []any
	for rows.Next() {
		var id string
		var o journal.Owner
		if err := rows.Scan(&id, &o.PID, &o.Host, &o.Start); err != nil {
			return nil, fmt.Errorf("journal: %w", err)
		}
		if o.Gone() {
			ids = append(ids, id)
		}
	}
	return ids, rows.Err()
}

// runEnded reports whether the run id is recorded as running by a process
// that is gone: its calls that have not ended are shown as halted
// (haltCalls).
func (r *reader) runEnded(ctx context.Context, db *sql.DB, id string) (bool, error) {
	var status string
	var o journal.Owner
	err := db.QueryRowContext(ctx, "SELECT r.status, "+r.ownerColumns()+" FROM runs r WHERE r.id = ?", id).Scan(
		&status, &o.PID, &o.Host, &o.Start)
	if errors.Is(err, sql.ErrNoRows) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("journal: %w", err)
	}
	return status == journal.StatusRunning && o.Gone(), nil
}

// haltCalls shows the calls of a run whose process is gone as
// `evalrun status` shows them: those that had not ended failed, with the
// error "execution_halted: the process running the run ended".
func haltCalls(calls []*callRow) {
	for _, c := range calls {
		if journal.Halted(c.Status, c.Kind) {
			c.Status, c.Error = journal.StatusFailed, journal.HaltedEndedError
		}
	}
}

// rawJSON is stored JSON text passed through unchanged; NULL (or text that
// is not JSON) becomes nil, shown as null.
func rawJSON(s sql.NullString) json.RawMessage {
	if !s.Valid || !json.Valid([]byte(s.String)) {
		return nil
	}
	return json.RawMessage(s.String)
}

// runs lists runs newest first, with the total number matching f.
func (r *reader) runs(ctx context.Context, f RunFilter) ([]*runRow, int, error) {
	db, err := r.open()
	if errors.Is(err, errNoJournal) {
		return nil, 0, nil
	}
	if err != nil {
		return nil, 0, err
	}
	var where []string
	var args []any
	if f.Status != "" {
		// A run whose process is gone is listed as failed, not running.
		ended, err := r.endedRuns(ctx, db)
		if err != nil {
			return nil, 0, err
		}
		in := "''"
		if len(ended) > 0 {
			in = "?" + strings.Repeat(", ?", len(ended)-1)
		}
		switch f.Status {
		case journal.StatusRunning:
			where = append(where, "r.status = ? AND r.id NOT IN ("+in+")")
			args = append(append(args, f.Status), ended...)
		case journal.StatusFailed:
			where = append(where, "(r.status = ? OR r.id IN ("+in+"))")
			args = append(append(args, f.Status), ended...)
		default:
			where = append(where, "r.status = ?")
			args = append(args, f.Status)
		}
	}
	if t := strings.TrimSpace(f.Text); t != "" {
		// Case is ignored in all of Unicode (fold.go), not only in ASCII
		// as LIKE does.
		where = append(where, "("+containsFoldSQL+"(r.id, ?) OR "+containsFoldSQL+"(r.workflow, ?) OR "+
			containsFoldSQL+"(r.error, ?))")
		q := foldCase(t)
		args = append(args, q, q, q)
	}
	cond := ""
	if len(where) > 0 {
		cond = " WHERE " + strings.Join(where, " AND ")
	}
	var total int
	if err := db.QueryRowContext(ctx, "SELECT COUNT(*) FROM runs r"+cond, args...).Scan(&total); err != nil {
		return nil, 0, fmt.Errorf("journal: %w", err)
	}
	q := r.runSelect() + cond + " ORDER BY r.started_at DESC, r.id DESC"
	if f.Limit > 0 {
		q += fmt.Sprintf(" LIMIT %d OFFSET %d", f.Limit, max(f.Offset, 0))
	}
	rows, err := db.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, 0, fmt.Errorf("journal: %w", err)
	}
	defer rows.Close()
	out := []*runRow{}
	for rows.Next() {
		x, err := scanRunRow(rows)
		if err != nil {
			return nil, 0, fmt.Errorf("journal: %w", err)
		}
		out = append(out, x)
	}
	if err := rows.Err(); err != nil {
		return nil, 0, fmt.Errorf("journal: %w", err)
	}
	rows.Close()
	for _, x := range out {
		if err := r.runCost(ctx, x); err != nil {
			return nil, 0, err
		}
	}
	return out, total, nil
}

// errNotFound is a run, call, plan or template that does not exist.
var errNotFound = errors.New("not found")

// run returns the run with exactly this id, with its cost.
func (r *reader) run(ctx context.Context, id string) (*runRow, error) {
	x, err := r.runOnly(ctx, id)
	if err != nil {
		return nil, err
	}
	if err := r.runCost(ctx, x); err != nil {
		return nil, err
	}
	return x, nil
}

// costFrom sets a run's cost from its calls (SPEC §14.9), read already.
func costFrom(x *runRow, calls []*callRow) {
	var sum, replayed float64
	known, unknown := false, 0
	for _, c := range calls {
		if c.Kind != "task" {
			continue
		}
		switch {
		case c.Info.Notes.CostUSD != nil && c.Replayed:
			replayed += *c.Info.Notes.CostUSD
			known = true
		case c.Info.Notes.CostUSD != nil:
			sum += *c.Info.Notes.CostUSD
			known = true
		case c.Finished.Valid:
			unknown++
		}
	}
	x.Cost = sql.NullFloat64{Float64: sum, Valid: known}
	x.ReplayedCost = replayed
	x.CostUnknown = unknown
}

// bareRunSelect is runSelect without the sums over the calls, for a page
// that reads the calls anyway (tallyFrom).
func (r *reader) bareRunSelect() string {
	return `SELECT r.id, r.workflow, r.workflow_sha, r.arguments, r.status, r.resumed_from, r.started_at,
	r.finished_at, r.final, r.error, ` + r.ownerColumns() + `, 0, 0, NULL FROM runs r`
}

// tallyFrom sets a run's number of calls, tokens, last activity and cost
// from its calls, read already: what runSelect and runCost compute.
func tallyFrom(x *runRow, calls []*callRow) {
	x.Calls, x.Tokens = 0, 0
	var last int64
	for _, c := range calls {
		if c.Status != "pending" {
			x.Calls++
		}
		if c.Kind == "task" {
			x.Tokens += c.InputTokens + c.OutputTokens
		}
		if c.Finished.Valid {
			last = max(last, c.Finished.Int64)
		} else if c.Started.Valid {
			last = max(last, c.Started.Int64)
		}
	}
	x.Last = sql.NullInt64{Int64: last, Valid: last != 0}
	costFrom(x, calls)
}

// runBare returns the run with exactly this id without the sums over its
// calls (tallyFrom sets them).
func (r *reader) runBare(ctx context.Context, id string) (*runRow, error) {
	return r.runQuery(ctx, id, r.bareRunSelect())
}

// runOnly returns the run with exactly this id, without its cost.
func (r *reader) runOnly(ctx context.Context, id string) (*runRow, error) {
	return r.runQuery(ctx, id, r.runSelect())
}

func (r *reader) runQuery(ctx context.Context, id, query string) (*runRow, error) {
	db, err := r.open()
	if errors.Is(err, errNoJournal) {
		return nil, fmt.Errorf("run %s: %w", id, errNotFound)
	}
	if err != nil {
		return nil, err
	}
	x, err := scanRunRow(db.QueryRowContext(ctx, query+" WHERE r.id = ?", id))
	if errors.Is(err, sql.ErrNoRows) {
		return nil, fmt.Errorf("run %s: %w", id, errNotFound)
	}
	if err != nil {
		return nil, fmt.Errorf("journal: %w", err)
	}
	return x, nil
}

// callRow is a call as the viewer reads it. Inputs and Result are the
// stored JSON (nil in the summary form); Info is what the viewer reads out
// of the result.
type callRow struct {
	ID, Parent                    int64
	Seq, ParentSeq                int
	Kind, Name, Status, InputHash string
	Error                         string
	Attempts, Turns               int
	InputTokens, OutputTokens     int64
	Replayed                      bool
	Started, Finished             sql.NullInt64
	Queued                        sql.NullInt64 // when the call was begun (journals that record it)
	// Executor and TemplateSource are what the journal recorded when the
	// call started (journal.Call.SetExecutor); NULL in older journals.
	Executor, TemplateSource sql.NullString
	// Label is the call's short label (journal.CallLabel), NULL in older
	// journals.
	Label                    sql.NullString
	Inputs, Result           json.RawMessage
	Info                     *resultInfo
	SystemPrompt, UserPrompt sql.NullString

	raw  []byte          // the result until readInfos reads it
	cost sql.NullFloat64 // the cost column, where the journal has one
}

// callSelect is the query of calls; full adds inputs and prompts.
func (r *reader) callSelect(full bool) string {
	cols := []string{
		"c.id", "COALESCE(c.parent_id, 0)", "c.seq", "COALESCE(p.seq, 0)", "c.kind", "c.name", "c.status",
		"c.input_hash", "c.error", "c.attempts", "c.turns", "c.input_tokens", "c.output_tokens", "c.replayed",
		"c.started_at", "c.finished_at", "c.result",
	}
	for _, opt := range []string{"cost_usd", "queued_at", "executor", "template_source", "label"} {
		if r.has(opt) {
			cols = append(cols, "c."+opt)
		} else {
			cols = append(cols, "NULL")
		}
	}
	if full {
		cols = append(cols, "c.inputs")
		if r.has("system_prompt") && r.has("user_prompt") {
			cols = append(cols, "c.system_prompt", "c.user_prompt")
		} else {
			cols = append(cols, "NULL", "NULL")
		}
	}
	return "SELECT " + strings.Join(cols, ", ") + " FROM calls c LEFT JOIN calls p ON p.id = c.parent_id"
}

func (r *reader) scanCall(sc interface{ Scan(...any) error }, full bool) (*callRow, error) {
	var c callRow
	var result []byte
	var cost sql.NullFloat64
	dest := []any{&c.ID, &c.Parent, &c.Seq, &c.ParentSeq, &c.Kind, &c.Name, &c.Status, &c.InputHash, &c.Error,
		&c.Attempts, &c.Turns, &c.InputTokens, &c.OutputTokens, &c.Replayed, &c.Started, &c.Finished, &result, &cost, &c.Queued,
		&c.Executor, &c.TemplateSource, &c.Label}
	var inputs sql.NullString
	if full {
		dest = append(dest, &inputs, &c.SystemPrompt, &c.UserPrompt)
	}
	if err := sc.Scan(dest...); err != nil {
		return nil, err
	}
	c.raw, c.cost = result, cost
	if full {
		c.Inputs = rawJSON(inputs)
		if result != nil && json.Valid(result) {
			c.Result = json.RawMessage(result)
		}
	}
	return &c, nil
}

// readInfos reads the results of calls into their Info, on as many
// goroutines as there are processors for a long run.
func (r *reader) readInfos(calls []*callRow) {
	one := func(c *callRow) {
		c.Info = r.info(c.ID, c.Finished, c.raw)
		if c.cost.Valid {
			info := *c.Info
			info.Notes.CostUSD = &c.cost.Float64
			c.Info = &info
		}
		c.raw = nil
	}
	workers := min(runtime.GOMAXPROCS(0), 8, len(calls)/500)
	if workers < 2 {
		for _, c := range calls {
			one(c)
		}
		return
	}
	var wg sync.WaitGroup
	per := (len(calls) + workers - 1) / workers
	for w := range workers {
		part := calls[min(w*per, len(calls)):min((w+1)*per, len(calls))]
		wg.Go(func() {
			for _, c := range part {
				one(c)
			}
		})
	}
	wg.Wait()
}

// resultInfo is what the viewer reads out of a task or tool result: the
// TaskResult's status and notes (SPEC §11.5), and its content when FAILED.
type resultInfo struct {
	Status  string `json:"status"`
	Content string `json:"-"`
	Notes   struct {
		TemplateSource string   `json:"template_source"`
		Provider       string   `json:"provider"`
		Model          string   `json:"model"`
		Executor       string   `json:"executor"`
		CostUSD        *float64 `json:"cost_usd"`
		Error          *struct {
			Type     string `json:"type"`
			Reason   string `json:"reason"`
			Message  string `json:"message"`
			Resource string `json:"resource"`
			Metrics  *struct {
				Used  json.RawMessage `json:"used"`
				Limit json.RawMessage `json:"limit"`
			} `json:"metrics"`
		} `json:"error"`
	} `json:"notes"`
}

// infoCacheMax bounds the cache of read results.
const infoCacheMax = 200000

var noInfo = &resultInfo{}

// info reads a call's result once: a finished call's result does not
// change, so it is kept by call id and end time.
func (r *reader) info(id int64, finished sql.NullInt64, result []byte) *resultInfo {
	if len(result) == 0 {
		return noInfo
	}
	r.cmu.Lock()
	if e, ok := r.cache[id]; ok && finished.Valid && e.finished == finished.Int64 {
		r.cmu.Unlock()
		return e.info
	}
	r.cmu.Unlock()
	info := &resultInfo{}
	if json.Unmarshal(result, info) != nil && info.Status == "" {
		return noInfo
	}
	if info.Status == "FAILED" {
		var c struct {
			Content string `json:"content"`
		}
		_ = json.Unmarshal(result, &c)
		if len(c.Content) > 400 {
			c.Content = c.Content[:400]
		}
		info.Content = c.Content
	}
	if finished.Valid {
		r.cmu.Lock()
		if r.cache == nil || len(r.cache) >= infoCacheMax {
			r.cache = map[int64]cachedInfo{}
		}
		r.cache[id] = cachedInfo{finished: finished.Int64, info: info}
		r.cmu.Unlock()
	}
	return info
}

// cachedInfo is a read result and the end time of its call.
type cachedInfo struct {
	finished int64
	info     *resultInfo
}

// runCost sums the cost of a run's task calls (SPEC §14.9) and counts the
// finished ones of unknown cost. A finished run's figures are kept.
func (r *reader) runCost(ctx context.Context, x *runRow) error {
	r.cmu.Lock()
	if e, ok := r.costs[x.ID]; ok && x.Finished.Valid && e.finished == x.Finished.Int64 && e.last == x.Last.Int64 {
		r.cmu.Unlock()
		x.Cost, x.ReplayedCost, x.CostUnknown = e.cost, e.replayed, e.unknown
		return nil
	}
	r.cmu.Unlock()
	db, err := r.open()
	if err != nil {
		return err
	}
	q := "SELECT id, finished_at, result, replayed, NULL FROM calls WHERE run_id = ? AND kind = 'task'"
	if r.has("cost_usd") {
		q = "SELECT id, finished_at, result, replayed, cost_usd FROM calls WHERE run_id = ? AND kind = 'task'"
	}
	rows, err := db.QueryContext(ctx, q, x.ID)
	if err != nil {
		return fmt.Errorf("journal: %w", err)
	}
	defer rows.Close()
	var sum, replayedSum float64
	known, unknown := false, 0
	for rows.Next() {
		var id int64
		var fin sql.NullInt64
		var result sql.RawBytes
		var replayed bool
		var cost sql.NullFloat64
		if err := rows.Scan(&id, &fin, &result, &replayed, &cost); err != nil {
			return fmt.Errorf("journal: %w", err)
		}
		c := cost
		if !c.Valid {
			if v := r.info(id, fin, result).Notes.CostUSD; v != nil {
				c = sql.NullFloat64{Float64: *v, Valid: true}
			}
		}
		switch {
		case c.Valid && replayed:
			replayedSum += c.Float64
			known = true
		case c.Valid:
			sum += c.Float64
			known = true
		case fin.Valid:
			unknown++
		}
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("journal: %w", err)
	}
	x.Cost = sql.NullFloat64{Float64: sum, Valid: known}
	x.ReplayedCost = replayedSum
	x.CostUnknown = unknown
	if x.Finished.Valid {
		r.cmu.Lock()
		if r.costs == nil || len(r.costs) >= infoCacheMax {
			r.costs = map[string]cachedCost{}
		}
		r.costs[x.ID] = cachedCost{finished: x.Finished.Int64, last: x.Last.Int64, cost: x.Cost, replayed: replayedSum, unknown: unknown}
		r.cmu.Unlock()
	}
	return nil
}

// cachedCost is the cost of a finished run.
type cachedCost struct {
	finished, last int64
	cost           sql.NullFloat64
	replayed       float64
	unknown        int
}

// calls returns the calls of a run in seq order; full adds inputs, result
// and prompts. since > 0 keeps the calls begun, started or finished at or
// after that time (UnixNano) or with a seq above afterSeq.
func (r *reader) calls(ctx context.Context, runID string, full bool, since int64, afterSeq int) ([]*callRow, error) {
	db, err := r.open()
	if errors.Is(err, errNoJournal) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	q := r.callSelect(full) + " WHERE c.run_id = ?"
	args := []any{runID}
	if since > 0 {
		q += " AND (c.seq > ? OR c.started_at >= ? OR c.finished_at >= ?)"
		args = append(args, afterSeq, since, since)
	}
	rows, err := db.QueryContext(ctx, q+" ORDER BY c.seq", args...)
	if err != nil {
		return nil, fmt.Errorf("journal: %w", err)
	}
	defer rows.Close()
	var out []*callRow
	for rows.Next() {
		c, err := r.scanCall(rows, full)
		if err != nil {
			return nil, fmt.Errorf("journal: %w", err)
		}
		out = append(out, c)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("journal: %w", err)
	}
	if ended, err := r.runEnded(ctx, db, runID); err != nil {
		return nil, err
	} else if ended {
		haltCalls(out)
	}
	r.readInfos(out)
	return out, nil
}

// call returns one call of a run, by seq, with inputs, result and prompts.
func (r *reader) call(ctx context.Context, runID string, seq int) (*callRow, error) {
	db, err := r.open()
	if errors.Is(err, errNoJournal) {
		return nil, fmt.Errorf("call %s/%d: %w", runID, seq, errNotFound)
	}
	if err != nil {
		return nil, err
	}
	c, err := r.scanCall(db.QueryRowContext(ctx, r.callSelect(true)+" WHERE c.run_id = ? AND c.seq = ?", runID, seq), true)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, fmt.Errorf("call %s/%d: %w", runID, seq, errNotFound)
	}
	if err != nil {
		return nil, fmt.Errorf("journal: %w", err)
	}
	if ended, err := r.runEnded(ctx, db, runID); err != nil {
		return nil, err
	} else if ended {
		haltCalls([]*callRow{c})
	}
	r.readInfos([]*callRow{c})
	return c, nil
}

// shape is the (seq, parent, status) of every call of a run: enough to
// find the current position after a change.
func (r *reader) shape(ctx context.Context, runID string) ([]*callRow, error) {
	db, err := r.open()
	if err != nil {
		return nil, err
	}
	rows, err := db.QueryContext(ctx, "SELECT id, COALESCE(parent_id, 0), seq, status, kind FROM calls WHERE run_id = ? ORDER BY seq", runID)
	if err != nil {
		return nil, fmt.Errorf("journal: %w", err)
	}
	defer rows.Close()
	var out []*callRow
	for rows.Next() {
		var c callRow
		if err := rows.Scan(&c.ID, &c.Parent, &c.Seq, &c.Status, &c.Kind); err != nil {
			return nil, fmt.Errorf("journal: %w", err)
		}
		out = append(out, &c)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("journal: %w", err)
	}
	if ended, err := r.runEnded(ctx, db, runID); err != nil {
		return nil, err
	} else if ended {
		haltCalls(out)
	}
	return out, nil
}

// changedRuns returns the ids of the runs that may have changed since the
// time since (UnixNano): runs still running, and runs started or finished
// since then.
func (r *reader) changedRuns(ctx context.Context, since int64) ([]string, error) {
	db, err := r.open()
	if err != nil {
		return nil, err
	}
	rows, err := db.QueryContext(ctx, `SELECT id FROM runs WHERE status = 'running' OR started_at >= ? OR finished_at >= ?
		ORDER BY started_at DESC LIMIT 200`, since, since)
	if err != nil {
		return nil, fmt.Errorf("journal: %w", err)
	}
	defer rows.Close()
	var ids []string
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			return nil, err
		}
		ids = append(ids, id)
	}
	return ids, rows.Err()
}

// dataVersion returns PRAGMA data_version on conn: it changes whenever
// another connection commits to the database.
func dataVersion(ctx context.Context, conn *sql.Conn) (int64, error) {
	var v int64
	err := conn.QueryRowContext(ctx, "PRAGMA data_version").Scan(&v)
	return v, err
}

// nowNano is the clock of the watermarks; tests may replace it.
var nowNano = func() int64 { return time.Now().UnixNano() }

// resolve turns a RUN reference into a run id as `evalrun status` does
// (SPEC §16.1): a full id, a unique prefix, or "last" for the newest run.
func (r *reader) resolve(ctx context.Context, ref string) (string, error) {
	db, err := r.open()
	if errors.Is(err, errNoJournal) {
		return "", fmt.Errorf("run %s: %w", ref, errNotFound)
	}
	if err != nil {
		return "", err
	}
	var id string
	if ref == "last" {
		err = db.QueryRowContext(ctx, "SELECT id FROM runs ORDER BY started_at DESC, id DESC LIMIT 1").Scan(&id)
	} else {
		esc := strings.NewReplacer(`\`, `\\`, `%`, `\%`, `_`, `\_`).Replace(ref)
		var rows *sql.Rows
		rows, err = db.QueryContext(ctx, `SELECT id FROM runs WHERE id = ? OR id LIKE ? ESCAPE '\' ORDER BY id LIMIT 6`, ref, esc+"%")
		if err != nil {
			return "", fmt.Errorf("journal: %w", err)
		}
		var ids []string
		for rows.Next() {
			var x string
			if rows.Scan(&x) == nil && strings.HasPrefix(x, ref) {
				if x == ref {
					rows.Close()
					return x, nil
				}
				ids = append(ids, x)
			}
		}
		rows.Close()
		switch len(ids) {
		case 0:
			err = sql.ErrNoRows
		case 1:
			return ids[0], nil
		default:
			return "", fmt.Errorf("run %q is ambiguous: %s", ref, strings.Join(ids, ", "))
		}
	}
	if errors.Is(err, sql.ErrNoRows) {
		return "", fmt.Errorf("run %s: %w", ref, errNotFound)
	}
	if err != nil {
		return "", fmt.Errorf("journal: %w", err)
	}
	return id, nil
}
