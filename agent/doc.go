// Package agent starts coding-agent programs (Claude Code, Codex, Gemini
// CLI, aider, or any command) to execute a task call, and reads their
// answers (SPEC §22.1 and §22.3).
//
// A Definition describes one agent: its command line, whether the prompt goes
// to stdin, the output format, model names, timeout and parallelism. The
// command is split into words with POSIX quoting rules first; then, inside
// each word, the placeholders {prompt}, {role}, {role_file}, {model}, {date},
// {instructions}, {task}, {root} and {bin} are replaced ({{.NAME}}, the
// spelling of start's agent definitions, is the same placeholder). A
// replaced value is never split again and no shell ever reads it. Leading
// words NAME=VALUE set environment variables of the process. Nothing else of
// the shell is interpreted: a |, ; or $( stays a literal word.
//
// A Runner starts a call's process in the project root, in its own process
// group, and keeps its stdout (at most 16 MiB) and the last 64 KiB of its
// stderr. When the call's context is cancelled or its timeout expires, the
// whole group receives SIGTERM and, after a grace period of 5 s, SIGKILL;
// Run returns only when the group is gone, so no agent process outlives the
// call. The same happens to processes the agent left behind when it exits.
//
// Decisions where the SPEC is silent:
//   - A brace that does not enclose a lower-case name ({"a":1}, {}, {X})
//     is literal text; {name} with an unknown name is a configuration error.
//   - {bin} is the definition's Bin, else the command's first program word,
//     else the agent's name.
//   - The program is looked up on PATH; a word with a slash is a path,
//     relative to the project root (the call's Root).
//   - An empty {model} word is left out with the option before it, so that
//     the agent's own default model applies.
//   - Display (the journal's and dry run's argv) leaves out the
//     definition's env, which may hold secrets.
//   - A non-zero exit reports the error the agent printed in its format
//     (claude's .result or .errors, codex's turn.failed, gemini's error
//     object on stderr) instead of the last stderr line.
//   - A codex-jsonl stream without an agent_message item, or whose last
//     turn.started has no turn.completed, is a parse failure; an "error"
//     event fails the call only when no turn completes after it; the usage
//     is that of the last turn.completed (codex reports the thread's total).
//   - claude-json and gemini-json also read the streaming forms of their
//     programs, Claude Code's verbose JSON array, and skip lines printed
//     before the JSON.
//   - A failed call keeps the usage and cost its output reported.
//   - aider-text (aider's --no-pretty output) leaves out the start-up
//     lines up to the blank line after the "Aider v…" banner, the usage
//     reports and aider's status lines; the content is the last model
//     call's reply, the usage the sum of the "Tokens: … sent, …
//     received." reports, the cost the last report's session cost; a
//     litellm error line no report follows fails the call.
//   - A command without {role} or {role_file} gets the system prompt before
//     the user prompt (Call.FallbackRole left out).
//   - A word or Bin starting with ~/ is under the home directory.
//   - start's Go template actions other than {{.NAME}} are errors.
//   - A process outside the group holding the output open is not waited
//     for beyond the grace period.
//
// Example:
//
//	def, _ := agent.Builtin("claude")
//	r := agent.NewRunner()
//	res, err := r.Run(ctx, def, agent.Call{Prompt: "Explain main.go", Root: root})
//	if err != nil {
//		fmt.Println(agent.ReasonOf(err), err) // agent_error agent 'claude' exited with status 1: …
//	}
//	fmt.Println(res.Content, res.Usage.InputTokens, res.Turns)
package agent
