package handler

import (
	"context"
	"strings"
	"testing"

	"github.com/evalrun/evalrun/handler/tokens"
)

// BenchmarkSessionEchoCall measures the per-call overhead of a session with
// the echo provider, tokenization left out (tokens.None): a new session, a
// system prompt, a user message and one model call. Target: ≤ 100 µs.
func BenchmarkSessionEchoCall(b *testing.B) {
	ctx := context.Background()
	user := strings.Repeat("Review the following change carefully. ", 20)
	b.ReportAllocs()
	for b.Loop() {
		s := NewSession(SessionConfig{Provider: Echo{}, Model: "gpt-4o-mini", System: "You are a helpful assistant.",
			Task: "review", Counter: tokens.None})
		s.AddUser(user)
		if _, err := s.Run(ctx); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkSessionEchoCallTokenized is the same call with the o200k_base
// tokenizer, for comparison.
func BenchmarkSessionEchoCallTokenized(b *testing.B) {
	ctx := context.Background()
	user := strings.Repeat("Review the following change carefully. ", 20)
	tokens.Count("warm up")
	b.ReportAllocs()
	for b.Loop() {
		s := NewSession(SessionConfig{Provider: Echo{}, Model: "gpt-4o-mini", System: "You are a helpful assistant.", Task: "review"})
		s.AddUser(user)
		if _, err := s.Run(ctx); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkOneMoreTurn measures one more turn (a user message and an echo
// call, tokens counted with o200k_base) in a session that already holds
// 100,000 tokens. Target: ≤ 1 ms.
func BenchmarkOneMoreTurn(b *testing.B) {
	ctx := context.Background()
	chunk := strings.Repeat("The handler counts tokens incrementally, so history is never tokenized twice. ", 100)
	per := tokens.Count(chunk) + tokens.PerMessage
	s := NewSession(SessionConfig{Provider: Echo{}, Model: "m", System: "sys", MaxTurns: 1 << 30, ContextWindow: 1 << 30})
	var history []Message
	for n := 0; n < 100000; n += per {
		history = append(history, Message{Role: RoleUser, Content: chunk})
	}
	s.AddMessages(history...)
	if got := s.PromptTokens(); got < 100000 {
		b.Fatalf("only %d tokens", got)
	}
	b.ReportAllocs()
	for b.Loop() {
		s.AddUser("And what about the next file?")
		if _, err := s.Run(ctx); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkRequestHash100k hashes a request of about 100,000 tokens.
func BenchmarkRequestHash100k(b *testing.B) {
	chunk := strings.Repeat("The handler counts tokens incrementally, so history is never tokenized twice. ", 100)
	req := &Request{Model: "m", System: "sys"}
	for range 65 {
		req.Messages = append(req.Messages, Message{Role: RoleUser, Content: chunk})
	}
	b.SetBytes(int64(len(CanonicalRequest(req))))
	for b.Loop() {
		RequestHash(req)
	}
}
