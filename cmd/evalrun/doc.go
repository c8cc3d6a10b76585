// Command evalrun runs LLM workflows written as S-expressions (SPEC §17).
//
// Usage:
//
//	evalrun run [flags] FILE...     evaluate files in order in one global environment
//	evalrun eval [flags] EXPR       evaluate the forms in EXPR (source name <eval>)
//	evalrun check [--set K=V]... FILE...
//	                                static checks without evaluating anything
//	evalrun fmt [-w] FILE...        format source text
//	evalrun repl [flags]            interactive session
//	evalrun --version | --help
//
// run, eval and repl accept:
//
//	--set KEY=VALUE   bind the global variable KEY (repeatable). VALUE is read
//	                  as JSON when the whole text is valid JSON (surrounding
//	                  white space allowed), else taken as a string: n=3 gives
//	                  3, id=007 gives "007", a=b=c gives "b=c". KEY must be a
//	                  symbol that is not a keyword.
//	--json            print the final value as JSON indented by two spaces
//	--timeout D       end the run with "timeout exceeded (D)" after the Go
//	                  duration D (90s, 5m); in the REPL it applies to each input
//
// # run and eval
//
// FILE "-" reads standard input, named <stdin> in positions. Every file is
// read and parsed before anything runs, so a syntax error in any file runs
// nothing. The value of the last form is printed on stdout with the canonical
// printer (or as JSON); errors, warnings and log-message lines go to stderr.
// A syntax or evaluation error is shown in three lines, position and message,
// the source line and a caret, followed for evaluation errors by up to ten
// "  called from FILE:LINE:COL" lines. When the final value is a FAILED
// TaskResult it is printed and stderr adds
// "evalrun: final value is a FAILED TaskResult: MESSAGE".
//
// SIGINT or SIGTERM cancels the run: stderr shows "evalrun: interrupted" and
// the exit code is 130. A second signal exits at once.
//
// # check
//
// check reads the files in order as one program (so a file of definitions
// may precede the workflow that uses them) and reports, without running
// anything, syntax errors, malformed special forms, primitives called with
// the wrong number of arguments, operators that resolve to nothing and
// unbound variables, as "FILE:LINE:COL: error: MESSAGE" with the source line
// and a caret; bindings whose names are hidden in operator position by a
// special form, primitive, template or tool are warnings. A file without
// errors prints "FILE: ok" on stdout. --set names count as bound globals.
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
// # Exit codes
//
//	0    success
//	1    evaluation error (limits included), or a FAILED TaskResult as the final value
//	2    usage or configuration error (bad flag, malformed --set, unreadable file)
//	3    syntax error (check: any error)
//	130  interrupted
//
// Set EVALRUN_DEBUG=1 to get a Go stack trace with internal errors.
package main
