package handler

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/evalrun/evalrun/handler/tokens"
	"github.com/google/go-cmp/cmp"
)

// runSession runs one tool-using session and returns its answer.
func runSession(t *testing.T, p Provider, root string) (*Answer, []Message) {
	t.Helper()
	tools := listTools(`["a.txt"]`)
	temp := 0.0
	s := NewSession(SessionConfig{Provider: p, Model: "gpt-4o-mini", System: "You list files.", Temperature: &temp,
		Task: "ls", Tools: tools, AllowedTools: []string{"system_list_directory"}, Counter: tokens.None})
	s.AddUser("What is here?")
	a, err := s.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return a, s.Messages()
}

func TestRecordThenReplay(t *testing.T) {
	root := t.TempDir()
	writeFile(t, root, "a.txt", "alpha")
	f := newFakeServer(t,
		reply("", []ToolCall{{ID: "call_1", Name: "system_list_directory", Arguments: `{"directory_path":"."}`}}, 50, 10),
		reply("There is a.txt.", nil, 100, 5),
	)
	p, log := testProvider(t, f, nil)
	path := filepath.Join(t.TempDir(), "rec", "cassette.jsonl")
	cas := NewCassette(path)
	cas.Now = func() time.Time { return time.Date(2025, 1, 6, 13, 3, 0, 0, time.FixedZone("x", 3600)) }
	recorded := cas.Wrap(p)
	if recorded.Name() != "openai" {
		t.Errorf("wrapped name %q", recorded.Name())
	}
	a1, msgs1 := runSession(t, recorded, root)
	// The same conversation again is not written twice.
	runSession(t, recorded, root)
	if err := cas.Close(); err != nil {
		t.Fatal(err)
	}
	f.srv.Close()
	p.Close()

	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
	if len(lines) != 2 {
		t.Fatalf("%d lines:\n%s", len(lines), data)
	}
	first := RequestHash(&Request{Model: "gpt-4o-mini", System: "You list files.", Temperature: ptr(0.0),
		Messages: msgs1[:1], Tools: listTools("").mustDefs("system_list_directory")})
	want := `{"hash":"` + first + `","model":"gpt-4o-mini","response":{"content":"","tool_calls":[{"id":"call_1","name":"system_list_directory","arguments":"{\"directory_path\":\".\"}"}],"usage":{"input_tokens":50,"output_tokens":10}},"recorded_at":"2025-01-06T12:03:00Z"}`
	if lines[0] != want {
		t.Errorf("first line:\n got %s\nwant %s", lines[0], want)
	}
	if !strings.Contains(lines[1], `"tool_calls":[]`) {
		t.Errorf("second line: %s", lines[1])
	}
	retries, _ := log.get()
	checkNoKey(t, append(retries, string(data))...)

	// Replay with the server stopped gives the same answer.
	replay := NewReplay("", path)
	a2, msgs2 := runSession(t, replay, root)
	if diff := cmp.Diff(a1, a2); diff != "" {
		t.Errorf("replayed answer (-recorded +replayed):\n%s", diff)
	}
	if diff := cmp.Diff(msgs1, msgs2); diff != "" {
		t.Errorf("replayed messages (-recorded +replayed):\n%s", diff)
	}

	// An unknown request.
	_, err = replay.Complete(context.Background(), userRequest("never asked"))
	wantMsg := "replay: no recorded response for request " + RequestHash(userRequest("never asked"))
	if err == nil || err.Error() != wantMsg || ReasonOf(err, "") != ReasonLLMError {
		t.Errorf("err = %v", err)
	}
}

func ptr[T any](v T) *T { return &v }

func (t fakeTools) mustDefs(names ...string) []ToolDef {
	defs, _ := t.Offer("", names)
	return defs
}

func TestReplayFirstRecordWins(t *testing.T) {
	req := userRequest("q")
	h := RequestHash(req)
	path := filepath.Join(t.TempDir(), "c.jsonl")
	content := fmt.Sprintf(`{"hash":%q,"model":"m","response":{"content":"first","tool_calls":[],"usage":{"input_tokens":1,"output_tokens":2}},"recorded_at":"x"}

{"hash":%q,"model":"m","response":{"content":"second","tool_calls":null,"usage":{"input_tokens":0,"output_tokens":0}},"recorded_at":"x"}
`, h, h)
	os.WriteFile(path, []byte(content), 0o644)
	resp, err := NewReplay("rp", path).Complete(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(&Response{Content: "first", Usage: Usage{1, 2}, CostUSD: new(float64)}, resp); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}

	_, err = NewReplay("", filepath.Join(t.TempDir(), "none.jsonl")).Complete(context.Background(), req)
	if err == nil || !strings.Contains(err.Error(), "replay: cannot read cassette ") || ReasonOf(err, "") != ReasonLLMError {
		t.Errorf("missing cassette: %v", err)
	}
	bad := filepath.Join(t.TempDir(), "bad.jsonl")
	os.WriteFile(bad, []byte("{\"hash\":\"x\"}\nnot json\n"), 0o644)
	if _, err = NewReplay("", bad).Complete(context.Background(), req); err == nil || !strings.Contains(err.Error(), "bad.jsonl:2: invalid record") {
		t.Errorf("bad cassette: %v", err)
	}
}

