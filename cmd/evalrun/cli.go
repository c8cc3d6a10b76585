package main

import (
	"time"

	"github.com/alecthomas/kong"
)

// cli is the kong grammar of the command line (SPEC §17.1).
type cli struct {
	Version kong.VersionFlag `help:"Print the version and exit."`

	Run   runCmd   `cmd:"" help:"Evaluate workflow files in order in one global environment and print the value of the last form."`
	Eval  evalCmd  `cmd:"" help:"Evaluate the forms in EXPR and print the value of the last one."`
	Check checkCmd `cmd:"" help:"Check workflow files without running them: syntax, special-form shapes, unknown operators and unbound variables."`
	Fmt   fmtCmd   `cmd:"" help:"Format workflow files (to stdout, or in place with -w)."`
	Repl  replCmd  `cmd:"" help:"Start an interactive session."`
}

// evalFlags are the flags shared by run, eval and repl.
type evalFlags struct {
	Set     []string      `name:"set" sep:"none" placeholder:"KEY=VALUE" help:"Bind the global variable KEY; VALUE is read as JSON when it is valid JSON, else taken as a string. Repeatable."`
	JSON    bool          `name:"json" help:"Print the value as JSON indented by two spaces."`
	Timeout time.Duration `name:"timeout" placeholder:"D" help:"End the run with an error after the duration D (Go syntax: 90s, 5m)."`
}

// runCmd is "evalrun run FILE...".
type runCmd struct {
	evalFlags `embed:""`
	Files     []string `arg:"" name:"file" sep:"none" help:"Workflow files, evaluated in order; - reads standard input."`
}

// evalCmd is "evalrun eval EXPR".
type evalCmd struct {
	evalFlags `embed:""`
	Expr      string `arg:"" name:"expr" help:"The program text."`
}

// checkCmd is "evalrun check FILE...".
type checkCmd struct {
	Set   []string `name:"set" sep:"none" placeholder:"KEY=VALUE" help:"Count KEY as a bound global variable (the value is ignored). Repeatable."`
	Files []string `arg:"" name:"file" sep:"none" help:"Workflow files, checked in order as one program; - reads standard input."`
}

// fmtCmd is "evalrun fmt [-w] FILE...".
type fmtCmd struct {
	Write bool     `short:"w" help:"Rewrite files in place (only those whose formatting changes)."`
	Files []string `arg:"" name:"file" sep:"none" help:"Workflow files; - reads standard input."`
}

// replCmd is "evalrun repl".
type replCmd struct {
	evalFlags `embed:""`
}

// Run implements "evalrun run".
func (c *runCmd) Run(a *app) error { return exit(a.runFiles(c.Files, c.evalFlags)) }

// Run implements "evalrun eval".
func (c *evalCmd) Run(a *app) error { return exit(a.evalExpr(c.Expr, c.evalFlags)) }

// Run implements "evalrun check".
func (c *checkCmd) Run(a *app) error { return exit(a.check(c.Files, c.Set)) }

// Run implements "evalrun fmt".
func (c *fmtCmd) Run(a *app) error { return exit(a.format(c.Files, c.Write)) }

// Run implements "evalrun repl".
func (c *replCmd) Run(a *app) error { return exit(a.repl(c.evalFlags)) }
