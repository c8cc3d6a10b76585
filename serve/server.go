package serve

import (
	"context"
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net"
	"net/http"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/evalrun/evalrun/journal"
	"github.com/evalrun/evalrun/plan"
)

// DefaultAddr is the address `evalrun serve` binds by default (SPEC §24).
const DefaultAddr = "127.0.0.1:7700"

// Template is one template of the registry as the templates page shows it:
// the `templates list --json` item, its provenance line, its directory and
// its XML.
type Template struct {
	Name        string  `json:"name"`
	Alias       *string `json:"alias"`
	Type        string  `json:"type"`
	Subtype     string  `json:"subtype"`
	Description string  `json:"description"`
	Scope       string  `json:"scope"`
	Path        string  `json:"path"`
	Line        int     `json:"line"`
	ShadowedBy  *string `json:"shadowed_by"`
	// Dir is the scope's directory as `templates list` heads the group
	// ("" for builtin); Source the provenance line SCOPE PATH:LINE; XML
	// the template's text.
	Dir    string `json:"dir"`
	Source string `json:"source"`
	XML    string `json:"xml"`
}

// Options configures a Server.
type Options struct {
	// Root is the project root: plans are read from Root/.workflow/active,
	// and error positions are resolved inside it.
	Root string
	// WorkDir is the working directory workflow paths are relative to
	// (default Root).
	WorkDir string
	// Journal is the journal database (default Root/.evalrun/journal.db).
	Journal string
	// Templates lists the template registry (nil: the page shows none).
	Templates func(ctx context.Context) ([]Template, error)
	// Poll is how often the journal is checked for changes for the live
	// updates (default 250ms).
	Poll time.Duration
	// Plan is what reading a plan needs from the workspace ([plan]
	// max_tasks, the agents, [plan.agents], the templates), as `evalrun
	// plan status` reads it; the zero value reads with the defaults.
	Plan plan.Options
}

// Server is the viewer: an http.Handler over the journal, the plans and
// the templates. It writes nothing.
type Server struct {
	opts   Options
	db     *reader
	mux    *http.ServeMux
	assets fs.FS

	watch *watcher
	// allowed reports whether a Host header may be served (set by Serve
	// or AllowHosts); nil allows loopback names only.
	allowed func(host string) bool
}

//go:embed assets
var embedded embed.FS

// New returns the viewer of a project.
func New(opts Options) *Server {
	if opts.WorkDir == "" {
		opts.WorkDir = opts.Root
	}
	if opts.Journal == "" {
		opts.Journal = filepath.Join(opts.Root, ".evalrun", "journal.db")
	}
	if opts.Poll <= 0 {
		opts.Poll = 250 * time.Millisecond
	}
	assets, _ := fs.Sub(embedded, "assets")
	s := &Server{opts: opts, db: newReader(opts.Journal), assets: assets}
	s.watch = newWatcher(s.db, opts.Poll)
	mux := http.NewServeMux()
	mux.HandleFunc("GET /api/runs", s.apiRuns)
	mux.HandleFunc("GET /api/runs/{id}", s.apiRun)
	mux.HandleFunc("GET /api/runs/{id}/calls/{seq}", s.apiCall)
	mux.HandleFunc("GET /api/runs/{id}/events", s.apiRunEvents)
	mux.HandleFunc("GET /api/events", s.apiEvents)
	mux.HandleFunc("GET /api/plans", s.apiPlans)
	mux.HandleFunc("GET /api/plans/{dir}", s.apiPlan)
	mux.HandleFunc("GET /api/plans/{dir}/graph.svg", s.apiPlanGraph)
	mux.HandleFunc("GET /api/templates", s.apiTemplates)
	mux.HandleFunc("GET /api/", func(w http.ResponseWriter, r *http.Request) {
		writeError(w, http.StatusNotFound, "no such endpoint: "+r.URL.Path)
	})
	mux.HandleFunc("GET /assets/", s.static)
	mux.HandleFunc("GET /{$}", s.index)
	// The page's own routes are served by the one page.
	for _, p := range []string{"/runs/", "/plans/", "/plans", "/templates"} {
		mux.HandleFunc("GET "+p, s.index)
	}
	s.mux = mux
	return s
}

// Close stops the journal watcher and closes the database.
func (s *Server) Close() error {
	s.watch.stop()
	return s.db.close()
}

// AllowHosts sets the Host header check for an address bound at addr
// (host:port): see HostAllowed.
func (s *Server) AllowHosts(addr string) {
	s.allowed = func(h string) bool { return HostAllowed(addr, h) }
}

