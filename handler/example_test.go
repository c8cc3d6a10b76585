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
