package journal

import (
	"bufio"
	"bytes"
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"sync"

	"github.com/evalrun/evalrun/value"
)

// The call log makes the end of a call durable with one append instead of
// one SQLite commit per call. Each process writing the journal keeps its
// own log next to the database, JOURNAL-calls-RANDOM, locked (flock) while
// the process lives. Call.End appends the call's whole row to it, as one
// JSON line, before returning; the row itself is committed to the
// database with the next batch (within flushDelay), after which the log
// is emptied. A process that dies between the two leaves its log behind:
// the next process to open the journal finds it unlocked, writes its rows
// into the database and removes it. Where files cannot be locked (see
// lockFile), End commits instead.

// callLogInfix separates the database's file name from a log's suffix.
const callLogInfix = "-calls-"

// logEntry is one line of a call log: a call's row as it ended.
type logEntry struct {
	Run       string   `json:"run"`
	Seq       int      `json:"seq"`
	ParentSeq int      `json:"parent_seq,omitempty"`
	Kind      string   `json:"kind"`
	Name      string   `json:"name"`
	Status    string   `json:"status"`
	InputHash string   `json:"input_hash"`
	Inputs    *string  `json:"inputs"`
	Result    *string  `json:"result"`
	Error     string   `json:"error"`
	Attempts  int      `json:"attempts"`
	Input     int64    `json:"input_tokens"`
	Output    int64    `json:"output_tokens"`
	Turns     int      `json:"turns"`
	Cost      *float64 `json:"cost_usd,omitempty"`
	Replayed  bool     `json:"replayed"`
	Started   *int64   `json:"started_at"`
	Finished  *int64   `json:"finished_at"`
}

// logEntry returns the call's row as a log entry; the caller holds
// c.run.mu.
func (c *Call) logEntry() *logEntry {
	row := &c.cur
	e := &logEntry{Run: c.run.id, Seq: c.seq, Kind: c.kind, Name: c.name, Status: row.status,
		InputHash: row.inputHash, Inputs: optString(row.inputs), Result: optString(row.result), Error: row.errMsg,
		Attempts: row.attempts, Input: row.usage.InputTokens, Output: row.usage.OutputTokens, Turns: row.usage.Turns,
		Cost: row.usage.CostUSD, Replayed: row.replayed, Started: optInt(row.started), Finished: optInt(row.finished)}
	if c.parent != nil {
		e.ParentSeq = c.parent.seq
	}
	return e
}

func optString(v any) *string {
	if s, ok := v.(string); ok {
		return &s
	}
	return nil
}

func optInt(v any) *int64 {
	if n, ok := v.(int64); ok {
		return &n
	}
	return nil
}

// callLog returns the store's call log, creating it on first use (once the
// database is open: logs of dead processes are recovered first); nil where
// there is none.
func (s *Store) callLog() *callLog {
	if !callLogSupported {
		return nil
	}
	if l := s.log.Load(); l != nil {
		return l
	}
	// The database may still be opening (the first call of a lazy store
	// commits its run in the background): the log is made once it is open.
	if _, err := s.writer(); err != nil {
		return nil
	}
	s.logOnce.Do(func() {
		s.openMu.Lock()
		defer s.openMu.Unlock()
		if s.w == nil || s.closed {
			return
		}
		abs, err := filepath.Abs(s.path)
		if err != nil {
			return
		}
		if l, err := openCallLog(abs); err == nil {
			s.log.Store(l)
		}
	})
	return s.log.Load()
}

// callLog is this process's call log.
type callLog struct {
	mu      sync.Mutex
	f       *os.File
	path    string
	logged  uint64 // the highest queue ticket of an entry in the file
	dirty   bool   // the file holds entries
	failed  bool   // a write failed: End commits from now on
	encoded bytes.Buffer
}

