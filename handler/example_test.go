package handler_test

import (
	"context"
	"fmt"

	"github.com/evalrun/evalrun/handler"
)

func ExampleSession() {
	s := handler.NewSession(handler.SessionConfig{
		Provider: handler.Echo{},
		Model:    "gpt-4o-mini",
		System:   "You are a helpful assistant.",
		MaxTurns: 1,
	})
	s.AddUser("Hello Bob!")
	answer, err := s.Run(context.Background())
	fmt.Println(answer.Content, answer.Turns, err)

	s.AddUser("Again?")
	_, err = s.Run(context.Background())
	fmt.Println(err)
	// Output:
	// Hello Bob! 1 <nil>
	// Resource exhausted: turns (1/1)
}

func ExampleRequestHash() {
	req := &handler.Request{
		Model:    "gpt-4o-mini",
		System:   "You are a helpful assistant.",
		Messages: []handler.Message{{Role: handler.RoleUser, Content: "Hello Bob!"}},
	}
	fmt.Println(handler.CanonicalRequest(req))
	fmt.Println(len(handler.RequestHash(req)))
	// Output:
	// {"messages":[{"content":"Hello Bob!","role":"user"}],"model":"gpt-4o-mini","system":"You are a helpful assistant."}
	// 64
}
