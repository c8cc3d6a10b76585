package tasksystem

import (
	"github.com/evalrun/evalrun/handler"
	"github.com/evalrun/evalrun/templates"
)

// historyPair is one (user, assistant) exchange of the session history
// (SPEC §13.6).
type historyPair struct {
	user, assistant string
}

// historySettings are the effective history settings of a call.
type historySettings struct {
	use    bool
	turns  int // 0 means all
	record bool
}

// effectiveHistory overlays the template's history_config with the call's
// (SPEC §13.6): use_session_history defaults to false,
// history_turns_to_include to all, record_in_session_history to true.
func effectiveHistory(tmpl, call templates.HistoryConfig) historySettings {
	h := historySettings{record: true}
	for _, c := range []templates.HistoryConfig{tmpl, call} {
		if c.UseSessionHistory != nil {
			h.use = *c.UseSessionHistory
		}
		if c.HistoryTurnsToInclude != nil {
			h.turns = *c.HistoryTurnsToInclude
		}
		if c.RecordInSessionHistory != nil {
			h.record = *c.RecordInSessionHistory
		}
	}
	return h
}

// historyMessages returns the last turns pairs of the run's history (all
// when turns is 0) as alternating user and assistant messages.
func (s *runState) historyMessages(turns int) []handler.Message {
	s.mu.Lock()
	pairs := s.history
	if turns > 0 && len(pairs) > turns {
		pairs = pairs[len(pairs)-turns:]
	}
	pairs = pairs[:len(pairs):len(pairs)]
	s.mu.Unlock()
	msgs := make([]handler.Message, 0, 2*len(pairs))
	for _, p := range pairs {
		msgs = append(msgs,
			handler.Message{Role: handler.RoleUser, Content: p.user},
			handler.Message{Role: handler.RoleAssistant, Content: p.assistant})
	}
	return msgs
}
