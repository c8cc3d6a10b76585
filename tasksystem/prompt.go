package tasksystem

// PromptRecorder is implemented by a CallRecord that keeps the prompt a
// task call sends (the run viewer shows it, SPEC §24.1): the system prompt
// and the user message of its first request. The executor calls it once
// the prompt is rendered, before the model is asked.
type PromptRecorder interface {
	SetPrompt(system, user string)
}