func TestCassetteConcurrent(t *testing.T) {
	path := filepath.Join(t.TempDir(), "c.jsonl")
	// A hash already in the file is not written again.
	pre := RequestHash(userRequest("q0"))
	os.WriteFile(path, []byte(`{"hash":"`+pre+`","model":"m","response":{"content":"old","tool_calls":[],"usage":{"input_tokens":0,"output_tokens":0}},"recorded_at":"x"}`+"\n"), 0o644)
	cas := NewCassette(path)
	p := cas.Wrap(Echo{})
	var wg sync.WaitGroup
	for i := range 40 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if _, err := p.Complete(context.Background(), userRequest(fmt.Sprintf("q%d", i%10))); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	cas.Close()
	data, _ := os.ReadFile(path)
	lines := strings.Split(strings.TrimSpace(string(data)), "\n")
	if len(lines) != 10 {
		t.Fatalf("%d lines, want 10", len(lines))
	}
	seen := map[string]bool{}
	for _, l := range lines {
		var rec record
		if err := json.Unmarshal([]byte(l), &rec); err != nil {
			t.Fatalf("line %q: %v", l, err)
		}
		if seen[rec.Hash] {
			t.Errorf("hash %s written twice", rec.Hash)
		}
		seen[rec.Hash] = true
	}
}

func TestCassetteNotCreatedWithoutCalls(t *testing.T) {
	path := filepath.Join(t.TempDir(), "sub", "c.jsonl")
	cas := NewCassette(path)
	cas.Wrap(Echo{})
	cas.Close()
	if _, err := os.Stat(filepath.Dir(path)); !os.IsNotExist(err) {
		t.Errorf("a run without calls created %s", path)
	}
}

func TestCassettePath(t *testing.T) {
	env := func(v string) func(string) string {
		return func(k string) string {
			if k == CassetteEnv {
				return v
			}
			return ""
		}
	}
	tests := []struct {
		configured, env, want string
	}{
		{"x.jsonl", "env.jsonl", "/root/x.jsonl"},
		{"/abs/x.jsonl", "", "/abs/x.jsonl"},
		{"", "env.jsonl", "env.jsonl"},
		{"", "", "/root/.evalrun/cassette.jsonl"},
	}
	for _, tt := range tests {
		if got := CassettePath(tt.configured, "/root", env(tt.env)); got != tt.want {
			t.Errorf("CassettePath(%q, env %q) = %q, want %q", tt.configured, tt.env, got, tt.want)
		}
	}
}

func TestNewProvider(t *testing.T) {
	temp := 0.0
	p, err := NewProvider("local-llm", ProviderConfig{Type: "openai", BaseURL: "http://localhost:8000/v1", APIKeyEnv: "LOCAL_LLM_KEY",
		Model: "qwen", ContextWindow: 32768, Timeout: time.Minute, Temperature: &temp},
		RunOptions{Attempts: 5, Getenv: func(k string) string { return map[string]string{"LOCAL_LLM_KEY": testKey}[k] }})
	if err != nil {
		t.Fatal(err)
	}
	o := p.(*OpenAI)
	defer o.Close()
	if o.Name() != "local-llm" || o.url != "http://localhost:8000/v1/chat/completions" || o.DefaultModel() != "qwen" ||
		o.ContextWindow() != 32768 || o.cfg.Timeout != time.Minute || *o.DefaultTemperature() != 0 || o.cfg.Attempts != 5 ||
		o.CheckKey() != nil {
		t.Errorf("openai = %+v", o.cfg)
	}
	if p, _ := NewProvider("echo", ProviderConfig{}, RunOptions{}); p.Name() != "echo" {
		t.Errorf("echo name %q", p.Name())
	}
	if p, _ := NewProvider("offline", ProviderConfig{Type: "echo"}, RunOptions{}); p.Name() != "offline" {
		t.Errorf("named echo %q", p.Name())
	}
	if p, _ := NewProvider("replay", ProviderConfig{}, RunOptions{Root: "/r", Getenv: func(string) string { return "" }}); p.(*Replay).Path() != "/r/.evalrun/cassette.jsonl" {
		t.Errorf("replay path %q", p.(*Replay).Path())
	}
	if _, err := NewProvider("x", ProviderConfig{}, RunOptions{}); err == nil || err.Error() != "provider 'x' has no type (openai, echo or replay)" {
		t.Errorf("no type: %v", err)
	}
	if _, err := NewProvider("x", ProviderConfig{Type: "claude"}, RunOptions{}); err == nil || ReasonOf(err, "") != ReasonConfiguration {
		t.Errorf("bad type: %v", err)
	}
}

func TestCheckKeyThroughCassette(t *testing.T) {
	o := NewOpenAI(OpenAIConfig{RunOptions: RunOptions{Getenv: func(string) string { return "" }}})
	defer o.Close()
	wrapped := NewCassette(filepath.Join(t.TempDir(), "c.jsonl")).Wrap(o)
	if err := CheckKey(wrapped); err == nil || err.Error() != "provider 'openai': the environment variable OPENAI_API_KEY is not set" {
		t.Errorf("CheckKey = %v", err)
	}
	if CheckKey(Echo{}) != nil || CheckKey(NewCassette("x").Wrap(Echo{})) != nil {
		t.Error("echo needs no key")
	}
}
