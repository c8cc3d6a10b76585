//go:build temporal

package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/evalrun/evalrun/config"
	"github.com/evalrun/evalrun/engine"
	"github.com/evalrun/evalrun/value"
)

// temporalSupport says whether this evalrun was built with the temporal
// tag (notemporal.go has the other side).
const temporalSupport = true

// resolve completes the flags from the [temporal] section of the
// configuration: a flag given wins over its key, a key over the built-in
// default (which config.Default puts in cfg).
func (f temporalFlags) resolve(cfg config.Temporal) temporalFlags {
	if f.Temporal == "" {
		f.Temporal = cfg.Address
	}
	if f.Namespace == "" {
		f.Namespace = cfg.Namespace
	}
	if f.TaskQueue == "" {
		f.TaskQueue = cfg.TaskQueue
	}
	return f
}

// target returns where runs on Temporal go: the flags completed from the
// project's configuration. It fails with exitUsage on a configuration
// error (printed with its positions) and when neither the flag nor the
// configuration gives an address (cmd names the command in the message).
func (a *app) target(f temporalFlags, cmd string) (engine.Temporal, int) {
	ws, err := engine.LoadWorkspace(engine.Options{Getenv: a.getenv})
	if err != nil {
		return engine.Temporal{}, a.openFailed(err)
	}
	f = f.resolve(ws.Config.Temporal)
	if f.Temporal == "" {
		a.errorf("%s needs --temporal HOST:PORT or [temporal] address in the configuration", cmd)
		return engine.Temporal{}, exitUsage
	}
	return engine.Temporal{HostPort: f.Temporal, Namespace: f.Namespace, TaskQueue: f.TaskQueue}, exitOK
}

// worker runs a Temporal worker for the project until SIGINT or SIGTERM.
func (a *app) worker(c *workerCmd) int {
	t, code := a.target(c.temporalFlags, "evalrun worker")
	if code != exitOK {
		return code
	}
	t.Verbose = c.Verbose
	e, code := a.open(evalFlags{Templates: c.Templates, Provider: c.Provider, Model: c.Model, RunFiles: c.RunFiles, agentFlags: c.agentFlags}, "", nil, nil, nil)
	if code != exitOK {
		return code
	}
	defer a.finish(e, false)
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := e.Serve(ctx, t, c.ActivitiesOnly); err != nil {
		a.errorf("%v", err)
		return exitEval
	}
	return exitOK
}

// runTemporal implements "evalrun run --temporal HOST:PORT FILE..." and
// "evalrun run --remote FILE...": it
// starts the workflow, then follows it (unless --detach) and prints its
// value as a local run does, with the same exit codes.
func (a *app) runTemporal(c *runCmd) int {
	if c.Resume != "" || c.DryRun || c.Record != "" {
		a.errorf("--temporal cannot be combined with --resume, --dry-run or --record")
		return exitUsage
	}
	if c.Provider != "" || c.Model != "" || len(c.RunFiles) > 0 || len(c.Templates) > 0 ||
		c.Agent != "" || c.Role != "" || len(c.Context) > 0 || c.Verbose {
		a.errorf("with --temporal the calls run on the workers: give --provider, --model, --files, --templates, --agent, --role, --context and --verbose to evalrun worker")
		return exitUsage
	}
	if len(c.Files) == 0 {
		a.errorf(`expected "<file> ..."`)
		return exitUsage
	}
	sets, code := a.evalSetup(c.evalFlags)
	if code != exitOK {
		return code
	}
	srcs, ok := a.readSources(c.Files)
	if !ok {
		return exitUsage
	}
	if _, ok := a.parseSources(srcs); !ok {
		return exitSyntax
	}
	e, code := a.open(c.evalFlags, "", nil, sets, nil)
	if code != exitOK {
		return code
	}
	defer a.finish(e, false)
	if c.CallTimeout < 0 || c.HeartbeatTimeout < 0 {
		a.errorf("--call-timeout and --heartbeat-timeout must not be negative")
		return exitUsage
	}
	t, code := a.target(c.temporalFlags, "evalrun run --remote")
	if code != exitOK {
		return code
	}
	t.CallTimeout, t.HeartbeatTimeout = c.CallTimeout, c.HeartbeatTimeout
	id, err := e.Start(context.Background(), t, srcs)
	if err != nil {
		a.errorf("%v", err)
		return exitEval
	}
	if c.Detach {
		fmt.Fprintln(a.stdout, id)
		return exitOK
	}
	a.progressMode = c.Progress
	stopProgress, code := a.startProgress()
	if code != exitOK {
		return code
	}
	defer stopProgress()
	fmt.Fprintf(a.stderr, "evalrun: following workflow %s\n", id)
	return a.follow(t, id, c.JSON, stopProgress)
}

