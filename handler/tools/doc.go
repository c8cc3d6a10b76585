// Package tools holds the tools of a run (SPEC §11.4, §14.4): the
// built-ins system_read_files, system_list_directory, system_get_context
// (memory lookups through a ContextRetriever), system_execute_shell_command
// (only for the programs of [tools] shell_allow, started without a shell,
// never under a dry run) and request_user_input (only when stdin and
// stderr are terminals), and any tool the embedding program registers.
//
// Tools implements handler.Toolbox, through which a session offers the
// tools a template allows and runs the model's tool calls, and the
// evaluator's HasTool and CallTool for a workflow's tool calls. Every call
// is a tool span of package trace (so the journal records it and may
// replay a workflow-level one on --resume). Unknown or ill-typed
// parameters give a FAILED result with reason input_validation_failure;
// file tools never read outside the project root.
//
//	tb := tools.NewTools(tools.ToolsConfig{Root: root, WorkDir: root})
//	r := tb.CallTool(ctx, tools.ToolListDirectory, value.DictOf("directory_path", value.String(".")))
//	fmt.Println(r.Content) // ["a.txt","docs/"]
package tools
