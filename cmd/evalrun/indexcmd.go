package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/evalrun/evalrun/memory"
	"github.com/evalrun/evalrun/templates"
)

// index implements `evalrun index [PATH]` (SPEC §15.1): it builds or
// updates PATH/.evalrun/index.db (PATH defaults to the project root) and
// prints the summary line on stdout, the database path relative to the
// working directory when below it. PATH must be a directory (else a usage
// error); a failure of the index is exit 1, an interruption 130.
func (a *app) index(path string) int {
	wd, err := os.Getwd()
	if err != nil {
		a.errorf("cannot find the working directory: %v", err)
		return exitUsage
	}
	root := templates.ProjectRoot(wd)
	if path != "" {
		root = absTo(wd, path)
		info, err := os.Stat(root)
		switch {
		case err != nil:
			a.errorf("cannot index %s: %v", path, reason(err))
			return exitUsage
		case !info.IsDir():
			a.errorf("cannot index %s: not a directory", path)
			return exitUsage
		}
	}
	sig := notifySignals(a.stderr)
	defer sig.stop()
	if sig.pending() {
		sig.interrupted()
		return exitInterrupted
	}
	var st memory.Stats
	interrupted := sig.run(context.Background(), func(ctx context.Context) {
		st, err = memory.Index(ctx, root)
	})
	if interrupted {
		sig.interrupted()
		return exitInterrupted
	}
	if err != nil {
		a.errorf("%v", err)
		return exitEval
	}
	st.DBPath = templates.DisplayPath(filepath.Join(root, filepath.FromSlash(memory.DefaultDBPath)), wd, a.home())
	fmt.Fprintln(a.stdout, st.String())
	return exitOK
}

// contextLookup implements `evalrun context QUERY [--strategy S] [--top-k N]
// [--json] [--templates DIR]` (SPEC §17.1): the lookup of get-context
// through the Memory a run uses, whose first lookup refreshes the project's
// index. The llm strategies get the task system of a run (setup of
// newRunner: their associative-matching templates run on the provider a run
// would choose without --provider, and that provider's API key is checked
// as for a run); the content and metadata strategies ask no model and need
// no provider. stdout gets one "SCORE PATH" line per match (score
// to two decimals) and the summary, or with --json the get-context result
// dict. An invalid strategy or top-k, and (decided here) a blank query,
// are usage errors (exit 2); a lookup error, even one that left some
// matches (failed llm shards), is printed on stderr with exit 1
// (decided here: no match is not an error).
func (a *app) contextLookup(c *contextCmd) int {
	strategy, err := memory.ParseStrategy(c.Strategy)
	if err != nil {
		a.errorf("%v", err)
		return exitUsage
	}
	if err := memory.CheckTopK(c.TopK); err != nil {
		a.errorf("%v", err)
		return exitUsage
	}
	if strings.TrimSpace(c.Query) == "" {
		a.errorf("%s", memory.NoQueryMessage)
		return exitUsage
	}
	var mem *memoryLink
	var timeout time.Duration
	switch strategy {
	case memory.StrategyLLM, memory.StrategyLLMMetadata:
		r, code := a.newRunner(evalFlags{Templates: c.Templates}, "")
		if code != exitOK {
			return code
		}
		defer r.finish()
		mem, timeout = r.mem, r.limits.Timeout
	default:
		ws, code := a.loadWorkspace(c.Templates, diagRun)
		if code != exitOK {
			return code
		}
		mem, timeout = newMemoryLink(ws.root, ws.cfg.Limits.Concurrency, nil), ws.cfg.Limits.Timeout
		defer mem.close()
	}

	sig := notifySignals(a.stderr)
	defer sig.stop()
	if sig.pending() {
		sig.interrupted()
		return exitInterrupted
	}
	var res memory.Result
	interrupted := sig.run(context.Background(), func(ctx context.Context) {
		if d := timeout; d > 0 {
			var cancel context.CancelFunc
			ctx, cancel = context.WithTimeoutCause(ctx, d, fmt.Errorf("timeout exceeded (%s)", d))
			defer cancel()
		}
		res = mem.lookup(ctx, memory.Query{Query: c.Query, Strategy: strategy, TopK: int(c.TopK)})
	})
	if interrupted {
		sig.interrupted()
		return exitInterrupted
	}
	if c.JSON {
		a.printValue(res.Value(), true)
	} else {
		var b strings.Builder
		for _, m := range res.Matches {
			fmt.Fprintf(&b, "%s %s\n", strconv.FormatFloat(m.RelevanceScore, 'f', 2, 64), m.ID)
		}
		if res.ContextSummary != "" {
			b.WriteString(res.ContextSummary)
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
