// Package tasksystem finds and runs atomic tasks (SPEC §10, §11, §13).
//
// A Registry holds the templates of a run by name, alias and type:subtype,
// replaces a template whole when one of the same name is added, and matches
// natural-language requests against descriptions with an inverted token
// index (SPEC §10.5). It is safe for concurrent use.
//
// An Executor runs one task call (SPEC §11.3): Bind checks and binds the
// call's arguments to the template's inputs (§11.2), EffectiveContext merges
// and validates the context settings (§13.2), the template's <file> is read
// and its <command> run when their placeholders are used (§12.4), the task's
// own files are selected (the call's files, the template's <file_paths>, or
// a fresh lookup in the Memory index, §13.4), the system and instructions
// texts are rendered with the inputs and built-in placeholders (§12), and a
// handler session asks the selected provider (§14) with a system prompt that
// ends in the context block of §13.5: own files, inherited ambient items
// (--files and with-context items; all, the best by BM25, or none) and the
// outputs of earlier calls. The result is always a TaskResult value: a
// failed task is a FAILED result with a reason, never a Go error.
// ParseContextArg and ParseHistoryArg read a call's reserved arguments for
// the evaluator, which reports their errors with a position.
//
// An Executor serves one run: it numbers the calls, remembers the COMPLETE
// ones for accumulate_data (§13.4) and their (user, assistant) pairs for
// session history (§13.6), and is safe for concurrent use.
//
// Security (§19): every file read for a task must lie inside Options.Root
// once symbolic links are resolved (only Options.RunFiles may lie outside);
// values substituted into a <command> are shell-quoted after their filters
// ran, so that each placeholder becomes exactly one shell word; a command
// runs as SHELL -c TEXT in its own process group, which is killed on
// timeout, on cancellation and when the shell exits; the command of a local
// or dir template is echoed on Options.Stderr before it runs.
//
//	reg := tasksystem.NewRegistry()
//	greet := &templates.Template{Name: "greet", Type: "atomic", Instructions: "Hello {{name}}!",
//		Inputs: []templates.Input{{Name: "name", Type: "any", Required: true}}, InputsDeclared: true,
//		Scope: templates.ScopeDefatom}
//	if err := templates.Infer(greet); err != nil {
//		return err
//	}
//	reg.Add(greet)
//
//	ex := tasksystem.NewExecutor(tasksystem.Options{}) // echo provider
//	t, _ := reg.Lookup("greet")
//	res := ex.Execute(ctx, tasksystem.Request{Template: t,
//		Named: []tasksystem.NamedArg{{Name: "name", Value: value.String("Bob")}}})
//	// res prints as #<TaskResult COMPLETE "Hello Bob!">
package tasksystem
