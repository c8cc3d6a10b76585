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
	}
	for _, tt := range tests {
		if got := tt.u.Line(); got != tt.want {
			t.Errorf("Usage%+v.Line() = %q, want %q", tt.u, got, tt.want)
		}
	}
}
