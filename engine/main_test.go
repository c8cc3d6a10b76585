package engine_test

import (
	"fmt"
	"os"
	"testing"
)

// TestMain points EVALRUN_HOME at an empty directory and bounds
// project-root discovery at the temporary directory
// (EVALRUN_CEILING_DIRECTORIES), so that the global configuration and
// templates of the machine running the tests (read through os.Getenv by
// the examples) and any .evalrun/ above the temporary directory play no
// part.
func TestMain(m *testing.M) {
	home, err := os.MkdirTemp("", "engine-test-home")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	os.Setenv("EVALRUN_HOME", home)
	os.Setenv("EVALRUN_CEILING_DIRECTORIES", os.TempDir())
	code := m.Run()
	os.RemoveAll(home)
	os.Exit(code)
}
