package tasksystem

import (
	"fmt"
	"math"
)

// ReasonResourceExhaustion is the failure reason of a task call refused
// because the run's budget is spent (SPEC §14.9), as of one that ran out
// of turns or tokens (SPEC §14.2).
const ReasonResourceExhaustion = "resource_exhaustion"

// Budget is a run's budget (SPEC §14.9): max_cost_usd in US dollars and
// max_tokens (input + output); 0 is no limit. A local run keeps it with a
// trace gate (package engine), a run on Temporal in its workflow (package
// temporal); both count with Spending and refuse with the same
// *BudgetError.
type Budget struct {
	MaxCostUSD float64 `json:",omitempty"`
	MaxTokens  int64   `json:",omitempty"`
}

// On reports whether either limit is set.
func (b Budget) On() bool { return b.MaxCostUSD > 0 || b.MaxTokens > 0 }

// Spending is what a run spent, as a budget counts it: cost in
// nanodollars, so that ten calls of $0.01 spend a budget of $0.10
// exactly (in float64 they sum to 0.09999999999999999), and input +
// output tokens.
type Spending struct {
	CostNano int64
	Tokens   int64
}

// Nanodollars converts US dollars to nanodollars.
func Nanodollars(usd float64) int64 { return int64(math.Round(usd * 1e9)) }

// Add counts one call's cost and tokens.
func (s *Spending) Add(costUSD float64, tokens int64) {
	s.CostNano += Nanodollars(costUSD)
	s.Tokens += tokens
}

// Spent returns the error of b once s has spent it — the cost budget is
// checked first — or nil while money and tokens remain.
func (b Budget) Spent(s Spending) *BudgetError {
	maxCost := Nanodollars(b.MaxCostUSD)
	switch {
	case maxCost > 0 && s.CostNano >= maxCost:
		return &BudgetError{Resource: "cost", UsedUSD: float64(s.CostNano) / 1e9, LimitUSD: float64(maxCost) / 1e9}
	case b.MaxTokens > 0 && s.Tokens >= b.MaxTokens:
		return &BudgetError{Resource: "tokens", UsedTokens: s.Tokens, LimitTokens: b.MaxTokens}
	}
	return nil
}

// BudgetError is the error of a call refused because the run's budget is
// spent (SPEC §14.9): "budget spent: $2.01 of $2.00", or "budget spent:
// 10234 of 10000 tokens" for max_tokens. Its Reason is
// resource_exhaustion.
type BudgetError struct {
	// Resource is "cost" or "tokens".
	Resource string
	// UsedUSD and LimitUSD are the spending and max_cost_usd (cost).
	UsedUSD, LimitUSD float64
	// UsedTokens and LimitTokens are the tokens used and max_tokens
	// (tokens).
	UsedTokens, LimitTokens int64
}

// Error is the message of SPEC §14.9. Both sums have the precision the
// usage line gives the limit (four decimals below one dollar, two from
// one dollar up), so that "$2.01 of $2.00" compares like with like.
func (e *BudgetError) Error() string {
	if e.Resource == "tokens" {
		return fmt.Sprintf("budget spent: %d of %d tokens", e.UsedTokens, e.LimitTokens)
	}
	return fmt.Sprintf("budget spent: %s of %s", budgetUSD(e.UsedUSD, e.LimitUSD), budgetUSD(e.LimitUSD, e.LimitUSD))
}

// Reason is the TaskResult failure reason: resource_exhaustion.
func (e *BudgetError) Reason() string { return ReasonResourceExhaustion }

// budgetUSD formats v with the precision of the limit: $0.1000 below one
// dollar, $2.00 from one dollar up.
func budgetUSD(v, limit float64) string {
	if limit < 1 {
		return fmt.Sprintf("$%.4f", v)
	}
	return fmt.Sprintf("$%.2f", v)
}
