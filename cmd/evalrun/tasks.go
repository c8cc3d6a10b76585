package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/evalrun/evalrun/config"
	"github.com/evalrun/evalrun/evaluator"
	"github.com/evalrun/evalrun/handler"
	"github.com/evalrun/evalrun/tasksystem"
	"github.com/evalrun/evalrun/templates"
	"github.com/evalrun/evalrun/value"
)

// runner is the machinery of one run of run, eval, task or repl: the
// workspace, the task system with its registry, executor, tools and
// providers, the limits, the provenance printer, under --dry-run the
// prompt recorder and with --record the cassette.
//
// TASK SYSTEM WIRING POINT: this is the one place where the CLI constructs
// the task system. The memory index and the journal plug in here.
type runner struct {
	a      *app
	ws     *workspace
	stderr *lockedWriter
	tasks  *cliTasks
	prov   *provenance
	dry    *dryRun
	mem    *memoryLink
	exec   *tasksystem.Executor
	// cassette records every answer of every provider of the run
	// (--record); nil without the flag.
	cassette *handler.Cassette
	// reportUsage asks finish for the usage line of SPEC §17.3 (run, eval
	// and task; not repl or context).
	reportUsage bool
	limits      evaluator.Limits
	start       time.Time
	runID       string
}

// newRunner loads the workspace and builds the task system of a run with
// the flags of run, eval, task and repl; instructions is the text of
// {{instructions}} (evalrun task). The exit code is exitUsage for a
// configuration or flag error and exitSyntax for a template validation
// error, after the problem was printed.
func (a *app) newRunner(flags evalFlags, instructions string) (*runner, int) {
	ws, code := a.loadWorkspace(flags.Templates, diagRun)
	if code != exitOK {
		return nil, code
	}
	cfg := ws.cfg
	r := &runner{
		a:      a,
		ws:     ws,
		stderr: &lockedWriter{w: a.stderr},
		start:  time.Now(),
	}
	r.runID = newRunID(r.start)
	r.prov = newProvenance(r.stderr)
	if flags.DryRun {
		r.dry = newDryRun(ws.root, r.runID, ws.display)
	}

	// --files: every path must exist; relative paths are resolved against
	// the working directory by the executor (SPEC §12.4).
	for _, f := range flags.RunFiles {
		if _, err := os.Stat(absTo(ws.wd, f)); err != nil {
			a.errorf("cannot read %s: %v", f, reason(err))
			return nil, exitUsage
		}
	}

	// The registry: every template of every scope in load order (SPEC §10.2).
	reg := tasksystem.NewRegistry()
	for _, t := range ws.set.Templates() {
		reg.Add(t)
	}
	// --record: one cassette for the whole run, wrapping every provider
	// the watch wraps — the run's, the default and those templates name
	// (decided here: with --dry-run it records the echo answers).
	if flags.Record != "" {
		r.cassette = handler.NewCassette(flags.Record)
	}
	w := &watch{stderr: r.stderr, prov: r.prov, dry: r.dry, cassette: r.cassette}
	var hide []string
	for _, p := range cfg.Providers {
		if p.APIKeyEnv != "" {
			hide = append(hide, p.APIKeyEnv)
		}
	}
	// The memory's llm strategies run the built-in associative-matching
	// templates through the executor, which is made below.
	r.mem = newMemoryLink(ws.root, cfg.Limits.Concurrency, func(ctx context.Context, name string, inputs *value.Dict) *value.TaskResult {
		t, ok := reg.Lookup(name)
		if !ok {
			return value.Failed(tasksystem.ReasonTemplateNotFound, "Template not found: '"+name+"'", nil)
		}
		var named []tasksystem.NamedArg
		if inputs != nil {
			for k, v := range inputs.All() {
				named = append(named, tasksystem.NamedArg{Name: k, Value: v})
			}
		}
		ctx = context.WithValue(ctx, callKey{}, &callInfo{name: name, template: t})
		return r.exec.Execute(ctx, tasksystem.Request{Name: name, Template: t, Named: named})
	})
	tools := handler.NewTools(handler.ToolsConfig{
		Root:       ws.root,
		WorkDir:    ws.wd,
		ShellAllow: cfg.Tools.ShellAllow,
		HideEnv:    hide,
		DryRun:     flags.DryRun,
		Context:    retriever{r.mem},
		Stdin:      a.stdin,
		Stderr:     r.stderr,
		Interactive: func() bool {
			return isTerminal(a.stdin) && isTerminal(a.stderr)
		},
	})
	ps := &providers{
		cfg: cfg,
		opts: handler.RunOptions{
			Root:     ws.root,
			Attempts: cfg.Limits.LLMAttempts,
			Getenv:   a.getenv,
			Notify:   func(msg string) { r.stderr.printf("%s\n", msg) },
		},
		watch: w,
		built: map[string]handler.Provider{},
		errs:  map[string]error{},
	}
	runProvider, defaultProvider, code := r.chooseProviders(flags, ps, w)
	if code != exitOK {
		r.mem.close()
		return nil, code
	}
	r.exec = tasksystem.NewExecutor(tasksystem.Options{
		Start:           r.start,
		Provider:        runProvider,
		DefaultProvider: defaultProvider,
		Providers:       ps.lookup,
		Model:           flags.Model,
		MaxTurns:        cfg.Limits.MaxTurns,
		ContextFraction: cfg.Limits.ContextFraction,
		Roles:           cfg.Roles,
		Instructions:    instructions,
		Root:            ws.root,
		WorkDir:         ws.wd,
		RunFiles:        flags.RunFiles,
		Stderr:          r.stderr,
		SubsetK:         cfg.Context.SubsetK,
		FreshTopK:       cfg.Context.FreshTopK,
		Tools:           tools,
		Memory:          r.mem,
	})
	ts := evaluator.NewTaskSystem(reg, r.exec)
	ts.Tools = tools
	ts.Context = r.mem.getContext
	ts.OnDefine = func(t *templates.Template, res tasksystem.AddResult) {
		if old := res.Replaced; old != nil && old.Scope != templates.ScopeDefatom {
			r.stderr.printf("warning: template '%s' from %s shadows %s\n", t.Name, originText(t), originText(old))
		}
		if msg := hiddenMessage(t.Name, nil); msg != "" {
			r.stderr.printf("warning: %s\n", msg)
		}
	}
	r.tasks = &cliTasks{TaskSystem: ts}
	for _, t := range reg.All() {
		if t.Scope == templates.ScopeBuiltin {
			continue
		}
		if msg := hiddenMessage(t.Name, nil); msg != "" {
			r.stderr.printf("warning: %s\n", msg)
		}
	}

	timeout := cfg.Limits.Timeout
	if flags.Timeout > 0 {
		timeout = flags.Timeout
	}
	r.limits = evaluator.Limits{
		RecursionDepth: cfg.Limits.RecursionDepth,
		MaxSteps:       cfg.Limits.MaxSteps,
		Timeout:        timeout,
		Concurrency:    cfg.Limits.Concurrency,
		MaxStringBytes: cfg.Limits.MaxStringBytes,
	}
	return r, exitOK
}

