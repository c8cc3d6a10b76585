package agent

import (
	"encoding/json"
	"strings"
	"testing"
)

// parseSeeds are outputs in the formats of the real agents, as the tests
// of Run use them, and cut or damaged variants of them.
var parseSeeds = []struct {
	f      Format
	stdout string
}{
	{FormatText, "answer\n\n"},
	{FormatClaudeJSON, `{"type":"result","subtype":"success","is_error":false,"duration_ms":2100,"num_turns":4,"result":"The fix is in main.go.","session_id":"s-123","total_cost_usd":0.0123,"usage":{"input_tokens":10,"cache_creation_input_tokens":200,"cache_read_input_tokens":3000,"output_tokens":55}}` + "\n"},
	{FormatClaudeJSON, "{\"type\":\"system\",\"subtype\":\"init\",\"cwd\":\"/p\",\"session_id\":\"s-9\",\"tools\":[\"Bash\"]}\n{\"type\":\"assistant\",\"message\":{\"content\":[{\"type\":\"text\",\"text\":\"One file.\"}]},\"session_id\":\"s-9\"}\n{\"type\":\"result\",\"subtype\":\"success\",\"is_error\":false,\"num_turns\":3,\"result\":\"One file.\",\"session_id\":\"s-9\",\"total_cost_usd\":0.02,\"usage\":{\"input_tokens\":5,\"output_tokens\":9}}\n"},
	{FormatClaudeJSON, `[{"type":"system","subtype":"init","session_id":"s-a"},{"type":"result","subtype":"success","is_error":false,"num_turns":1,"result":"hi","session_id":"s-a","total_cost_usd":0.003,"usage":{"input_tokens":4,"output_tokens":2}}]`},
	{FormatClaudeJSON, `{"type":"result","subtype":"success","num_turns":2,"result":"Here.","structured_output":{ "name": "evalrun" }}`},
	{FormatClaudeJSON, `{"type":"result","subtype":"error_max_turns","is_error":true,"num_turns":2,"errors":["Reached maximum number of turns (1)",{"message":"x"}]}`},
	{FormatClaudeJSON, "{\"type\":\"system\",\"subtype\":\"init\",\"session_id\":\"s\"}\n{\"type\":\"resu"},
	{FormatClaudeJSON, `{"result":"a"} {"result":"b"}`},
	{FormatClaudeJSON, "Welcome to Claude!\n"},
	{FormatCodexJSONL, "{\"type\":\"thread.started\",\"thread_id\":\"th_1\"}\n{\"type\":\"turn.started\"}\n{\"type\":\"item.completed\",\"item\":{\"id\":\"item_1\",\"type\":\"agent_message\",\"text\":\"first\"}}\n{\"type\":\"turn.completed\",\"usage\":{\"input_tokens\":100,\"cached_input_tokens\":50,\"output_tokens\":7}}\n"},
	{FormatCodexJSONL, "{\"type\":\"turn.started\"}\n{\"type\":\"error\",\"message\":\"Reconnecting... 1/5\"}\nwarning: proxy\n{\"type\":\"turn.failed\",\"error\":{\"message\":\"stream disconnected\"}}\n"},
	{FormatGeminiJSON, "{\n  \"session_id\": \"g-1\",\n  \"response\": \"Paris.\",\n  \"stats\": {\"models\": {\"gemini-2.5-pro\": {\"tokens\": {\"prompt\": 24939, \"candidates\": 20, \"thoughts\": 154}}}},\n  \"error\": null\n}"},
	{FormatGeminiJSON, "Loaded cached credentials.\n{\n  \"response\": \"Paris.\"\n}\n"},
	{FormatGeminiJSON, "{\"type\":\"init\",\"session_id\":\"g-2\"}\n{\"type\":\"message\",\"role\":\"assistant\",\"content\":\"There is \",\"delta\":true}\n{\"type\":\"tool_use\",\"tool_name\":\"ls\"}\n{\"type\":\"message\",\"role\":\"assistant\",\"content\":\"one.\",\"delta\":true}\n{\"type\":\"result\",\"status\":\"success\",\"stats\":{\"input_tokens\":250,\"output_tokens\":50}}\n"},
	{FormatGeminiJSON, `{"error":{"type":"ApiError","message":"Quota exceeded","code":429}}`},
	{FormatAiderText, "Aider v0.86.1\nModel: gpt-4o with diff edit format\nGit repo: none\nRepo-map: disabled\n\nlitellm.InternalServerError: AnthropicException - Overloaded\nThe API provider's servers are down or overloaded.\nRetrying in 0.2 seconds...\nFine.\n\nTokens: 2.0k sent, 3 received.\n"},
	{FormatAiderText, "Aider v0.86.1\nModel: m\n\nDone.\n\nTokens: 1.2M sent, 20k cache write, 1.1M cache hit, 2.5k received.\nCost: $1.23 message, $1.23 session.\n"},
	{FormatAiderText, "Aider v0.40.6\n\nOK\n\nTokens: 1,234 sent, 56 received. Cost: $0.01 request, $0.02 session.\n"},
}

