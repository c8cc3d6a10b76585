package engine

import (
	"fmt"
	"sync"

	"github.com/evalrun/evalrun/config"
	"github.com/evalrun/evalrun/handler"
	"github.com/evalrun/evalrun/templates"
	"github.com/evalrun/evalrun/trace"
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
// built-in names openai, echo and replay; its model is the provider's
// default, for echo and replay too, SPEC §14.5) with the run-wide options
// of ps (project root, limits.llm_attempts, environment, retry notices).
// It returns an error "provider type X is not available yet" for a type
// the handler package does not provide.
func (ps *providers) newProvider(name string, cfg config.Provider) (handler.Provider, error) {
	typ := cfg.EffectiveType(name)
	if typ != "" && !providerTypes[typ] {
		return nil, fmt.Errorf("provider type %s is not available yet", typ)
	}
	return handler.NewProvider(name, cfg.ProviderConfig, ps.opts)
}

// providers builds the providers of one run on first use and keeps them:
// parallel calls share one provider. With Record each is wrapped so that
// its answers go to the run's cassette (SPEC §14.6).
type providers struct {
	cfg      *config.Config
	opts     handler.RunOptions
	cassette *handler.Cassette

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
	p = ps.record(p)
	ps.built[name] = p
	return p, true, nil
}

// record wraps p for the run's cassette, if there is one.
func (ps *providers) record(p handler.Provider) handler.Provider {
	if ps.cassette != nil {
		return ps.cassette.Wrap(p)
	}
	return p
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

// echoNoticeSink prints the echo notice of SPEC §14.5 once, just before
// the first model request the implicitly chosen echo provider answers: a
// trace sink watching the model spans for that provider.
type echoNoticeSink struct {
	stderr   *lockedWriter
	provider handler.Provider
	once     sync.Once
}

// Observe implements trace.Sink.
func (n *echoNoticeSink) Observe(e trace.Event) {
	if e.Type != trace.Started || e.Span.Kind() != trace.Model {
		return
	}
	if mc, ok := e.Span.Detail().(handler.ModelCall); ok && mc.Provider == n.provider {
		n.once.Do(func() { n.stderr.printf("%s\n", echoNotice) })
	}
}

// templateOf returns the template of the task span s is in (s itself
// included), or nil.
func templateOf(s *trace.Span) *templates.Template {
	for ; s != nil; s = s.Parent() {
		if s.Kind() == trace.Task {
			t, _ := s.Detail().(*templates.Template)
			return t
		}
	}
	return nil
}

// provenance prints the provenance line of SPEC §10.3 once per template of
// the global, local or dir scope: for the templates a program names
// statically before it runs (reached), and, as a trace sink, for a
// template reached through a computed name just before its first model
// request.
type provenance struct {
	stderr  *lockedWriter
	mu      sync.Mutex
	printed map[*templates.Template]bool
}

func newProvenance(stderr *lockedWriter) *provenance {
	return &provenance{stderr: stderr, printed: map[*templates.Template]bool{}}
}

// Observe implements trace.Sink.
func (p *provenance) Observe(e trace.Event) {
	if e.Type != trace.Started || e.Span.Kind() != trace.Model {
		return
	}
	if t := templateOf(e.Span); t != nil {
		p.reached(t)
	}
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

// chooseProviders picks the run's provider (Options.Provider, or the echo
// provider under DryRun) and the default provider (default_provider, else
// OPENAI_API_KEY's openai, else the echo provider with the notice) of SPEC
// §14.5. A provider chosen for the whole run must have its API key: a
// missing key is a configuration error. implicitEcho is the echo provider
// chosen implicitly (nil when another was chosen), before whose first
// answer the notice is printed.
func (e *Engine) chooseProviders(ps *providers) (run, def, implicitEcho handler.Provider, err error) {
	opts, cfg := e.opts, e.ws.Config
	named := func(what, name string) (handler.Provider, error) {
		p, ok, err := ps.get(name)
		switch {
		case !ok:
			return nil, errorf(KindConfig, "%s", cfg.UnknownProvider(name, what))
		case err != nil:
			return nil, errorf(KindConfig, "provider '%s': %v", name, err)
		}
		if !opts.DryRun {
			if err := handler.CheckKey(p); err != nil {
				return nil, &Error{Kind: KindConfig, Err: fmt.Errorf("%w; set it (any value for a server that needs no key), or run offline with --provider echo", err)}
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
			return nil, nil, nil, errorf(KindUsage, "%s", cfg.UnknownProvider(opts.Provider, "--provider"))
		}
	}
	if opts.DryRun {
		// The echo provider answers everything; the default model is the
		// one of the provider the run would have used.
		echo := handler.Echo{}
		if pc, ok := cfg.Provider(implicit); ok {
			echo.Model = pc.Model
		}
		return ps.record(echo), nil, nil, nil
	}
	if opts.Provider != "" {
		p, err := named("--provider", opts.Provider)
		return p, nil, nil, err
	}
	if implicit != "" {
		what := "default_provider"
		if cfg.DefaultProvider == "" {
			what = "OPENAI_API_KEY is set"
		}
		p, err := named(what, implicit)
		return nil, p, nil, err
	}
	// A provider of its own (a pointer), so that the notice sink tells it
	// from an echo provider a template names.
	echo := ps.record(&handler.Echo{})
	return nil, echo, echo, nil
}
