package agent

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
)

// parsed is what a format parser read from stdout.
type parsed struct {
	content   string
	usage     Usage
	hasUsage  bool
	turns     int
	cost      float64
	hasCost   bool
	sessionID string
}

// agentReportedError is an error the agent reported in its output
// (claude's is_error, codex's turn.failed or error, gemini's error): the
// call fails with its message as is. parse returns it together with the
// usage, turns and cost the output reported, so that a failed call is
// still counted.
type agentReportedError struct{ msg string }

func (e *agentReportedError) Error() string { return e.msg }

// Parse reads an agent's stdout in the given format. It is exported for
// tests and tools; Run uses it.
func Parse(f Format, stdout []byte) (content string, usage Usage, turns int, err error) {
	p, err := parse(f, stdout)
	if err != nil {
		return "", Usage{}, 0, err
	}
	return p.content, p.usage, p.turns, nil
}

func parse(f Format, stdout []byte) (parsed, error) {
	switch f {
	case FormatClaudeJSON:
		return parseClaude(stdout)
	case FormatCodexJSONL:
		return parseCodex(stdout)
	case FormatGeminiJSON:
		return parseGemini(stdout)
	case FormatAiderText:
		return parseAider(stdout)
	default:
		s := string(stdout)
		s = strings.TrimSuffix(s, "\n")
		return parsed{content: s}, nil
	}
}

// decodeOne decodes the single JSON value of stdout; only white space may
// follow it.
func decodeOne(stdout []byte, v any) error {
	if len(bytes.TrimSpace(stdout)) == 0 {
		return errors.New("empty output")
	}
	dec := json.NewDecoder(bytes.NewReader(stdout))
	if err := dec.Decode(v); err != nil {
		return fmt.Errorf("%w", jsonError(stdout, dec, err))
	}
	rest := stdout[dec.InputOffset():]
	if trimmed := bytes.TrimLeft(rest, " \t\r\n"); len(trimmed) > 0 {
		return fmt.Errorf("text after the JSON object at offset %d", int(dec.InputOffset())+len(rest)-len(trimmed))
	}
	return nil
}

// decodeAfterPreamble is decodeOne, except that lines printed before the
// JSON value (Gemini CLI's "Loaded cached credentials." on stdout, a
// wrapper's notice) are skipped: the value may start at any line that
// opens an object or an array. The error is that of the whole output.
func decodeAfterPreamble(stdout []byte, v any) error {
	var raw json.RawMessage
	err := decodeOne(stdout, &raw)
	// A preamble is a few lines: the first 16 candidates are tried.
	for i, tries := 1, 0; err != nil && i < len(stdout) && tries < 16; i++ {
		if stdout[i-1] == '\n' && (stdout[i] == '{' || stdout[i] == '[') {
			tries++
			if decodeOne(stdout[i:], &raw) == nil {
				err = nil
			}
		}
	}
	if err != nil {
		return err
	}
	return decodeOne(raw, v)
}

func jsonError(data []byte, dec *json.Decoder, err error) error {
	var se *json.SyntaxError
	if errors.As(err, &se) {
		return fmt.Errorf("offset %d: %v", se.Offset, err)
	}
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		return fmt.Errorf("field %s: wrong type (%s)", te.Field, te.Value)
	}
	return err
}

// claudeOutput is `claude -p --output-format json`, and the final
// "result" line of `--output-format stream-json`.
type claudeOutput struct {
	Type     string   `json:"type"`
	Subtype  string   `json:"subtype"`
	Result   *string  `json:"result"`
	IsError  bool     `json:"is_error"`
	Errors   []any    `json:"errors"`
	NumTurns int      `json:"num_turns"`
	Cost     *float64 `json:"total_cost_usd"`
	// StructuredOutput is the answer of a call with --json-schema.
	StructuredOutput json.RawMessage `json:"structured_output"`
	// OldCost is the cost field of Claude Code before total_cost_usd.
	OldCost   *float64 `json:"cost_usd"`
	SessionID string   `json:"session_id"`
	Usage     *struct {
		InputTokens         int `json:"input_tokens"`
		CacheReadTokens     int `json:"cache_read_input_tokens"`
		CacheCreationTokens int `json:"cache_creation_input_tokens"`
		OutputTokens        int `json:"output_tokens"`
	} `json:"usage"`
}

