package temporal

import (
	"bytes"
	"strings"
	"testing"
)

// TestLoggerLevel: a worker writes the SDK's warnings and errors, and its
// info and debug lines (one per activity started) only with -v.
func TestLoggerLevel(t *testing.T) {
	for _, verbose := range []bool{false, true} {
		var b bytes.Buffer
		l := Connection{Verbose: verbose}.logger(&b)
		l.Debug("debug line")
		l.Info("info line")
		l.Warn("warn line")
		got := b.String()
		for _, line := range []string{"debug line", "info line"} {
			if strings.Contains(got, line) != verbose {
				t.Errorf("verbose %v: %q written: %v\n%s", verbose, line, !verbose, got)
			}
		}
		if !strings.Contains(got, "warn line") {
			t.Errorf("verbose %v: no warning written\n%s", verbose, got)
		}
	}
}
