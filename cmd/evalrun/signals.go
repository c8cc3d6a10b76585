package main

import (
	"context"
	"io"
	"os"
	"os/signal"
	"sync"
	"syscall"
	"time"

	"github.com/evalrun/evalrun/engine"
)

// signals turns SIGINT and SIGTERM into cancellation (SPEC §6.7): the first
// signal during an evaluation cancels its context with the cause
// engine.Interrupted(); a second one before the evaluation has ended exits
// the process at once with code 130, after killing the agents and
// recording the run's end in the journal (abort, at most abortWait).
type signals struct {
	ch     chan os.Signal
	stderr io.Writer
	once   sync.Once // prints "evalrun: interrupted" once
	// onCancel, when set, is called on the first signal before the
	// evaluation is cancelled (the live display shows what is being
	// cancelled).
	onCancel func()
	// onExit, when set, is called on the second signal before the
	// process exits (the live display erases its frame, so that the
	// terminal keeps only the lines a run without one prints).
	onExit func()
	// abort, when set (before run), is called on the second signal after
	// the agents are killed and before the process exits: it records the
	// run's end in the journal, within abortWait (journalAbort).
	abort func()
}

// abortWait bounds the time the second signal spends recording the run's
// end in the journal before evalrun exits: it was asked to exit at once.
const abortWait = time.Second

// abortMessage is the error of a run that the second signal ended.
const abortMessage = "interrupted"

// journalAbort makes the second signal record e's run as failed with the
// error "interrupted", and its unfinished calls as failed execution_halted,
// waiting at most abortWait for the journal (engine.Engine.Abort).
func (s *signals) journalAbort(e *engine.Engine) {
	s.abort = func() { e.Abort(abortMessage, abortWait) }
}

// notifySignals starts catching SIGINT and SIGTERM. stop must be called when
// the command ends.
func notifySignals(stderr io.Writer) *signals {
	s := &signals{ch: make(chan os.Signal, 4), stderr: stderr}
	signal.Notify(s.ch, os.Interrupt, syscall.SIGTERM)
	return s
}

// hangup makes SIGHUP end the process at once, as a second SIGINT does,
// while run runs: its agents are killed and its run recorded as failed
// (abort). Outside run the signal waits, like the others, for pending.
func (s *signals) hangup() { signal.Notify(s.ch, syscall.SIGHUP) }

// stop restores the default handling of the signals.
func (s *signals) stop() { signal.Stop(s.ch) }

// interrupted prints "evalrun: interrupted" on stderr, once per process.
func (s *signals) interrupted() {
	s.once.Do(func() { io.WriteString(s.stderr, "evalrun: interrupted\n") })
}

// pending reports, without waiting, whether a signal has arrived since the
// last one was consumed.
func (s *signals) pending() bool {
	select {
	case <-s.ch:
		return true
	default:
		return false
	}
}

// run calls fn with a context that the first signal cancels, and reports
// whether a signal arrived while fn ran. A second signal while fn still runs
// prints "evalrun: interrupted" and exits the process with code 130.
func (s *signals) run(parent context.Context, fn func(ctx context.Context)) (interrupted bool) {
	ctx, cancel := context.WithCancelCause(parent)
	defer cancel(nil)
	done := make(chan struct{})
	finished := make(chan bool)
	go func() {
		n := 0
		for {
			select {
			case sig := <-s.ch:
				n++
				// SIGHUP (the terminal is gone) ends the run at once, as
				// a second signal does: nobody is left to wait for it.
				if n == 1 && sig != syscall.SIGHUP {
					if s.onCancel != nil {
						s.onCancel()
					}
					cancel(engine.Interrupted())
					continue
				}
				if s.onExit != nil {
					s.onExit()
				}
				engine.KillAgents() // no agent process outlives evalrun
				if s.abort != nil {
					s.abort()
				}
				s.interrupted()
				os.Exit(exitInterrupted)
			case <-done:
				finished <- n > 0
				return
			}
		}
	}()
	fn(ctx)
	close(done)
	return <-finished
}

// guard runs fn as run does, unless a signal is already pending. When a
// signal came, before or while fn ran, it prints "evalrun: interrupted"
// and reports true.
func (s *signals) guard(fn func(ctx context.Context)) (interrupted bool) {
	if s.pending() || s.run(context.Background(), fn) {
		s.interrupted()
		return true
	}
	return false
}