// claudeResult finds the result object in Claude Code's output: the one
// object of --output-format json, the last "result" element of the array
// it prints instead when verbose is on, or the last "result" line of
// --output-format stream-json.
func claudeResult(stdout []byte) (claudeOutput, error) {
	var o claudeOutput
	if trimmed := bytes.TrimSpace(stdout); len(trimmed) > 0 && trimmed[0] == '[' {
		// With verbose on (--verbose, or "verbose" in its settings)
		// Claude Code prints every message of the session as one JSON
		// array, the result last.
		var list []json.RawMessage
		if err := decodeOne(stdout, &list); err != nil {
			return o, err
		}
		found := false
		for i := len(list) - 1; i >= 0 && !found; i-- {
			var ev struct {
				Type string `json:"type"`
			}
			if json.Unmarshal(list[i], &ev) == nil && ev.Type == "result" {
				if err := json.Unmarshal(list[i], &o); err != nil {
					return o, fmt.Errorf("result element: %v", err)
				}
				found = true
			}
		}
		if !found {
			return o, errors.New("no element of type \"result\" in the JSON array")
		}
	} else if err := decodeOne(stdout, &o); err != nil {
		// `--output-format stream-json` prints one event per line and
		// ends with the same result object.
		if line, ok := lastEventLine(stdout, "result"); ok {
			o = claudeOutput{}
			if err := json.Unmarshal(line, &o); err != nil {
				return o, fmt.Errorf("result line: %v", err)
			}
		} else if isStream(stdout) {
			return o, errors.New(`the stream has no "result" event (it ended before its result)`)
		} else {
			o = claudeOutput{}
			if err := decodeAfterPreamble(stdout, &o); err != nil {
				return o, err
			}
		}
	}
	return o, nil
}

func parseClaude(stdout []byte) (parsed, error) {
	o, err := claudeResult(stdout)
	if err != nil {
		return parsed{}, err
	}
	p := parsed{turns: o.NumTurns, sessionID: o.SessionID}
	if o.Usage != nil {
		p.hasUsage = true
		p.usage = Usage{InputTokens: o.Usage.InputTokens + o.Usage.CacheReadTokens + o.Usage.CacheCreationTokens,
			OutputTokens: o.Usage.OutputTokens}
	}
	if o.Cost == nil {
		o.Cost = o.OldCost
	}
	if o.Cost != nil {
		p.cost, p.hasCost = *o.Cost, true
	}
	// An error result (is_error, or a subtype such as error_max_turns or
	// error_during_execution) may carry no "result": its message is then
	// in "errors", else the subtype names it.
	if o.IsError || strings.HasPrefix(o.Subtype, "error") {
		msg := ""
		if o.Result != nil {
			msg = strings.TrimSpace(*o.Result)
		}
		if msg == "" {
			msg = joinErrors(o.Errors)
		}
		if msg == "" && o.Subtype != "" {
			msg = o.Subtype
		}
		if msg == "" {
			msg = "the agent reported an error"
		}
		return p, &agentReportedError{msg: msg}
	}
	// With --json-schema the answer is the validated structured_output
	// (its JSON text); .result then holds a summary of it.
	if so := bytes.TrimSpace(o.StructuredOutput); len(so) > 0 && !bytes.Equal(so, []byte("null")) {
		var b bytes.Buffer
		if json.Compact(&b, so) == nil {
			p.content = b.String()
			return p, nil
		}
	}
	if o.Result == nil {
		return parsed{}, errors.New("no \"result\" field")
	}
	p.content = *o.Result
	return p, nil
}

// joinErrors joins the messages of claude's "errors" list: strings, or
// objects with a "message".
func joinErrors(list []any) string {
	var msgs []string
	for _, e := range list {
		switch v := e.(type) {
		case string:
			if v = strings.TrimSpace(v); v != "" {
				msgs = append(msgs, v)
			}
		case map[string]any:
			if m, ok := v["message"].(string); ok && strings.TrimSpace(m) != "" {
				msgs = append(msgs, strings.TrimSpace(m))
			}
		}
	}
	return strings.Join(msgs, "; ")
}

