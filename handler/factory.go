package handler

import (
	"context"
	"net/http"
	"time"
)

// The provider types of SPEC §18.
const (
	TypeOpenAI = "openai"
	TypeEcho   = "echo"
	TypeReplay = "replay"
)

// ProviderConfig is one [providers.NAME] section of the configuration
// (SPEC §18), defined here once: config.Provider embeds it and
// OpenAIConfig holds it. Zero values mean "not set".
type ProviderConfig struct {
	// Type is "openai", "echo" or "replay"; "" is allowed only for the
	// names openai, echo and replay, which are their own type.
	Type          string
	BaseURL       string
	APIKeyEnv     string
	Model         string
	ContextWindow int
	Timeout       time.Duration
	// Temperature, when set, is sent even when it is 0.
	Temperature *float64
	// Cassette is the replay cassette path.
	Cassette string
	// Prices are the provider's prices (SPEC §14.9), nil when not
	// configured.
	Prices *Prices
}

// RunOptions are the run-wide settings every provider of the run shares.
type RunOptions struct {
	// Root is the project root; the default cassette lies below it.
	Root string
	// Attempts is limits.llm_attempts; 0 means DefaultAttempts.
	Attempts int
	// Getenv reads the environment; nil means os.Getenv.
	Getenv func(string) string
	// Notify receives the retry lines; nil writes them to os.Stderr.
	Notify func(msg string)
	// HTTPClient, Sleep, Jitter and Now are passed to openai providers
	// (tests).
	HTTPClient *http.Client
	Sleep      func(ctx context.Context, d time.Duration) error
	Jitter     func() float64
	Now        func() time.Time
}

// NewProvider builds the provider called name from its configuration
// section. The names openai, echo and replay work without a section (pass
// a zero ProviderConfig). Only an unknown or missing type is an error; a
// missing API key is reported by (*OpenAI).CheckKey and by every call.
func NewProvider(name string, cfg ProviderConfig, opts RunOptions) (Provider, error) {
	typ := cfg.Type
	if typ == "" {
		switch name {
		case TypeOpenAI, TypeEcho, TypeReplay:
			typ = name
		default:
			return nil, NewError(ReasonConfiguration, "provider '"+name+"' has no type (openai, echo or replay)", nil)
		}
	}
	switch typ {
	case TypeEcho:
		return Echo{ProviderName: name, Model: cfg.Model}, nil
	case TypeReplay:
		r := NewReplay(name, CassettePath(cfg.Cassette, opts.Root, opts.Getenv))
		r.Model = cfg.Model
		return r, nil
	case TypeOpenAI:
		return NewOpenAI(OpenAIConfig{Name: name, ProviderConfig: cfg, RunOptions: opts}), nil
	}
	return nil, NewError(ReasonConfiguration, "provider '"+name+"' has an unknown type '"+typ+"' (openai, echo or replay)", nil)
}
