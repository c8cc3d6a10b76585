package tools_test

import (
	"fmt"

	"github.com/evalrun/evalrun/handler"
	"github.com/evalrun/evalrun/handler/tools"
)

// A session offers the tools a template allows that are available in the
// run; each one left out gives a warning.
func ExampleTools() {
	tb := tools.NewTools(tools.ToolsConfig{Root: "testdata-does-not-exist"})
	s := handler.NewSession(handler.SessionConfig{
		Provider:     handler.Echo{},
		Task:         "review",
		Tools:        tb,
		AllowedTools: []string{tools.ToolReadFiles, tools.ToolShell},
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
