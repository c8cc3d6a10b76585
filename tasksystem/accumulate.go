package tasksystem

import (
	"strconv"
	"strings"
	"sync"

	"github.com/evalrun/evalrun/value"
)

// notesLineRunes is the most code points of a call's first line in a
// notes_only summary (SPEC §13.4).
const notesLineRunes = 200

// completedCall is one COMPLETE task call of the run, for accumulated
// outputs (SPEC §13.4) and session history (SPEC §13.6).
type completedCall struct {
	name    string // template name
	seq     int    // the call's sequence number, from 1
	user    string // the rendered instructions
	content string // the answer
	// record is true when the call's pair belongs to the session history.
	record bool
}

// runState is the run-wide state of an Executor: the call counter, the
// completed calls in completion order and the session history. It is safe
// for concurrent use.
type runState struct {
	mu      sync.Mutex
	seq     int
	outputs []completedCall // COMPLETE calls, internal memory calls excluded
	history []historyPair
}

// nextSeq returns the next call sequence number, from 1.
func (s *runState) nextSeq() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.seq++
	return s.seq
}

// complete records a COMPLETE call. Internal memory calls (templates named
// internal:…) are neither accumulated nor recorded in the history.
func (s *runState) complete(c completedCall) {
	if strings.HasPrefix(c.name, "internal:") {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.outputs = append(s.outputs, c)
	if c.record {
		s.history = append(s.history, historyPair{user: c.user, assistant: c.content})
	}
}

// completed returns the calls completed so far, in completion order.
func (s *runState) completed() []completedCall {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.outputs[:len(s.outputs):len(s.outputs)]
}

// accumulated formats earlier outputs for the <previous_outputs> element
// (SPEC §13.4): notes_only gives one line per call,
// "- NAME#SEQ: FIRST LINE", the first line cut to 200 code points with "…"
// appended when cut; full_output gives each call as a "## NAME#SEQ" heading
// line followed by its content (final line feeds removed), the calls
// separated by a blank line.
func accumulated(calls []completedCall, format string) string {
	var b strings.Builder
	for i, c := range calls {
		id := c.name + "#" + strconv.Itoa(c.seq)
		if format == FormatFullOutput {
			if i > 0 {
				b.WriteString("\n\n")
			}
			b.WriteString("## " + id + "\n" + strings.TrimRight(c.content, "\n"))
			continue
		}
		if i > 0 {
			b.WriteByte('\n')
		}
		line := firstLine(c.content)
		if value.RuneLen(line) > notesLineRunes {
			line = string([]rune(line)[:notesLineRunes]) + "…"
		}
		b.WriteString("- " + id + ": " + line)
	}
	return b.String()
}
