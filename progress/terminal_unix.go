//go:build unix

package progress

import (
	"os"

	"golang.org/x/sys/unix"
)

// TerminalSize returns the size of the terminal f is, and false when f is
// not a terminal (TIOCGWINSZ fails) or reports no size.
func TerminalSize(f *os.File) (Size, bool) {
	ws, err := unix.IoctlGetWinsize(int(f.Fd()), unix.TIOCGWINSZ)
	if err != nil || ws.Col == 0 || ws.Row == 0 {
		return Size{}, false
	}
	return Size{Width: int(ws.Col), Height: int(ws.Row)}, true
}
