package handler

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/evalrun/evalrun/value"
)

// FuzzDecodeResponse reads any body as a chat-completions answer and as
// an error body: no panic, an answer read carries the first choice's
// content and every tool call gets an id, and an error message built from
// valid UTF-8 stays valid UTF-8 and short.
func FuzzDecodeResponse(f *testing.F) {
	for _, s := range []string{
		`{"id":"c1","object":"chat.completion","model":"gpt-4o","choices":[{"index":0,"message":{"role":"assistant","content":"Paris."},"finish_reason":"stop"}],"usage":{"prompt_tokens":12,"completion_tokens":3,"total_tokens":15,"prompt_tokens_details":{"cached_tokens":4},"cost":0.0001}}`,
		`{"choices":[{"message":{"role":"assistant","content":null,"tool_calls":[{"id":"call_1","type":"function","function":{"name":"read_file","arguments":"{\"path\":\"a\"}"}},{"type":"function","function":{"name":"x","arguments":"{}"}}]}}]}`,
		`{"choices": [`, `{"choices": []}`, `{"error":{"message":"Rate limit reached","type":"requests","code":"rate_limit_exceeded"}}`,
		`<html>502 Bad Gateway</html>`, `{"usage":{"cost":"free"},"choices":[{"message":{"content":"x"}}]}`,
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, body string) {
		resp, err := decodeResponse([]byte(body))
		if err == nil {
			if resp == nil {
				t.Fatal("no answer and no error")
			}
			for _, c := range resp.ToolCalls {
				if c.ID == "" {
					t.Fatalf("%q: tool call without an id", body)
				}
			}
		} else if resp != nil || err.Error() == "" {
			t.Fatalf("%q: error %v with answer %+v", body, err, resp)
		}
		msg := serverMessage([]byte(body))
		if utf8.ValidString(body) && !utf8.ValidString(msg) {
			t.Fatalf("%q: message %q is not valid UTF-8", body, msg)
		}
		if len(msg) > 600 && !strings.Contains(body, `"message"`) {
			t.Fatalf("%q: message of %d bytes", body, len(msg))
		}
	})
}

// FuzzParseRetryAfter checks that any Retry-After header gives a wait
// between 0 and maxRetryAfter.
func FuzzParseRetryAfter(f *testing.F) {
	for _, s := range []string{"2", "0.5", "-1", "120", "Wed, 21 Oct 2015 07:28:00 GMT", "", "soon", "1e400", "Inf"} {
		f.Add(s)
	}
	now := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	f.Fuzz(func(t *testing.T, h string) {
		d, ok := parseRetryAfter(h, now)
		if d < 0 || d > maxRetryAfter || (!ok && d != 0) {
			t.Fatalf("%q: %v, %v", h, d, ok)
		}
	})
}

// FuzzReplay reads any text as a cassette: no panic, a bad record is an
// error naming the cassette and the line, and an answer recorded into a
// cassette that replays (appended to it) replays as recorded.
func FuzzReplay(f *testing.F) {
	f.Add(`{"hash":"h1","model":"m","response":{"content":"a","tool_calls":[],"usage":{"input_tokens":1,"output_tokens":2}},"recorded_at":"2025-01-01T00:00:00Z"}`+"\n", "h2", "answer\n")
	f.Add(`{"hash":"h1","model":"m","response":{"content":"a","tool_calls":[{"id":"c","name":"n","arguments":"{}"}],"usage":{"input_tokens":1,"output_tokens":2},"cost_usd":0.5},"recorded_at":"x"}`, "h1", "")
	f.Add("\n\n{\"hash\":\"\"}\n", "h", "x")
	f.Add("not json\n", "h", "x")
	f.Fuzz(func(t *testing.T, cassette, hash, content string) {
		dir := t.TempDir()
		path := filepath.Join(dir, "c.jsonl")
		if err := os.WriteFile(path, []byte(cassette), 0o644); err != nil {
			t.Fatal(err)
		}
		_, _, err := NewReplay("", path).Lookup(hash)
		if err != nil && !strings.Contains(err.Error(), "no recorded response") {
			if !strings.Contains(err.Error(), path+":") || ReasonOf(err, "") != ReasonLLMError {
				t.Fatalf("%q: error %v names no line of the cassette", cassette, err)
			}
			return
		}
		if hash == "" || !utf8.ValidString(hash) {
			return // request hashes are hexadecimal
		}
		c := NewCassette(path)
		c.Now = func() time.Time { return time.Unix(0, 0) }
		cost := 0.25
		want := &Response{Content: content, ToolCalls: []ToolCall{{ID: "call_1", Name: "t", Arguments: "{}"}}, Usage: Usage{InputTokens: 3, OutputTokens: 4}}
		if err := c.RecordHash(hash, "m", want, &cost); err != nil {
			t.Fatal(err)
		}
		if err := c.Close(); err != nil {
			t.Fatal(err)
		}
		got, gotCost, err := NewReplay("", path).Lookup(hash)
		if err != nil {
			t.Fatalf("cassette %q after recording %q: %v", cassette, hash, err)
		}
		if strings.Contains(cassette, hash) {
			return // an earlier record of the hash may win
		}
		enc, _ := json.Marshal(content)
		var wantContent string
		_ = json.Unmarshal(enc, &wantContent)
		if got.Content != wantContent || len(got.ToolCalls) != 1 || got.ToolCalls[0] != want.ToolCalls[0] || got.Usage != want.Usage || gotCost == nil || *gotCost != cost {
			t.Fatalf("recorded %+v, replayed %+v (cost %v)", want, got, gotCost)
		}
	})
}

// FuzzParseOutput reads any model answer as the JSON of an
// output_format type="json" task: no panic, exactly one of a value and a
// parse error, and a value written inside a code fence reads as without.
func FuzzParseOutput(f *testing.F) {
	for _, s := range []string{`{"name": "evalrun", "n": [1, 2.5, null]}`, "```json\n[1]\n```", "```\n{}\n```", "Here it is: {}", "", `"\ud800"`, "```json\n{\"a\":\n```"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, content string) {
		out := ParseOutput(content, nil)
		if (out.Parsed == nil) == (out.ParseError == "") {
			t.Fatalf("%q: parsed %v, error %q", content, out.Parsed, out.ParseError)
		}
		if out.Parsed == nil || strings.Contains(content, "```") {
			return
		}
		for _, fenced := range []string{"```json\n" + content + "\n```", "  ```\n" + content + "\n```\n"} {
			got := ParseOutput(fenced, nil)
			if got.Parsed == nil || value.JSON(got.Parsed) != value.JSON(out.Parsed) {
				t.Fatalf("%q: fenced %q reads as %v (%s), unfenced as %v", content, fenced, got.Parsed, got.ParseError, out.Parsed)
			}
		}
	})
}
