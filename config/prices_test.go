package config

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/evalrun/evalrun/handler"
)

// TestPricesAndBudgets: prices per provider and per model id, and the
// budgets of [limits] (SPEC §14.9); a model's table wins over its
// provider's prices, a later file replaces a table whole.
func TestPricesAndBudgets(t *testing.T) {
	dir := t.TempDir()
	g := write(t, dir, "global.toml", `[providers.router]
type = "openai"
prices = { input = 2.5, output = 10.0, cached_input = 1.25 }

[prices."openai/gpt-4o"]
input = 5.0
output = 15.0
`)
	l := write(t, dir, "local.toml", `[limits]
max_cost_usd = 2.0
max_tokens = 100000

[prices."openai/gpt-4o"]
input = 2.5
output = 10.0
`)
	c, err := Load(g, l, base)
	if err != nil {
		t.Fatal(err)
	}
	if c.Limits.MaxCostUSD != 2 || c.Limits.MaxTokens != 100000 {
		t.Errorf("limits %+v", c.Limits)
	}
	for _, tc := range []struct {
		provider, model string
		want            *handler.Prices
	}{
		{"router", "openai/gpt-4o", &handler.Prices{Input: 2.5, Output: 10}},
		{"router", "other", &handler.Prices{Input: 2.5, Output: 10, CachedInput: 1.25}},
		{"openai", "openai/gpt-4o", &handler.Prices{Input: 2.5, Output: 10}},
		{"openai", "gpt-4o-mini", nil},
	} {
		if diff := cmp.Diff(tc.want, c.PricesOf(tc.provider, tc.model)); diff != "" {
			t.Errorf("PricesOf(%s, %s) (-want +got):\n%s", tc.provider, tc.model, diff)
		}
	}
}

// TestPriceErrors: bad prices and budgets are refused with their
// position.
func TestPriceErrors(t *testing.T) {
	for _, tc := range []struct {
		name, text string
		want       []string
	}{
		{"negative budget", "[limits]\nmax_cost_usd = -1.0\n", []string{"c.toml:2:16: limits.max_cost_usd: must be a number of US dollars, at least 0, got -1"}},
		{"negative tokens", "[limits]\nmax_tokens = -5\n", []string{"c.toml:2:14: limits.max_tokens: must be at least 0, got -5"}},
		{"budget type", "[limits]\nmax_cost_usd = \"2$\"\n", []string{"c.toml:2:16: limits.max_cost_usd: expected a number, got a string"}},
		{"missing output", "[prices.m]\ninput = 1.0\n", []string{"c.toml:1:9: prices.m: missing key 'output' (US dollars per million tokens)"}},
		{"negative price", "[providers.p]\ntype = \"openai\"\nprices = { input = -1.0, output = 2.0 }\n", []string{"c.toml:3:20: providers.p.prices.input: must be a price in US dollars per million tokens, at least 0, got -1"}},
		{"unknown price key", "[prices.m]\ninput = 1.0\noutput = 1.0\ncache = 1.0\n", []string{"c.toml:4:1: unknown key 'prices.m.cache'"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := write(t, t.TempDir(), "c.toml", tc.text)
			_, err := Load("", p, base)
			var got []string
			for _, e := range Errors(err) {
				got = append(got, e.Error())
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("errors (-want +got):\n%s", diff)
			}
		})
	}
}
