package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/evalrun/evalrun/engine"
	"github.com/evalrun/evalrun/value"
)

// task implements `evalrun task NAME ["instructions"] [--set k=v]...` (SPEC
// §17.1): the template found by name, alias or type:subtype runs once with
// the --set values as its inputs (files, context and history_config are
// the reserved arguments of SPEC §11.1) and instructions as the text of
// {{instructions}}. stdout gets the content, or with --json the whole
// TaskResult. An unknown name exits 2 with up to three suggestions; a
// FAILED result exits 1.
func (a *app) task(name, instructions string, flags evalFlags) int {
	sets, code := a.evalSetup(flags)
	if code != exitOK {
		return code
	}
	flags.listContexts = true
	stopProgress, code := a.startProgress()
	if code != exitOK {
		return code
	}
	defer stopProgress()
	e, code := a.open(flags, instructions, journalInfo("task "+name, name), sets, nil)
	if code != exitOK {
		return code
	}
	defer a.finish(e, true)
	if instructions != "" && e.IgnoresInstructions(name) {
		fmt.Fprintf(a.stderr, "warning: template '%s' does not use {{instructions}}, so the text %q is not sent; give inputs with --set NAME=VALUE\n", name, instructions)
	}
	sig := a.notifyRunSignals()
	defer sig.stop()
	var res *value.TaskResult
	var err error
	sig.journalAbort(e)
	interrupted := sig.guard(func(ctx context.Context) {
		res, err = e.Task(ctx, name, sets)
	})
	stopProgress()
	if interrupted {
		e.Finish(nil, errCancelled)
		return exitInterrupted
	}
	if res != nil {
		e.Finish(res, err)
	} else {
		e.Finish(nil, err)
	}
	if err != nil {
		var ie *engine.InputError
		var ut *engine.UnknownTemplateError
		switch {
		case errors.As(err, &ie):
			a.errorf("invalid --set %s: %v", ie.Name, ie.Err)
		case errors.As(err, &ut) && len(ut.Suggestions) == 0:
			a.errorf("%v", err)
			io.WriteString(a.stderr, "hint: evalrun templates list shows the templates of every scope; evalrun init creates .evalrun/templates\n")
		default:
			a.errorf("%v", err)
		}
		return exitUsage
	}
	if flags.JSON {
		a.printValue(res, true)
	} else if res.Status != value.StatusFailed {
		text := res.Content
		if !strings.HasSuffix(text, "\n") {
			text += "\n"
		}
		io.WriteString(a.stdout, text)
	}
	if msg, failed := failedResult(res); failed {
		a.errorf("task '%s' failed: %s", name, msg)
		io.WriteString(a.stderr, e.TaskInputHint(name, res))
		return exitEval
	}
	if err := e.BudgetError(); err != nil {
		a.errorf("%v", err)
		return exitEval
	}
	return exitOK
}
