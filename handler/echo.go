package handler

import (
	"context"
	"errors"
)

// Echo is the offline provider (SPEC §14.5): its answer is exactly the text
// of the last user message. It never calls tools. It reports no usage, so
// the session counts its calls with the tokenizer (SPEC §14.2). It costs
// nothing: every answer reports a cost of $0 (SPEC §14.9). The zero value
// is ready to use.
type Echo struct {
	// ProviderName is the configured name ("" means EchoName), for a
	// provider section with type = "echo".
	ProviderName string
	// Model is the configured model (the section's model), reported by
	// DefaultModel; "" leaves the choice to tasksystem's default.
	Model string
}

// DefaultModel implements DefaultModeler.
func (e Echo) DefaultModel() string { return e.Model }

// EchoName is the name of the echo provider.
const EchoName = "echo"

// Name implements Provider.
func (e Echo) Name() string {
	if e.ProviderName != "" {
		return e.ProviderName
	}
	return EchoName
}

// Complete implements Provider.
func (Echo) Complete(ctx context.Context, req *Request) (*Response, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	for i := len(req.Messages) - 1; i >= 0; i-- {
		if req.Messages[i].Role == RoleUser {
			return &Response{Content: req.Messages[i].Content, CostUSD: new(float64)}, nil
		}
	}
	return nil, errors.New("echo: the request has no user message")
}