// HostAllowed reports whether a request with Host header host may be
// served by a viewer bound at addr (SPEC §24.3, against DNS rebinding):
// the host must be the bound host or localhost, with the bound port when
// it names one. A viewer bound to all interfaces (0.0.0.0, ::) also
// accepts IP literals, which no rebinding attack can use.
func HostAllowed(addr, host string) bool {
	bh, bp, err := net.SplitHostPort(addr)
	if err != nil {
		return false
	}
	h, p, err := net.SplitHostPort(host)
	if err != nil {
		h, p = host, ""
	}
	h = strings.TrimSuffix(strings.TrimPrefix(h, "["), "]")
	if p != "" && p != bp {
		return false
	}
	switch {
	case strings.EqualFold(h, "localhost"):
		return true
	case h == "":
		return false
	case strings.EqualFold(h, bh):
		return true
	}
	ip := net.ParseIP(h)
	bip := net.ParseIP(bh)
	if ip != nil && bip != nil && ip.Equal(bip) {
		return true
	}
	return ip != nil && bip != nil && bip.IsUnspecified()
}

// ServeHTTP implements http.Handler: it refuses a foreign Host (403) and
// any method but GET and HEAD (405), sets no CORS headers, and serves the
// page and the API.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	allowed := s.allowed
	if allowed == nil {
		allowed = func(h string) bool { return HostAllowed("127.0.0.1:0", hostWithoutPort(h)) }
	}
	if !allowed(r.Host) {
		writeError(w, http.StatusForbidden, fmt.Sprintf("host %q is not allowed: open the viewer through the address it is bound to or localhost", r.Host))
		return
	}
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		w.Header().Set("Allow", "GET, HEAD")
		writeError(w, http.StatusMethodNotAllowed, "the viewer is read-only")
		return
	}
	h := w.Header()
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Referrer-Policy", "no-referrer")
	h.Set("Content-Security-Policy", "default-src 'self'; img-src 'self' data:; style-src 'self' 'unsafe-inline'; frame-ancestors 'none'")
	s.mux.ServeHTTP(w, r)
}

func hostWithoutPort(h string) string {
	if host, _, err := net.SplitHostPort(h); err == nil {
		return host
	}
	return h
}

// Serve serves on ln until ctx is done, checking Host headers against
// ln's address.
func (s *Server) Serve(ctx context.Context, ln net.Listener) error {
	s.AllowHosts(ln.Addr().String())
	srv := &http.Server{Handler: s, ReadHeaderTimeout: 10 * time.Second}
	done := make(chan struct{})
	go func() {
		select {
		case <-ctx.Done():
			sctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
			defer cancel()
			s.watch.stop() // ends the event streams
			_ = srv.Shutdown(sctx)
		case <-done:
		}
	}()
	err := srv.Serve(ln)
	close(done)
	if errors.Is(err, http.ErrServerClosed) {
		return nil
	}
	return err
}

// writeJSON writes v as JSON (no HTML escaping).
func writeJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(v)
}

// writeError writes {"error": msg} with status code.
func writeError(w http.ResponseWriter, code int, msg string) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(code)
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(map[string]string{"error": msg})
}

// fail writes err as 404 when something was not found, 400 for an
// ambiguous run prefix, else 500.
func fail(w http.ResponseWriter, err error) {
	if strings.Contains(err.Error(), "is ambiguous:") {
		writeError(w, http.StatusBadRequest, err.Error())
		return
	}
	if errors.Is(err, errNotFound) {
		writeError(w, http.StatusNotFound, err.Error())
		return
	}
	writeError(w, http.StatusInternalServerError, err.Error())
}

