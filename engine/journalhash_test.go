package engine

import (
	"strings"
	"testing"

	"github.com/evalrun/evalrun/journal"
)

// TestHashWorkflowTextMatchesJournal: the journal's workflow hash computed
// from the text is the one journal.HashWorkflow computes from its bytes,
// so runs recorded before and after keep comparable hashes.
func TestHashWorkflowTextMatchesJournal(t *testing.T) {
	for _, text := range []string{"", "(+ 1 2)\n", strings.Repeat("(define x '(a \"é\" 1))\n", 5000)} {
		if got, want := hashWorkflowText(text), journal.HashWorkflow([]byte(text)); got != want {
			t.Errorf("hashWorkflowText(%.20q) = %s, want %s", text, got, want)
		}
	}
	if got := hashWorkflowText(""); got != "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855" {
		t.Errorf("hash of the empty text = %s", got)
	}
}
