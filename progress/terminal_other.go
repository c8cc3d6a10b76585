//go:build !unix

package progress

import "os"

// TerminalSize reports false: the display needs a Unix terminal.
func TerminalSize(f *os.File) (Size, bool) { return Size{}, false }
