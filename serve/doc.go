// Package serve is the run viewer of `evalrun serve` (SPEC §24): a local,
// read-only web page over the journal (§16), the plans (§23) and the
// templates, and the JSON API under it.
//
// # Reading without blocking
//
// The journal is opened read-only (mode=ro, query_only, a busy timeout)
// through SQLite's WAL, so a page never takes a write lock and a run never
// waits for the page. Live updates come from the database itself: one
// watcher per server polls PRAGMA data_version (which changes whenever
// another connection commits) every 250 ms while a stream is open, and the
// streams then query only the calls begun, started or finished since their
// previous event.
//
// # Endpoints
//
//	GET /api/runs[?status=S&q=TEXT&limit=N&offset=M]  runs, newest first (X-Total-Count: the total)
//	GET /api/runs/ID[?view=flat]                      {run, nodes, current}, the shape of status --json
//	GET /api/runs/ID/calls/SEQ                        one call: prompts, answer, parsed content, notes
//	GET /api/runs/ID/events                           server-sent events: calls, end
//	GET /api/events                                   server-sent events: runs
//	GET /api/plans, /api/plans/DIR                    plans of .workflow/active, one plan
//	GET /api/plans/DIR/graph.svg                      the plan's dependency graph
//	GET /api/templates                                the registry as templates list --json shows it
//
// Everything else is the page: one HTML file, one script and one style
// sheet embedded in the binary (no CDN, no build step), in plain
// JavaScript — the page is small enough that a library would cost more
// than it saves.
//
// # Rules
//
// Only GET and HEAD are served; a request whose Host header is neither the
// bound address nor localhost is refused with 403 (DNS rebinding), and no
// CORS header is ever set. A viewer bound to all interfaces also accepts
// IP-literal hosts, which rebinding cannot produce.
//
// The plan page reads .workflow/active/WFS-* with package plan (Load,
// StatusJSON), so its states and current task are those of `evalrun plan
// status --json`; each task's times, run, tokens and cost come from the
// plan runner's .process/evalrun-state.json, and its step outputs from
// the nodes under its step node in that journal run (plans.go).
//
// # Example
//
//	srv := serve.New(serve.Options{Root: root})
//	defer srv.Close()
//	ln, _ := net.Listen("tcp", serve.DefaultAddr)
//	err := srv.Serve(ctx, ln)
package serve
