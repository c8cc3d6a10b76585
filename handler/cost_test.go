package handler

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestDecodeCost: the server's usage.cost and cached prompt tokens are
// read from a chat-completions answer (SPEC §14.9); an answer without
// them has none.
func TestDecodeCost(t *testing.T) {
	r, err := decodeResponse([]byte(`{"choices":[{"message":{"role":"assistant","content":"x"}}],"usage":{"prompt_tokens":100,"completion_tokens":10,"prompt_tokens_details":{"cached_tokens":40},"cost":0.0123}}`))
	if err != nil {
		t.Fatal(err)
	}
	if r.CostUSD == nil || *r.CostUSD != 0.0123 || r.CachedInputTokens != 40 || r.Usage != (Usage{100, 10}) {
		t.Errorf("decoded %+v (cost %v)", r, r.CostUSD)
	}
	r, err = decodeResponse([]byte(`{"choices":[{"message":{"role":"assistant","content":"x"}}],"usage":{"prompt_tokens":1,"completion_tokens":1}}`))
	if err != nil || r.CostUSD != nil || r.CachedInputTokens != 0 {
		t.Errorf("decoded %+v, %v", r, err)
	}
}

// TestPricesCost: prices are US dollars per million tokens; cached input
// tokens are priced at cached_input, or at input when it is 0.
func TestPricesCost(t *testing.T) {
	p := Prices{Input: 2.5, Output: 10, CachedInput: 1.25}
	if got := p.Cost(Usage{InputTokens: 1_000_000, OutputTokens: 100_000}, 400_000); got != 0.6*2.5+0.4*1.25+1 {
		t.Errorf("cost %v", got)
	}
	if got := (Prices{Input: 2, Output: 4}).Cost(Usage{InputTokens: 500_000, OutputTokens: 250_000}, 100_000); got != 2 {
		t.Errorf("cost without a cached price %v, want 2", got)
	}
}

// costProvider answers with fixed usage and, when set, a reported cost.
type costProvider struct{ cost *float64 }

func (costProvider) Name() string { return "c" }
func (p costProvider) Complete(ctx context.Context, req *Request) (*Response, error) {
	return &Response{Content: "ok", Usage: Usage{InputTokens: 1000, OutputTokens: 100}, CostUSD: p.cost}, nil
}

// TestSessionCost: the server's cost wins over the prices; prices price
// the usage when the server reports none; neither leaves it unknown.
func TestSessionCost(t *testing.T) {
	reported := 0.5
	prices := &Prices{Input: 1, Output: 10} // $0.002 a call
	for _, tc := range []struct {
		name   string
		p      Provider
		prices *Prices
		want   Cost
	}{
		{"server cost wins", costProvider{&reported}, prices, Cost{USD: 0.5}},
		{"prices", costProvider{}, prices, Cost{USD: 0.002}},
		{"unknown", costProvider{}, nil, Cost{Unknown: 1}},
		{"echo is free", Echo{}, nil, Cost{}},
	} {
		s := NewSession(SessionConfig{Provider: tc.p, Model: "m", Prices: tc.prices})
		s.AddUser("hi")
		if _, err := s.Run(context.Background()); err != nil {
			t.Fatal(err)
		}
		if got := s.Cost(); got != tc.want {
			t.Errorf("%s: cost %+v, want %+v", tc.name, got, tc.want)
		}
	}
}

// TestRecordServerCost: --record writes the cost the server reported and
// replay answers with it; a free answer is recorded without a cost and
// replayed as free.
func TestRecordServerCost(t *testing.T) {
	path := filepath.Join(t.TempDir(), "c.jsonl")
	cas := NewCassette(path)
	cost := 0.25
	req := &Request{Model: "m", Messages: []Message{{Role: RoleUser, Content: "a"}}}
	if _, err := cas.Wrap(costProvider{&cost}).Complete(context.Background(), req); err != nil {
		t.Fatal(err)
	}
	free := &Request{Model: "m", Messages: []Message{{Role: RoleUser, Content: "b"}}}
	if _, err := cas.Wrap(Echo{}).Complete(context.Background(), free); err != nil {
		t.Fatal(err)
	}
	if err := cas.Close(); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(path)
	lines := strings.Split(strings.TrimSpace(string(data)), "\n")
	if len(lines) != 2 || !strings.Contains(lines[0], `"cost_usd":0.25`) || strings.Contains(lines[1], "cost_usd") {
		t.Fatalf("cassette:\n%s", data)
	}
	rp := NewReplay("replay", path)
	r, err := rp.Complete(context.Background(), req)
	if err != nil || r.CostUSD == nil || *r.CostUSD != 0.25 {
		t.Errorf("replayed %+v, %v", r, err)
	}
	r, err = rp.Complete(context.Background(), free)
	if err != nil || r.CostUSD == nil || *r.CostUSD != 0 {
		t.Errorf("replayed free answer %+v, %v", r, err)
	}
}
