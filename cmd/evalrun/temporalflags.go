package main

import "time"

// The flags and the worker command of runs on Temporal exist in every
// build, so that the command reference and the help are the same; an
// evalrun built without the temporal tag refuses them (notemporal.go).

// temporalFlags say where runs on Temporal go (docs/temporal.md).
type temporalFlags struct {
	Temporal  string `name:"temporal" placeholder:"HOST:PORT" help:"Use the Temporal server at HOST:PORT, over [temporal] address (docs/temporal.md; an evalrun built with -tags temporal)."`
	Namespace string `name:"namespace" placeholder:"N" help:"The Temporal namespace (default: [temporal] namespace, else default)."`
	TaskQueue string `name:"task-queue" placeholder:"Q" help:"The Temporal task queue (default: [temporal] task_queue, else evalrun)."`
}

// remoteFlag is --remote of run and status: the Temporal server is the one
// of [temporal] address in the configuration. An address in the
// configuration alone does not send runs there; --remote or --temporal
// does.
type remoteFlag struct {
	Remote bool `name:"remote" help:"Use the Temporal server of [temporal] address in the configuration (docs/temporal.md); --temporal HOST:PORT wins over it."`
}

// onTemporal reports whether the flags ask for Temporal.
func (f temporalFlags) onTemporal(r remoteFlag) bool { return f.Temporal != "" || r.Remote }

// server is temporalFlags under a short name, for embedding.
type server = temporalFlags

// remote are the flags of "evalrun run" for a run on Temporal.
type remote struct {
	temporalFlags    `embed:""`
	remoteFlag       `embed:""`
	Detach           bool          `name:"detach" help:"With --temporal: print the workflow id and exit without following the run."`
	CallTimeout      time.Duration `name:"call-timeout" placeholder:"D" help:"With --temporal: end one attempt of a call after D (default 2h)."`
	HeartbeatTimeout time.Duration `name:"heartbeat-timeout" placeholder:"D" help:"With --temporal: start a call again on another worker when its worker has been silent for D (default 1m)."`
}

// workerCmd is "evalrun worker [--temporal HOST:PORT]": without the flag
// the address is [temporal] address of the configuration.
type workerCmd struct {
	temporalFlags  `embed:""`
	ActivitiesOnly bool     `name:"activities-only" help:"Only execute calls (task, tool, get-context); evaluate no workflow."`
	Templates      []string `name:"templates" sep:"none" placeholder:"DIR" help:"Load templates from DIR after the global and local ones (scope dir). Repeatable."`
	Provider       string   `name:"provider" placeholder:"P" help:"Use the provider P (openai, echo, replay or a configured name) for every call."`
	Model          string   `name:"model" placeholder:"M" help:"Use the model M for every call."`
	RunFiles       []string `name:"files" sep:"none" placeholder:"F" help:"Add the file F to the ambient context of every task call. Repeatable."`
	agentFlags     `embed:""`
}

// Run implements "evalrun worker".
func (c *workerCmd) Run(a *app) error { return exit(a.worker(c)) }
