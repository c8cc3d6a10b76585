package main

// The detailed help of each command: what `evalrun COMMAND --help` prints
// below the usage line, with one or two real examples. kong takes it from
// the Help method of the command's struct (kong.HelpProvider); the command
// reference docs/commands.md is generated from the same text.

// Help is the detail of `evalrun --help`.
func (cli) Help() string {
	return `Examples:
  evalrun init                            create .evalrun/ with a config and a first template
  evalrun eval '(+ 1 2)'                  evaluate an expression
  evalrun run review.sexp --set focus=security
  evalrun task hello --set name=Ada       run one template
Documentation: docs/README.md in the repository.`
}

// Help is the detail of `evalrun run --help`.
func (runCmd) Help() string {
	return `Examples:
  evalrun run review.sexp --set focus=security --json
  evalrun run defs.sexp main.sexp         defatoms first, then the workflow
  evalrun run --resume last               run the last run again, replaying its completed calls (and keeping its budgets)
  evalrun run files.sexp --max-cost 2     start no call once the run has cost $2 (exit 1)
Stderr ends with the usage line, its cost last:
  usage: 3 model calls (1 replayed), 1234 input + 567 output tokens, 5 turns, $0.0123
  usage: 3 model calls, 1234 input + 567 output tokens, 5 turns, $0.0123, cost unknown for 2 calls
  usage: 3 model calls, 1234 input + 567 output tokens, 5 turns, cost unknown for 3 calls
A free run (echo, replay) shows no cost. A spent budget ends with "evalrun: budget spent: $2.01 of $2.00" and exit 1.`
}

// Help is the detail of `evalrun eval --help`.
func (evalCmd) Help() string {
	return `Examples:
  evalrun eval '(map string-upcase (list "a" "b"))'     prints ("A" "B")
  evalrun eval '(get-field (hello (name "Ada")) "content")'`
}

// Help is the detail of `evalrun task --help`.
func (taskCmd) Help() string {
	return `Examples:
  evalrun task hello --set name=Ada
  evalrun task gdr "pay attention to error handling"    an alias, with {{instructions}}`
}

// Help is the detail of `evalrun check --help`.
func (checkCmd) Help() string {
	return `Examples:
  evalrun check review.sexp --set focus=x  prints "review.sexp: ok", or every problem with its position (exit 3)`
}

// Help is the detail of `evalrun fmt --help`.
func (fmtCmd) Help() string {
	return `Examples:
  evalrun fmt review.sexp                 print the formatted text
  evalrun fmt -w *.sexp                   rewrite the files that change`
}

// Help is the detail of `evalrun repl --help`.
func (replCmd) Help() string {
	return `Commands inside the REPL: :help, :quit, :reset, :load FILE, :templates.
Examples:
  evalrun repl --provider echo`
}

// Help is the detail of `evalrun templates --help`.
func (templatesCmd) Help() string {
	return `Examples:
  evalrun templates list                  every scope, with provenance and shadowing
  evalrun templates show hello            the XML of a template, with its source
  evalrun templates match "review my git diff"
  evalrun templates validate .evalrun/templates/*.xml`
}

// Help is the detail of `evalrun index --help`.
func (indexCmd) Help() string {
	return `Examples:
  evalrun index                           index the project (get-context does it on first use)`
}

// Help is the detail of `evalrun context --help`.
func (contextCmd) Help() string {
	return `Examples:
  evalrun context "where are retries decided" --top-k 3
  evalrun context "retry policy" --strategy metadata --json`
}

// Help is the detail of `evalrun runs --help`.
func (runsCmd) Help() string {
	return `Examples:
  evalrun runs --json
  evalrun runs --temporal localhost:7233  the runs on Temporal`
}

// Help is the detail of `evalrun status --help`.
func (statusCmd) Help() string {
	return `Examples:
  evalrun status                          the last run
  evalrun status 20250106 --markdown      a checklist, for a prompt or a pull request
  evalrun status --remote evalrun-20250106-140300-a1b2   a run on Temporal`
}

// Help is the detail of `evalrun init --help`.
func (initCmd) Help() string {
	return `Examples:
  evalrun init                            then: evalrun task hello --set name=Ada
  evalrun init path/to/project`
}
