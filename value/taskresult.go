package value

import "strings"

// The statuses of a TaskResult.
const (
	StatusComplete     = "COMPLETE"
	StatusContinuation = "CONTINUATION" // reserved; evalrun never produces it
	StatusFailed       = "FAILED"
)

// TaskResult is the value every task or tool call returns (SPEC §11.5).
type TaskResult struct {
	Status  string
	Content string
	// Parsed is the parsed structured output, or nil when absent (null).
	Parsed Value
	// Notes holds the notes dict; nil means empty.
	Notes *Dict
}

// Type implements Value.
func (*TaskResult) Type() string { return "task-result" }

// String implements Value: #<TaskResult STATUS "CONTENT"> with the content cut
// to 60 code points.
func (r *TaskResult) String() string {
	content, cut := truncateRunes(r.Content, 60)
	if cut {
		content += "…"
	}
	var b strings.Builder
	b.WriteString("#<TaskResult ")
	b.WriteString(r.Status)
	b.WriteByte(' ')
	b.WriteString(String(content).String())
	b.WriteByte('>')
	return b.String()
}

// OK reports whether the status is COMPLETE.
func (r *TaskResult) OK() bool { return r.Status == StatusComplete }

// ParsedOrNull returns the parsed content, or null when there is none.
func (r *TaskResult) ParsedOrNull() Value {
	if r.Parsed == nil {
		return Null{}
	}
	return r.Parsed
}

// NotesOrEmpty returns the notes dict, never nil.
func (r *TaskResult) NotesOrEmpty() *Dict {
	if r.Notes == nil {
		return NewDict(0)
	}
	return r.Notes
}

// Field returns a TaskResult field by the names get-field accepts: content,
// status, parsedContent (or parsed_content), notes and criteria (always null).
func (r *TaskResult) Field(name string) (Value, bool) {
	switch name {
	case "content":
		return String(r.Content), true
	case "status":
		return String(r.Status), true
	case "parsedContent", "parsed_content":
		return r.ParsedOrNull(), true
	case "notes":
		return r.NotesOrEmpty(), true
	case "criteria":
		return Null{}, true
	}
	return nil, false
}

// Failed builds a FAILED TaskResult for a task failure with a reason from
// SPEC §11.5; notes may be nil and receive the error entry.
func Failed(reason, message string, notes *Dict) *TaskResult {
	n := notes.Clone()
	n.Set("error", DictOf("type", String("TASK_FAILURE"), "reason", String(reason), "message", String(message)))
	return &TaskResult{Status: StatusFailed, Content: message, Notes: n}
}
