package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/evalrun/evalrun/engine"
	"github.com/evalrun/evalrun/sexp"
	"github.com/evalrun/evalrun/value"
)

// The prompts of the REPL (SPEC §17.6).
const (
	promptFirst    = "evalrun> "
	promptContinue = "...> "
)

const replHelp = `Commands:
  :help        show this help
  :quit        leave the session (end of input does the same)
  :reset       start again with a new global environment
  :load FILE   evaluate FILE in the session and print the value of its last form
  :templates   list the registered templates
An input goes on over several lines until its parentheses balance; its forms
are evaluated in the session's global environment and the value of the last
one is printed.
`

// replSession is one interactive session: a persistent interpreter and the
// line count used in <repl> positions.
type replSession struct {
	a           *app
	e           *engine.Engine
	json        bool
	interactive bool
	sig         *signals
	line        int // lines read so far, command lines included
}

// repl implements "evalrun repl" (SPEC §17.6). Prompts (on stderr) are shown
// only when standard input is a terminal. Errors are printed and the session
// goes on; the exit status is 0 at the end of input.
//
// SIGINT during an evaluation cancels it; in an interactive session the
// session then goes on, otherwise it ends with exit code 130. SIGINT at the
// prompt of an interactive session discards the pending input. A second
// signal during one evaluation, and SIGTERM at the prompt, end the process
// with code 130.
func (a *app) repl(flags evalFlags) int {
	sets, code := a.evalSetup(flags)
	if code != exitOK {
		return code
	}
	e, code := a.open(flags, "", nil, sets, nil)
	if code != exitOK {
		return code
	}
	defer a.finish(e, false)
	s := &replSession{
		a:           a,
		e:           e,
		json:        flags.JSON,
		interactive: engine.IsTerminal(a.stdin),
		sig:         notifySignals(a.stderr),
	}
	defer s.sig.stop()
	done := make(chan struct{})
	defer close(done)
	return s.loop(readLines(a.stdin, done))
}

// readLines delivers the lines of r, each with its line terminator (the last
// one may have none), and closes the channel at the end of input. It stops
// when done is closed (a read already under way is left to finish).
func readLines(r io.Reader, done <-chan struct{}) <-chan string {
	ch := make(chan string)
	go func() {
		defer close(ch)
		br := bufio.NewReader(r)
		for {
			line, err := br.ReadString('\n')
			if line != "" {
				select {
				case ch <- line:
				case <-done:
					return
				}
			}
			if err != nil {
				return
			}
		}
	}()
	return ch
}

func (s *replSession) prompt(continuation bool) {
	if !s.interactive {
		return
	}
	p := promptFirst
	if continuation {
		p = promptContinue
	}
	io.WriteString(s.a.stderr, p)
}

// loop reads inputs until the end of input or :quit.
func (s *replSession) loop(lines <-chan string) int {
	if s.interactive {
		fmt.Fprintf(s.a.stderr, "evalrun %s — :help for help, :quit or end of input to leave\n", version())
	}
	var buf strings.Builder
	first := 0 // line number of the first line of the pending input
	for {
		s.prompt(buf.Len() > 0)
		var line string
		var ok bool
		select {
		case line, ok = <-lines:
		case <-s.sig.ch:
			if !s.interactive {
				s.a.errorf("interrupted")
				return exitInterrupted
			}
			io.WriteString(s.a.stderr, "\n")
			buf.Reset()
			continue
		}
		if !ok {
			if buf.Len() > 0 {
				src := &sexp.Source{Name: "<repl>", Text: buf.String(), FirstLine: first}
				if _, err := sexp.ParseFile(src, sexp.AllowEmpty); err != nil {
					s.a.reportError(err)
				}
			}
			if s.interactive {
				io.WriteString(s.a.stderr, "\n")
			}
			return exitOK
		}
		s.line++
		if buf.Len() == 0 {
			first = s.line
			if cmd, ok := strings.CutPrefix(strings.TrimSpace(line), ":"); ok {
				quit, code := s.command(cmd)
				if quit {
					return code
				}
				continue
			}
		}
		buf.WriteString(line)
		src := &sexp.Source{Name: "<repl>", Text: buf.String(), FirstLine: first}
		f, err := sexp.ParseFile(src, sexp.AllowEmpty)
		if err != nil {
			var se *sexp.Error
			if errors.As(err, &se) && se.Incomplete {
				continue // the input goes on on the next line
			}
			buf.Reset()
			s.a.reportError(err)
			continue
		}
		buf.Reset()
		if len(f.Forms) == 0 {
			continue
		}
		if quit, code := s.eval(src, f.Forms); quit {
			return code
		}
	}
}

// eval compiles and evaluates forms in the session's global frame and prints
// the value of the last one. quit reports that the session must end.
func (s *replSession) eval(src *sexp.Source, forms []*sexp.Node) (quit bool, code int) {
	prog, err := engine.CompileForms(src, forms)
	if err != nil {
		s.a.reportError(err)
		return false, 0
	}
	var v value.Value
	interrupted := s.sig.run(context.Background(), func(ctx context.Context) {
		v, err = s.e.Evaluate(ctx, prog)
	})
	if interrupted {
		s.a.errorf("interrupted")
		if !s.interactive {
			return true, exitInterrupted
		}
		return false, 0
	}
	if err != nil {
		s.a.reportError(err)
		return false, 0
	}
	s.a.printValue(v, s.json)
	return false, 0
}

// command runs a REPL command line (without its ':').
func (s *replSession) command(text string) (quit bool, code int) {
	name, arg, _ := strings.Cut(text, " ")
	arg = strings.TrimSpace(arg)
	switch name {
	case "help":
		io.WriteString(s.a.stdout, replHelp)
	case "quit", "q", "exit":
		return true, exitOK
	case "reset":
		s.e.Reset()
	case "load":
		if arg == "" {
			s.a.errorf(":load requires a file name: :load FILE")
			return false, 0
		}
		data, err := os.ReadFile(arg)
		if err != nil {
			s.a.errorf("cannot read %s: %v", arg, reason(err))
			return false, 0
		}
		src := sexp.NewSource(arg, string(data))
		forms, err := sexp.Parse(src)
		if err != nil {
			s.a.reportError(err)
			return false, 0
		}
		return s.eval(src, forms)
	case "templates":
		s.listTemplates()
	default:
		s.a.errorf("unknown command ':%s' (:help lists the commands)", name)
	}
	return false, 0
}

// listTemplates prints one line per registered template: its name, its alias
// in parentheses and its provenance, sorted by name.
func (s *replSession) listTemplates() {
	ts := s.e.Templates()
	if len(ts) == 0 {
		io.WriteString(s.a.stdout, "no templates\n")
		return
	}
	names := make([]string, len(ts))
	width := 0
	for i, t := range ts {
		names[i] = t.Name
		if t.Alias != nil {
			names[i] += " (" + *t.Alias + ")"
		}
		width = max(width, len(names[i]))
	}
	var b strings.Builder
	for i, t := range ts {
		fmt.Fprintf(&b, "%-*s  %s\n", width, names[i], t.Source)
	}
	io.WriteString(s.a.stdout, b.String())
}
