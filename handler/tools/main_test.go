package tools

import (
	"testing"

	"go.uber.org/goleak"
)

// TestMain fails the package's tests when a goroutine outlives them:
// shell commands and stdin readers must all end.
func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}
