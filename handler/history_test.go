package handler

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestSessionAddMessages(t *testing.T) {
	p := &scripted{answers: []Response{{Content: "a2"}}}
	s := NewSession(SessionConfig{Provider: p, Model: "m", MaxTurns: 1})
	history := []Message{{Role: RoleUser, Content: "q1"}, {Role: RoleAssistant, Content: "a1"}}
	s.AddMessages(history...)
	history[0].Content = "changed" // the session keeps its own copy
	s.AddUser("q2")
	a, err := s.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	// History messages are sent before the user message and are not turns.
	if a.Turns != 1 || s.Turns() != 1 {
		t.Errorf("turns = %d", a.Turns)
	}
	want := []Message{{Role: RoleUser, Content: "q1"}, {Role: RoleAssistant, Content: "a1"}, {Role: RoleUser, Content: "q2"}}
	if diff := cmp.Diff(want, p.reqs[0].Messages); diff != "" {
		t.Errorf("request messages (-want +got):\n%s", diff)
	}
}
