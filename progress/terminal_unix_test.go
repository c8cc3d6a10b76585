//go:build unix

package progress

import (
	"os"
	"testing"

	"github.com/creack/pty"
)

// TestTerminalSize: a terminal is one whatever size it reports; one that
// reports none (a pseudo-terminal whose size nobody set, as `script`
// makes when it runs without a terminal) is taken as 80×24, and a file
// that is no terminal is none.
func TestTerminalSize(t *testing.T) {
	ptmx, tty, err := pty.Open()
	if err != nil {
		t.Skipf("no pseudo-terminal: %v", err)
	}
	defer ptmx.Close()
	defer tty.Close()
	if err := pty.Setsize(ptmx, &pty.Winsize{}); err != nil {
		t.Fatal(err)
	}
	if s, ok := TerminalSize(tty); !ok || s != (Size{Width: 80, Height: 24}) {
		t.Fatalf("terminal without a size: TerminalSize = %v, %v; want {80 24}, true", s, ok)
	}
	if err := pty.Setsize(ptmx, &pty.Winsize{Rows: 30, Cols: 40}); err != nil {
		t.Fatal(err)
	}
	if s, ok := TerminalSize(tty); !ok || s != (Size{Width: 40, Height: 30}) {
		t.Fatalf("terminal of 40×30: TerminalSize = %v, %v", s, ok)
	}
	f, err := os.CreateTemp(t.TempDir(), "stderr")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, ok := TerminalSize(f); ok {
		t.Fatalf("a regular file is taken for a terminal")
	}
}
