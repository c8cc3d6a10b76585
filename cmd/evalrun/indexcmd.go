package main

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/evalrun/evalrun/engine"
)

// index implements `evalrun index [PATH]` (SPEC §15.1): it builds or
// updates PATH/.evalrun/index.db (PATH defaults to the project root) and
// prints the summary line on stdout, the database path relative to the
// working directory when below it. PATH must be a directory (else a usage
// error); a failure of the index is exit 1, an interruption 130.
func (a *app) index(path string) int {
	sig := notifySignals(a.stderr)
	defer sig.stop()
	var line string
	var err error
	if sig.guard(func(ctx context.Context) {
		line, err = engine.Index(ctx, engine.Options{Getenv: a.getenv}, path)
	}) {
		return exitInterrupted
	}
	var ee *engine.Error
	switch {
	case errors.As(err, &ee):
		a.errorf("%v", err)
		return exitUsage
	case err != nil:
		a.errorf("%v", err)
		return exitEval
	}
	fmt.Fprintln(a.stdout, line)
	return exitOK
}

// contextLookup implements "evalrun context QUERY" (SPEC §17.1): one SCORE
// PATH line per match, best first, then the summary; --json prints the
// get-context result dict. Invalid arguments are usage errors with the
// messages of get-context. The content and metadata strategies need no
// run; the llm strategies run templates on the run's providers.
func (a *app) contextLookup(c *contextCmd) int {
	q, err := engine.CheckContextQuery(engine.ContextQuery{Query: c.Query, Strategy: c.Strategy, TopK: int(c.TopK), IDsOnly: !c.JSON})
	if err != nil {
		a.errorf("%v", err)
		return exitUsage
	}
	var lookup func(ctx context.Context, q engine.ContextQuery) engine.ContextResult
	if q.NeedsModel() {
		e, code := a.open(evalFlags{Templates: c.Templates}, "", nil, nil, nil)
		if code != exitOK {
			return code
		}
		defer a.finish(e, false)
		lookup = e.Context
	} else {
		ws, code := a.loadWorkspace(c.Templates, diagRun)
		if code != exitOK {
			return code
		}
		lookup = ws.Context
	}

	sig := notifySignals(a.stderr)
	defer sig.stop()
	var res engine.ContextResult
	if sig.guard(func(ctx context.Context) {
		res = lookup(ctx, q)
	}) {
		return exitInterrupted
	}
	if c.JSON {
		a.printValue(res.Value, true)
	} else {
		var b strings.Builder
		for _, m := range res.Matches {
			fmt.Fprintf(&b, "%s %s\n", strconv.FormatFloat(m.Score, 'f', 2, 64), m.ID)
		}
		if res.Summary != "" {
			b.WriteString(res.Summary)
			b.WriteByte('\n')
		}
		fmt.Fprint(a.stdout, b.String())
	}
	if res.Error != "" {
		a.errorf("%s", res.Error)
		return exitEval
	}
	return exitOK
}
