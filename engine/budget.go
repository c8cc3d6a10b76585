package engine

import (
	"fmt"
	"sync"

	"github.com/evalrun/evalrun/config"
	"github.com/evalrun/evalrun/journal"
	"github.com/evalrun/evalrun/tasksystem"
	"github.com/evalrun/evalrun/trace"
)

// ReasonResourceExhaustion is the failure reason of a task call refused
// because the run's budget is spent (SPEC §14.9).
const ReasonResourceExhaustion = tasksystem.ReasonResourceExhaustion

// BudgetError is the error of a call refused because the run's budget is
// spent (SPEC §14.9): "budget spent: $2.01 of $2.00", or "budget spent:
// 10234 of 10000 tokens" for max_tokens. Its Reason is
// resource_exhaustion; Engine.BudgetError returns the first one of a run.
// A run on Temporal refuses its calls with the same error (package
// temporal keeps the budget in the workflow).
type BudgetError = tasksystem.BudgetError

// budget is the trace sink and gate that keeps a run within max_cost_usd
// and max_tokens (SPEC §14.9). It counts the tokens and cost of every task
// call that ends without being replayed (agent calls, plan tasks and the
// memory's llm-strategy calls are task spans too), on top of what the
// resumed runs spent; a task call that would start once either budget is
// spent is refused in Span.Before with a *BudgetError, so it never
// starts, while the calls already running finish and are counted. It is
// installed after the journal, whose replays pass before it: a replayed
// call costs nothing. Observe and Before run on the calls' goroutines;
// mu guards the counts. The counting and the refusal are
// tasksystem.Budget's and tasksystem.Spending's, which the workflow of a
// run on Temporal uses too.
type budget struct {
	limits tasksystem.Budget
	// warn, when set, prints the warning about the first call whose
	// cost is unknown while a cost budget is set (see Observe); costFlag
	// names that budget: "--max-cost" or "[limits] max_cost_usd".
	warn     func(msg string)
	costFlag string

	mu      sync.Mutex
	spent   tasksystem.Spending
	refused *BudgetError
	warned  bool
}

// newBudget returns the budget of a run, nil when neither limit is set.
// prior is what the resumed runs spent.
func newBudget(maxCost float64, maxTokens int64, prior journal.Spent) *budget {
	limits := tasksystem.Budget{MaxCostUSD: max(maxCost, 0), MaxTokens: max(maxTokens, 0)}
	if !limits.On() {
		return nil
	}
	b := &budget{limits: limits}
	b.spent.Add(prior.CostUSD, prior.Tokens)
	return b
}

// Observe implements trace.Sink: an ended task call that was not replayed
// adds its tokens and its known cost; the first one that used a model at
// an unknown price, under a cost budget, gets the warning of warn.
func (b *budget) Observe(e trace.Event) {
	if e.Type != trace.Ended || e.Span.Kind() != trace.Task || e.Span.Result().Replayed {
		return
	}
	u := e.Span.Usage()
	b.mu.Lock()
	b.spent.Add(u.CostUSD, int64(u.InputTokens+u.OutputTokens))
	// A call that used a model at an unknown price escapes a cost
	// budget: say so once, when it happens, rather than let the budget
	// look as if it held.
	unpriced := b.limits.MaxCostUSD > 0 && !u.CostKnown && (u.InputTokens+u.OutputTokens > 0 || u.Turns > 0)
	first := unpriced && !b.warned && b.warn != nil
	if first {
		b.warned = true
	}
	b.mu.Unlock()
	if first {
		b.warn(fmt.Sprintf("warning: the cost of '%s' (%s) is unknown: %s counts only calls whose cost is known; give its model or provider prices ([prices.\"MODEL-ID\"] or the provider's prices)",
			e.Span.Name(), e.Span.Executor(), b.costFlag))
	}
}

// Before implements trace.Gate: a task call is refused once a budget is
// spent.
func (b *budget) Before(s *trace.Span) (trace.Answer, bool) {
	if s.Kind() != trace.Task {
		return trace.Answer{}, false
	}
	if err := b.check(); err != nil {
		return trace.Answer{Err: err}, true
	}
	return trace.Answer{}, false
}

// check returns the error of a spent budget, remembering the first, or
// nil while money and tokens remain.
func (b *budget) check() *BudgetError {
	b.mu.Lock()
	defer b.mu.Unlock()
	err := b.limits.Spent(b.spent)
	if err != nil && b.refused == nil {
		b.refused = err
	}
	return err
}

// firstRefusal is the error of the first call refused, nil when none was.
func (b *budget) firstRefusal() *BudgetError {
	if b == nil {
		return nil
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.refused
}

// BudgetWarnings are the warnings of `evalrun check` about a cost budget
// that cannot see every call (SPEC §14.9): with [limits] max_cost_usd
// set, each provider that may answer calls at a price — a configured
// openai provider, or the built-in openai when it is default_provider —
// that has neither `prices` nor a [prices."MODEL-ID"] table for its model
// gets one line, "warning: provider 'NAME' has no prices: [limits]
// max_cost_usd counts its calls only when the server reports usage.cost".
// echo and replay cost nothing and are never named.
func (w *Workspace) BudgetWarnings() []string {
	cfg := w.Config
	if cfg == nil || cfg.Limits.MaxCostUSD <= 0 {
		return nil
	}
	var out []string
	for _, name := range cfg.ProviderNames() {
		p, _ := cfg.Provider(name)
		if p.EffectiveType(name) != config.TypeOpenAI {
			continue
		}
		if _, configured := cfg.Providers[name]; !configured && cfg.DefaultProvider != name {
			continue
		}
		if cfg.PricesOf(name, p.Model) != nil {
			continue
		}
		out = append(out, fmt.Sprintf("warning: provider '%s' has no prices: [limits] max_cost_usd counts its calls only when the server reports usage.cost", name))
	}
	return out
}
