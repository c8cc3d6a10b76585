package handler

// AddMessages appends earlier messages, such as the session-history pairs of
// SPEC §13.6, in order. They do not count as turns.
func (s *Session) AddMessages(msgs ...Message) {
	s.messages = append(s.messages, msgs...)
}
