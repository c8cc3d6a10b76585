package handler

import (
	"context"
	"strings"
	"testing"
)

// boundedCounter is a countingCounter that bounds a count by the number of
// bytes (tokens.Bounder), as the o200k counter does.
type boundedCounter struct{ countingCounter }

func (c *boundedCounter) Bound(text string) int { return len(text) }

// TestLimitCheckDecidedByBytes checks that a limit check decided by the
// byte bound counts nothing when the provider reports its usage, and that
// a prompt whose bound reaches 80 % of the limit is counted.
func TestLimitCheckDecidedByBytes(t *testing.T) {
	c := &boundedCounter{}
	p := &scripted{answers: []Response{{Content: "ok", Usage: Usage{InputTokens: 7, OutputTokens: 1}}}}
	s := NewSession(SessionConfig{Provider: p, System: "be brief", Counter: c, ContextWindow: 1000, ContextFraction: 0.5})
	s.AddUser("one two three")
	a, err := s.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if n := c.calls(); n != 0 {
		t.Errorf("%d texts counted, want none (bound %d of limit 500)", n, s.promptBound())
	}
	if a.Usage != (Usage{InputTokens: 7, OutputTokens: 1}) || len(a.Warnings) != 0 {
		t.Errorf("usage %+v, warnings %q", a.Usage, a.Warnings)
	}

	// Bytes beyond 80 % of the limit: counted (one token a word), within
	// the limit and without a warning.
	c = &boundedCounter{}
	p = &scripted{answers: []Response{{Content: "ok", Usage: Usage{InputTokens: 7, OutputTokens: 1}}}}
	s = NewSession(SessionConfig{Provider: p, System: "be brief", Counter: c, ContextWindow: 100, ContextFraction: 0.5})
	s.AddUser(strings.Repeat("word ", 10))
	if _, err := s.Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(c.texts, "|"); got != "be brief|"+strings.Repeat("word ", 10) {
		t.Errorf("counted %q", got)
	}

	// A provider without usage (echo) is counted after the call.
	c = &boundedCounter{}
	s = NewSession(SessionConfig{Provider: Echo{}, System: "be brief", Counter: c})
	s.AddUser("one two three")
	if a, err = s.Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	if a.Usage != (Usage{InputTokens: 2 + 3 + 2*4 + 3, OutputTokens: 3}) {
		t.Errorf("echo usage %+v", a.Usage)
	}
}