// openCallLog creates and locks this process's log for the journal at
// dbPath. The file gets its final name only once locked, so that no other
// process takes it for the log of a dead one.
func openCallLog(dbPath string) (*callLog, error) {
	dir, base := filepath.Split(dbPath)
	var b [6]byte
	_, _ = rand.Read(b[:])
	suffix := hex.EncodeToString(b[:])
	tmp := filepath.Join(dir, "."+base+"-new-"+suffix)
	f, err := os.OpenFile(tmp, os.O_CREATE|os.O_EXCL|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return nil, err
	}
	if err := lockFile(f); err != nil {
		f.Close()
		os.Remove(tmp)
		return nil, err
	}
	path := dbPath + callLogInfix + suffix
	if err := os.Rename(tmp, path); err != nil {
		f.Close()
		os.Remove(tmp)
		return nil, err
	}
	return &callLog{f: f, path: path}, nil
}

// appendTo writes e as one line of JSON, as encoding/json would write it
// (without HTML escaping), without reflection: End writes one per call.
func (e *logEntry) appendTo(b *bytes.Buffer) {
	str := func(key, s string) {
		b.WriteString(key)
		value.WriteJSONString(b, s)
	}
	optStr := func(key string, s *string) {
		b.WriteString(key)
		if s == nil {
			b.WriteString("null")
		} else {
			value.WriteJSONString(b, *s)
		}
	}
	num := func(key string, n int64) {
		b.WriteString(key)
		b.Write(strconv.AppendInt(b.AvailableBuffer(), n, 10))
	}
	optNum := func(key string, n *int64) {
		if n == nil {
			b.WriteString(key)
			b.WriteString("null")
		} else {
			num(key, *n)
		}
	}
	str(`{"run":`, e.Run)
	num(`,"seq":`, int64(e.Seq))
	if e.ParentSeq != 0 {
		num(`,"parent_seq":`, int64(e.ParentSeq))
	}
	str(`,"kind":`, e.Kind)
	str(`,"name":`, e.Name)
	str(`,"status":`, e.Status)
	str(`,"input_hash":`, e.InputHash)
	optStr(`,"inputs":`, e.Inputs)
	optStr(`,"result":`, e.Result)
	str(`,"error":`, e.Error)
	num(`,"attempts":`, int64(e.Attempts))
	num(`,"input_tokens":`, e.Input)
	num(`,"output_tokens":`, e.Output)
	num(`,"turns":`, int64(e.Turns))
	if e.Cost != nil && !math.IsInf(*e.Cost, 0) && !math.IsNaN(*e.Cost) {
		b.WriteString(`,"cost_usd":`)
		b.Write(strconv.AppendFloat(b.AvailableBuffer(), *e.Cost, 'g', -1, 64))
	}
	b.WriteString(`,"replayed":`)
	b.WriteString(strconv.FormatBool(e.Replayed))
	optNum(`,"started_at":`, e.Started)
	optNum(`,"finished_at":`, e.Finished)
	b.WriteString("}\n")
}

// append writes e, the end of the call whose write has queue ticket t.
func (l *callLog) append(e *logEntry, t uint64) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.failed {
		return errors.New("journal: the call log failed")
	}
	l.encoded.Reset()
	e.appendTo(&l.encoded)
	if _, err := l.f.Write(l.encoded.Bytes()); err != nil {
		l.failed = true
		return err
	}
	l.dirty = true
	if t > l.logged {
		l.logged = t
	}
	return nil
}

// committed is told that the queue is committed up to ticket t: once
// every logged entry is, the log is emptied.
func (l *callLog) committed(t uint64) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if !l.dirty || l.logged > t || l.failed {
		return
	}
	if err := l.f.Truncate(0); err != nil {
		l.failed = true
		return
	}
	l.dirty = false
}

// keep stops using the log after a failed commit: it is never emptied
// nor removed, and the next process to open the journal writes its rows.
// End commits from now on.
func (l *callLog) keep() {
	l.mu.Lock()
	l.failed = true
	l.mu.Unlock()
}

