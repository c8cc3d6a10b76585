// Package handler runs the conversation of one task execution (SPEC §14):
// a Session holds the system prompt and the messages, counts turns and
// checks the turn limit before every model call, and asks a Provider for
// each answer.
//
// Provider is the interface every model backend implements; Echo is the
// offline provider whose answer is the text of the last user message. The
// Request and Response types grow new fields (tools, response formats) as
// the handler does, so code that builds them with field names keeps
// compiling.
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
