// Command evalrun runs LLM workflows written as S-expressions (SPEC §17).
//
// Usage:
//
//	evalrun run [flags] FILE...     evaluate files in order in one global environment
//	evalrun run [flags] [FILE...] --resume RUN
//	                                run again, replaying RUN's completed calls
//	evalrun eval [flags] EXPR       evaluate the forms in EXPR (source name <eval>)
//	evalrun task [flags] NAME [INSTRUCTIONS]
//	                                run one template; --set gives its inputs
//	evalrun check [--set K=V]... [--templates DIR]... FILE...
//	                                static checks without evaluating anything
//	evalrun templates [--templates DIR]... list [--json] | show NAME | match TEXT | validate FILE...
//	evalrun fmt [-w] FILE...        format source text
//	evalrun repl [flags]            interactive session
//	evalrun index [PATH]            build or update PATH/.evalrun/index.db
//	evalrun context [--strategy S] [--top-k N] [--json] [--templates DIR]... QUERY
//	                                look up the indexed files matching QUERY
//	evalrun runs [--json]           list the journal's runs, newest first
//	evalrun status [--markdown] [--json] [RUN]
//	                                show a run's tree of steps, tasks and tools
//	evalrun --version | --help
//
// run, eval, task and repl accept:
//
//	--set KEY=VALUE   bind the global variable KEY (for task: the input KEY;
//	                  files, context and history_config are its reserved
//	                  arguments); repeatable. VALUE is read as JSON when the
//	                  whole text is valid JSON (surrounding white space
//	                  allowed), else taken as a string: n=3 gives 3, id=007
//	                  gives "007", a=b=c gives "b=c". KEY must be a symbol
//	                  that is not a keyword.
//	--json            print the final value as JSON indented by two spaces
//	--timeout D       end the run with "timeout exceeded (D)" after the Go
//	                  duration D (90s, 5m); in the REPL it applies to each
//	                  input; default [limits] timeout
//	--templates DIR   load templates from DIR (scope dir, after the global
//	                  and local scopes); repeatable
//	--provider P      the provider of every call: openai, echo, replay or a
//	                  configured [providers.P]
//	--model M         the model of every call
//	--files F         a file in the ambient context of the whole run
//	                  (repeatable; may lie outside the project)
//	--dry-run         the echo provider answers, the shell tool never runs,
//	                  and every prompt is written to
//	                  .evalrun/dry-run/RUN-ID/NNN-NAME.md
//	--record FILE     append every model answer of every provider of the
//	                  run to the cassette FILE (one JSON line per request
//	                  hash not yet in it; no file when no model is asked),
//	                  for the replay provider ($EVALRUN_CASSETTE or
//	                  [providers.replay] cassette). With --dry-run the echo
//	                  answers are recorded.
//
// # Journal
//
// run, eval and task (not --dry-run, not the REPL, not an eval that
// completes without a call) are recorded in .evalrun/journal.db under the
// project root (SPEC §16, package journal), created when missing:
// the run with its workflow (the file names, "<eval>" or "task NAME"), the
// SHA-256 of its text and its --set values; every task call, with its
// notes.task_id RUN-ID/SEQ; the tool calls of the workflow and of the model
// (children of their task); and every step, the statically known ones
// created pending when the run starts. runs and status read it; RUN is a
// full id, a unique prefix or last (the default), and an unknown RUN exits
// 2. status --json prints {"run": RUN, "nodes": [NODE...], "current": SEQ
// or null} (runs --json an array of RUN objects), with RUN {id, workflow,
// workflow_sha256, args, status, resumed_from, started_at, finished_at,
// duration_seconds, calls, tokens, final, error} and NODE {seq, kind, name,
// status, input_hash, inputs, result, error, attempts, input_tokens,
// output_tokens, turns, replayed, started_at, finished_at, children}.
// run --resume RUN replays the completed task calls (matched on template
// and request hash) and workflow-level tool calls (on name and parameters)
// of RUN and of the runs it resumed from, with notes.replayed true, and
// keeps {{date}} at the first run's start time.
//
// # Templates, configuration and providers
//
// The project root is the nearest ancestor of the working directory that
// holds .evalrun/ or .git. EVALRUN_CEILING_DIRECTORIES, a ':'-separated list
// of absolute directories in the manner of git's GIT_CEILING_DIRECTORIES,
// bounds that search: a ceiling directory and everything above it is never
// looked at (the working directory is then the root unless it, or a
// directory between it and the ceiling, has a marker). Templates are loaded from the built-in set, the
// global directory ($EVALRUN_HOME/templates, else
// ~/.config/evalrun/templates), the local .evalrun/templates under the
// project root and each --templates DIR, in that order; a template of a later
// scope replaces one of the same name with a warning on stderr. A template
// that does not validate prints its errors and ends run, eval, task, check
// and templates with exit code 3. Before evaluation, run and eval print
// "template NAME: SCOPE PATH:LINE" for every global, local or dir template
// the program names; a template first reached through a computed name gets
// the line just before its first model call.
//
// The configuration is the global $EVALRUN_HOME/config.toml (else
// ~/.config/evalrun/config.toml) merged with the local .evalrun/config.toml,
// the local value winning key by key (package config). An error prints as
// "FILE:LINE:COL: MESSAGE" with the line and a caret, and exits 2.
//
// The provider of a call is --provider, else the template's, else
// default_provider, else openai when OPENAI_API_KEY is set, else the echo
// provider, announced once before the first model call by
// "notice: no LLM provider configured and OPENAI_API_KEY is unset; using the
// echo provider". A provider chosen for the whole run that lacks its API key
// is a configuration error (exit 2).
//
// # run and eval
//
// FILE "-" reads standard input, named <stdin> in positions. Every file is
// read and parsed before anything runs, so a syntax error in any file runs
// nothing. The value of the last form is printed on stdout with the canonical
// printer (or as JSON); errors, warnings, notices, provenance lines and
// log-message lines go to stderr. A syntax or evaluation error is shown in
// three lines, position and message, the source line and a caret, followed
// for evaluation errors by up to ten "  called from FILE:LINE:COL" lines.
// When the final value is a FAILED TaskResult it is printed and stderr adds
// "evalrun: final value is a FAILED TaskResult: MESSAGE". When a model call
// was made (memory's associative-matching calls included), run, eval and
// task then print, after the value or the error,
// "usage: 3 model calls, 1234 input + 567 output tokens, 5 turns": the task
// calls that asked a model (failed ones included), their tokens and their
// assistant turns ("(N replayed)" follows the call count when calls were
// replayed). A dry run ends stderr with
// "dry run: N prompts written to .evalrun/dry-run/RUN-ID/".
//
// SIGINT or SIGTERM cancels the run: stderr shows "evalrun: interrupted" and
// the exit code is 130. A second signal exits at once.
//
// # task
//
// task runs one template found by name, alias or type:subtype, with the
// --set values as its inputs and INSTRUCTIONS as {{instructions}}. stdout
// gets the content (--json: the TaskResult). An unknown name exits 2 with up
// to three suggestions; a FAILED result exits 1.
//
// # index and context
//
// index builds or updates the memory index of PATH (default: the project
// root) and prints
// "indexed 412 files (12 added, 3 updated, 1 removed, 7 skipped) in .evalrun/index.db",
// the path relative to the working directory when below it. In a git work
// tree the files are the tracked and the untracked, not ignored ones;
// elsewhere a directory walk. context runs the get-context lookup of a run
// (refreshing the project's index first) and prints one "SCORE PATH" line
// per match, the score to two decimals, then the summary; --json prints the
// get-context result dict. The llm strategies run the built-in
// associative-matching templates on the provider a run would choose. An
// invalid --strategy or --top-k, or a blank QUERY, exits 2; a lookup error
// is printed on stderr with exit 1; no match is not an error.
//
// # check
//
// check reads the configuration, loads and validates the templates, and
// reads the files in order as one program (so a file of definitions may
// precede the workflow that uses them). It reports, without running
// anything, template validation errors, syntax errors, malformed special
// forms, primitives called with the wrong number of arguments, operators
// that resolve to nothing, unbound variables and template calls with
// unknown or missing inputs, as "FILE:LINE:COL: error: MESSAGE" with the
// source line and a caret; bindings whose names are hidden in operator
// position by a special form, primitive, template or tool, and templates
// hidden by a special form, primitive or tool, are warnings. A file without
// errors prints "FILE: ok" on stdout. --set names count as bound globals.
//
// # templates
//
// list prints one group per template directory in scope order (built-in
// first), one line per template with name, alias, description and file,
// marking templates a later scope shadows; --json prints an array of
// {name, alias, type, subtype, description, scope, path, line,
// shadowed_by}. show prints "<!-- SCOPE PATH:LINE -->" and the template's
// XML (an unknown name exits 2 with suggestions). match prints the table
// SCORE NAME SCOPE (exit 1 when nothing matches). validate prints "FILE: ok"
// or the diagnostics of each file (exit 3 on errors).
//
// # fmt
//
// fmt prints the formatted text on stdout, or with -w rewrites the files
// whose formatting changes (through a temporary file in the same directory,
// keeping the permissions). A file with a syntax error is left untouched.
//
// # repl
//
// The REPL reads inputs from standard input, continuing an input over lines
// until its parentheses balance, evaluates them in one persistent global
// environment and prints the value of each input. Positions are
// <repl>:LINE:COL with lines counted over the whole session. Commands: :help,
// :quit, :reset, :load FILE and :templates. Prompts appear only when standard
// input is a terminal; the exit status is 0 at the end of input.
//
// # worker, run --temporal, status --temporal
//
// The Temporal commands (docs/temporal.md) are compiled in only with the
// build tag temporal (temporalcmd.go), which links the Temporal SDK; the
// default build keeps their flags (temporalflags.go) but refuses them with
// exit 2 and the build command to use (notemporal.go), so that every other
// command starts without the SDK's gRPC and protobuf initialisation.
// A followed run (run --temporal without --detach) shows the live display
// of --progress from the workflow's progress query, prints the lines the
// program printed, the value, and the usage line, as a local run does.
//
// # Exit codes
//
//	0    success
//	1    evaluation error (limits included), a FAILED TaskResult as the final
//	     value or task result, (templates match) nothing matched, or
//	     (index, context) the index or the lookup failed
//	2    usage or configuration error (bad flag, malformed --set, unreadable
//	     file, invalid configuration, unknown provider or template name)
//	3    syntax error or template validation error (check: any error)
//	130  interrupted
//
// Set EVALRUN_DEBUG=1 to get a Go stack trace with internal errors.
package main
