package engine_test

import (
	"testing"

	"github.com/evalrun/evalrun/engine"
)

func TestUsageLine(t *testing.T) {
	tests := []struct {
		u    engine.Usage
		want string
	}{
		{engine.Usage{}, ""},
		{engine.Usage{Calls: 1, InputTokens: 12, OutputTokens: 3, Turns: 1},
			"usage: 1 model call, 12 input + 3 output tokens, 1 turn"},
		{engine.Usage{Calls: 3, Replayed: 1, InputTokens: 1234, OutputTokens: 567, Turns: 5},
			"usage: 3 model calls (1 replayed), 1234 input + 567 output tokens, 5 turns"},
		{engine.Usage{Calls: 1, Turns: 0}, "usage: 1 model call, 0 input + 0 output tokens, 0 turns"},
		{engine.Usage{Calls: 3, InputTokens: 10, OutputTokens: 2, Turns: 3, CostUSD: 0.0123},
			"usage: 3 model calls, 10 input + 2 output tokens, 3 turns, $0.0123"},
		{engine.Usage{Calls: 4, Replayed: 4, InputTokens: 3494, OutputTokens: 1411, Turns: 4, CostUSD: 0.0183, ReplayedCostUSD: 0.0183},
			"usage: 4 model calls (4 replayed), 3494 input + 1411 output tokens, 4 turns, $0.0000 spent + $0.0183 replayed"},
		{engine.Usage{Calls: 3, Replayed: 1, Turns: 3, CostUSD: 0.03, ReplayedCostUSD: 0.01, CostUnknown: 1},
			"usage: 3 model calls (1 replayed), 0 input + 0 output tokens, 3 turns, $0.0200 spent + $0.0100 replayed, cost unknown for 1 call"},
	}
	for _, tt := range tests {
		if got := tt.u.Line(); got != tt.want {
			t.Errorf("Usage%+v.Line() = %q, want %q", tt.u, got, tt.want)
		}
	}
}
