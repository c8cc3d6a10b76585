package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"slices"
	"strings"

	"github.com/alecthomas/kong"

	"github.com/evalrun/evalrun/engine"
	"github.com/evalrun/evalrun/sexp"
	"github.com/evalrun/evalrun/value"
)

// The exit codes of SPEC §17.9.
const (
	exitOK          = 0
	exitEval        = 1   // evaluation error (limits included) or a FAILED final value
	exitUsage       = 2   // usage or configuration error
	exitSyntax      = 3   // syntax error or template validation error
	exitInterrupted = 130 // SIGINT or SIGTERM
)

func main() {
	a := &app{
		stdin:  os.Stdin,
		stdout: os.Stdout,
		stderr: os.Stderr,
		getenv: os.Getenv,
	}
	os.Exit(a.main(os.Args[1:]))
}

// app is one invocation of the CLI: its standard streams and environment.
// Commands report through it and return an exit code.
type app struct {
	stdin  io.Reader
	stdout io.Writer
	stderr io.Writer
	getenv func(string) string
	// progressMode is --progress of the command ("" for none: never);
	// progress is the display while a run goes on (startProgress).
	progressMode string
	progress     *engine.Progress
}

// main parses args and runs the selected command. It never panics: a
// recovered panic is an internal error with exit code 1, printed with a Go
// stack trace only when EVALRUN_DEBUG=1.
func (a *app) main(args []string) (code int) {
	defer func() {
		if r := recover(); r != nil {
			a.errorf("internal error: %v (please report this)", r)
			if a.debug() {
				fmt.Fprintf(a.stderr, "%s", debug.Stack())
			}
			code = exitEval
		}
	}()
	var c cli
	parser, err := kong.New(&c,
		kong.Name("evalrun"),
		kong.Description("Run LLM workflows written as S-expressions."),
		kong.Vars{"version": "evalrun " + version()},
		kong.Writers(a.stdout, a.stderr),
		kong.Exit(func(code int) { panic(kongExit(code)) }),
		kong.ConfigureHelp(kong.HelpOptions{Compact: true}),
	)
	if err != nil {
		a.errorf("internal error: %v", err)
		return exitEval
	}
	if len(args) == 0 {
		parser.Stdout = a.stderr
		args = []string{"--help"}
		defer func() { code = exitUsage }()
	} else if args[0] == "help" {
		// "evalrun help [COMMAND…]", as git and go spell it, is --help.
		args = append(slices.Clone(args[1:]), "--help")
	}
	kctx, code, done := a.parse(parser, args)
	if done {
		return code
	}
	if err := kctx.Run(a); err != nil {
		var ec exitCodeError
		if errors.As(err, &ec) {
			return int(ec)
		}
		a.errorf("%v", err)
		return exitUsage
	}
	return exitOK
}

// kongExit is the panic value by which kong's Exit hook (after --help and
// --version) returns to parse.
type kongExit int

// parse runs the kong parser. done reports that the invocation is finished
// (help, version or a usage error) with the given code.
func (a *app) parse(parser *kong.Kong, args []string) (kctx *kong.Context, code int, done bool) {
	defer func() {
		if r := recover(); r != nil {
			ke, ok := r.(kongExit)
			if !ok {
				panic(r)
			}
			kctx, code, done = nil, int(ke), true
		}
	}()
	kctx, err := parser.Parse(args)
	if err != nil {
		a.errorf("%v", err)
		fmt.Fprintln(a.stderr, "Run 'evalrun --help' for usage.")
		return nil, exitUsage, true
	}
	return kctx, 0, false
}

// exitCodeError is returned by a command's Run method to end the invocation
// with an exit code; what needed saying was already printed.
type exitCodeError int

func (e exitCodeError) Error() string { return fmt.Sprintf("exit status %d", int(e)) }

// exit converts a command's exit code into the error kong's Run returns.
func exit(code int) error {
	if code == exitOK {
		return nil
	}
	return exitCodeError(code)
}

// versionText is set at link time (-ldflags "-X main.versionText=v1.2.3");
// otherwise the module version from the build information is used.
var versionText string

func version() string {
	if versionText != "" {
		return versionText
	}
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		return bi.Main.Version
	}
	return "devel"
}

// errorf prints "evalrun: MESSAGE" on stderr: the form of errors that have no
// source position (SPEC §4.7).
func (a *app) errorf(format string, args ...any) {
	msg := fmt.Sprintf(format, args...)
	fmt.Fprintf(a.stderr, "evalrun: %s\n", strings.TrimRight(msg, "\n"))
}

// debug reports whether EVALRUN_DEBUG=1 asks for Go stack traces.
func (a *app) debug() bool { return a.getenv("EVALRUN_DEBUG") == "1" }

// reportError prints an error of reading, compiling or evaluating a program
// and returns its exit code: 3 for syntax errors, 130 for an interruption,
// 1 for evaluation errors.
func (a *app) reportError(err error) int {
	var se *sexp.Error
	if errors.As(err, &se) {
		io.WriteString(a.stderr, se.Display())
		return exitSyntax
	}
	if engine.IsInterrupted(err) {
		a.errorf("interrupted")
		return exitInterrupted
	}
	if text, ok := engine.ErrorDisplay(err); ok {
		io.WriteString(a.stderr, text)
		return exitEval
	}
	a.errorf("%v", err)
	return exitEval
}

// maxPrinted bounds the printed form of a final value: a list that shares
// its parts can describe 2^60 bytes in a few of memory.
const maxPrinted = 256 << 20

// printValue writes the final value on stdout: canonical text, or JSON
// indented by two spaces, followed by a newline (SPEC §17.3). A value whose
// printed form would exceed maxPrinted is refused with a message on stderr
// and false.
func (a *app) printValue(v value.Value, asJSON bool) bool {
	if n := value.JSONSize(v, maxPrinted); n > maxPrinted {
		a.errorf("value too large to print: more than %d bytes", maxPrinted)
		return false
	}
	if asJSON {
		io.WriteString(a.stdout, value.JSONIndent(v, "  "))
		io.WriteString(a.stdout, "\n")
		return true
	}
	// Streamed: a large value is not held as one text as well.
	_ = value.Fprint(a.stdout, v)
	io.WriteString(a.stdout, "\n")
	return true
}

// failedResult returns the message of a FAILED TaskResult: its
// notes.error.message, else its content.
func failedResult(v value.Value) (string, bool) {
	r, ok := v.(*value.TaskResult)
	if !ok || r.Status != value.StatusFailed {
		return "", false
	}
	if r.Notes != nil {
		if e, ok := r.Notes.Get("error"); ok {
			if d, ok := e.(*value.Dict); ok {
				if m, ok := d.Get("message"); ok {
					return value.Text(m), true
				}
			}
		}
	}
	return r.Content, true
}
