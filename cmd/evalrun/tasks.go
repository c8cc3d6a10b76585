package main

import (
	"fmt"
	"io"
	"sync"

	"github.com/evalrun/evalrun/evaluator"
	"github.com/evalrun/evalrun/tasksystem"
	"github.com/evalrun/evalrun/templates"
)

// taskOptions is what the CLI knows when it builds the task system.
type taskOptions struct {
	// Stderr receives notices and warnings of the task system.
	Stderr io.Writer
	// Getenv reads the environment.
	Getenv func(string) string
}

// echoNotice is printed once per run, just before the first model call, when
// the echo provider answers because no provider is configured (SPEC §14.5).
const echoNotice = "notice: no LLM provider configured and OPENAI_API_KEY is unset; using the echo provider"

// newTasks builds the task system used by run, eval, check and repl: the
// registry holding the built-in templates (defatom adds more while the
// program runs) and an executor whose provider is the echo provider.
//
// TASK SYSTEM WIRING POINT: this is the one place where the CLI constructs
// the task system. Template directories (global, local, --templates),
// configured providers and the journal plug in here with their issues.
func newTasks(opts taskOptions) (*evaluator.TaskSystem, error) {
	reg := tasksystem.NewRegistry()
	for _, t := range templates.Builtin() {
		reg.Add(t)
	}
	var mu sync.Mutex
	warn := func(format string, args ...any) {
		mu.Lock()
		defer mu.Unlock()
		fmt.Fprintf(opts.Stderr, format, args...)
	}
	exec := tasksystem.NewExecutor(tasksystem.Options{
		Stderr: opts.Stderr,
		BeforeFirstCall: func() {
			if opts.Getenv("OPENAI_API_KEY") == "" {
				warn("%s\n", echoNotice)
			} else {
				warn("notice: providers are not configurable yet; using the echo provider\n")
			}
		},
	})
	ts := evaluator.NewTaskSystem(reg, exec)
	ts.OnDefine = func(t *templates.Template, _ tasksystem.AddResult) {
		if by := hiddenBy(t.Name); by != "" {
			warn("warning: template '%s' is hidden by the %s '%s'; use (call \"%s\" ...)\n", t.Name, by, t.Name, t.Name)
		}
	}
	return ts, nil
}

// hiddenBy says what makes a template of this name unreachable by bare name
// (SPEC §10.1): "special form", "primitive", or "" when nothing does.
func hiddenBy(name string) string {
	switch {
	case evaluator.IsSpecialForm(name):
		return "special form"
	case evaluator.IsPrimitive(name):
		return "primitive"
	}
	return ""
}