// chooseProviders picks the run's provider (--provider, or the echo
// provider under --dry-run) and the default provider (default_provider,
// else OPENAI_API_KEY's openai, else the echo provider with the notice) of
// SPEC §14.5. A provider chosen for the whole run must have its API key:
// a missing key is a configuration error.
func (r *runner) chooseProviders(flags evalFlags, ps *providers, w *watch) (run, def handler.Provider, code int) {
	a, cfg := r.a, r.ws.cfg
	named := func(what, name string) (handler.Provider, int) {
		p, ok, err := ps.get(name)
		switch {
		case !ok:
			a.errorf("unknown provider '%s' (%s; known: %s)", name, what, providerNames(cfg))
			return nil, exitUsage
		case err != nil:
			a.errorf("provider '%s': %v", name, err)
			return nil, exitUsage
		}
		if !flags.DryRun {
			if err := handler.CheckKey(p); err != nil {
				a.errorf("%v", err)
				return nil, exitUsage
			}
		}
		return p, exitOK
	}
	// The provider the run would use for calls no template assigns.
	implicit := ""
	switch {
	case flags.Provider != "":
		implicit = flags.Provider
	case cfg.DefaultProvider != "":
		implicit = cfg.DefaultProvider
	case a.getenv(handler.DefaultAPIKeyEnv) != "":
		implicit = config.TypeOpenAI
	}
	if flags.Provider != "" {
		if !cfg.HasProvider(flags.Provider) {
			a.errorf("unknown provider '%s' (--provider; known: %s)", flags.Provider, providerNames(cfg))
			return nil, nil, exitUsage
		}
	}
	if flags.DryRun {
		// The echo provider answers everything; the default model is the
		// one of the provider the run would have used.
		p := w.wrap(handler.Echo{})
		if pc, ok := cfg.Provider(implicit); ok {
			p.model = pc.Model
		}
		return p, nil, exitOK
	}
	if flags.Provider != "" {
		p, code := named("--provider", flags.Provider)
		return p, nil, code
	}
	if implicit != "" {
		what := "default_provider"
		if cfg.DefaultProvider == "" {
			what = "OPENAI_API_KEY is set"
		}
		p, code := named(what, implicit)
		return nil, p, code
	}
	echo := w.wrap(handler.Echo{})
	echo.notice = new(sync.Once)
	return nil, echo, exitOK
}

