package journal

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"sync"
	"time"
)

// Writes are queued and written in batches, one transaction per batch,
// with statements prepared once on a connection reserved for writing.
//
// The end of a run is synchronous: it returns once its batch, holding it
// and everything queued before it, is committed. The first call of a run
// starts the commit of the run (opening the database first with OpenLazy)
// in the background and goes on. The end of a call is durable when End returns: appended to
// the call log (calllog.go), or, where there is none, committed like the
// end of a run. Other writes (a call begun, running, its inputs) return at
// once. Everything queued is committed with the next synchronous write or,
// at the latest, flushDelay later, so that another process reading the
// journal sees running and ended calls. Writers that wait at the same time
// share one commit (group commit).
//
// The database uses WAL with synchronous=NORMAL: a committed transaction
// (like an appended call log line) survives the process crashing; a power
// loss may lose the last ones.

// flushDelay bounds how long an asynchronous write stays queued.
const flushDelay = 25 * time.Millisecond

// op is one queued write; it runs inside the batch's transaction.
type op func(w *stmts) error

// stmts are the prepared statements of the write connection.
type stmts struct {
	ctx         context.Context
	conn        *sql.Conn
	insertRun   *sql.Stmt
	finishRun   *sql.Stmt
	insertCall  *sql.Stmt
	claimStep   *sql.Stmt
	setStatus   *sql.Stmt
	setRunning  *sql.Stmt
	setInput    *sql.Stmt
	setPrompt   *sql.Stmt
	setExecutor *sql.Stmt
	endCall     *sql.Stmt
	beginTx     *sql.Stmt
	commitTx    *sql.Stmt
	rollbackTx  *sql.Stmt
	all         []*sql.Stmt
	preparedErr error
}

func prepareStmts(ctx context.Context, conn *sql.Conn) (*stmts, error) {
	w := &stmts{ctx: ctx, conn: conn}
	prep := func(dst **sql.Stmt, q string) {
		if w.preparedErr != nil {
			return
		}
		*dst, w.preparedErr = conn.PrepareContext(ctx, q)
		if w.preparedErr == nil {
			w.all = append(w.all, *dst)
		}
	}
	prep(&w.insertRun, `INSERT INTO runs (id, workflow, workflow_sha, arguments, status, resumed_from, started_at,
		max_cost_usd, max_tokens, owner_pid, owner_host, owner_start) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
		ON CONFLICT (id) DO NOTHING`)
	prep(&w.finishRun, "UPDATE runs SET status = ?, finished_at = ?, final = ?, error = ? WHERE id = ?")
	prep(&w.insertCall, `INSERT INTO calls (run_id, parent_id, seq, kind, name, status, input_hash, inputs, result, error,
		attempts, input_tokens, output_tokens, turns, cost_usd, replayed, started_at, finished_at, queued_at,
		system_prompt, user_prompt, executor, template_source, label)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`)
	prep(&w.beginTx, "BEGIN IMMEDIATE")
	prep(&w.commitTx, "COMMIT")
	prep(&w.rollbackTx, "ROLLBACK")
	prep(&w.claimStep, "UPDATE calls SET status = ?, input_hash = ?, inputs = ?, started_at = ? WHERE id = ?")
	prep(&w.setStatus, "UPDATE calls SET status = ? WHERE id = ?")
	prep(&w.setRunning, "UPDATE calls SET status = ?, started_at = COALESCE(started_at, ?) WHERE id = ?")
	prep(&w.setInput, "UPDATE calls SET input_hash = ?, inputs = ?, label = ? WHERE id = ?")
	prep(&w.setPrompt, "UPDATE calls SET system_prompt = ?, user_prompt = ? WHERE id = ?")
	prep(&w.setExecutor, "UPDATE calls SET executor = ?, template_source = ? WHERE id = ?")
	prep(&w.endCall, `UPDATE calls SET status = ?, result = ?, error = ?, attempts = ?, input_tokens = ?,
		output_tokens = ?, turns = ?, cost_usd = ?, replayed = ?, started_at = COALESCE(started_at, ?), finished_at = ? WHERE id = ?`)
	if w.preparedErr != nil {
		w.close()
		return nil, w.preparedErr
	}
	return w, nil
}

func (w *stmts) close() {
	for _, st := range w.all {
		st.Close()
	}
	w.all = nil
}

// writeQueue holds the writes not yet committed.
type writeQueue struct {
	mu       sync.Mutex // guards the fields below
	ops      []op
	queued   uint64 // ops ever queued
	written  uint64 // ops ever taken by a batch
	asyncErr error  // the first failure of a batch no synchronous caller was told of
	// The last failed batch: tickets failFrom+1 … failTo, and its error.
	failFrom, failTo uint64
	failErr          error
	timer            *time.Timer
	timerWG          sync.WaitGroup
	closed           bool

	batchMu sync.Mutex // held while a batch is written; taken before mu
}

