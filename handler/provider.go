package handler

import "context"

// The message roles of a conversation.
const (
	RoleUser      = "user"
	RoleAssistant = "assistant"
)

// Message is one message of a session, other than the system prompt.
type Message struct {
	// Role is RoleUser or RoleAssistant.
	Role    string
	Content string
}

// Request is one model call: everything a provider needs to answer. Later
// fields (tools, response formats) are added without changing callers, who
// build a Request with field names.
type Request struct {
	// Model is the model name sent to the provider.
	Model string
	// System is the system prompt; it is not repeated in Messages.
	System string
	// Messages are the conversation so far, oldest first. A provider must
	// not modify them.
	Messages []Message
	// Temperature is sent only when set.
	Temperature *float64
}

// Usage counts the tokens of one or more model calls.
type Usage struct {
	InputTokens  int
	OutputTokens int
}

// Add returns the sum of u and o.
func (u Usage) Add(o Usage) Usage {
	return Usage{InputTokens: u.InputTokens + o.InputTokens, OutputTokens: u.OutputTokens + o.OutputTokens}
}

// Response is a provider's answer to one Request.
type Response struct {
	// Content is the text of the assistant message.
	Content string
	// Usage is the provider's token count for the call; zero when the
	// provider does not report one.
	Usage Usage
}

// Provider is a model backend (SPEC §14.5). Implementations must be safe for
// concurrent use: parallel task calls share one provider.
type Provider interface {
	// Name returns the configured provider name shown in notes and messages,
	// such as "echo" or "openai".
	Name() string
	// Complete asks the model for the next assistant message. It returns
	// promptly with ctx's error when ctx is cancelled.
	Complete(ctx context.Context, req *Request) (*Response, error)
}

// DefaultModeler is implemented by providers that have a configured default
// model (the provider's "model" setting, SPEC §14.5).
type DefaultModeler interface {
	// DefaultModel returns the model to use when neither the run nor the
	// template names one, or "" when the provider has none.
	DefaultModel() string
}
