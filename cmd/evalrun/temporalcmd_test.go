//go:build temporal

package main

import (
	"testing"

	"github.com/evalrun/evalrun/config"
)

// TestTemporalFlagsResolve: each flag given wins over its [temporal] key;
// a flag left out takes the key (or the default config.Default holds).
func TestTemporalFlagsResolve(t *testing.T) {
	cfg := config.Temporal{Address: "temporal.example:7233", Namespace: "team", TaskQueue: "evals"}
	for _, tc := range []struct {
		name  string
		flags temporalFlags
		want  temporalFlags
	}{
		{"no flags", temporalFlags{}, temporalFlags{Temporal: "temporal.example:7233", Namespace: "team", TaskQueue: "evals"}},
		{"address flag", temporalFlags{Temporal: "127.0.0.1:7233"}, temporalFlags{Temporal: "127.0.0.1:7233", Namespace: "team", TaskQueue: "evals"}},
		{"all flags", temporalFlags{Temporal: "h:1", Namespace: "n", TaskQueue: "q"}, temporalFlags{Temporal: "h:1", Namespace: "n", TaskQueue: "q"}},
	} {
		if got := tc.flags.resolve(cfg); got != tc.want {
			t.Errorf("%s: resolve = %+v, want %+v", tc.name, got, tc.want)
		}
	}
	def := config.Default().Temporal
	want := temporalFlags{Namespace: "default", TaskQueue: "evalrun"}
	if got := (temporalFlags{}).resolve(def); got != want {
		t.Errorf("defaults: resolve = %+v, want %+v", got, want)
	}
}
