package templates

import (
	"os"
	"testing"
)

// TestMain bounds project-root discovery at the temporary directory
// (EVALRUN_CEILING_DIRECTORIES), so that an .evalrun/ or .git above it
// plays no part in the tests.
func TestMain(m *testing.M) {
	os.Setenv(CeilingEnv, os.TempDir())
	os.Exit(m.Run())
}
