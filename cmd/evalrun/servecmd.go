package main

import (
	"context"
	"os/signal"
	"syscall"

	"github.com/evalrun/evalrun/engine"
)

// serveCmd is "evalrun serve".
type serveCmd struct {
	Addr      string   `name:"addr" placeholder:"HOST:PORT" default:"127.0.0.1:7700" help:"Address to bind; another host than a loopback one prints a warning (the viewer has no login)."`
	Open      bool     `name:"open" help:"Open the page in the system's browser."`
	Templates []string `name:"templates" sep:"none" placeholder:"DIR" help:"Also list the templates of DIR (scope dir). Repeatable."`
}

// serveHelp documents the JSON endpoints under the page (SPEC §24.2).
const serveHelp = `Serve a local, read-only web page over the runs of the journal, the plans of .workflow/active and the templates. It updates live while runs write the journal, and never writes anything.

JSON endpoints (GET only; the shapes are those of the matching --json outputs):

  /api/runs                 runs newest first, as runs --json; ?status=S&q=TEXT&limit=N&offset=M, total in X-Total-Count
  /api/runs/ID              {run, nodes, current} as status --json; ?view=flat gives one depth-first list without inputs and results
  /api/runs/ID/calls/SEQ    one call: system_prompt, user_prompt, answer, parsed_content, notes, error_display
  /api/runs/ID/events       server-sent events: "calls" {run, nodes, current} of changed calls, "end" once the run finished
  /api/events               server-sent events: "runs" [run...] started, changed or finished
  /api/plans                the plans of .workflow/active
  /api/plans/DIR            one plan: tasks with states, runs, step outputs, task JSON, summaries
  /api/plans/DIR/graph.svg  the plan's dependency graph
  /api/templates            the registry as templates list --json, with each template's source and XML

Requests whose Host header is neither the bound address nor localhost are refused (DNS rebinding); no CORS headers are sent.`

// Help implements kong's HelpProvider.
func (c *serveCmd) Help() string { return serveHelp }

// Run implements "evalrun serve".
func (c *serveCmd) Run(a *app) error {
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	err := engine.Serve(ctx, engine.ServeOptions{
		Templates: c.Templates, Getenv: a.getenv, Addr: c.Addr, Stderr: a.stderr, Open: c.Open,
	})
	if err != nil {
		return exit(a.openFailed(err))
	}
	return nil
}