// enqueue queues op and returns its ticket. An asynchronous op makes sure
// a flush is scheduled.
func (s *Store) enqueue(o op, async bool) uint64 {
	q := &s.q
	q.mu.Lock()
	defer q.mu.Unlock()
	q.ops = append(q.ops, o)
	q.queued++
	if async && q.timer == nil && !q.closed {
		q.timerWG.Add(1)
		q.timer = time.AfterFunc(s.flushDelay, func() {
			defer q.timerWG.Done()
			q.mu.Lock()
			q.timer = nil
			q.mu.Unlock()
			if err := s.flushTo(0); err != nil {
				q.mu.Lock()
				if q.asyncErr == nil {
					q.asyncErr = err
				}
				q.mu.Unlock()
			}
		})
	}
	return q.queued
}

// sync queues op and returns once it is committed, with its batch's error
// or the error of an earlier asynchronous batch not reported yet.
func (s *Store) sync(o op) error { return s.wait(s.enqueue(o, false)) }

// wait returns once the ops up to ticket are committed, as sync.
func (s *Store) wait(t uint64) error {
	err := s.flushTo(t)
	s.q.mu.Lock()
	if err == nil && s.q.failFrom < t && t <= s.q.failTo {
		err = s.q.failErr // written by another caller's batch, which failed
	}
	if err == nil {
		err = s.q.asyncErr
	}
	s.q.asyncErr = nil
	s.q.mu.Unlock()
	return err
}

// flush commits everything queued so far.
func (s *Store) flush() error {
	s.q.mu.Lock()
	t := s.q.queued
	s.q.mu.Unlock()
	return s.flushTo(t)
}

// flushTo returns once the ops up to ticket are committed (0: whatever is
// queued now). Whoever gets the batch lock writes every op queued by then.
func (s *Store) flushTo(ticket uint64) error {
	q := &s.q
	q.batchMu.Lock()
	defer q.batchMu.Unlock()
	q.mu.Lock()
	if ticket != 0 && q.written >= ticket || len(q.ops) == 0 {
		q.mu.Unlock()
		return nil
	}
	batch := q.ops
	q.ops = nil
	from := q.written
	q.written = q.queued
	to := q.written
	q.mu.Unlock()
	err := s.writeBatch(batch)
	if err != nil {
		q.mu.Lock()
		q.failFrom, q.failTo, q.failErr = from, to, err
		q.mu.Unlock()
		if l := s.log.Load(); l != nil {
			l.keep() // the rows of the failed batch are only there now
		}
	} else if l := s.log.Load(); l != nil {
		l.committed(to)
	}
	return err
}

// takeAsyncErr returns and forgets the failure of a batch that no
// synchronous caller was told of.
func (s *Store) takeAsyncErr() error {
	s.q.mu.Lock()
	defer s.q.mu.Unlock()
	err := s.q.asyncErr
	s.q.asyncErr = nil
	return err
}

// writeBatch runs ops in one transaction on the write connection, opening
// the database first when that has not happened yet.
func (s *Store) writeBatch(batch []op) (err error) {
	w, err := s.writer()
	if err != nil {
		return err
	}
	if len(batch) == 1 {
		// One statement is a transaction of its own (autocommit).
		if err := batch[0](w); err != nil {
			return fmt.Errorf("journal: %w", err)
		}
		return nil
	}
	if _, err := w.beginTx.ExecContext(w.ctx); err != nil {
		return fmt.Errorf("journal: %w", err)
	}
	defer func() {
		if err != nil {
			_, _ = w.rollbackTx.ExecContext(w.ctx)
		}
	}()
	for _, o := range batch {
		if err := o(w); err != nil {
			return fmt.Errorf("journal: %w", err)
		}
	}
	if _, err := w.commitTx.ExecContext(w.ctx); err != nil {
		return fmt.Errorf("journal: %w", err)
	}
	return nil
}

// closeQueue stops the flush timer and commits what is queued.
func (s *Store) closeQueue() error {
	q := &s.q
	q.mu.Lock()
	q.closed = true
	if q.timer != nil && q.timer.Stop() {
		q.timer = nil
		q.timerWG.Done()
	}
	q.mu.Unlock()
	q.timerWG.Wait()
	err := s.flush()
	q.mu.Lock()
	if err == nil {
		err = q.asyncErr
	}
	q.asyncErr = nil
	q.mu.Unlock()
	return err
}

// errClosed is the error of a write after Close.
var errClosed = errors.New("journal: the store is closed")
