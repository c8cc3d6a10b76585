package engine

import (
	"fmt"
	"io"
	"os"

	"github.com/evalrun/evalrun/progress"
	"github.com/evalrun/evalrun/trace"
)

// The values of --progress (SPEC §17.3.1).
const (
	// ProgressAuto shows the live display when stderr is a terminal and
	// TERM is not "dumb".
	ProgressAuto = "auto"
	// ProgressAlways shows it on any stderr (80×24 when the size is
	// unknown).
	ProgressAlways = "always"
	// ProgressNever shows none.
	ProgressNever = "never"
)

// Progress is the live progress display of a run (SPEC §17.3.1) over the
// run's stderr, or, when the display is off, stderr itself. It is an
// io.Writer: everything a command writes to stderr while the run goes on
// passes through it whole lines at a time, above the display. Give it to
// Open as Options.Progress (and as Options.Stderr); Close it when the run
// has ended and before anything is printed on stdout.
type Progress struct {
	out  io.Writer
	disp *progress.Display
	sink *progress.Sink
}

// NewProgress returns the display of mode (ProgressAuto, ProgressAlways
// or ProgressNever; "" is ProgressAuto) on stderr. getenv reads TERM and
// NO_COLOR (nil means os.Getenv): NO_COLOR removes colour, not the
// display. The display's size follows the terminal (TIOCGWINSZ). With the
// display off, the Progress only passes writes through and costs nothing
// per call.
func NewProgress(mode string, stderr io.Writer, getenv func(string) string) (*Progress, error) {
	if getenv == nil {
		getenv = os.Getenv
	}
	p := &Progress{out: stderr}
	f, isFile := stderr.(*os.File)
	var size func() progress.Size
	terminal := false
	if isFile {
		if _, ok := progress.TerminalSize(f); ok {
			terminal = true
		}
	}
	switch mode {
	case "", ProgressAuto:
		if !terminal || getenv("TERM") == "dumb" {
			return p, nil
		}
	case ProgressAlways:
	case ProgressNever:
		return p, nil
	default:
		return nil, fmt.Errorf("invalid --progress %q: expected auto, always or never", mode)
	}
	if terminal {
		size = func() progress.Size {
			if s, ok := progress.TerminalSize(f); ok {
				return s
			}
			return progress.Size{Width: 80, Height: 24}
		}
	}
	p.disp = progress.NewDisplay(stderr, progress.Options{Colour: getenv("NO_COLOR") == "", Size: size})
	p.sink = progress.NewSink(p.disp)
	return p, nil
}

// On reports whether the display is shown.
func (p *Progress) On() bool { return p != nil && p.disp != nil }

// Write passes b to stderr above the display.
func (p *Progress) Write(b []byte) (int, error) {
	if p.disp == nil {
		return p.out.Write(b)
	}
	return p.disp.Write(b)
}

// Cancelling shows which calls are being cancelled (Ctrl-C); the run goes
// on until they are.
func (p *Progress) Cancelling() {
	if p.On() {
		p.disp.Cancelling()
	}
}

// Suspend takes the display off the screen until Resume: evalrun is about
// to be stopped (Ctrl-Z).
func (p *Progress) Suspend() {
	if p.On() {
		p.disp.Suspend()
	}
}

// Resume draws the display again after Suspend (evalrun was continued).
func (p *Progress) Resume() {
	if p.On() {
		p.disp.Resume()
	}
}

// Close erases the display, leaving on stderr only the lines written
// through it. Writes after Close go straight to stderr.
func (p *Progress) Close() error {
	if !p.On() {
		return nil
	}
	return p.disp.Close()
}

// planTasks announces the tasks of a plan to the display (§23.5: the
// whole tree shows from the start), below the span of the plan run (the
// step of a workflow's (plan-run)), or at the top when under is nil.
func (p *Progress) planTasks(under *trace.Span, tasks []progress.PlannedTask) {
	if p.On() {
		p.sink.Plan(under, tasks)
	}
}

// terminal is the stream the display draws on when w is p, else w: what
// decides whether the run may ask the user (request_user_input).
func (p *Progress) terminal(w io.Writer) io.Writer {
	if p != nil && w == io.Writer(p) {
		return p.out
	}
	return w
}

// questionWriter is the stderr of request_user_input: a question ends the
// display for the rest of the run (decided here: a prompt and the user's
// typing cannot share the screen with a redrawing frame), then goes to
// stderr as it is.
type questionWriter struct {
	w io.Writer
	p *Progress
}

func (q questionWriter) Write(b []byte) (int, error) {
	if q.p.On() {
		q.p.Close()
	}
	return q.w.Write(b)
}
