// Package progress draws the live display of a run on a terminal (SPEC
// §17.3.1): one line per call that is running or waiting for a slot, under a
// header with calls done, running and waiting, tokens, cost and elapsed time;
// a parallel-map as one group with its progress (7/20) and its running
// children; a plan run as its task tree with <-- current.
//
// The package has four layers, so that the drawing can be tested without a
// terminal:
//
//   - Sink is a trace.Sink: it turns the call events of the trace seam —
//     the same events that feed the run journal — into Events. A task span
//     whose executor is agent:NAME is an agent; model requests and memory
//     lookups have no line of their own (their calls hang under the
//     nearest shown ancestor); a plan run announces its tasks with
//     Sink.Plan, so that the whole tree shows before they run: below the
//     span of the plan run (the step of a workflow's (plan-run), whose
//     line then counts its tasks done/total), or at the top for
//     `evalrun plan run`.
//   - Model folds a sequence of Events (the same call events that feed the
//     run journal) into the state of the run.
//   - Frame is a pure function from that state, a terminal size and the
//     current time to the lines of one screen.
//   - Display owns a terminal stream: it redraws the frame at most ten times
//     a second below the lines the run prints (log messages, warnings),
//     which pass through it whole, and erases the frame when the run ends,
//     so that nothing is left on screen but what a run without a terminal
//     prints.
//
// Decisions where SPEC §17.3.1 is silent: an agent's last line is the last
// non-empty line it printed on stdout or stderr; the tokens and cost in the
// header are those of finished calls; a display drawn on a stream that is
// not a terminal (--progress always) assumes 80×24; TerminalSize reads the
// size on every redraw, so a resized terminal is followed.
//
// Example:
//
//	d := progress.NewDisplay(os.Stderr, progress.Options{Colour: os.Getenv("NO_COLOR") == ""})
//	defer d.Close()
//	d.Event(progress.Event{Phase: progress.Running, ID: 1, Kind: "task", Name: "summarize", Executor: "openai:gpt-4.1"})
//	fmt.Fprintln(d, "log: one line above the live display")
package progress
