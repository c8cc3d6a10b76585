package main

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/evalrun/evalrun/journal"
	"github.com/evalrun/evalrun/templates"
	"github.com/evalrun/evalrun/value"
)

// runsCmd is "evalrun runs".
type runsCmd struct {
	JSON bool `name:"json" help:"Print the runs as a JSON array of run objects (see status --help)."`
}

// statusCmd is "evalrun status [RUN]".
type statusCmd struct {
	Markdown bool   `name:"markdown" help:"Print the run as a - [x]/- [ ] checklist."`
	JSON     bool   `name:"json" help:"Print {\"run\": RUN, \"nodes\": [NODE...], \"current\": SEQ or null} where RUN is {id, workflow, workflow_sha256, args, status, resumed_from, started_at, finished_at, duration_seconds, calls, tokens, final, error} and NODE is {seq, kind, name, status, input_hash, inputs, result, error, attempts, input_tokens, output_tokens, turns, replayed, started_at, finished_at, children}; times are RFC 3339, absent ones null."`
	RunRef   string `arg:"" optional:"" name:"run" default:"last" help:"A run id, a unique prefix of one, or last (the default)."`
}

// Run implements "evalrun runs".
func (c *runsCmd) Run(a *app) error { return exit(a.runs(c.JSON)) }

// Run implements "evalrun status".
func (c *statusCmd) Run(a *app) error { return exit(a.status(c.RunRef, c.Markdown, c.JSON)) }

// openJournal opens the journal of the project the working directory
// belongs to; ok is false (and nothing is created) when there is none.
func (a *app) openJournal() (s *journal.Store, ok bool, code int) {
	wd, err := os.Getwd()
	if err != nil {
		a.errorf("cannot find the working directory: %v", err)
		return nil, false, exitUsage
	}
	path := filepath.Join(templates.ProjectRoot(wd), journal.DefaultPath)
	if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) {
		return nil, false, exitOK
	}
	s, err = journal.Open(path)
	if err != nil {
		a.errorf("%v", err)
		return nil, false, exitUsage
	}
	return s, true, exitOK
}

// runs implements `evalrun runs` (SPEC §16.3): the recent runs, newest
// first.
func (a *app) runs(asJSON bool) int {
	s, ok, code := a.openJournal()
	if code != exitOK {
		return code
	}
	var runs []*journal.RunRecord
	if ok {
		defer s.Close()
		var err error
		if runs, err = s.Runs(0); err != nil {
			a.errorf("%v", err)
			return exitUsage
		}
	}
	if asJSON {
		l := make(value.List, len(runs))
		for i, r := range runs {
			l[i] = runJSON(r)
		}
		io.WriteString(a.stdout, value.JSONIndent(l, "  ")+"\n")
		return exitOK
	}
	if err := journal.RenderRuns(a.stdout, runs); err != nil {
		a.errorf("%v", err)
		return exitEval
	}
	return exitOK
}

// status implements `evalrun status [RUN]` (SPEC §16.3). An unknown RUN
// is a usage error.
func (a *app) status(ref string, markdown, asJSON bool) int {
	s, ok, code := a.openJournal()
	if code != exitOK {
		return code
	}
	if !ok {
		a.errorf("no run %s: the journal %s does not exist", ref, journal.DefaultPath)
		return exitUsage
	}
	defer s.Close()
	rec, err := s.Resolve(ref)
	if err != nil {
		a.errorf("%v", err)
		return exitUsage
	}
	tree, err := s.Tree(rec.ID)
	if err != nil {
		a.errorf("%v", err)
		return exitUsage
	}
	switch {
	case asJSON:
		var cur value.Value = value.Null{}
		if n := journal.CurrentPosition(tree); n != nil {
			cur = value.Int(n.Seq)
		}
		out := value.DictOf("run", runJSON(rec), "nodes", nodesJSON(tree), "current", cur)
		io.WriteString(a.stdout, value.JSONIndent(out, "  ")+"\n")
	case markdown:
		err = journal.RenderMarkdown(a.stdout, tree)
	default:
		err = journal.RenderStatus(a.stdout, rec, tree)
	}
	if err != nil {
		a.errorf("%v", err)
		return exitEval
	}
	return exitOK
}

// timeJSON is t in RFC 3339, or null when zero.
func timeJSON(t time.Time) value.Value {
	if t.IsZero() {
		return value.Null{}
	}
	return value.String(t.Format(time.RFC3339Nano))
}

// orNull is v, or null when v is nil.
func orNull(v value.Value) value.Value {
	if v == nil {
		return value.Null{}
	}
	return v
}

// runJSON is the JSON object of a run (status --help).
func runJSON(r *journal.RunRecord) *value.Dict {
	return value.DictOf(
		"id", value.String(r.ID),
		"workflow", value.String(r.WorkflowPath),
		"workflow_sha256", value.String(r.WorkflowSHA256),
		"args", orNull(r.Args),
		"status", value.String(r.Status),
		"resumed_from", value.String(r.ResumedFrom),
		"started_at", timeJSON(r.StartedAt),
		"finished_at", timeJSON(r.FinishedAt),
		"duration_seconds", value.Float(r.Duration().Seconds()),
		"calls", value.Int(r.Calls),
		"tokens", value.Int(r.Tokens),
		"final", orNull(r.Final),
		"error", value.String(r.Error),
	)
}

// nodesJSON is the JSON array of a tree's nodes (status --help).
func nodesJSON(tree []*journal.Node) value.List {
	l := make(value.List, len(tree))
	for i, n := range tree {
		l[i] = value.DictOf(
			"seq", value.Int(n.Seq),
			"kind", value.String(n.Kind),
			"name", value.String(n.Name),
			"status", value.String(n.Status),
			"input_hash", value.String(n.InputHash),
			"inputs", orNull(n.Inputs),
			"result", orNull(n.Result),
			"error", value.String(strings.TrimSpace(n.Error)),
			"attempts", value.Int(n.Attempts),
			"input_tokens", value.Int(n.Usage.InputTokens),
			"output_tokens", value.Int(n.Usage.OutputTokens),
			"turns", value.Int(n.Usage.Turns),
			"replayed", value.Bool(n.Replayed),
			"started_at", timeJSON(n.StartedAt),
			"finished_at", timeJSON(n.FinishedAt),
			"children", nodesJSON(n.Children),
		)
	}
	return l
}
