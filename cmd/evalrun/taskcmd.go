package main

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/evalrun/evalrun/evaluator"
	"github.com/evalrun/evalrun/tasksystem"
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
	r, code := a.newRunner(flags, instructions)
	if code != exitOK {
		return code
	}
	r.reportUsage = true
	defer r.finish()
	reg := r.tasks.Registry
	t, ok := reg.Lookup(name)
	if !ok {
		a.errorf("unknown template '%s'%s", name, suggestions(reg, name))
		return exitUsage
	}
	call := &evaluator.TaskCall{Name: name, Template: t}
	for _, s := range sets {
		var err error
		switch s.Name {
		case "files":
			call.Files, err = filesValue(name, s.Value)
			call.FilesGiven = true
		case "context":
			call.Context, err = tasksystem.ParseContextArg(name, s.Value)
		case "history_config":
			call.History, err = tasksystem.ParseHistoryArg(name, s.Value)
		default:
			call.Named = append(call.Named, evaluator.NamedValue{Name: s.Name, Value: s.Value})
		}
		if err != nil {
			a.errorf("invalid --set %s: %v", s.Name, err)
			return exitUsage
		}
	}
	r.prov.reached(t)

	sig := notifySignals(a.stderr)
	defer sig.stop()
	if sig.pending() {
		sig.interrupted()
		return exitInterrupted
	}
	var res *value.TaskResult
	interrupted := sig.run(context.Background(), func(ctx context.Context) {
		if d := r.limits.Timeout; d > 0 {
			var cancel context.CancelFunc
			ctx, cancel = context.WithTimeoutCause(ctx, d, fmt.Errorf("timeout exceeded (%s)", d))
			defer cancel()
		}
		res = r.tasks.Execute(ctx, call)
	})
	if interrupted {
		sig.interrupted()
		return exitInterrupted
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
		return exitEval
	}
	return exitOK
}

// filesValue reads the files argument of a task given with --set: a path
// string or a list of them (SPEC §11.1).
func filesValue(task string, v value.Value) ([]string, error) {
	switch v := v.(type) {
	case value.String:
		return []string{string(v)}, nil
	case value.List:
		files := make([]string, len(v))
		for i, e := range v {
			s, ok := e.(value.String)
			if !ok {
				return nil, fmt.Errorf("'files' argument for task '%s' must evaluate to a list of strings, got %s: %s", task, v.Type(), v)
			}
			files[i] = string(s)
		}
		return files, nil
	}
	return nil, fmt.Errorf("'files' argument for task '%s' must evaluate to a list of strings, got %s: %s", task, v.Type(), v)
}
