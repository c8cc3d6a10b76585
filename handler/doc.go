// Package handler runs the conversation of one task execution (SPEC §14).
//
// A Session holds the system prompt and the messages of one task call. Before
// every model call it checks the turn limit and the context limit (tokens
// counted with o200k_base, incrementally, see package tokens) and gives the
// 80 % warnings; it asks a Provider for each answer, runs the tool calls the
// model makes through a Tools registry (each answered by a tool message)
// and sums the usage and the cost (SPEC §14.9: the server's usage.cost,
// else SessionConfig.Prices applied to the usage, else unknown; Echo and
// Replay answers are free unless a cost was recorded). Every model request is a trace.Model span and every
// tool call a trace.Tool span in the span of the context the session runs
// in (package trace): that is how the journal, the dry run and the live
// display see them.
//
// Providers: OpenAI (any OpenAI-compatible chat-completions server, with the
// retries and timeouts of SPEC §14.7), Echo (offline: the answer is the last
// user message), Replay (answers from a cassette by request hash) and
// Cassette.Wrap, which records the answers of any provider for --record.
// NewProvider builds one from a configuration section. RequestHash is the
// hash of SPEC §14.6; ParseOutput is the structured output of SPEC §14.8.
//
// The tools themselves live in package handler/tools; a session sees them
// through the small Toolbox interface (Offer, CallTool), so the handler
// knows no tool. A tool call the model makes inside a task runs on the
// task's own concurrency slot: it must never take a second one.
//
// Failures are Go errors here: *LimitError for a resource limit, errors
// with a Reason() method (Reasoner) for provider failures, ctx's error for
// cancellation. The task system turns them into FAILED TaskResults.
//
// The package knows nothing of templates or S-expressions: the task system
// renders the prompts and hands the handler plain strings.
//
//	s := handler.NewSession(handler.SessionConfig{
//		Provider: handler.Echo{},
//		Model:    "gpt-4o-mini",
//		System:   "You are a helpful assistant.",
//	})
//	s.AddUser("Hello Bob!")
//	answer, err := s.Run(ctx) // answer.Content == "Hello Bob!", answer.Turns == 1
package handler
