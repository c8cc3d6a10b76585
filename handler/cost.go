package handler

import "math"

// Prices are what a model costs in US dollars per million tokens (SPEC
// §14.9): `prices = { input, output, cached_input }` of a provider, or a
// `[prices."MODEL-ID"]` table. CachedInput prices the input tokens the
// server reports as read from its prompt cache; 0 prices them as Input.
type Prices struct {
	Input       float64
	Output      float64
	CachedInput float64
}

// Cost is the price of one request's usage: input tokens (less the cached
// ones) at Input, cached input tokens at CachedInput (at Input when
// CachedInput is 0), output tokens at Output.
func (p Prices) Cost(u Usage, cachedInput int) float64 {
	cached := min(max(cachedInput, 0), u.InputTokens)
	cachedPrice := p.CachedInput
	if cachedPrice == 0 {
		cachedPrice = p.Input
	}
	return (float64(u.InputTokens-cached)*p.Input + float64(cached)*cachedPrice + float64(u.OutputTokens)*p.Output) / 1e6
}

// Cost is what one or more calls cost: USD sums the known costs and
// Unknown counts the calls whose price is unknown (SPEC §14.9). The zero
// Cost is "nothing spent, nothing unknown".
type Cost struct {
	USD     float64
	Unknown int
}

// Known reports whether every call counted in c has a known cost.
func (c Cost) Known() bool { return c.Unknown == 0 }

// Add returns the sum of c and o.
func (c Cost) Add(o Cost) Cost { return Cost{USD: c.USD + o.USD, Unknown: c.Unknown + o.Unknown} }

// requestCost is the cost of one answered request: the server's own
// figure (usage.cost, as OpenRouter reports it) wins, else the prices
// applied to the usage, else unknown.
func requestCost(resp *Response, usage Usage, prices *Prices) (float64, bool) {
	if resp.CostUSD != nil && !math.IsNaN(*resp.CostUSD) && *resp.CostUSD >= 0 {
		return *resp.CostUSD, true
	}
	if prices == nil {
		return 0, false
	}
	return prices.Cost(usage, resp.CachedInputTokens), true
}
