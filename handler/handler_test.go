package handler

import (
	"context"
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestEcho(t *testing.T) {
	tests := []struct {
		name     string
		messages []Message
		want     string
		err      string
	}{
		{"one user message", []Message{{Role: RoleUser, Content: "Hello Bob!"}}, "Hello Bob!", ""},
		{"last user message", []Message{{Role: RoleUser, Content: "first"}, {Role: RoleAssistant, Content: "answer"}, {Role: RoleUser, Content: "second"}}, "second", ""},
		{"skips later assistant", []Message{{Role: RoleUser, Content: "q"}, {Role: RoleAssistant, Content: "a"}}, "q", ""},
		{"exact text", []Message{{Role: RoleUser, Content: "  spaces\n\n"}}, "  spaces\n\n", ""},
		{"empty user message", []Message{{Role: RoleUser, Content: ""}}, "", ""},
		{"no user message", nil, "", "echo: the request has no user message"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			resp, err := Echo{}.Complete(context.Background(), &Request{Model: "m", System: "sys", Messages: tt.messages})
			if tt.err != "" {
				if err == nil || err.Error() != tt.err {
					t.Fatalf("err = %v, want %q", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(&Response{Content: tt.want, CostUSD: new(float64)}, resp); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
	if (Echo{}).Name() != "echo" {
		t.Errorf("Name = %q", Echo{}.Name())
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := (Echo{}).Complete(ctx, &Request{Messages: []Message{{Role: RoleUser, Content: "x"}}}); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: err = %v", err)
	}
}

// scripted answers with its answers in turn and records requests; it
// appends to the request's messages to check that sessions are immune.
type scripted struct {
	answers []Response
	err     error
	reqs    []Request
}

func (s *scripted) Name() string { return "scripted" }

func (s *scripted) Complete(ctx context.Context, req *Request) (*Response, error) {
	s.reqs = append(s.reqs, Request{Model: req.Model, System: req.System,
		Messages: append([]Message(nil), req.Messages...), Temperature: req.Temperature})
	req.Messages = append(req.Messages, Message{Role: RoleUser, Content: "scribble"})
	if s.err != nil {
		return nil, s.err
	}
	if len(s.answers) == 0 {
		return nil, nil
	}
	r := s.answers[0]
	s.answers = s.answers[1:]
	return &r, nil
}

func TestSessionRun(t *testing.T) {
	temp := 0.2
	p := &scripted{answers: []Response{
		{Content: "one", Usage: Usage{InputTokens: 10, OutputTokens: 2}},
		{Content: "two", Usage: Usage{InputTokens: 20, OutputTokens: 3}},
	}}
	s := NewSession(SessionConfig{Provider: p, Model: "m", System: "sys", Temperature: &temp, MaxTurns: 2})
	s.AddUser("q1")
	a, err := s.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(&Answer{Content: "one", Turns: 1, Usage: Usage{10, 2}}, a); diff != "" {
		t.Errorf("first answer (-want +got):\n%s", diff)
	}
	s.AddUser("q2")
	a, err = s.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(&Answer{Content: "two", Turns: 2, Usage: Usage{30, 5}}, a); diff != "" {
		t.Errorf("second answer (-want +got):\n%s", diff)
	}
	wantMsgs := []Message{{Role: RoleUser, Content: "q1"}, {Role: RoleAssistant, Content: "one"}, {Role: RoleUser, Content: "q2"}, {Role: RoleAssistant, Content: "two"}}
	if diff := cmp.Diff(wantMsgs, s.Messages()); diff != "" {
		t.Errorf("messages (-want +got):\n%s", diff)
	}
	wantReqs := []Request{
		{Model: "m", System: "sys", Messages: []Message{{Role: RoleUser, Content: "q1"}}, Temperature: &temp},
		{Model: "m", System: "sys", Messages: wantMsgs[:3], Temperature: &temp},
	}
	if diff := cmp.Diff(wantReqs, p.reqs); diff != "" {
		t.Errorf("requests (-want +got):\n%s", diff)
	}
	if s.Turns() != 2 || s.MaxTurns() != 2 || s.System() != "sys" || s.Usage() != (Usage{30, 5}) {
		t.Errorf("Turns %d MaxTurns %d System %q Usage %v", s.Turns(), s.MaxTurns(), s.System(), s.Usage())
	}

	// The limit is checked before the model call.
	s.AddUser("q3")
	_, err = s.Run(context.Background())
	var limit *LimitError
	if !errors.As(err, &limit) || *limit != (LimitError{Resource: "turns", Used: 2, Limit: 2}) {
		t.Fatalf("err = %#v", err)
	}
	if err.Error() != "Resource exhausted: turns (2/2)" {
		t.Errorf("message = %q", err)
	}
	if len(p.reqs) != 2 {
		t.Errorf("the provider was called after the limit: %d calls", len(p.reqs))
	}
}

func TestSessionDefaultsAndErrors(t *testing.T) {
	if got := NewSession(SessionConfig{Provider: Echo{}}).MaxTurns(); got != 10 {
		t.Errorf("default MaxTurns = %d", got)
	}

	boom := errors.New("HTTP 500")
	s := NewSession(SessionConfig{Provider: &scripted{err: boom}})
	s.AddUser("q")
	if _, err := s.Run(context.Background()); err != boom {
		t.Errorf("provider error = %v, want it unchanged", err)
	}
	if s.Turns() != 0 || len(s.Messages()) != 1 {
		t.Errorf("a failed call counted: turns %d, messages %v", s.Turns(), s.Messages())
	}

	s = NewSession(SessionConfig{Provider: &scripted{}})
	s.AddUser("q")
	if _, err := s.Run(context.Background()); err == nil || err.Error() != "provider scripted returned no response" {
		t.Errorf("nil response: err = %v", err)
	}

	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	p := &scripted{answers: []Response{{Content: "x"}}}
	s = NewSession(SessionConfig{Provider: p})
	s.AddUser("q")
	if _, err := s.Run(ctx); !errors.Is(err, context.Canceled) || len(p.reqs) != 0 {
		t.Errorf("cancelled: err = %v, calls %d", err, len(p.reqs))
	}
}

func TestSessionEcho(t *testing.T) {
	s := NewSession(SessionConfig{Provider: Echo{}, Model: "gpt-4o-mini", System: "You are a helpful assistant."})
	s.AddUser("Hello Bob!")
	a, err := s.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	// Echo reports no usage: the session counts it (system 6 + user 3 + 2×4 + 3; reply 3).
	if a.Content != "Hello Bob!" || a.Turns != 1 || a.Usage != (Usage{InputTokens: 20, OutputTokens: 3}) {
		t.Errorf("answer = %+v", a)
	}
}
