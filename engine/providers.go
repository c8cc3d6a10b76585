package engine

import (
	"context"
	"fmt"
	"strings"
	"sync"

	"github.com/evalrun/evalrun/config"
	"github.com/evalrun/evalrun/evaluator"
	"github.com/evalrun/evalrun/handler"
	"github.com/evalrun/evalrun/templates"
	"github.com/evalrun/evalrun/value"
)

// echoNotice is printed once per run, just before the first model call the
// implicitly chosen echo provider answers (SPEC §14.5).
const echoNotice = "notice: no LLM provider configured and OPENAI_API_KEY is unset; using the echo provider"

// providerTypes lists the provider types the handler package can build
// (handler.NewProvider, handler/factory.go: all three of SPEC §14.5). A type
// added to config's validation before the handler builds it stays out of
// this list, so that newProvider reports it as not available.
var providerTypes = map[string]bool{
	config.TypeOpenAI: true,
	config.TypeEcho:   true,
	config.TypeReplay: true,
}

// newProvider is the provider constructor hook: it builds the provider
// called name from its configuration section (a zero section for the
// built-in names openai, echo and replay) with the run-wide options of ps
// (project root, limits.llm_attempts, environment, retry notices). It
// returns an error "provider type X is not available yet" for a type the
// handler package does not provide.
func (ps *providers) newProvider(name string, cfg config.Provider) (handler.Provider, error) {
	typ := cfg.EffectiveType(name)
	if typ != "" && !providerTypes[typ] {
		return nil, fmt.Errorf("provider type %s is not available yet", typ)
	}
	return handler.NewProvider(name, handler.ProviderConfig{
		Type:          cfg.Type,
		BaseURL:       cfg.BaseURL,
		APIKeyEnv:     cfg.APIKeyEnv,
		Model:         cfg.Model,
		ContextWindow: cfg.ContextWindow,
		Timeout:       cfg.Timeout,
		Temperature:   cfg.Temperature,
		Cassette:      cfg.Cassette,
	}, ps.opts)
}

// providers builds the providers of one run on first use, each wrapped in
// a watchedProvider, and keeps them: parallel calls share one provider.
type providers struct {
	cfg   *config.Config
	opts  handler.RunOptions
	watch *watch

	mu    sync.Mutex
	built map[string]handler.Provider
	errs  map[string]error
}

// get returns the provider called name: a configured one or a built-in
// name. ok is false for an unknown name.
func (ps *providers) get(name string) (handler.Provider, bool, error) {
	ps.mu.Lock()
	defer ps.mu.Unlock()
	if p, ok := ps.built[name]; ok {
		return p, true, nil
	}
	if err, ok := ps.errs[name]; ok {
		return nil, true, err
	}
	pc, ok := ps.cfg.Provider(name)
	if !ok {
		return nil, false, nil
	}
	p, err := ps.newProvider(name, pc)
	if err != nil {
		ps.errs[name] = err
		return nil, true, err
	}
	w := ps.watch.wrap(p)
	w.model = pc.Model // the provider's model, for echo and replay too (SPEC §14.5)
	ps.built[name] = w
	return w, true, nil
}

// lookup implements tasksystem.Options.Providers: the providers a
// template's <provider> or provider:model <model> may name.
func (ps *providers) lookup(name string) (handler.Provider, bool) {
	p, ok, err := ps.get(name)
	if !ok || err != nil {
		return nil, false
	}
	return p, true
}

// watch sees every model call of a run through the providers it wraps: it
// prints the provenance line of a template reached through a computed name
// just before its first model call (SPEC §10.3), the echo notice before
// the first call the implicit echo provider answers (SPEC §14.5), and
// under DryRun writes every request into the run's prompt directory
// (SPEC §17.7). With Record, every answer goes to the run's cassette
// (SPEC §14.6).
type watch struct {
	stderr   *lockedWriter
	prov     *provenance
	dry      *dryRun
	cassette *handler.Cassette
}

// wrap returns p wrapped so that its calls are watched and, with Record,
// its answers recorded. Every provider of a run is built through wrap.
func (w *watch) wrap(p handler.Provider) *watchedProvider {
	if w.cassette != nil {
		p = w.cassette.Wrap(p)
	}
	return &watchedProvider{inner: p, w: w}
}

// watchedProvider answers like the provider it wraps (under DryRun the
// inner provider is the echo provider) and reports each call to its watch.
type watchedProvider struct {
	inner handler.Provider
	w     *watch
	// notice, when set, prints the echo notice once, before the first
	// call (the implicit choice of SPEC §14.5).
	notice *sync.Once
	// model, when set, is the default model reported instead of the inner
	// provider's (the dry run's echo provider stands in for the provider
	// the run would use).
	model string
}

// Name implements handler.Provider.
func (p *watchedProvider) Name() string { return p.inner.Name() }

// Complete implements handler.Provider.
func (p *watchedProvider) Complete(ctx context.Context, req *handler.Request) (*handler.Response, error) {
	if p.notice != nil {
		p.notice.Do(func() { p.w.stderr.printf("%s\n", echoNotice) })
	}
	call, _ := ctx.Value(callKey{}).(*callInfo)
	if call != nil && call.template != nil {
		p.w.prov.reached(call.template)
	}
	if p.w.dry != nil {
		if err := p.w.dry.record(call, p.inner.Name(), req); err != nil {
			return nil, handler.NewError(handler.ReasonUnexpected, "dry run: "+err.Error(), err)
		}
	}
	return p.inner.Complete(ctx, req)
}

// DefaultModel implements handler.DefaultModeler.
func (p *watchedProvider) DefaultModel() string {
	if p.model != "" {
		return p.model
	}
	if m, ok := p.inner.(handler.DefaultModeler); ok {
		return m.DefaultModel()
	}
	return ""
}

