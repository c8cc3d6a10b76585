//go:build unix

package journal

import (
	"os"
	"syscall"
)

// lockFile takes an exclusive lock on f without waiting; it fails when
// another process holds it. The lock ends with the process.
func lockFile(f *os.File) error {
	return syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
}

// callLogSupported reports whether call logs are used here.
const callLogSupported = true
