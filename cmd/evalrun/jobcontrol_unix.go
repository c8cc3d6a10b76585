//go:build unix

package main

import (
	"os"
	"os/signal"
	"syscall"

	"golang.org/x/sys/unix"

	"github.com/evalrun/evalrun/engine"
)

// watchJobControl keeps the live display off the screen while evalrun is
// stopped (Ctrl-Z): on SIGTSTP it erases the display, then stops the
// process with SIGSTOP, as SIGTSTP would have; once evalrun is continued
// (fg, bg: SIGCONT) it draws the display again below what the shell wrote
// meanwhile. In an orphaned process group, where nobody could continue
// it, evalrun does not stop, as the system would not stop it either.
// stop ends the watch and restores the default handling of SIGTSTP.
//
// SIGTSTP cannot be raised again with its default action instead: once a
// Go program has asked for a signal, its runtime keeps handling it.
func watchJobControl(p *engine.Progress) (stop func()) {
	tstp := make(chan os.Signal, 1)
	signal.Notify(tstp, syscall.SIGTSTP)
	done, finished := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(finished)
		cont := make(chan os.Signal, 1)
		for {
			select {
			case <-done:
				return
			case <-tstp:
			}
			if orphaned() {
				continue
			}
			p.Suspend()
			signal.Notify(cont, syscall.SIGCONT)
			syscall.Kill(os.Getpid(), syscall.SIGSTOP)
			<-cont // SIGSTOP cannot be caught: it stops; SIGCONT follows
			signal.Stop(cont)
			p.Resume()
		}
	}()
	return func() {
		signal.Stop(tstp)
		close(done)
		<-finished
	}
}

// orphaned reports whether evalrun's process group is orphaned — no
// parent in another group of the same session could continue it — as
// far as its parent tells: a parent in another session, or the session
// leader in evalrun's own group (`script -c`, a terminal that runs
// evalrun itself), makes it orphaned; a parent in another group of the
// same session (a shell with job control) does not. When the parent
// cannot be read, evalrun takes its group as orphaned: it keeps running.
func orphaned() bool {
	sid, err := unix.Getsid(0)
	if err != nil {
		return true
	}
	ppid := os.Getppid()
	psid, err := unix.Getsid(ppid)
	if err != nil || psid != sid {
		return true
	}
	ppgid, err := unix.Getpgid(ppid)
	if err != nil {
		return true
	}
	if ppgid != unix.Getpgrp() {
		return false
	}
	return ppid == psid
}
