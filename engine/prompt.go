package engine

// SetPrompt implements tasksystem.PromptRecorder: the journal keeps the
// system prompt and user message of the call for the run viewer.
func (r *callRecord) SetPrompt(system, user string) {
	if r.c != nil {
		r.j.warn(r.c.SetPrompt(system, user))
	}
}
