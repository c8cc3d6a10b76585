package serve

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"net/http"
	"sync"
	"time"
)

// watcher polls the journal's PRAGMA data_version on one read-only
// connection — a cheap read that changes whenever a run commits — and
// wakes the event streams when it changes. It starts with the first
// stream and polls only while a stream is open.
type watcher struct {
	db   *reader
	poll time.Duration

	mu       sync.Mutex
	changed  chan struct{} // closed and replaced at every change
	streams  int
	running  bool
	stopped  bool
	stopping chan struct{}
}

func newWatcher(db *reader, poll time.Duration) *watcher {
	return &watcher{db: db, poll: poll, changed: make(chan struct{}), stopping: make(chan struct{})}
}

// subscribe registers a stream and returns the channel closed at the next
// change, and the function that unregisters the stream.
func (w *watcher) subscribe() (next func() <-chan struct{}, done <-chan struct{}, leave func()) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.streams++
	if !w.running && !w.stopped {
		w.running = true
		go w.loop()
	}
	next = func() <-chan struct{} {
		w.mu.Lock()
		defer w.mu.Unlock()
		return w.changed
	}
	return next, w.stopping, func() {
		w.mu.Lock()
		w.streams--
		w.mu.Unlock()
	}
}

func (w *watcher) stop() {
	w.mu.Lock()
	defer w.mu.Unlock()
	if !w.stopped {
		w.stopped = true
		close(w.stopping)
	}
}

func (w *watcher) loop() {
	t := time.NewTicker(w.poll)
	defer t.Stop()
	var conn *sql.Conn
	defer func() {
		if conn != nil {
			conn.Close()
		}
	}()
	last := int64(-1)
	for {
		select {
		case <-w.stopping:
			return
		case <-t.C:
		}
		w.mu.Lock()
		idle := w.streams == 0
		if idle {
			w.running = false
		}
		w.mu.Unlock()
		if idle {
			return
		}
		if conn == nil {
			db, err := w.db.open()
			if err != nil {
				continue // no journal yet
			}
			if conn, err = db.Conn(context.Background()); err != nil {
				conn = nil
				continue
			}
		}
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		v, err := dataVersion(ctx, conn)
		cancel()
		if err != nil {
			conn.Close()
			conn = nil
			continue
		}
		if v != last {
			w.mu.Lock()
			close(w.changed)
			w.changed = make(chan struct{})
			w.mu.Unlock()
			last = v
		}
	}
}

// overlap is how far before the previous check a change query looks, so
// that a row written just before a commit the previous check missed is
// still sent; sending a node twice is harmless.
const overlap = 2 * time.Second

// keepAlive is the interval of the comment lines that keep a stream open
// through idle periods.
const keepAlive = 15 * time.Second

// sse starts an event stream and returns the function that writes one
// event; false when the client cannot stream.
func sse(w http.ResponseWriter) (func(event string, data any) error, bool) {
	fl, ok := w.(http.Flusher)
	if !ok {
		writeError(w, http.StatusInternalServerError, "streaming is not supported")
		return nil, false
	}
	h := w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-store")
	h.Set("X-Accel-Buffering", "no")
	w.WriteHeader(http.StatusOK)
	fl.Flush()
	return func(event string, data any) error {
		var b []byte
		if data != nil {
			var err error
			if b, err = json.Marshal(data); err != nil {
				return err
			}
		}
		if event == "" {
			_, err := fmt.Fprint(w, ": keep-alive\n\n")
			fl.Flush()
			return err
		}
		if _, err := fmt.Fprintf(w, "event: %s\ndata: %s\n\n", event, b); err != nil {
			return err
		}
		fl.Flush()
		return nil
	}, true
}

// CallsEvent is the data of a `calls` event of /api/runs/ID/events: the
// run, the nodes that changed (flat, without inputs and results) and the
// current position.
type CallsEvent struct {
	Run     *RunJSON    `json:"run"`
	Nodes   []*NodeJSON `json:"nodes"`
	Current *int        `json:"current"`
}

// apiRunEvents is GET /api/runs/ID/events: server-sent events of the run's
// call changes. It sends `calls` events ({run, nodes, current}) with the
// nodes begun, started or finished since the previous event (the first
// event holds every node), and `end` once the run has finished.
func (s *Server) apiRunEvents(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	id, err := s.db.resolve(ctx, r.PathValue("id"))
	if err != nil {
		fail(w, err)
		return
	}
	send, ok := sse(w)
	if !ok {
		return
	}
	next, stopping, leave := s.watch.subscribe()
	defer leave()
	wake := next()
	since, afterSeq := int64(0), 0
	ping := time.NewTicker(keepAlive)
	defer ping.Stop()
	for {
		checked := nowNano()
		x, err := s.db.run(ctx, id)
		if err != nil {
			return
		}
		if x.Ended {
			// Its process is gone: every call it left unfinished now
			// shows as halted, so all are sent again before the end.
			since, afterSeq = 0, 0
		}
		calls, err := s.db.calls(ctx, id, false, since, afterSeq)
		if err != nil {
			return
		}
		if len(calls) > 0 || since == 0 {
			shape, err := s.db.shape(ctx, id)
			if err != nil {
				return
			}
			ev := &CallsEvent{Run: runJSON(x), Nodes: make([]*NodeJSON, len(calls)), Current: currentSeq(shape)}
			for i, c := range calls {
				ev.Nodes[i] = nodeJSON(c, x.Started)
				ev.Nodes[i].Inputs, ev.Nodes[i].Result = jsonNull, jsonNull
				afterSeq = max(afterSeq, c.Seq)
			}
			if err := send("calls", ev); err != nil {
				return
			}
		}
		if x.Finished.Valid || x.Ended {
			send("end", runJSON(x))
			return
		}
		since = checked - int64(overlap)
		select {
		case <-ctx.Done():
			return
		case <-stopping:
			return
		case <-ping.C:
			if send("", nil) != nil {
				return
			}
		case <-wake:
		}
		wake = next()
	}
}

// apiEvents is GET /api/events: server-sent `runs` events holding the runs
// (as /api/runs shows them) that started, changed or finished since the
// previous event, for the runs page.
func (s *Server) apiEvents(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	send, ok := sse(w)
	if !ok {
		return
	}
	next, stopping, leave := s.watch.subscribe()
	defer leave()
	wake := next()
	since := nowNano()
	ping := time.NewTicker(keepAlive)
	defer ping.Stop()
	send("hello", map[string]any{})
	for {
		select {
		case <-ctx.Done():
			return
		case <-stopping:
			return
		case <-ping.C:
			if send("", nil) != nil {
				return
			}
			continue
		case <-wake:
		}
		wake = next()
		checked := nowNano()
		ids, err := s.db.changedRuns(ctx, since)
		if err != nil {
			continue
		}
		since = checked - int64(overlap)
		if len(ids) == 0 {
			continue
		}
		out := make([]*RunJSON, 0, len(ids))
		for _, id := range ids {
			if x, err := s.db.run(ctx, id); err == nil {
				out = append(out, runJSON(x))
			}
		}
		if send("runs", out) != nil {
			return
		}
	}
}
