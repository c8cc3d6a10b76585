package main

import (
	"errors"

	"github.com/evalrun/evalrun/engine"
)

// runsCmd is "evalrun runs".
type runsCmd struct {
	JSON       bool `name:"json" help:"Print the runs as a JSON array of run objects (see status --help); cost_usd is what a run paid, replayed_cost_usd what its replayed calls had cost."`
	server     `embed:""`
	remoteFlag `embed:""`
}

// statusCmd is "evalrun status [RUN]".
type statusCmd struct {
	Markdown   bool   `name:"markdown" xor:"format" help:"Print the run as a - [x]/- [ ] checklist."`
	JSON       bool   `name:"json" xor:"format" help:"Print {\"run\": RUN, \"nodes\": [NODE...], \"current\": SEQ or null} where RUN is {id, workflow, workflow_sha256, args, status, resumed_from, started_at, finished_at, duration_seconds, calls, tokens, cost_usd, replayed_cost_usd, cost_unknown_calls, final, error} (cost_usd is what the run paid, replayed_cost_usd the recorded cost of the calls it replayed from the runs it resumed) and NODE is {seq, kind, name, label (a task's or tool's input values, cut to 40 characters), status, input_hash, inputs, result, error, attempts, input_tokens, output_tokens, turns, cost_usd (null when unknown; a replayed call keeps its recorded cost), executor (openai:gpt-4.1, agent:claude; known from the call's start), template_source (SCOPE PATH:LINE), replayed, started_at, finished_at, children}; times are RFC 3339, absent ones null."`
	RunRef     string `arg:"" optional:"" name:"run" default:"last" help:"A run id, a unique prefix of one, or last (the default); with --temporal a workflow id."`
	server     `embed:""`
	remoteFlag `embed:""`
}

// Run implements "evalrun runs".
func (c *runsCmd) Run(a *app) error {
	if c.onTemporal(c.remoteFlag) {
		return exit(a.runsTemporal(c.server, c.JSON))
	}
	return exit(a.runs(c.JSON))
}

// Run implements "evalrun status".
func (c *statusCmd) Run(a *app) error {
	if c.onTemporal(c.remoteFlag) {
		return exit(a.statusTemporal(c.server, c.RunRef, c.Markdown, c.JSON))
	}
	return exit(a.status(c.RunRef, c.Markdown, c.JSON))
}

// runs implements "evalrun runs": the journal's runs, newest first (none
// in a project without a journal).
func (a *app) runs(asJSON bool) int {
	h, ok, err := engine.OpenHistory(engine.Options{Getenv: a.getenv})
	if err != nil {
		a.errorf("%v", err)
		return exitUsage
	}
	if !ok {
		return a.historyDone(engine.WriteNoRuns(a.stdout, asJSON))
	}
	defer h.Close()
	return a.historyDone(h.WriteRuns(a.stdout, asJSON))
}

// status implements "evalrun status [RUN]" (SPEC §16.3).
func (a *app) status(ref string, markdown, asJSON bool) int {
	h, ok, err := engine.OpenHistory(engine.Options{Getenv: a.getenv})
	if err != nil {
		a.errorf("%v", err)
		return exitUsage
	}
	if !ok {
		a.errorf("%v", engine.NoJournalError(ref))
		return exitUsage
	}
	defer h.Close()
	return a.historyDone(h.WriteStatus(a.stdout, ref, statusFormat(asJSON, markdown)))
}

// historyDone reports an error of reading the journal (exit 2) or of
// writing the output (exit 1).
func (a *app) historyDone(err error) int {
	if err == nil {
		return exitOK
	}
	a.errorf("%v", err)
	var ee *engine.Error
	if errors.As(err, &ee) {
		return exitUsage
	}
	return exitEval
}

// statusFormat is the form of status output its flags ask for (--json and
// --markdown are refused together before it is asked).
func statusFormat(asJSON, markdown bool) engine.StatusFormat {
	switch {
	case asJSON:
		return engine.StatusJSON
	case markdown:
		return engine.StatusMarkdown
	}
	return engine.StatusText
}
