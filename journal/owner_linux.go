package journal

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"strconv"
	"strings"
)

// processStart returns the Owner.Start of the process pid (see Owner):
// machine id, boot id, pid namespace and start time in clock ticks.
func processStart(pid int) string {
	ticks := "-"
	if data, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat"); err == nil {
		if _, t, ok := parseStat(data); ok {
			ticks = t
		}
	}
	return strings.Join([]string{firstField("/etc/machine-id"), firstField("/proc/sys/kernel/random/boot_id"),
		pidNamespace(), ticks}, " ")
}

// firstField is the first word of the file at path, "-" when it cannot be
// read or is empty.
func firstField(path string) string {
	data, err := os.ReadFile(path)
	if err != nil {
		return "-"
	}
	if f := strings.Fields(string(data)); len(f) > 0 {
		return f[0]
	}
	return "-"
}

// pidNamespace identifies this process's pid namespace ("pid:[4026531836]"),
// "-" when unknown: pids of another namespace cannot be looked up here.
func pidNamespace() string {
	ns, err := os.Readlink("/proc/self/ns/pid")
	if err != nil || strings.ContainsAny(ns, " \t\n") || ns == "" {
		return "-"
	}
	return ns
}

// parseStat reads the state and the start time (field 22, clock ticks
// since boot) of /proc/PID/stat; the command name, field 2, is in
// parentheses and may hold spaces and parentheses itself.
func parseStat(data []byte) (state byte, start string, ok bool) {
	i := bytes.LastIndexByte(data, ')')
	if i < 0 {
		return 0, "", false
	}
	f := strings.Fields(string(data[i+1:]))
	if len(f) < 20 || len(f[0]) != 1 {
		return 0, "", false
	}
	return f[0][0], f[19], true
}

// processGone reports whether the process o of this host is gone: this
// machine was restarted since it started (same machine id, another boot
// id), or, in the same boot and pid namespace, its pid names no process,
// a zombie, or a process started at another time.
func processGone(o, me Owner) bool {
	of, mf := startFields(o.Start, 4), startFields(me.Start, 4)
	if of == nil || mf == nil {
		return false
	}
	const machine, boot, ns, ticks = 0, 1, 2, 3
	if of[machine] != mf[machine] {
		return false // another machine with the same host name
	}
	if of[boot] != mf[boot] {
		return of[boot] != "-" && mf[boot] != "-" // restarted since
	}
	if of[ns] != mf[ns] || of[ns] == "-" || of[ticks] == "-" {
		return false
	}
	data, err := os.ReadFile("/proc/" + strconv.Itoa(o.PID) + "/stat")
	if errors.Is(err, fs.ErrNotExist) {
		return true
	}
	if err != nil {
		return false
	}
	state, start, ok := parseStat(data)
	if !ok {
		return false
	}
	return start != of[ticks] || state == 'Z' || state == 'X'
}
