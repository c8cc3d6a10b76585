package engine

import (
	"testing"

	"github.com/evalrun/evalrun/config"
	"github.com/evalrun/evalrun/handler"
)

func TestNewProvider(t *testing.T) {
	ps := &providers{opts: handler.RunOptions{Root: t.TempDir(), Getenv: func(string) string { return "" }}}
	for _, tc := range []struct {
		name string
		cfg  config.Provider
		want string // the provider's name, or the error
	}{
		{"echo", config.Provider{}, "echo"},
		{"openai", config.Provider{}, "openai"},
		{"replay", config.Provider{}, "replay"},
		{"quiet", config.Provider{ProviderConfig: handler.ProviderConfig{Type: "echo"}}, "quiet"},
		{"local-llm", config.Provider{ProviderConfig: handler.ProviderConfig{Type: "openai", BaseURL: "http://127.0.0.1:9/v1"}}, "local-llm"},
		{"other", config.Provider{ProviderConfig: handler.ProviderConfig{Type: "anthropic"}}, "error: provider type anthropic is not available yet"},
	} {
		p, err := ps.newProvider(tc.name, tc.cfg)
		got := ""
		if err != nil {
			got = "error: " + err.Error()
		} else {
			got = p.Name()
		}
		if got != tc.want {
			t.Errorf("newProvider(%q, %+v) = %s, want %s", tc.name, tc.cfg, got, tc.want)
		}
	}
}
