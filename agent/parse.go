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
// call fails with its message as is.
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

// claudeOutput is `claude -p --output-format json`.
type claudeOutput struct {
	Type      string   `json:"type"`
	Result    *string  `json:"result"`
	IsError   bool     `json:"is_error"`
	NumTurns  int      `json:"num_turns"`
	Cost      *float64 `json:"total_cost_usd"`
	SessionID string   `json:"session_id"`
	Usage     *struct {
		InputTokens         int `json:"input_tokens"`
		CacheReadTokens     int `json:"cache_read_input_tokens"`
		CacheCreationTokens int `json:"cache_creation_input_tokens"`
		OutputTokens        int `json:"output_tokens"`
	} `json:"usage"`
}

func parseClaude(stdout []byte) (parsed, error) {
	var o claudeOutput
	if err := decodeOne(stdout, &o); err != nil {
		return parsed{}, err
	}
	if o.IsError {
		msg := "the agent reported an error"
		if o.Result != nil && *o.Result != "" {
			msg = *o.Result
		}
		return parsed{}, &agentReportedError{msg: msg}
	}
	if o.Result == nil {
		return parsed{}, errors.New("no \"result\" field")
	}
	p := parsed{content: *o.Result, turns: o.NumTurns, sessionID: o.SessionID}
	if o.Usage != nil {
		p.hasUsage = true
		p.usage = Usage{InputTokens: o.Usage.InputTokens + o.Usage.CacheReadTokens + o.Usage.CacheCreationTokens,
			OutputTokens: o.Usage.OutputTokens}
	}
	if o.Cost != nil {
		p.cost, p.hasCost = *o.Cost, true
	}
	return p, nil
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
	lines := bytes.Split(stdout, []byte("\n"))
	for i, line := range lines {
		line = bytes.TrimSpace(line)
		if len(line) == 0 {
			continue
		}
		var ev codexEvent
		if err := json.Unmarshal(line, &ev); err != nil {
			return parsed{}, fmt.Errorf("line %d: %v", i+1, err)
		}
		switch ev.Type {
		case "thread.started":
			p.sessionID = ev.ThreadID
		case "item.completed":
			if ev.Item != nil && slices.Contains([]string{"agent_message", "assistant_message"}, cmp(ev.Item.Type, ev.Item.ItemType)) {
				p.content, found = ev.Item.Text, true
			}
		case "turn.completed":
			p.turns++
			if ev.Usage != nil {
				p.hasUsage = true
				p.usage.InputTokens += ev.Usage.InputTokens + ev.Usage.CachedInputTokens
				p.usage.OutputTokens += ev.Usage.OutputTokens
			}
		case "turn.failed":
			msg := "turn failed"
			if ev.Error != nil && ev.Error.Message != "" {
				msg = ev.Error.Message
			}
			return parsed{}, &agentReportedError{msg: msg}
		case "error":
			msg := ev.Message
			if msg == "" && ev.Error != nil {
				msg = ev.Error.Message
			}
			if msg == "" {
				msg = "error"
			}
			return parsed{}, &agentReportedError{msg: msg}
		}
	}
	if !found {
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

// geminiOutput is `gemini -p … --output-format json`.
type geminiOutput struct {
	Response  *string `json:"response"`
	SessionID string  `json:"session_id"`
	Stats     *struct {
		Models map[string]struct {
			Tokens struct {
				Prompt     int `json:"prompt"`
				Candidates int `json:"candidates"`
			} `json:"tokens"`
		} `json:"models"`
	} `json:"stats"`
	Error *struct {
		Type    string `json:"type"`
		Message string `json:"message"`
	} `json:"error"`
}

func parseGemini(stdout []byte) (parsed, error) {
	var o geminiOutput
	if err := decodeOne(stdout, &o); err != nil {
		return parsed{}, err
	}
	if o.Error != nil {
		msg := o.Error.Message
		if msg == "" {
			msg = "the agent reported an error"
		}
		return parsed{}, &agentReportedError{msg: msg}
	}
	if o.Response == nil {
		return parsed{}, errors.New("no \"response\" field")
	}
	p := parsed{content: *o.Response, sessionID: o.SessionID}
	if o.Stats != nil && len(o.Stats.Models) > 0 {
		p.hasUsage = true
		for _, m := range o.Stats.Models {
			p.usage.InputTokens += m.Tokens.Prompt
			p.usage.OutputTokens += m.Tokens.Candidates
		}
	}
	return p, nil
}