// interpreter returns a new interpreter over the run's task system with the
// run's limits and the --set bindings.
func (r *runner) interpreter(sets []setting) *evaluator.Interpreter {
	in := evaluator.New(evaluator.Options{
		Tasks:  r.tasks,
		Limits: r.limits,
		Stderr: r.stderr,
	})
	defineSets(in, sets)
	return in
}

// finish releases the run's resources and prints what ends its stderr:
// the usage line when reportUsage asks for it and a model call was made
// (SPEC §17.3), then the dry run's summary line (SPEC §17.7).
func (r *runner) finish() {
	r.mem.close()
	if r.cassette != nil {
		if err := r.cassette.Close(); err != nil {
			r.stderr.printf("evalrun: record: %v\n", err)
		}
	}
	if r.reportUsage {
		if line := usageLine(r.exec.Usage()); line != "" {
			r.stderr.printf("%s\n", line)
		}
	}
	if r.dry != nil {
		r.stderr.printf("%s\n", r.dry.summary())
	}
}

// usageLine is the usage line of SPEC §17.3,
// `usage: 3 model calls (1 replayed), 1234 input + 567 output tokens, 5 turns`,
// or "" when no model call was made or replayed.
func usageLine(u tasksystem.RunUsage) string {
	if u.Calls == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString("usage: ")
	b.WriteString(plural(u.Calls, "model call", "model calls"))
	if u.Replayed > 0 {
		fmt.Fprintf(&b, " (%d replayed)", u.Replayed)
	}
	fmt.Fprintf(&b, ", %d input + %d output tokens, %s", u.InputTokens, u.OutputTokens, plural(u.Turns, "turn", "turns"))
	return b.String()
}

// plural is "N one" for 1, else "N many".
func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}

// absTo returns path made absolute against dir.
func absTo(dir, path string) string {
	if filepath.IsAbs(path) {
		return path
	}
	return filepath.Join(dir, path)
}

// suggestions formats up to three template suggestions for an unknown name
// (SPEC §10.5, §17.1): " (did you mean 'a', 'b' or 'c'?)", or "". The
// matches of SPEC §10.5 come first; when they are fewer than three, names
// and aliases within edit distance 2 of the name (a typo) follow
// (decided here: Jaccard matching of descriptions never suggests a
// misspelt name).
func suggestions(reg *tasksystem.Registry, name string) string {
	var names []string
	seen := map[string]bool{}
	for _, m := range reg.Match(name) {
		if !seen[m.Name] {
			seen[m.Name] = true
			names = append(names, m.Name)
		}
	}
	type near struct {
		name string
		dist int
	}
	var typos []near
	lower := strings.ToLower(strings.TrimSpace(name))
	for _, t := range reg.All() {
		if strings.HasPrefix(t.Name, "internal:") || seen[t.Name] {
			continue
		}
		for _, cand := range []string{t.Name, t.Alias} {
			if cand == "" {
				continue
			}
			if d := editDistance(lower, strings.ToLower(cand)); d <= 2 {
				typos = append(typos, near{t.Name, d})
				break
			}
		}
	}
	slices.SortStableFunc(typos, func(x, y near) int {
		if x.dist != y.dist {
			return x.dist - y.dist
		}
		return strings.Compare(x.name, y.name)
	})
	for _, n := range typos {
		if !seen[n.name] {
			seen[n.name] = true
			names = append(names, n.name)
		}
	}
	if len(names) > 3 {
		names = names[:3]
	}
	if len(names) == 0 {
		return ""
	}
	q := make([]string, len(names))
	for i, n := range names {
		q[i] = "'" + n + "'"
	}
	switch len(q) {
	case 1:
		return fmt.Sprintf(" (did you mean %s?)", q[0])
	case 2:
		return fmt.Sprintf(" (did you mean %s or %s?)", q[0], q[1])
	}
	return fmt.Sprintf(" (did you mean %s, %s or %s?)", q[0], q[1], q[2])
}

// editDistance is the Levenshtein distance of a and b in code points.
func editDistance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(rb)]
}
