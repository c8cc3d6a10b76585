package journal

import (
	"fmt"
	"os"
	"strings"
	"sync"
)

// Owner is the process that runs a run, recorded in the run's row
// (runs.owner_pid, owner_host, owner_start) so that a reader can tell a
// run that stays running because its process died (SIGKILL, an
// out-of-memory kill, a machine crash) from one that is still running.
type Owner struct {
	// PID is the process id; 0 when unknown (a run recorded before
	// schema version 3).
	PID int
	// Host is the host name (os.Hostname).
	Host string
	// Start tells the process apart from a later one given the same pid,
	// "" where it is not known. On Linux it is four fields separated by
	// spaces: the machine id (/etc/machine-id), the boot id
	// (/proc/sys/kernel/random/boot_id), the pid namespace
	// (/proc/self/ns/pid) and the process's start time in clock ticks
	// since boot (/proc/PID/stat), "-" for a field that cannot be read.
	Start string
}

// currentOwner is this process, computed once.
var currentOwner = sync.OnceValue(func() Owner {
	host, _ := os.Hostname()
	pid := os.Getpid()
	return Owner{PID: pid, Host: host, Start: processStart(pid)}
})

// CurrentOwner returns the process calling it as the owner of a run.
func CurrentOwner() Owner { return currentOwner() }

// Gone reports whether the process o is provably gone, judged from this
// process: o ran on this host (same host name) and its pid names no
// process now, or a process started later (pid reuse), or this machine
// was restarted since. It is false when that cannot be told — an unknown
// owner, another host, another pid namespace — and for a process that
// still runs.
func (o Owner) Gone() bool { return o.goneFrom(CurrentOwner()) }

func (o Owner) goneFrom(me Owner) bool {
	if o.PID <= 0 || o.Host == "" || o.Host != me.Host {
		return false
	}
	if o.PID == me.PID && o.Start == me.Start {
		return false
	}
	return processGone(o, me)
}

// EndedError is the error a reader shows for a run left running by the
// gone process o (SPEC §16.2 has no status of its own for it: the run is
// shown as failed).
func (o Owner) EndedError() string {
	return fmt.Sprintf("the process running it (pid %d on %s) ended without finishing it", o.PID, o.Host)
}

// HaltedEndedError is the error a reader shows for a call left running
// by a run whose process is gone.
const HaltedEndedError = HaltedReason + ": the process running the run ended"

// startFields splits an Owner.Start of this system into its fields; nil
// when it has not n fields.
func startFields(start string, n int) []string {
	f := strings.Fields(start)
	if len(f) != n {
		return nil
	}
	return f
}