// follow waits for the run id and prints its value, then the usage line
// of the run as a local run does (SPEC §17.3). While it waits, the live
// display of --progress (started by the caller; stopProgress erases it)
// shows the run's calls as the workflow reports them. The first Ctrl-C
// erases the display and asks whether to cancel the workflow or only stop
// following (without a terminal: stop following); the run goes on on the
// workers unless cancelled.
func (a *app) follow(t engine.Temporal, id string, asJSON bool, stopProgress func()) int {
	return a.followWith(t, id, asJSON, stopProgress, func(ctx context.Context, p *engine.Progress) (value.Value, engine.Usage, error) {
		return engine.Follow(ctx, t, id, p)
	})
}

// followWith is follow with the run followed by run (engine.Follow, or a
// test's stand-in), which draws on the display p it is given.
func (a *app) followWith(t engine.Temporal, id string, asJSON bool, stopProgress func(), run func(context.Context, *engine.Progress) (value.Value, engine.Usage, error)) int {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, os.Interrupt, syscall.SIGTERM)
	defer signal.Stop(sig)
	type result struct {
		v     value.Value
		usage engine.Usage
		err   error
	}
	done := make(chan result, 1)
	p := a.progress
	go func() {
		v, u, err := run(ctx, p)
		done <- result{v, u, err}
	}()
	select {
	case r := <-done:
		stopProgress()
		code := a.printRun(r.v, r.err, asJSON)
		if line := r.usage.Line(); line != "" {
			fmt.Fprintf(a.stderr, "%s\n", line)
		}
		return code
	case <-sig:
	}
	stopProgress()
	if engine.IsTerminal(a.stdin) && engine.IsTerminal(a.stderr) {
		fmt.Fprintf(a.stderr, "cancel workflow %s? [y/N] ", id)
		line, _ := bufio.NewReader(a.stdin).ReadString('\n')
		if strings.HasPrefix(strings.ToLower(strings.TrimSpace(line)), "y") {
			cctx, ccancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer ccancel()
			if err := engine.Cancel(cctx, t, id); err != nil {
				a.errorf("%v", err)
				return exitEval
			}
			a.errorf("cancelled workflow %s", id)
			return exitInterrupted
		}
	}
	a.errorf("stopped following workflow %s; it goes on (evalrun status --temporal %s %s)", id, t.HostPort, id)
	return exitInterrupted
}

// printRun prints a followed run's value or error as evaluate does. A run
// whose budget refused calls (SPEC §14.9) has its value printed, then the
// budget's message, and exits 1, as a local run.
func (a *app) printRun(v value.Value, err error, asJSON bool) int {
	var budgetErr error
	if be := (*engine.BudgetError)(nil); errors.As(err, &be) {
		budgetErr, err = be, nil
	}
	if err != nil {
		if engine.IsInterrupted(err) {
			a.errorf("interrupted")
			return exitInterrupted
		}
		return a.reportError(err)
	}
	return a.finalValue(v, asJSON, budgetErr)
}

// statusTemporal implements "evalrun status --temporal HOST:PORT ID" and
// "evalrun status --remote ID": the run's tree of calls in the form of a
// local run's status (SPEC §16.3), --markdown and --json included. When
// no worker answers the workflow's progress query, the tree is its
// history's calls, and stderr says so. Stderr ends with the workflow's
// state on the server: its history's length, its calls running.
func (a *app) statusTemporal(f temporalFlags, id string, markdown, asJSON bool) int {
	if id == "" || id == "last" {
		a.errorf("evalrun status --temporal needs a workflow id")
		return exitUsage
	}
	t, code := a.target(f, "evalrun status --remote")
	if code != exitOK {
		return code
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	st, fromHistory, err := engine.WriteTemporalStatus(ctx, t, id, a.stdout, statusFormat(asJSON, markdown))
	if err != nil {
		a.errorf("%v", err)
		return exitEval
	}
	if fromHistory {
		a.errorf("no worker answered the query of workflow %s: its calls are shown from its history, without the steps around them", id)
	}
	calls := "calls"
	if st.PendingCalls == 1 {
		calls = "call"
	}
	a.errorf("workflow %s %s, %d history events, %d %s running", id, st.State, st.HistoryLength, st.PendingCalls, calls)
	return exitOK
}

// runsTemporal implements "evalrun runs --temporal HOST:PORT" and
// "evalrun runs --remote": the newest evalrun workflows of the namespace
// in the columns of "evalrun runs".
func (a *app) runsTemporal(f temporalFlags, asJSON bool) int {
	t, code := a.target(f, "evalrun runs --remote")
	if code != exitOK {
		return code
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := engine.WriteTemporalRuns(ctx, t, a.stdout, asJSON); err != nil {
		a.errorf("%v", err)
		return exitEval
	}
	return exitOK
}