func (s *Server) index(w http.ResponseWriter, r *http.Request) {
	b, err := fs.ReadFile(s.assets, "index.html")
	if err != nil {
		fail(w, err)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Cache-Control", "no-cache")
	w.Write(b)
}

func (s *Server) static(w http.ResponseWriter, r *http.Request) {
	name := strings.TrimPrefix(r.URL.Path, "/assets/")
	f, err := s.assets.Open(name)
	if err != nil || name == "" || strings.Contains(name, "..") {
		writeError(w, http.StatusNotFound, "no such asset: "+name)
		return
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil || st.IsDir() {
		writeError(w, http.StatusNotFound, "no such asset: "+name)
		return
	}
	w.Header().Set("Cache-Control", "no-cache")
	http.ServeContent(w, r, name, time.Time{}, f.(io.ReadSeeker))
}

// apiRuns is GET /api/runs[?status=S][&q=TEXT][&limit=N][&offset=M]: the
// runs newest first as `evalrun runs --json` prints them; the total number
// matching is in the X-Total-Count header.
func (s *Server) apiRuns(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	f := RunFilter{Status: q.Get("status"), Text: q.Get("q")}
	switch f.Status {
	case "", journal.StatusRunning, journal.StatusCompleted, journal.StatusFailed:
	default:
		writeError(w, http.StatusBadRequest, fmt.Sprintf("status: %q is not a run status (running, completed or failed)", f.Status))
		return
	}
	var err error
	if f.Limit, err = intParam(q.Get("limit")); err != nil {
		writeError(w, http.StatusBadRequest, "limit: "+err.Error())
		return
	}
	if f.Offset, err = intParam(q.Get("offset")); err != nil {
		writeError(w, http.StatusBadRequest, "offset: "+err.Error())
		return
	}
	rows, total, err := s.db.runs(r.Context(), f)
	if err != nil {
		fail(w, err)
		return
	}
	out := make([]*RunJSON, len(rows))
	for i, x := range rows {
		out[i] = runJSON(x)
	}
	w.Header().Set("X-Total-Count", strconv.Itoa(total))
	writeJSON(w, out)
}

func intParam(s string) (int, error) {
	if s == "" {
		return 0, nil
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < 0 {
		return 0, fmt.Errorf("not a non-negative integer: %q", s)
	}
	return n, nil
}

// runPage reads a run with its nodes (flat, in depth-first order) and its
// current position.
func (s *Server) runPage(ctx context.Context, id string, full bool) (*RunJSON, []*NodeJSON, *int, error) {
	x, err := s.db.runBare(ctx, id)
	if err != nil {
		return nil, nil, nil, err
	}
	calls, err := s.db.calls(ctx, id, full, 0, 0)
	if err != nil {
		return nil, nil, nil, err
	}
	tallyFrom(x, calls)
	run := runJSON(x)
	run.ErrorDisplay = errorDisplay(s.opts.Root, s.opts.WorkDir, x.Error)
	flat := make([]*NodeJSON, len(calls))
	for i, c := range calls {
		flat[i] = nodeJSON(c, x.Started)
	}
	return run, flat, currentSeq(calls), nil
}

// apiRun is GET /api/runs/ID[?view=flat]: the shape of `status --json`
// ({run, nodes, current}); with view=flat the nodes are one list in
// depth-first order, without inputs, results or children.
func (s *Server) apiRun(w http.ResponseWriter, r *http.Request) {
	flatView := r.URL.Query().Get("view") == "flat"
	id, err := s.db.resolve(r.Context(), r.PathValue("id"))
	if err != nil {
		fail(w, err)
		return
	}
	run, flat, cur, err := s.runPage(r.Context(), id, !flatView)
	if err != nil {
		fail(w, err)
		return
	}
	roots := buildTree(flat)
	nodes := roots
	if flatView {
		nodes = depthFirst(roots)
		for _, n := range nodes {
			n.Children = []*NodeJSON{}
		}
	}
	writeJSON(w, &RunPageJSON{Run: run, Nodes: nodes, Current: cur})
}

// apiCall is GET /api/runs/ID/calls/SEQ: one call with its prompts,
// answer, parsed content, notes and error display.
func (s *Server) apiCall(w http.ResponseWriter, r *http.Request) {
	id, err := s.db.resolve(r.Context(), r.PathValue("id"))
	if err != nil {
		fail(w, err)
		return
	}
	seq, err := strconv.Atoi(r.PathValue("seq"))
	if err != nil || seq < 1 {
		writeError(w, http.StatusBadRequest, "call: not a seq number: "+r.PathValue("seq"))
		return
	}
	x, err := s.db.runBare(r.Context(), id) // only its start is needed
	if err != nil {
		fail(w, err)
		return
	}
	c, err := s.db.call(r.Context(), id, seq)
	if err != nil {
		fail(w, err)
		return
	}
	out := &CallJSON{RunID: id, NodeJSON: nodeJSON(c, x.Started), ParsedContent: jsonNull, Notes: jsonNull}
	if c.SystemPrompt.Valid {
		out.SystemPrompt = &c.SystemPrompt.String
	}
	if c.UserPrompt.Valid {
		out.UserPrompt = &c.UserPrompt.String
	}
	if c.Kind != "step" && c.Result != nil {
		var res struct {
			Content       *string         `json:"content"`
			ParsedContent json.RawMessage `json:"parsedContent"`
			Notes         json.RawMessage `json:"notes"`
		}
		if json.Unmarshal(c.Result, &res) == nil {
			out.Answer = res.Content
			out.ParsedContent, out.Notes = orNull(res.ParsedContent), orNull(res.Notes)
		}
	}
	msg := c.Error
	if msg == "" && c.Info.Notes.Error != nil {
		msg = c.Info.Notes.Error.Message
	}
	out.ErrorDisplay = errorDisplay(s.opts.Root, s.opts.WorkDir, msg)
	writeJSON(w, out)
}