// FuzzParse checks the parsers of every agent output format on any
// stdout: they never panic, they give the same answer twice, a failure
// has a message and no content, counts read from a text format are never
// negative, and the text format is the output itself.
func FuzzParse(f *testing.F) {
	for _, s := range parseSeeds {
		f.Add(string(s.f), s.stdout)
	}
	f.Fuzz(func(t *testing.T, format, stdout string) {
		fm := Format(format)
		p, err := parse(fm, []byte(stdout))
		p2, err2 := parse(fm, []byte(stdout))
		if (err == nil) != (err2 == nil) || p != p2 {
			t.Fatalf("%s %q: two parses differ: %+v %v / %+v %v", fm, stdout, p, err, p2, err2)
		}
		if err != nil && strings.TrimSpace(err.Error()) == "" {
			t.Fatalf("%s %q: error without a message", fm, stdout)
		}
		content, usage, turns, perr := Parse(fm, []byte(stdout))
		if perr != nil && (content != "" || usage != (Usage{}) || turns != 0) {
			t.Fatalf("%s %q: failed Parse returned %q %+v %d", fm, stdout, content, usage, turns)
		}
		switch fm {
		case FormatClaudeJSON, FormatCodexJSONL, FormatGeminiJSON, FormatAiderText:
			if fm == FormatAiderText && (p.usage.InputTokens < 0 || p.usage.OutputTokens < 0 || p.cost < 0) {
				t.Fatalf("%q: negative usage %+v cost %v", stdout, p.usage, p.cost)
			}
		default:
			if err != nil || p.content != strings.TrimSuffix(stdout, "\n") {
				t.Fatalf("%s %q: text output read as %q, %v", fm, stdout, p.content, err)
			}
		}
		// Whatever gemini printed on stderr, finding its error object
		// does not panic, and a found error has a message.
		if e := stderrReportedError(FormatGeminiJSON, stdout); e != nil && strings.TrimSpace(e.msg) == "" {
			t.Fatalf("%q: reported error without a message", stdout)
		}
	})
}

// FuzzAnswerRoundTrip checks that any answer text an agent reports in its
// JSON formats is read back exactly, whatever it holds.
func FuzzAnswerRoundTrip(f *testing.F) {
	for _, s := range []string{"Paris.", "", "a\nb", "{\"type\":\"result\"}", "\n[1]\n", "\ufeffx", "\x00"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, answer string) {
		enc, _ := json.Marshal(answer)
		var want string
		_ = json.Unmarshal(enc, &want) // invalid UTF-8 becomes U+FFFD
		for _, c := range []struct {
			f      Format
			stdout string
		}{
			{FormatClaudeJSON, `{"type":"result","subtype":"success","is_error":false,"num_turns":1,"result":` + string(enc) + `}`},
			{FormatClaudeJSON, "{\"type\":\"system\",\"subtype\":\"init\"}\n{\"type\":\"result\",\"subtype\":\"success\",\"result\":" + string(enc) + "}\n"},
			{FormatClaudeJSON, `[{"type":"system"},{"type":"result","result":` + string(enc) + `}]`},
			{FormatCodexJSONL, "{\"type\":\"turn.started\"}\n{\"type\":\"item.completed\",\"item\":{\"type\":\"agent_message\",\"text\":" + string(enc) + "}}\n{\"type\":\"turn.completed\"}\n"},
			{FormatGeminiJSON, `{"response":` + string(enc) + `}`},
			{FormatGeminiJSON, "{\"type\":\"init\"}\n{\"type\":\"message\",\"role\":\"assistant\",\"content\":" + string(enc) + "}\n{\"type\":\"result\",\"status\":\"success\"}\n"},
		} {
			p, err := parse(c.f, []byte(c.stdout))
			if err != nil || p.content != want {
				t.Fatalf("%s %q: got %q, %v; want %q", c.f, c.stdout, p.content, err, want)
			}
		}
	})
}
