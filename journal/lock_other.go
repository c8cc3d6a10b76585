//go:build !unix

package journal

import (
	"errors"
	"os"
)

// lockFile reports that files cannot be locked here: there is no call
// log, and Call.End commits each call.
func lockFile(*os.File) error { return errors.New("file locks are not supported on this system") }

// callLogSupported reports whether call logs are used here.
const callLogSupported = false
