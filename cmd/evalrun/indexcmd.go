package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

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
		root = path
		if !filepath.IsAbs(root) {
			root = filepath.Join(wd, path)
		}
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
	var st memory.Stats
	if sig.guard(func(ctx context.Context) {
		st, err = memory.Index(ctx, root)
	}) {
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
// index. The llm strategies get the engine of a run (their
// associative-matching templates run on the provider a run would choose
// without --provider, and that provider's API key is checked as for a
// run); the content and metadata strategies ask no model and need no
// provider. stdout gets one "SCORE PATH" line per match (score
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
	var lookup func(ctx context.Context, q memory.Query) memory.Result
	switch strategy {
	case memory.StrategyLLM, memory.StrategyLLMMetadata:
		e, code := a.open(evalFlags{Templates: c.Templates}, "", nil)
		if code != exitOK {
			return code
		}
		defer a.finish(e, false)
		lookup = e.Context
	default:
		ws, code := a.loadWorkspace(c.Templates, diagRun)
		if code != exitOK {
			return code
		}
		lookup = ws.Context
	}

	sig := notifySignals(a.stderr)
	defer sig.stop()
	var res memory.Result
	if sig.guard(func(ctx context.Context) {
		res = lookup(ctx, memory.Query{Query: c.Query, Strategy: strategy, TopK: int(c.TopK)})
	}) {
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
