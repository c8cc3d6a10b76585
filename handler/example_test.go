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

func ExampleTools() {
	tools := handler.NewTools(handler.ToolsConfig{Root: "testdata-does-not-exist"})
	s := handler.NewSession(handler.SessionConfig{
		Provider:     handler.Echo{},
		Task:         "review",
		Tools:        tools,
		AllowedTools: []string{handler.ToolReadFiles, handler.ToolShell},
	})
	for _, d := range s.Tools() {
		fmt.Println("offered:", d.Name)
	}
	for _, w := range s.Warnings() {
		fmt.Println(w)
	}
	// Output:
	// offered: system_read_files
	// warning: task 'review' cannot use tool 'system_execute_shell_command': shell tool is not enabled (set [tools] shell_allow)
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
