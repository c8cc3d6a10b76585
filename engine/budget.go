package engine

import (
	"fmt"
	"math"
	"sync"

	"github.com/evalrun/evalrun/config"
	"github.com/evalrun/evalrun/journal"
	"github.com/evalrun/evalrun/trace"
)

// ReasonResourceExhaustion is the failure reason of a task call refused
// because the run's budget is spent (SPEC §14.9).
const ReasonResourceExhaustion = "resource_exhaustion"

// BudgetError is the error of a call refused because the run's budget is
// spent (SPEC §14.9): "budget spent: $2.01 of $2.00", or "budget spent:
// 10234 of 10000 tokens" for max_tokens. Its Reason is
// resource_exhaustion; Engine.BudgetError returns the first one of a run.
type BudgetError struct {
	// Resource is "cost" or "tokens".
	Resource string
	// UsedUSD and LimitUSD are the spending and max_cost_usd (cost).
	UsedUSD, LimitUSD float64
	// UsedTokens and LimitTokens are the tokens used and max_tokens
	// (tokens).
	UsedTokens, LimitTokens int64
}

// Error is the message of SPEC §14.9.
func (e *BudgetError) Error() string {
	if e.Resource == "tokens" {
		return fmt.Sprintf("budget spent: %d of %d tokens", e.UsedTokens, e.LimitTokens)
	}
	return fmt.Sprintf("budget spent: %s of %s", journal.FormatBudgetUSD(e.UsedUSD, e.LimitUSD), journal.FormatBudgetUSD(e.LimitUSD, e.LimitUSD))
}

// Reason is the TaskResult failure reason: resource_exhaustion.
func (e *BudgetError) Reason() string { return ReasonResourceExhaustion }

// budget is the trace sink and gate that keeps a run within max_cost_usd
// and max_tokens (SPEC §14.9). It counts the tokens and cost of every task
// call that ends without being replayed (agent calls, plan tasks and the
// memory's llm-strategy calls are task spans too), on top of what the
// resumed runs spent; a task call that would start once either budget is
// spent is refused in Span.Before with a *BudgetError, so it never
// starts, while the calls already running finish and are counted. It is
// installed after the journal, whose replays pass before it: a replayed
// call costs nothing. Observe and Before run on the calls' goroutines;
// mu guards the counts.
//
// Costs are summed in nanodollars, so that ten calls of $0.01 spend a
// budget of $0.10 exactly (in float64 they sum to 0.09999999999999999).
type budget struct {
	maxCost   int64 // nanodollars
	maxTokens int64

	mu      sync.Mutex
	cost    int64 // nanodollars
	tokens  int64
	refused *BudgetError
}

// nano converts US dollars to nanodollars.
func nano(usd float64) int64 { return int64(math.Round(usd * 1e9)) }

// newBudget returns the budget of a run, nil when neither limit is set.
// prior is what the resumed runs spent.
func newBudget(maxCost float64, maxTokens int64, prior journal.Spent) *budget {
	if maxCost <= 0 && maxTokens <= 0 {
		return nil
	}
	return &budget{maxCost: nano(maxCost), maxTokens: maxTokens, cost: nano(prior.CostUSD), tokens: prior.Tokens}
}

// Observe implements trace.Sink: an ended task call that was not replayed
// adds its tokens and its known cost.
func (b *budget) Observe(e trace.Event) {
	if e.Type != trace.Ended || e.Span.Kind() != trace.Task || e.Span.Result().Replayed {
		return
	}
	u := e.Span.Usage()
	b.mu.Lock()
	b.tokens += int64(u.InputTokens + u.OutputTokens)
	b.cost += nano(u.CostUSD)
	b.mu.Unlock()
}

// Before implements trace.Gate: a task call is refused once a budget is
// spent.
func (b *budget) Before(s *trace.Span) (trace.Answer, bool) {
	if s.Kind() != trace.Task {
		return trace.Answer{}, false
	}
	if err := b.spent(); err != nil {
		return trace.Answer{Err: err}, true
	}
	return trace.Answer{}, false
}

// spent returns the error of a spent budget, remembering the first, or
// nil while money and tokens remain.
func (b *budget) spent() *BudgetError {
	b.mu.Lock()
	defer b.mu.Unlock()
	var err *BudgetError
	switch {
	case b.maxCost > 0 && b.cost >= b.maxCost:
		err = &BudgetError{Resource: "cost", UsedUSD: float64(b.cost) / 1e9, LimitUSD: float64(b.maxCost) / 1e9}
	case b.maxTokens > 0 && b.tokens >= b.maxTokens:
		err = &BudgetError{Resource: "tokens", UsedTokens: b.tokens, LimitTokens: b.maxTokens}
	default:
		return nil
	}
	if b.refused == nil {
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
