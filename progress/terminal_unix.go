//go:build unix

package progress

import (
	"os"

	"golang.org/x/sys/unix"
)

// TerminalSize returns the size of the terminal f is, and false when f is
// not a terminal (TIOCGWINSZ fails). A terminal that reports no size — a
// pseudo-terminal whose size was never set, as `script` or a container
// runtime without a terminal of its own makes — is taken as 80 columns
// and 24 lines, where it reports 0.
func TerminalSize(f *os.File) (Size, bool) {
	ws, err := unix.IoctlGetWinsize(int(f.Fd()), unix.TIOCGWINSZ)
	if err != nil {
		return Size{}, false
	}
	s := Size{Width: int(ws.Col), Height: int(ws.Row)}
	if s.Width == 0 {
		s.Width = 80
	}
	if s.Height == 0 {
		s.Height = 24
	}
	return s, true
}