// isStream reports whether stdout is a stream of JSON events: its first
// line is a whole JSON object with a "type", and more lines follow.
func isStream(stdout []byte) bool {
	first, rest, _ := bytes.Cut(bytes.TrimSpace(stdout), []byte("\n"))
	var ev struct {
		Type string `json:"type"`
	}
	return len(bytes.TrimSpace(rest)) > 0 && json.Unmarshal(bytes.TrimSpace(first), &ev) == nil && ev.Type != ""
}

// lastEventLine returns the last line of stdout that is a JSON object whose
// "type" is typ.
func lastEventLine(stdout []byte, typ string) ([]byte, bool) {
	lines := bytes.Split(stdout, []byte("\n"))
	for i := len(lines) - 1; i >= 0; i-- {
		line := bytes.TrimSpace(lines[i])
		if len(line) == 0 || line[0] != '{' {
			continue
		}
		var ev struct {
			Type string `json:"type"`
		}
		if json.Unmarshal(line, &ev) == nil && ev.Type == typ {
			return line, true
		}
	}
	return nil, false
}

// codexEvent is one line of `codex exec --json`.
type codexEvent struct {
	Type     string `json:"type"`
	ThreadID string `json:"thread_id"`
	Message  string `json:"message"`
	Item     *struct {
		Type     string `json:"type"`
		ItemType string `json:"item_type"`
		Text     string `json:"text"`
	} `json:"item"`
	Usage *struct {
		InputTokens       int `json:"input_tokens"`
		CachedInputTokens int `json:"cached_input_tokens"`
		OutputTokens      int `json:"output_tokens"`
	} `json:"usage"`
	Error *struct {
		Message string `json:"message"`
	} `json:"error"`
}

func parseCodex(stdout []byte) (parsed, error) {
	var p parsed
	found := false
	var badLine error
	// An "error" event is not fatal by itself: codex reports a retried
	// stream ("Reconnecting... 1/5") that way and goes on. It fails the
	// call when no turn completes after it.
	lastErr := ""
	// open is true between a turn.started and its turn.completed: codex
	// prints nothing more for a turn it interrupted.
	open := false
	lines := bytes.Split(stdout, []byte("\n"))
	for i, line := range lines {
		line = bytes.TrimSpace(line)
		if len(line) == 0 {
			continue
		}
		var ev codexEvent
		if err := json.Unmarshal(line, &ev); err != nil {
			// A line that is no event (a warning printed by a wrapper, a
			// line cut short) is skipped; it matters only when no answer
			// comes.
			if badLine == nil {
				badLine = fmt.Errorf("line %d: %v", i+1, err)
			}
			continue
		}
		switch ev.Type {
		case "thread.started":
			p.sessionID = ev.ThreadID
		case "item.completed":
			if ev.Item != nil && slices.Contains([]string{"agent_message", "assistant_message"}, cmp(ev.Item.Type, ev.Item.ItemType)) {
				p.content, found = ev.Item.Text, true
			}
		case "turn.started":
			open = true
		case "turn.completed":
			p.turns++
			lastErr, open = "", false
			if ev.Usage != nil {
				p.hasUsage = true
				// The usage is the thread's total so far, not the
				// turn's: the last one counts. input_tokens counts the
				// cached input too (cached_input_tokens is the part of
				// it read from the cache), as in the OpenAI API.
				p.usage = Usage{InputTokens: ev.Usage.InputTokens, OutputTokens: ev.Usage.OutputTokens}
			}
		case "turn.failed":
			msg := "turn failed"
			if ev.Error != nil && ev.Error.Message != "" {
				msg = ev.Error.Message
			}
			return p, &agentReportedError{msg: msg}
		case "error":
			msg := ev.Message
			if msg == "" && ev.Error != nil {
				msg = ev.Error.Message
			}
			if msg == "" {
				msg = "error"
			}
			lastErr = msg
		}
	}
	if lastErr != "" {
		return p, &agentReportedError{msg: lastErr}
	}
	if open {
		return p, errors.New("the last turn.started has no turn.completed (the turn was interrupted)")
	}
	if !found {
		if badLine != nil {
			return parsed{}, badLine
		}
		return parsed{}, errors.New("no item.completed event with an agent_message item")
	}
	return p, nil
}

