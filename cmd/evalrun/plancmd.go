package main

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"

	"github.com/alecthomas/kong"

	"github.com/evalrun/evalrun/engine"
)

// exitManual is the exit code of a plan stopped by a manual_intervention
// step (SPEC §17.9).
const exitManual = 4

// planCmd is "evalrun plan check|run|status|todo" (SPEC §23).
type planCmd struct {
	Check  planCheckCmd  `cmd:"" help:"Validate a plan: every problem with its position; exit 3 on errors."`
	Run    planRunCmd    `cmd:"" help:"Execute a plan's ready tasks in dependency order."`
	Status planStatusCmd `cmd:"" help:"Show the task tree with states, agents and the current position."`
	Todo   planTodoCmd   `cmd:"" help:"Rewrite TODO_LIST.md from the task files."`
}

type planDirArg struct {
	Dir string `arg:"" optional:"" name:"dir" help:"The session directory (default: the only WFS-* directory under .workflow/active/)."`
}

type planCheckCmd struct{ planDirArg }

type planRunCmd struct {
	planDirArg
	Task         []string   `name:"task" sep:"none" placeholder:"ID" help:"Run only this task (IMPL-1, or IMPL-1.* for its subtasks). Repeatable."`
	Agent        string     `name:"agent" placeholder:"A" help:"The agent of tasks that [plan.agents] and meta.tool leave unchosen; none forces the provider."`
	Parallel     int        `name:"parallel" default:"1" placeholder:"N" help:"Run up to N tasks at once (never two whose focus_paths overlap)."`
	DryRun       bool       `name:"dry-run" help:"Print the waves and write every prompt; run no agent and no command."`
	Resume       resumeFlag `name:"resume" placeholder:"RUN" help:"Continue a run of the journal (--resume for the last, --resume=RUN for an id or prefix): completed tasks are not run again, completed calls are replayed, active tasks start again."`
	Provider     string     `name:"provider" placeholder:"P" help:"Use the provider P for every task (no agents)."`
	progressFlag `embed:""`
	budgetFlags  `embed:""`
}

type planStatusCmd struct {
	planDirArg
	Markdown bool `name:"markdown" xor:"format" help:"Print the checklist for injection into a prompt."`
	JSON     bool `name:"json" xor:"format" help:"Print the tasks as JSON."`
}

type planTodoCmd struct{ planDirArg }

// resumeFlag is --resume with an optional value: "last" when given
// alone, RUN for --resume=RUN, "" when absent.
type resumeFlag string

// Decode implements kong.MapperValue.
func (r *resumeFlag) Decode(ctx *kong.DecodeContext) error {
	if ctx.Scan.Peek().Type != kong.FlagValueToken {
		*r = "last"
		return nil
	}
	tok, err := ctx.Scan.PopValue("run")
	if err != nil {
		return err
	}
	switch v := tok.Value.(type) {
	case bool:
		if v {
			*r = "last"
		}
	case string:
		*r = resumeFlag(v)
	}
	return nil
}

// IsBool implements kong.BoolMapperValue: --resume needs no value.
func (r *resumeFlag) IsBool() bool { return true }

// planDir resolves the session directory.
func (a *app) planDir(dir string) (string, int) {
	if dir != "" {
		return dir, exitOK
	}
	found, err := engine.FindPlan(".")
	if err != nil {
		a.errorf("%v", err)
		return "", exitUsage
	}
	return found, exitOK
}

// loadPlan reads and checks a plan, printing its errors, and its warnings
// when all is set (plan check); otherwise the warnings are counted in one
// line that points to plan check, so that status, todo and run do not
// repeat them every time.
func (a *app) loadPlan(dir string, all bool) (*engine.Plan, *engine.Workspace, int) {
	dir, code := a.planDir(dir)
	if code != exitOK {
		return nil, nil, code
	}
	ws, err := engine.LoadWorkspace(engine.Options{Stderr: a.stderr, Getenv: a.getenv})
	if err != nil {
		return nil, nil, a.openFailed(err)
	}
	p, diags, err := ws.LoadPlan(dir)
	if err != nil {
		a.errorf("%v", err)
		return nil, nil, exitUsage
	}
	if all {
		fmt.Fprint(a.stderr, diags.Display())
	} else {
		fmt.Fprint(a.stderr, diags.ErrorsOnly().Display())
	}
	if diags.HasErrors() {
		fmt.Fprintf(a.stderr, "%s: %d errors\n", dir, diags.Errors())
		return p, ws, exitSyntax
	}
	if n := diags.Warnings(); n > 0 && !all {
		s := "s"
		if n == 1 {
			s = ""
		}
		fmt.Fprintf(a.stderr, "%s: %d warning%s (evalrun plan check shows them)\n", dir, n, s)
	}
	return p, ws, exitOK
}

