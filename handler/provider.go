package handler

import (
	"context"
	"encoding/json"
)

// The message roles of a conversation.
const (
	RoleUser      = "user"
	RoleAssistant = "assistant"
	// RoleTool marks the answer to one tool call (SPEC §14.3).
	RoleTool = "tool"
)

// Message is one message of a session, other than the system prompt.
type Message struct {
	// Role is RoleUser, RoleAssistant or RoleTool.
	Role    string
	Content string
	// ToolCalls are the tool calls of an assistant message, in order.
	ToolCalls []ToolCall
	// ToolCallID is the id of the call a tool message answers.
	ToolCallID string
}

// ToolCall is one tool call requested by the model.
type ToolCall struct {
	// ID identifies the call within the conversation; the tool message
	// answering it repeats it.
	ID string `json:"id"`
	// Name is the tool's name.
	Name string `json:"name"`
	// Arguments is the JSON object text of the parameters, as the model
	// wrote it.
	Arguments string `json:"arguments"`
}

// ToolDef describes a tool offered to the model: a function tool of the
// chat-completions API (SPEC §14.3).
type ToolDef struct {
	Name        string
	Description string
	// Parameters is the JSON Schema of the parameter object.
	Parameters json.RawMessage
}

// The response format types of SPEC §14.5.
const (
	FormatJSONObject = "json_object"
	FormatJSONSchema = "json_schema"
)

// ResponseFormat asks for JSON output (SPEC §14.5): FormatJSONSchema with a
// schema when one is known, else FormatJSONObject.
type ResponseFormat struct {
	// Type is FormatJSONObject or FormatJSONSchema.
	Type string
	// Name names the schema (FormatJSONSchema only); it is sent as the
	// json_schema name after replacing characters outside [A-Za-z0-9_-].
	Name string
	// Schema is the JSON Schema text (FormatJSONSchema only).
	Schema json.RawMessage
}

// JSONOutput returns the response format for output_format type="json": a
// json_schema format when schema is not empty, else json_object.
func JSONOutput(name string, schema json.RawMessage) *ResponseFormat {
	if len(schema) == 0 {
		return &ResponseFormat{Type: FormatJSONObject}
	}
	return &ResponseFormat{Type: FormatJSONSchema, Name: name, Schema: schema}
}

// Request is one model call: everything a provider needs to answer. Later
// fields are added without changing callers, who build a Request with
// field names.
type Request struct {
	// Model is the model name sent to the provider.
	Model string
	// System is the system prompt; it is not repeated in Messages.
	System string
	// Messages are the conversation so far, oldest first. A provider must
	// not modify them.
	Messages []Message
	// Temperature is sent only when set, even when it is 0.
	Temperature *float64
	// Tools are the tools offered to the model; nil offers none.
	Tools []ToolDef
	// ResponseFormat asks for JSON output; nil asks for text.
	ResponseFormat *ResponseFormat
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
	// ToolCalls are the tool calls the model asks for, in order; none ends
	// the session (SPEC §14.3).
	ToolCalls []ToolCall
	// Usage is the provider's token count for the call. A zero Usage means
	// that the provider reports none: the session then counts the call
	// with the tokenizer (SPEC §14.2), as it does for the echo provider.
	Usage Usage
	// CachedInputTokens are the input tokens the server read from its
	// prompt cache (usage.prompt_tokens_details.cached_tokens), priced at
	// Prices.CachedInput.
	CachedInputTokens int
	// CostUSD is the cost the server reported for the call (usage.cost,
	// as OpenRouter reports it), or nil; it wins over configured prices
	// (SPEC §14.9).
	CostUSD *float64
}

// Provider is a model backend (SPEC §14.5). Implementations must be safe for
// concurrent use: parallel task calls share one provider.
type Provider interface {
	// Name returns the configured provider name shown in notes and messages,
	// such as "echo" or "openai".
	Name() string
	// Complete asks the model for the next assistant message. It returns
	// promptly with ctx's error when ctx is cancelled. Errors may implement
	// Reasoner to name the TaskResult failure reason (SPEC §11.5).
	Complete(ctx context.Context, req *Request) (*Response, error)
}

// DefaultModeler is implemented by providers that have a configured default
// model (the provider's "model" setting, SPEC §14.5).
type DefaultModeler interface {
	// DefaultModel returns the model to use when neither the run nor the
	// template names one, or "" when the provider has none.
	DefaultModel() string
}

// ContextWindower is implemented by providers with a configured
// context_window (SPEC §18). A session whose SessionConfig.ContextWindow is
// 0 asks its provider, then falls back to DefaultContextWindow.
type ContextWindower interface {
	// ContextWindow returns the model's context window in tokens, or 0
	// when the provider has none configured.
	ContextWindow() int
}

// DefaultTemperaturer is implemented by providers with a configured
// temperature (SPEC §18). A session whose SessionConfig.Temperature is nil
// (the template sets none) sends the provider's temperature.
type DefaultTemperaturer interface {
	// DefaultTemperature returns the configured temperature, or nil.
	DefaultTemperature() *float64
}

// KeyChecker is implemented by providers that need an API key (openai).
type KeyChecker interface {
	// CheckKey returns a configuration_error when the key is missing.
	CheckKey() error
}

// CheckKey returns p's missing-key error, or nil when p needs no key or has
// one. The CLI calls it for the provider chosen for the whole run, before
// evaluation (SPEC §14.5: exit 2). It sees through Cassette.Wrap.
func CheckKey(p Provider) error {
	for p != nil {
		if kc, ok := p.(KeyChecker); ok {
			return kc.CheckKey()
		}
		u, ok := p.(interface{ Unwrap() Provider })
		if !ok {
			return nil
		}
		p = u.Unwrap()
	}
	return nil
}