// close closes the log and removes it when every entry is committed (all
// is true); otherwise it stays for the next process to recover. Appends
// after close fail (End then commits).
func (l *callLog) close(all bool) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.f == nil {
		return nil
	}
	err := l.f.Close()
	if all && !l.failed {
		if e := os.Remove(l.path); err == nil {
			err = e
		}
	}
	l.f, l.failed = nil, true
	return err
}

// recoverCallLogs writes the rows of the logs that dead processes left
// next to the database at dbPath into it, then removes the logs. A log
// still locked belongs to a live process and is left alone.
func recoverCallLogs(ctx context.Context, db *sql.DB, dbPath string) error {
	if !callLogSupported {
		return nil
	}
	paths, err := filepath.Glob(globEscape(dbPath) + callLogInfix + "*")
	if err != nil {
		return err
	}
	for _, p := range paths {
		if err := recoverCallLog(ctx, db, p); err != nil {
			return fmt.Errorf("recovering %s: %w", filepath.Base(p), err)
		}
	}
	return nil
}

func recoverCallLog(ctx context.Context, db *sql.DB, path string) error {
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if errors.Is(err, os.ErrNotExist) {
		return nil // recovered by another process meanwhile
	}
	if err != nil {
		return err
	}
	defer f.Close()
	if lockFile(f) != nil {
		return nil // its process is alive
	}
	var entries []*logEntry
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 0, 64<<10), 1<<30)
	for sc.Scan() {
		var e logEntry
		if json.Unmarshal(sc.Bytes(), &e) != nil {
			break // a line cut short when the machine stopped: the rest is lost
		}
		entries = append(entries, &e)
	}
	if err := sc.Err(); err != nil {
		return err
	}
	if len(entries) > 0 {
		if err := applyEntries(ctx, db, entries); err != nil {
			return err
		}
	}
	return os.Remove(path)
}

// applyEntries writes log entries into the database in one transaction:
// an existing row (same run and seq) is updated, a missing one inserted.
func applyEntries(ctx context.Context, db *sql.DB, entries []*logEntry) error {
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	rowID := func(run string, seq int) (any, error) {
		var id int64
		err := tx.QueryRowContext(ctx, "SELECT id FROM calls WHERE run_id = ? AND seq = ?", run, seq).Scan(&id)
		if errors.Is(err, sql.ErrNoRows) {
			return nil, nil
		}
		return id, err
	}
	for _, e := range entries {
		id, err := rowID(e.Run, e.Seq)
		if err != nil {
			return err
		}
		if id != nil {
			_, err = tx.ExecContext(ctx, `UPDATE calls SET status = ?, input_hash = ?, inputs = ?, result = ?, error = ?,
				attempts = ?, input_tokens = ?, output_tokens = ?, turns = ?, cost_usd = ?, replayed = ?, started_at = ?,
				finished_at = ? WHERE id = ?`, e.Status, e.InputHash, e.Inputs, e.Result, e.Error, e.Attempts, e.Input,
				e.Output, e.Turns, costArg(e.Cost), e.Replayed, e.Started, e.Finished, id)
		} else {
			var parent any
			if e.ParentSeq > 0 {
				if parent, err = rowID(e.Run, e.ParentSeq); err != nil {
					return err
				}
			}
			_, err = tx.ExecContext(ctx, `INSERT INTO calls (run_id, parent_id, seq, kind, name, status, input_hash, inputs,
				result, error, attempts, input_tokens, output_tokens, turns, cost_usd, replayed, started_at, finished_at)
				VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`, e.Run, parent, e.Seq, e.Kind, e.Name, e.Status,
				e.InputHash, e.Inputs, e.Result, e.Error, e.Attempts, e.Input, e.Output, e.Turns, costArg(e.Cost), e.Replayed, e.Started,
				e.Finished)
		}
		if err != nil {
			return err
		}
	}
	return tx.Commit()
}

// globEscape escapes the pattern characters of a path for filepath.Glob.
func globEscape(p string) string {
	var b bytes.Buffer
	for _, r := range p {
		switch r {
		case '*', '?', '[', '\\':
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	return b.String()
}