// ContextWindow implements handler.ContextWindower.
func (p *watchedProvider) ContextWindow() int {
	if c, ok := p.inner.(handler.ContextWindower); ok {
		return c.ContextWindow()
	}
	return 0
}

// DefaultTemperature implements handler.DefaultTemperaturer.
func (p *watchedProvider) DefaultTemperature() *float64 {
	if t, ok := p.inner.(handler.DefaultTemperaturer); ok {
		return t.DefaultTemperature()
	}
	return nil
}

// CheckKey implements handler.KeyChecker.
func (p *watchedProvider) CheckKey() error { return handler.CheckKey(p.inner) }

// callKey is the context key of the task call a model call belongs to.
type callKey struct{}

// callInfo is what the engine knows of a running task call.
type callInfo struct {
	name     string
	template *templates.Template
}

// runTasks is the task system of a run: evaluator.TaskSystem, with every
// task call's context carrying the call (for the watch) and the defatom
// warnings of SPEC §10.1.
type runTasks struct {
	*evaluator.TaskSystem
	// journal records the workflow's tool calls; nil records nothing.
	journal *runJournal
}

// Waiting implements evaluator.Waiter: a task or tool call waiting for
// its concurrency slot is a pending node of the journal.
func (t *runTasks) Waiting(ctx context.Context, kind, name string) context.Context {
	if t.journal == nil {
		return ctx
	}
	return t.journal.waiting(ctx, kind, name)
}

// CallTool implements evaluator.Tasks: a workflow-level tool call is a
// tool node of the journal under the step or task ctx carries.
func (t *runTasks) CallTool(ctx context.Context, name string, params *value.Dict) *value.TaskResult {
	var end func(*value.TaskResult)
	if t.journal != nil {
		if r, ok := t.journal.replayTool(ctx, name, params); ok {
			return r
		}
		end = t.journal.tool(ctx, name, params)
	}
	r := t.TaskSystem.CallTool(ctx, name, params)
	if end != nil {
		end(r)
	}
	return r
}

// Execute implements evaluator.Tasks.
func (t *runTasks) Execute(ctx context.Context, c *evaluator.TaskCall) *value.TaskResult {
	ctx = context.WithValue(ctx, callKey{}, &callInfo{name: c.Name, template: c.Template})
	return t.TaskSystem.Execute(ctx, c)
}

// provenance prints the provenance line of SPEC §10.3 once per template of
// the global, local or dir scope.
type provenance struct {
	stderr  *lockedWriter
	mu      sync.Mutex
	printed map[*templates.Template]bool
}

func newProvenance(stderr *lockedWriter) *provenance {
	return &provenance{stderr: stderr, printed: map[*templates.Template]bool{}}
}

// reached prints t's provenance line unless it was printed before or t is
// a builtin or defatom template.
func (p *provenance) reached(t *templates.Template) {
	switch t.Scope {
	case templates.ScopeGlobal, templates.ScopeLocal, templates.ScopeDir:
	default:
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.printed[t] {
		return
	}
	p.printed[t] = true
	p.stderr.printf("%s\n", t.Provenance())
}

// providerNames lists the names --provider accepts, for messages.
func providerNames(cfg *config.Config) string {
	return strings.Join(cfg.ProviderNames(), ", ")
}

// chooseProviders picks the run's provider (Options.Provider, or the echo
// provider under DryRun) and the default provider (default_provider, else
// OPENAI_API_KEY's openai, else the echo provider with the notice) of SPEC
// §14.5. A provider chosen for the whole run must have its API key: a
// missing key is a configuration error.
func (e *Engine) chooseProviders(ps *providers, w *watch) (run, def handler.Provider, err error) {
	opts, cfg := e.opts, e.ws.Config
	named := func(what, name string) (handler.Provider, error) {
		p, ok, err := ps.get(name)
		switch {
		case !ok:
			return nil, errorf(KindConfig, "unknown provider '%s' (%s; known: %s)", name, what, providerNames(cfg))
		case err != nil:
			return nil, errorf(KindConfig, "provider '%s': %v", name, err)
		}
		if !opts.DryRun {
			if err := handler.CheckKey(p); err != nil {
				return nil, &Error{Kind: KindConfig, Err: err}
			}
		}
		return p, nil
	}
	// The provider the run would use for calls no template assigns.
	implicit := ""
	switch {
	case opts.Provider != "":
		implicit = opts.Provider
	case cfg.DefaultProvider != "":
		implicit = cfg.DefaultProvider
	case opts.Getenv(handler.DefaultAPIKeyEnv) != "":
		implicit = config.TypeOpenAI
	}
	if opts.Provider != "" {
		if !cfg.HasProvider(opts.Provider) {
			return nil, nil, errorf(KindUsage, "unknown provider '%s' (--provider; known: %s)", opts.Provider, providerNames(cfg))
		}
	}
	if opts.DryRun {
		// The echo provider answers everything; the default model is the
		// one of the provider the run would have used.
		p := w.wrap(handler.Echo{})
		if pc, ok := cfg.Provider(implicit); ok {
			p.model = pc.Model
		}
		return p, nil, nil
	}
	if opts.Provider != "" {
		p, err := named("--provider", opts.Provider)
		return p, nil, err
	}
	if implicit != "" {
		what := "default_provider"
		if cfg.DefaultProvider == "" {
			what = "OPENAI_API_KEY is set"
		}
		p, err := named(what, implicit)
		return nil, p, err
	}
	echo := w.wrap(handler.Echo{})
	echo.notice = new(sync.Once)
	return nil, echo, nil
}
