package config

import (
	"fmt"
	"slices"

	"github.com/evalrun/evalrun/handler"
	"github.com/evalrun/evalrun/sexp"
)

// merger overlays the files, in order, on the defaults: a value a later
// file sets replaces the earlier one, field by field; a list is replaced
// whole (SPEC §18). origin remembers where the winning value of a key path
// was set, for the checks that need the merged configuration.
type merger struct {
	cfg    *Config
	origin map[string]sexp.Pos
	// local is set once the first file read has been merged.
	local bool
}

func (m *merger) set(f *file, path ...string) {
	m.origin[keyPath(path)] = f.at(path...)
}

func setString(dst *string, v *string) bool {
	if v != nil {
		*dst = *v
	}
	return v != nil
}

func setInt(dst *int, v *int64) bool {
	if v != nil {
		*dst = int(*v)
	}
	return v != nil
}

// overlay merges one decoded, valid file into the configuration.
func (m *merger) overlay(f *file, raw *rawFile) {
	c := m.cfg
	if setString(&c.DefaultProvider, raw.DefaultProvider) {
		m.set(f, "default_provider")
	}
	for _, name := range sortedKeys(raw.Providers) {
		rp := raw.Providers[name]
		p := c.Providers[name]
		m.set(f, "providers", name)
		if rp != nil {
			setString(&p.Type, rp.Type)
			setString(&p.BaseURL, rp.BaseURL)
			setString(&p.APIKeyEnv, rp.APIKeyEnv)
			setString(&p.Model, rp.Model)
			setInt(&p.ContextWindow, rp.ContextWindow)
			if rp.Timeout != nil {
				p.Timeout, _ = parseDuration(*rp.Timeout) // validated
			}
			if rp.Temperature != nil {
				t := *rp.Temperature
				p.Temperature = &t
			}
			setString(&p.Cassette, rp.Cassette)
			if rp.Prices != nil {
				p.Prices = rp.Prices.prices()
			}
		}
		c.Providers[name] = p
	}
	if l := raw.Limits; l != nil {
		setInt(&c.Limits.MaxTurns, l.MaxTurns)
		if l.ContextFraction != nil {
			c.Limits.ContextFraction = *l.ContextFraction
		}
		setInt(&c.Limits.Concurrency, l.Concurrency)
		setInt(&c.Limits.RecursionDepth, l.RecursionDepth)
		if l.Timeout != nil {
			c.Limits.Timeout = 0
			if *l.Timeout != "" {
				c.Limits.Timeout, _ = parseDuration(*l.Timeout) // validated
			}
		}
		if l.MaxSteps != nil {
			c.Limits.MaxSteps = *l.MaxSteps
		}
		setInt(&c.Limits.MaxStringBytes, l.MaxStringBytes)
		setInt(&c.Limits.LLMAttempts, l.LLMAttempts)
		if l.MaxCostUSD != nil {
			c.Limits.MaxCostUSD = *l.MaxCostUSD
		}
		if l.MaxTokens != nil {
			c.Limits.MaxTokens = *l.MaxTokens
		}
	}
	for _, model := range sortedKeys(raw.Prices) {
		if rp := raw.Prices[model]; rp != nil {
			if c.Prices == nil {
				c.Prices = map[string]handler.Prices{}
			}
			c.Prices[model] = *rp.prices()
			m.set(f, "prices", model)
		}
	}
	if x := raw.Context; x != nil {
		setInt(&c.Context.FreshTopK, x.FreshTopK)
		setInt(&c.Context.SubsetK, x.SubsetK)
	}
	m.overlayPlan(raw.Plan)
	m.overlayTemporal(raw.Temporal)
	if t := raw.Tools; t != nil && t.ShellAllow != nil {
		c.Tools.ShellAllow = slices.Clone(t.ShellAllow)
	}
	for _, name := range sortedKeys(raw.Roles) {
		r := raw.Roles[name]
		sys := c.Roles[name]
		if r != nil {
			setString(&sys, r.System)
		}
		c.Roles[name] = sys
	}
	m.overlayAgentTables(f, raw)
}

// check validates what only the merged configuration shows: every
// provider has a type, and default_provider names a provider.
func (m *merger) check() ErrorList {
	var errs ErrorList
	c := m.cfg
	for _, name := range sortedKeys(c.Providers) {
		p := c.Providers[name]
		if p.EffectiveType(name) == "" {
			errs = append(errs, &Error{
				Pos: m.origin[keyPath([]string{"providers", name})],
				Key: keyPath([]string{"providers", name}),
				Msg: fmt.Sprintf("providers.%s: missing key 'type' (openai, echo or replay)", keyPath([]string{name})),
			})
		}
	}
	if dp := c.DefaultProvider; dp != "" && !c.HasProvider(dp) {
		errs = append(errs, &Error{
			Pos: m.origin["default_provider"],
			Key: "default_provider",
			Msg: "default_provider: " + c.UnknownProvider(dp, ""),
		})
	}
	return append(errs, m.checkAgentTables()...)
}
