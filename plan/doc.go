// Package plan reads, checks, orders, renders and runs the task plans of
// Claude-Code-Workflow (SPEC §23): a session directory
// .workflow/active/WFS-TOPIC/ with one task per .task/IMPL-N[.M].json
// file, workflow-session.json, IMPL_PLAN.md, TODO_LIST.md and
// .summaries/.
//
// # Reading and checking
//
// Load reads every task file with a small positioned JSON reader (json.go)
// that keeps the byte span of every value, so that problems are reported
// as PATH:LINE:COL and so that write-back can replace one value in place.
// Load reports every problem of §23.2 at once — file names, core fields,
// statuses, the hierarchy (depth 2, containers), the task cap, unknown,
// self and cyclic dependencies, pre_analysis and implementation_approach
// steps — and the warnings (deprecated paths, focus paths, target_files,
// file cohesion, unfilled ${NAME} placeholders), with did-you-mean hints
// from internal/suggest for ids and for status, on_error, meta.type and
// meta.tool values. Diagnostic.Display shows a positioned problem as evalrun
// shows a syntax error: the position and message, the JSON source line, and
// a caret under the column (columns count code points; the caret line
// copies the source line's tabs). plan renders the caret itself rather than
// import sexp, whose helper is unexported. Ids are compared by their numbers: IMPL-001 and
// IMPL-1 are the same task; both depends_on lists (top level and context)
// count. The module-lettered ids of CCW's multi-module plans (IMPL-A1) and
// the fix tasks of its test cycle (IMPL-fix-N) are ids too.
//
// Task files come in CCW's two schemas: the six-field one (meta, context,
// flow_control) and the unified flat one, whose fields stand at the top
// level (Task.Flat); readTask maps both onto the same Task fields.
//
// # Writing back
//
// SetStatus and WriteSession replace the text of the status value (or the
// progress member) and nothing else: unknown fields, their order and the
// file's indentation stay byte for byte. Every write goes through a
// temporary file and a rename in the same directory, after checking that
// the file still holds what was read (size and SHA-256); a file changed
// by someone else is never overwritten (ChangedError). evalrun's own
// record of each task (times, run, tokens, failure reason) is kept in
// .process/evalrun-state.json, so that task files change only in status.
//
// # Running
//
// Run executes the ready leaf tasks in id order, up to RunOptions.Parallel
// at once and never two whose focus_paths overlap. Shell steps (bash(…))
// run with sh -c in the project root and Read(PATH) steps read the file;
// everything that needs a model or an agent — the task's prompt (template
// plan/ROLE), NAME(…) steps, `ccw cli` commands and the agent-tool calls
// CCW's planners write (Extract(…), mcp__…(…)), which the task's executor
// carries out — goes through the Executor interface, which package
// engine implements, so plan never imports engine. The Executor opens the
// journal nodes too: one per task, one per pre_analysis step and, when it
// is a CommandExecutor, one per implementation step with a command, whose
// record (CommandResult) holds the output, the exit status and standard
// error of a shell command. A manual_intervention
// step stops the run with *ManualError (exit 4); failed tasks are
// reported with *FailedError (exit 1) after the independent tasks ran.
//
// The choice of the tasks to start is Schedule, a pure value (no files,
// no goroutines, no clock) that Run drives with goroutines. A run driven
// elsewhere — a workflow on Temporal, whose scheduling must be
// deterministic — uses the same Schedule: Prepare checks the request and
// returns it, and RunStep runs one task end to end as Run does, in any
// process that sees the plan directory (step.go says how steps of one
// run share its files).
//
// # Example
//
//	dir, err := plan.FindSession(".")
//	if err != nil {
//		return err // *plan.SessionError: none or several WFS-* directories
//	}
//	p, diags, err := plan.Load(dir, plan.Options{})
//	if err != nil {
//		return err
//	}
//	fmt.Print(diags)
//	if !diags.HasErrors() {
//		waves, _ := p.Waves(3, nil)
//		fmt.Println(len(waves), "waves")
//		recs, _ := p.ReadState()
//		fmt.Print(p.StatusText(recs))
//	}
package plan
