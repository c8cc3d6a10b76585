package handler

import (
	"context"
	"fmt"
	"strconv"
)

// DefaultMaxTurns is the turn limit when neither the template nor the
// configuration sets one (SPEC §14.2).
const DefaultMaxTurns = 10

// SessionConfig configures one session.
type SessionConfig struct {
	// Provider answers the model calls; required.
	Provider Provider
	// Model is the model name sent with every call.
	Model string
	// System is the assembled system prompt (SPEC §14.1).
	System string
	// Temperature is sent only when set.
	Temperature *float64
	// MaxTurns limits the assistant messages of the session; 0 means
	// DefaultMaxTurns.
	MaxTurns int
}

// Session is the message list of one task execution (SPEC §14.1): the
// system prompt, then user and assistant messages. It counts turns (one per
// assistant message) and checks the turn limit before every model call. A
// Session belongs to one goroutine.
type Session struct {
	cfg      SessionConfig
	messages []Message
	turns    int
	usage    Usage
}

// NewSession returns an empty session.
func NewSession(cfg SessionConfig) *Session {
	if cfg.MaxTurns <= 0 {
		cfg.MaxTurns = DefaultMaxTurns
	}
	return &Session{cfg: cfg, messages: make([]Message, 0, 4)}
}

// AddUser appends a user message.
func (s *Session) AddUser(content string) {
	s.messages = append(s.messages, Message{Role: RoleUser, Content: content})
}

// Messages returns a copy of the messages so far, without the system prompt.
func (s *Session) Messages() []Message { return append([]Message(nil), s.messages...) }

// System returns the system prompt.
func (s *Session) System() string { return s.cfg.System }

// Turns returns the number of assistant messages the model has produced.
func (s *Session) Turns() int { return s.turns }

// MaxTurns returns the session's turn limit.
func (s *Session) MaxTurns() int { return s.cfg.MaxTurns }

// Usage returns the tokens reported by the provider over the session.
func (s *Session) Usage() Usage { return s.usage }

// Answer is the outcome of Run.
type Answer struct {
	// Content is the text of the final assistant message.
	Content string
	// Turns is the number of assistant messages of the session.
	Turns int
	// Usage sums the provider's usage over the session.
	Usage Usage
}

// Run converses with the model until it answers: it checks the turn limit,
// calls the provider with the messages so far and appends the answer. A
// provider error is returned unchanged; exceeding the turn limit returns a
// *LimitError; a cancelled ctx returns ctx's error.
func (s *Session) Run(ctx context.Context) (*Answer, error) {
	if s.turns >= s.cfg.MaxTurns {
		return nil, &LimitError{Resource: ResourceTurns, Used: s.turns, Limit: s.cfg.MaxTurns}
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	req := &Request{
		Model:       s.cfg.Model,
		System:      s.cfg.System,
		Messages:    s.messages[:len(s.messages):len(s.messages)],
		Temperature: s.cfg.Temperature,
	}
	resp, err := s.cfg.Provider.Complete(ctx, req)
	if err != nil {
		if ctxErr := ctx.Err(); ctxErr != nil {
			return nil, ctxErr
		}
		return nil, err
	}
	if resp == nil {
		return nil, fmt.Errorf("provider %s returned no response", s.cfg.Provider.Name())
	}
	s.messages = append(s.messages, Message{Role: RoleAssistant, Content: resp.Content})
	s.turns++
	s.usage = s.usage.Add(resp.Usage)
	return &Answer{Content: resp.Content, Turns: s.turns, Usage: s.usage}, nil
}

// ResourceTurns names the turn limit in a LimitError (SPEC §14.2).
const ResourceTurns = "turns"

// LimitError reports that a session reached a resource limit before a model
// call (SPEC §14.2).
type LimitError struct {
	// Resource names the limit, such as ResourceTurns.
	Resource string
	Used     int
	Limit    int
}

// Error returns "Resource exhausted: turns (10/10)".
func (e *LimitError) Error() string {
	return "Resource exhausted: " + e.Resource + " (" + strconv.Itoa(e.Used) + "/" + strconv.Itoa(e.Limit) + ")"
}