// cmp returns a, else b.
func cmp(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// geminiOutput is `gemini -p … --output-format json`. On failure gemini
// prints the same object, with "error" and without "response", on stderr.
type geminiOutput struct {
	Response  *string `json:"response"`
	SessionID string  `json:"session_id"`
	Stats     *struct {
		Models map[string]struct {
			Tokens struct {
				Prompt     int `json:"prompt"`
				Candidates int `json:"candidates"`
				Thoughts   int `json:"thoughts"`
			} `json:"tokens"`
		} `json:"models"`
	} `json:"stats"`
	Error *geminiError `json:"error"`
}

type geminiError struct {
	Type    string `json:"type"`
	Message string `json:"message"`
}

func (e *geminiError) reported() *agentReportedError {
	msg := strings.TrimSpace(e.Message)
	if msg == "" {
		msg = "the agent reported an error"
	}
	return &agentReportedError{msg: msg}
}

func parseGemini(stdout []byte) (parsed, error) {
	var o geminiOutput
	if err := decodeOne(stdout, &o); err != nil {
		if _, ok := lastEventLine(stdout, "result"); ok {
			return parseGeminiStream(stdout)
		}
		if isStream(stdout) {
			return parsed{}, errors.New(`the stream has no "result" event (it ended before its result)`)
		}
		o = geminiOutput{}
		if err := decodeAfterPreamble(stdout, &o); err != nil {
			return parsed{}, err
		}
	}
	p := parsed{sessionID: o.SessionID}
	if o.Stats != nil && len(o.Stats.Models) > 0 {
		p.hasUsage = true
		for _, m := range o.Stats.Models {
			p.usage.InputTokens += m.Tokens.Prompt
			// Thinking tokens are output gemini counts apart from
			// the candidates (total = prompt + candidates + thoughts).
			p.usage.OutputTokens += m.Tokens.Candidates + m.Tokens.Thoughts
		}
	}
	if o.Error != nil {
		return p, o.Error.reported()
	}
	if o.Response == nil {
		return parsed{}, errors.New("no \"response\" field")
	}
	p.content = *o.Response
	return p, nil
}

// geminiEvent is one line of `gemini --output-format stream-json`.
type geminiEvent struct {
	Type      string       `json:"type"`
	SessionID string       `json:"session_id"`
	Role      string       `json:"role"`
	Content   string       `json:"content"`
	Delta     bool         `json:"delta"`
	Status    string       `json:"status"`
	Error     *geminiError `json:"error"`
	Stats     *struct {
		InputTokens  int `json:"input_tokens"`
		OutputTokens int `json:"output_tokens"`
	} `json:"stats"`
}

// parseGeminiStream reads stream-json: the answer is the assistant's text
// after the last tool call, the usage that of the final "result" event.
func parseGeminiStream(stdout []byte) (parsed, error) {
	var p parsed
	var text strings.Builder
	for _, line := range bytes.Split(stdout, []byte("\n")) {
		line = bytes.TrimSpace(line)
		var ev geminiEvent
		if len(line) == 0 || line[0] != '{' || json.Unmarshal(line, &ev) != nil {
			continue
		}
		switch ev.Type {
		case "init":
			p.sessionID = ev.SessionID
		case "message":
			if ev.Role != "assistant" {
				continue
			}
			if !ev.Delta {
				text.Reset()
			}
			text.WriteString(ev.Content)
		case "tool_use", "tool_result":
			text.Reset()
		case "result":
			if ev.Stats != nil {
				p.hasUsage = true
				p.usage = Usage{InputTokens: ev.Stats.InputTokens, OutputTokens: ev.Stats.OutputTokens}
			}
			if ev.Status == "error" || ev.Error != nil {
				e := ev.Error
				if e == nil {
					e = &geminiError{}
				}
				return p, e.reported()
			}
		}
	}
	p.content = text.String()
	return p, nil
}

// stderrReportedError finds the error an agent printed on stderr as JSON
// before a non-zero exit (gemini prints {"error": {"message": …}} there,
// indented over several lines), nil when there is none.
func stderrReportedError(f Format, stderr string) *agentReportedError {
	if f != FormatGeminiJSON {
		return nil
	}
	// The object starts at the last line that opens one.
	for i := len(stderr); i > 0; {
		j := strings.LastIndex(stderr[:i], "{")
		if j < 0 {
			return nil
		}
		if j == 0 || stderr[j-1] == '\n' {
			var o geminiOutput
			if decodeOne([]byte(stderr[j:]), &o) == nil && o.Error != nil {
				return o.Error.reported()
			}
		}
		i = j
	}
	return nil
}