func (c *planCheckCmd) Run(a *app) error {
	p, _, code := a.loadPlan(c.Dir, true)
	if code == exitOK {
		fmt.Fprintln(a.stdout, p.String())
	}
	return exit(code)
}

func (c *planTodoCmd) Run(a *app) error {
	p, _, code := a.loadPlan(c.Dir, false)
	if code != exitOK {
		return exit(code)
	}
	path, err := engine.WritePlanTodo(p)
	if err != nil {
		a.errorf("%v", err)
		return exit(exitEval)
	}
	fmt.Fprintf(a.stdout, "%s written\n", path)
	return nil
}

func (c *planStatusCmd) Run(a *app) error {
	p, _, code := a.loadPlan(c.Dir, false)
	if code != exitOK {
		return exit(code)
	}
	recs, err := p.ReadState()
	if err != nil {
		a.errorf("%v", err)
		return exit(exitEval)
	}
	switch {
	case c.JSON:
		data, err := p.StatusJSON(recs)
		if err != nil {
			a.errorf("%v", err)
			return exit(exitEval)
		}
		fmt.Fprintln(a.stdout, string(data))
	case c.Markdown:
		fmt.Fprint(a.stdout, p.StatusMarkdown(recs))
	default:
		fmt.Fprint(a.stdout, p.StatusText(recs))
	}
	return nil
}

func (c *planRunCmd) Run(a *app) error {
	if c.Parallel < 1 {
		a.errorf("--parallel must be at least 1, got %d", c.Parallel)
		return exit(exitUsage)
	}
	if c.Provider != "" && c.Agent != "" && c.Agent != "none" {
		a.errorf("--agent and --provider cannot be used together")
		return exit(exitUsage)
	}
	if !c.DryRun { // a dry run prints its waves on stdout: no display
		a.progressMode = c.Progress
	}
	stopProgress, code := a.startProgress()
	if code != exitOK {
		return exit(code)
	}
	defer stopProgress()
	p, _, code := a.loadPlan(c.Dir, false)
	if code != exitOK {
		return exit(code)
	}
	var jn *engine.JournalInfo
	var resumed *engine.Resume
	if !c.DryRun {
		abs, _ := filepath.Abs(p.Dir)
		jn = &engine.JournalInfo{WorkflowPath: abs}
		if c.Resume != "" {
			var err error
			resumed, err = engine.FindResume(engine.Options{Getenv: a.getenv}, string(c.Resume))
			if err != nil {
				a.errorf("%v", err)
				return exit(exitUsage)
			}
			if w := resumed.RunningWarning(); w != "" {
				fmt.Fprintf(a.stderr, "warning: %s\n", w)
			}
		}
	} else if c.Resume != "" {
		a.errorf("--resume cannot be used with --dry-run: dry runs are not journaled")
		return exit(exitUsage)
	}
	// --agent is the run's, so that --resume uses it again.
	e, code := a.open(evalFlags{Provider: c.Provider, DryRun: c.DryRun, budgetFlags: c.budgetFlags, agentFlags: agentFlags{Agent: c.Agent}, listContexts: true}, "", jn, nil, resumed)
	if code != exitOK {
		return exit(code)
	}
	sig := a.notifyRunSignals()
	defer sig.stop()
	var err error
	sig.journalAbort(e)
	interrupted := sig.guard(func(ctx context.Context) {
		_, err = e.RunPlan(ctx, p, engine.PlanRun{Parallel: c.Parallel, Tasks: c.Task, DryRun: c.DryRun, Resume: c.Resume != "", Stdout: a.stdout})
	})
	stopProgress()
	if interrupted {
		e.Finish(nil, errors.New("cancelled"))
		a.finish(e, true)
		return exit(exitInterrupted)
	}
	// A spent budget (SPEC §14.9) refused the plan's later calls: the
	// run ends with its message and exit 1, after the plan's own error.
	budgetErr := e.BudgetError()
	if err == nil {
		err = budgetErr
	}
	e.Finish(nil, err)
	a.finish(e, true)
	if err == nil {
		return nil
	}
	a.errorf("%v", err)
	if budgetErr != nil {
		if err != budgetErr {
			a.errorf("%v", budgetErr)
		}
		return exit(exitEval)
	}
	var me *engine.PlanManualError
	var ue *engine.PlanUsageError
	var fe *engine.PlanFailedError
	switch {
	case errors.As(err, &me):
		return exit(exitManual)
	case errors.As(err, &ue):
		return exit(exitUsage)
	case errors.As(err, &fe):
		return exit(exitEval)
	}
	return exit(exitEval)
}
