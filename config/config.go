package config

import (
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/evalrun/evalrun/handler"
	"github.com/evalrun/evalrun/internal/suggest"
	"github.com/evalrun/evalrun/memory"
)

// The defaults of SPEC §18. Those the handler applies are the handler's.
const (
	DefaultMaxTurns        = handler.DefaultMaxTurns
	DefaultContextFraction = handler.DefaultContextFraction
	DefaultConcurrency     = 8
	DefaultRecursionDepth  = 10_000
	DefaultMaxStringBytes  = 64 << 20
	DefaultLLMAttempts     = handler.DefaultAttempts
	DefaultFreshTopK       = memory.DefaultFreshTopK
	DefaultSubsetK         = memory.DefaultSubsetK
)

// The provider types (SPEC §14.5, §18).
const (
	TypeOpenAI = handler.TypeOpenAI
	TypeEcho   = handler.TypeEcho
	TypeReplay = handler.TypeReplay
)

// FileName is the name of both configuration files.
const FileName = "config.toml"

// Config is the merged configuration of a run. The zero value is not useful;
// Default returns the configuration without any file.
type Config struct {
	// DefaultProvider names the provider of calls that neither the run
	// (--provider) nor the template chooses; "" means the implicit choice
	// of SPEC §14.5.
	DefaultProvider string
	// Providers are the [providers.NAME] sections by name.
	Providers map[string]Provider
	Limits    Limits
	Context   Context
	Tools     Tools
	// Roles maps a role name to its system prompt ([roles.NAME] system).
	Roles map[string]string
	// Plan is the [plan] section (SPEC §23); zero values mean the
	// defaults (MaxTasks 0 is DefaultPlanMaxTasks).
	Plan Plan
	// Temporal is the [temporal] section (docs/temporal.md): where runs on
	// Temporal go when the flags do not say.
	Temporal Temporal
	// Prices are the [prices."MODEL-ID"] tables by model id (SPEC §14.9):
	// they win over a provider's prices for that model.
	Prices map[string]handler.Prices
	// Files lists the configuration files that were read, in merge order.
	Files []string
	// Agents, roles with UTD fields, contexts and tasks (SPEC §22).
	AgentConfig
}

// Provider is one [providers.NAME] section: the handler's provider
// settings (handler.ProviderConfig), defined there once. Zero values mean
// "not set".
type Provider struct {
	handler.ProviderConfig
}

// EffectiveType returns the provider's type: Type, or the name itself for
// the built-in names openai, echo and replay.
func (p Provider) EffectiveType(name string) string {
	if p.Type != "" {
		return p.Type
	}
	if IsBuiltinProvider(name) {
		return name
	}
	return ""
}

// Limits is the [limits] section with its defaults filled in.
type Limits struct {
	MaxTurns        int
	ContextFraction float64
	Concurrency     int
	RecursionDepth  int
	// Timeout is the run's timeout; 0 means none.
	Timeout time.Duration
	// MaxSteps is the evaluation step limit; 0 means unlimited.
	MaxSteps       int64
	MaxStringBytes int
	LLMAttempts    int
	// MaxCostUSD and MaxTokens are the run's budgets (SPEC §14.9): US
	// dollars, and input plus output tokens; 0 means none.
	MaxCostUSD float64
	MaxTokens  int64
}

// Context is the [context] section with its defaults filled in.
type Context struct {
	FreshTopK int
	SubsetK   int
}

// Tools is the [tools] section.
type Tools struct {
	// ShellAllow lists the programs system_execute_shell_command may start;
	// "*" allows any; empty disables the tool.
	ShellAllow []string
}

// Default returns the configuration used when no file sets anything.
func Default() *Config {
	return &Config{
		Providers: map[string]Provider{},
		Roles:     map[string]string{},
		Limits: Limits{
			MaxTurns:        DefaultMaxTurns,
			ContextFraction: DefaultContextFraction,
			Concurrency:     DefaultConcurrency,
			RecursionDepth:  DefaultRecursionDepth,
			MaxStringBytes:  DefaultMaxStringBytes,
			LLMAttempts:     DefaultLLMAttempts,
		},
		Context:  Context{FreshTopK: DefaultFreshTopK, SubsetK: DefaultSubsetK},
		Temporal: Temporal{Namespace: DefaultTemporalNamespace, TaskQueue: DefaultTemporalTaskQueue},
	}
}

// IsBuiltinProvider reports whether name is one of the provider names that
// exist without configuration: openai, echo and replay (SPEC §14.5).
func IsBuiltinProvider(name string) bool {
	switch name {
	case TypeOpenAI, TypeEcho, TypeReplay:
		return true
	}
	return false
}

// HasProvider reports whether name is a configured provider or one of the
// built-in names.
func (c *Config) HasProvider(name string) bool {
	_, ok := c.Providers[name]
	return ok || IsBuiltinProvider(name)
}

// Provider returns the section of the provider called name; the built-in
// names without a section give a zero Provider. ok is false for an unknown
// name.
func (c *Config) Provider(name string) (p Provider, ok bool) {
	p, ok = c.Providers[name]
	if !ok && IsBuiltinProvider(name) {
		return Provider{}, true
	}
	return p, ok
}

// ProviderNames returns the configured provider names and the built-in
// ones, sorted.
func (c *Config) ProviderNames() []string {
	names := []string{TypeEcho, TypeOpenAI, TypeReplay}
	for n := range c.Providers {
		if !slices.Contains(names, n) {
			names = append(names, n)
		}
	}
	sort.Strings(names)
	return names
}

// UnknownProvider returns the message for a provider name that is neither
// configured nor built in; where says where the name was given ("" for
// nowhere in particular): unknown provider 'opnai' (--provider; known:
// echo, openai, replay; did you mean 'openai'?).
func (c *Config) UnknownProvider(name, where string) string {
	names := c.ProviderNames()
	detail := "known: " + strings.Join(names, ", ")
	if where != "" {
		detail = where + "; " + detail
	}
	if s := suggest.Near(name, names); s != "" {
		detail += "; did you mean '" + s + "'?"
	}
	return "unknown provider '" + name + "' (" + detail + ")"
}

// HasRole reports whether [roles.NAME] is configured.
func (c *Config) HasRole(name string) bool {
	_, ok := c.Roles[name]
	return ok
}

// GlobalDir returns the global configuration directory (SPEC §17.8, §18):
// $EVALRUN_HOME when set, else ~/.config/evalrun, else "" when neither is
// known. getenv nil means os.Getenv; the home directory comes from HOME
// through os.UserHomeDir when getenv is os.Getenv, else from getenv("HOME").
func GlobalDir(getenv func(string) string) string {
	if getenv == nil {
		getenv = os.Getenv
	}
	if h := getenv("EVALRUN_HOME"); h != "" {
		return h
	}
	home := getenv("HOME")
	if home == "" {
		var err error
		if home, err = os.UserHomeDir(); err != nil || home == "" {
			return ""
		}
	}
	return filepath.Join(home, ".config", "evalrun")
}

// GlobalPath returns the path of the global configuration file, or "" when
// no global directory is known.
func GlobalPath(getenv func(string) string) string {
	dir := GlobalDir(getenv)
	if dir == "" {
		return ""
	}
	return filepath.Join(dir, FileName)
}

// LocalPath returns the path of the local configuration file under the
// project root: ROOT/.evalrun/config.toml.
func LocalPath(root string) string {
	return filepath.Join(root, ".evalrun", FileName)
}
