package config

import (
	"math"
	"slices"

	"github.com/evalrun/evalrun/handler"
)

// rawPrices is `prices = { input, output, cached_input }` of a provider,
// or a [prices."MODEL-ID"] table (SPEC §14.9): US dollars per million
// tokens.
type rawPrices struct {
	Input       *float64 `toml:"input"`
	Output      *float64 `toml:"output"`
	CachedInput *float64 `toml:"cached_input"`
}

// prices is the validated table; a key not set is 0.
func (r *rawPrices) prices() *handler.Prices {
	var p handler.Prices
	for _, x := range []struct {
		dst *float64
		v   *float64
	}{{&p.Input, r.Input}, {&p.Output, r.Output}, {&p.CachedInput, r.CachedInput}} {
		if x.v != nil {
			*x.dst = *x.v
		}
	}
	return &p
}

// validatePrices checks a prices table: every price a finite number, at
// least 0, and input and output given.
func (f *file) validatePrices(path []string, r *rawPrices) ErrorList {
	if r == nil {
		return nil
	}
	var errs ErrorList
	for _, x := range []struct {
		k string
		v *float64
	}{{"input", r.Input}, {"output", r.Output}, {"cached_input", r.CachedInput}} {
		p := append(slices.Clone(path), x.k)
		switch {
		case x.v == nil && x.k != "cached_input":
			errs = append(errs, f.errorAt(path, "%s: missing key '%s' (US dollars per million tokens)", keyPath(path), x.k))
		case x.v != nil && (*x.v < 0 || math.IsNaN(*x.v) || math.IsInf(*x.v, 0)):
			errs = append(errs, f.errorAt(p, "%s: must be a price in US dollars per million tokens, at least 0, got %v", keyPath(p), *x.v))
		}
	}
	return errs
}

// PricesOf returns the prices of model on the provider called provider
// (SPEC §14.9): the [prices."MODEL-ID"] table of the model when there is
// one, else the provider's prices, else nil (the cost is unknown unless
// the server or agent reports it).
func (c *Config) PricesOf(provider, model string) *handler.Prices {
	if p, ok := c.Prices[model]; ok {
		return &p
	}
	if p, ok := c.Providers[provider]; ok && p.Prices != nil {
		q := *p.Prices
		return &q
	}
	return nil
}
