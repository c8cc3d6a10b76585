package tasksystem

import (
	"context"
	"sync"
	"testing"

	"github.com/evalrun/evalrun/handler"
	"github.com/evalrun/evalrun/templates"
	"github.com/evalrun/evalrun/value"
)

// usageProvider answers with fixed usage figures, or fails; with tool set
// its first answer asks for that tool.
type usageProvider struct {
	fail bool
	tool string
}

func (usageProvider) Name() string { return "fixed" }

func (p usageProvider) Complete(_ context.Context, req *handler.Request) (*handler.Response, error) {
	if p.fail {
		return nil, handler.NewError(handler.ReasonLLMError, "boom", nil)
	}
	u := handler.Usage{InputTokens: 10, OutputTokens: 2}
	if p.tool != "" && len(req.Messages) == 1 {
		return &handler.Response{ToolCalls: []handler.ToolCall{{ID: "c1", Name: p.tool, Arguments: "{}"}}, Usage: u}, nil
	}
	return &handler.Response{Content: "ok", Usage: u}, nil
}

func TestExecutorUsage(t *testing.T) {
	ok := NewExecutor(Options{Provider: usageProvider{}})
	bob := []NamedArg{{"name", value.String("Bob")}}
	if got := ok.Usage(); got != (RunUsage{}) {
		t.Fatalf("usage before any call = %+v", got)
	}
	// Concurrent calls are all counted (go test -race checks the guard).
	var wg sync.WaitGroup
	for range 5 {
		wg.Go(func() {
			if r := ok.Execute(context.Background(), Request{Template: greet(), Named: bob}); r.Status != value.StatusComplete {
				t.Error(r)
			}
			_ = ok.Usage()
		})
	}
	wg.Wait()
	// A call that fails before the model is asked is not a model call.
	if r := ok.Execute(context.Background(), Request{Template: greet()}); r.Status != value.StatusFailed {
		t.Fatal(r)
	}
	// No prices and no cost from the server: the five calls' cost is
	// unknown (SPEC §14.9).
	want := RunUsage{Calls: 5, InputTokens: 50, OutputTokens: 10, Turns: 5, CostUnknown: 5}
	if got := ok.Usage(); got != want {
		t.Errorf("usage = %+v, want %+v", got, want)
	}
	ok.AddReplayed(handler.Usage{InputTokens: 7, OutputTokens: 1}, 2, handler.Cost{USD: 0.25})
	want = RunUsage{Calls: 6, Replayed: 1, InputTokens: 57, OutputTokens: 11, Turns: 7, CostUSD: 0.25, CostUnknown: 5, ReplayedCostUSD: 0.25}
	if got := ok.Usage(); got != want {
		t.Errorf("usage after a replay = %+v, want %+v", got, want)
	}

	// A call with a tool call is one model call of two turns.
	tools := NewExecutor(Options{Provider: usageProvider{tool: "nope"}})
	if r := tools.Execute(context.Background(), Request{Template: greet(), Named: bob}); r.Status != value.StatusComplete {
		t.Fatal(r)
	}
	if got, want := tools.Usage(), (RunUsage{Calls: 1, InputTokens: 20, OutputTokens: 4, Turns: 2, CostUnknown: 1}); got != want {
		t.Errorf("usage of a call with a tool call = %+v, want %+v", got, want)
	}

	// A call the provider fails is a model call, without turns.
	bad := NewExecutor(Options{Provider: usageProvider{fail: true}})
	if r := bad.Execute(context.Background(), Request{Template: greet(), Named: bob}); r.Status != value.StatusFailed {
		t.Fatal(r)
	}
	if got, want := bad.Usage(), (RunUsage{Calls: 1}); got != want {
		t.Errorf("usage of a failed call = %+v, want %+v", got, want)
	}

	// A context limit checked before the first request makes no call.
	small := greet()
	small.Limits = templates.Limits{MaxContextFraction: 0.0000001}
	lim := NewExecutor(Options{Provider: usageProvider{}})
	r := lim.Execute(context.Background(), Request{Template: small, Named: bob})
	if r.Status != value.StatusFailed {
		t.Fatal(r)
	}
	if got := lim.Usage(); got != (RunUsage{}) {
		t.Errorf("usage of a call refused before the model = %+v", got)
	}
}
