package handler

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/evalrun/evalrun/handler/tokens"
	"github.com/evalrun/evalrun/trace"
	"github.com/evalrun/evalrun/value"
	"github.com/google/go-cmp/cmp"
)

const testKey = "sk-test-0123456789abcdef-SECRET"

// fakeServer is an in-process chat-completions server. Each request is
// answered by the next handler of the script (the last one repeats).
type fakeServer struct {
	t      *testing.T
	srv    *httptest.Server
	mu     sync.Mutex
	script []http.HandlerFunc
	bodies []map[string]any
	raw    []string
	auth   []string
}

func newFakeServer(t *testing.T, script ...http.HandlerFunc) *fakeServer {
	f := &fakeServer{t: t, script: script}
	f.srv = httptest.NewServer(http.HandlerFunc(f.serve))
	t.Cleanup(f.srv.Close)
	return f
}

func (f *fakeServer) serve(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path != "/v1/chat/completions" || r.Method != http.MethodPost {
		http.Error(w, "not found: "+r.URL.Path, http.StatusNotFound)
		return
	}
	data, _ := io.ReadAll(r.Body)
	var body map[string]any
	json.Unmarshal(data, &body)
	f.mu.Lock()
	f.bodies = append(f.bodies, body)
	f.raw = append(f.raw, string(data))
	f.auth = append(f.auth, r.Header.Get("Authorization"))
	n := len(f.bodies)
	h := f.script[min(n, len(f.script))-1]
	f.mu.Unlock()
	h(w, r)
}

func (f *fakeServer) requests() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.bodies)
}

func (f *fakeServer) body(i int) map[string]any {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.bodies[i]
}

// reply answers with a chat completion.
func reply(content string, calls []ToolCall, in, out int) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		msg := map[string]any{"role": "assistant", "content": content}
		if content == "" && len(calls) > 0 {
			msg["content"] = nil
		}
		if len(calls) > 0 {
			var tc []map[string]any
			for _, c := range calls {
				tc = append(tc, map[string]any{"id": c.ID, "type": "function",
					"function": map[string]any{"name": c.Name, "arguments": c.Arguments}})
			}
			msg["tool_calls"] = tc
		}
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(map[string]any{
			"id": "chatcmpl-1", "object": "chat.completion", "model": "m",
			"choices": []any{map[string]any{"index": 0, "message": msg, "finish_reason": "stop"}},
			"usage":   map[string]any{"prompt_tokens": in, "completion_tokens": out, "total_tokens": in + out},
		})
	}
}

func status(code int, body string, header ...string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		for i := 0; i+1 < len(header); i += 2 {
			w.Header().Set(header[i], header[i+1])
		}
		w.WriteHeader(code)
		io.WriteString(w, body)
	}
}

// testProvider returns an openai provider for the fake server that never
// sleeps and records the retry lines and the delays.
type retryLog struct {
	mu     sync.Mutex
	lines  []string
	delays []time.Duration
}

func (l *retryLog) get() ([]string, []time.Duration) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]string(nil), l.lines...), append([]time.Duration(nil), l.delays...)
}

func testProvider(t *testing.T, f *fakeServer, mod func(*OpenAIConfig)) (*OpenAI, *retryLog) {
	log := &retryLog{}
	cfg := OpenAIConfig{
		ProviderConfig: ProviderConfig{BaseURL: f.srv.URL + "/v1"},
		RunOptions: RunOptions{
			Getenv: func(k string) string {
				if k == DefaultAPIKeyEnv {
					return testKey
				}
				return ""
			},
			Notify: func(m string) { log.mu.Lock(); log.lines = append(log.lines, m); log.mu.Unlock() },
			Sleep: func(ctx context.Context, d time.Duration) error {
				log.mu.Lock()
				log.delays = append(log.delays, d)
				log.mu.Unlock()
				return ctx.Err()
			},
			Jitter: func() float64 { return 0.5 },
		},
	}
	if mod != nil {
		mod(&cfg)
	}
	p := NewOpenAI(cfg)
	t.Cleanup(p.Close)
	return p, log
}

func userRequest(text string) *Request {
	return &Request{Model: "gpt-4o-mini", System: "sys", Messages: []Message{{Role: RoleUser, Content: text}}}
}

// checkNoKey fails when the API key appears in any of the texts.
func checkNoKey(t *testing.T, texts ...string) {
	t.Helper()
	for _, s := range texts {
		if strings.Contains(s, testKey) || strings.Contains(s, "SECRET") {
			t.Errorf("the API key leaked: %q", s)
		}
	}
}

func TestOpenAIPlainAnswer(t *testing.T) {
	f := newFakeServer(t, reply("Hello Bob!", nil, 12, 3))
	p, log := testProvider(t, f, func(c *OpenAIConfig) { c.Model = "default-model" })
	resp, err := p.Complete(context.Background(), userRequest("Say hello"))
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(&Response{Content: "Hello Bob!", Usage: Usage{12, 3}}, resp); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	body := f.body(0)
	wantBody := map[string]any{
		"model": "gpt-4o-mini",
		"messages": []any{
			map[string]any{"role": "system", "content": "sys"},
			map[string]any{"role": "user", "content": "Say hello"},
		},
	}
	if diff := cmp.Diff(wantBody, body); diff != "" {
		t.Errorf("body (-want +got):\n%s", diff)
	}
	if f.auth[0] != "Bearer "+testKey {
		t.Errorf("Authorization = %q", f.auth[0])
	}
	if p.Name() != "openai" || p.DefaultModel() != "default-model" {
		t.Errorf("Name %q DefaultModel %q", p.Name(), p.DefaultModel())
	}
	if lines, _ := log.get(); len(lines) != 0 {
		t.Errorf("retries: %v", lines)
	}
}

func TestOpenAITemperatureZeroIsSent(t *testing.T) {
	f := newFakeServer(t, reply("ok", nil, 1, 1))
	zero := 0.0
	p, _ := testProvider(t, f, func(c *OpenAIConfig) { c.Temperature = &zero })
	s := NewSession(SessionConfig{Provider: p, Model: "m", Counter: tokens.None})
	s.AddUser("x")
	if _, err := s.Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(f.raw[0], `"temperature":0`) {
		t.Errorf("temperature 0 not sent: %s", f.raw[0])
	}
	if temp, ok := f.body(0)["temperature"]; !ok || temp != 0.0 {
		t.Errorf("temperature = %v, %v", temp, ok)
	}
	// Without any temperature none is sent.
	f2 := newFakeServer(t, reply("ok", nil, 1, 1))
	p2, _ := testProvider(t, f2, nil)
	if _, err := p2.Complete(context.Background(), userRequest("x")); err != nil {
		t.Fatal(err)
	}
	if _, ok := f2.body(0)["temperature"]; ok {
		t.Errorf("temperature sent without being set: %s", f2.raw[0])
	}
}

func TestOpenAIToolRoundTrip(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, dir, "a.txt", "alpha")
	f := newFakeServer(t,
		reply("", []ToolCall{{ID: "call_1", Name: "system_list_directory", Arguments: `{"directory_path":"."}`}}, 50, 10),
		reply("", []ToolCall{{ID: "call_2", Name: "system_execute_shell_command", Arguments: `{"command":"rm -rf /"}`}}, 80, 10),
		reply("There is a.txt.", nil, 100, 5),
	)
	p, _ := testProvider(t, f, nil)
	tools := listTools(`["a.txt"]`)
	rec := &memRecorder{}
	s := NewSession(SessionConfig{Provider: p, Model: "m", Task: "ls", Tools: tools,
		AllowedTools: []string{"system_list_directory"}})
	s.AddUser("What is here?")
	a, err := s.Run(trace.WithSinks(context.Background(), rec))
	if err != nil {
		t.Fatal(err)
	}
	if a.Content != "There is a.txt." || a.Turns != 3 || a.Usage != (Usage{230, 25}) {
		t.Errorf("answer = %+v", a)
	}
	if f.requests() != 3 {
		t.Fatalf("%d requests", f.requests())
	}
	// Function tools are sent; the second request carries the assistant's
	// tool call and the tool message.
	tools0 := f.body(0)["tools"].([]any)
	fn := tools0[0].(map[string]any)["function"].(map[string]any)
	if tools0[0].(map[string]any)["type"] != "function" || fn["name"] != "system_list_directory" || fn["parameters"] == nil {
		t.Errorf("tools = %v", tools0)
	}
	msgs := f.body(1)["messages"].([]any)
	wantTail := []any{
		map[string]any{"role": "assistant", "content": nil, "tool_calls": []any{map[string]any{
			"id": "call_1", "type": "function", "function": map[string]any{"name": "system_list_directory", "arguments": `{"directory_path":"."}`}}}},
		map[string]any{"role": "tool", "content": `["a.txt"]`, "tool_call_id": "call_1"},
	}
	if diff := cmp.Diff(wantTail, msgs[1:]); diff != "" { // no system message: the prompt is empty
		t.Errorf("second request messages (-want +got):\n%s", diff)
	}
	// The shell tool was not allowed: answered with an error, journaled as
	// failed, never run.
	msgs = f.body(2)["messages"].([]any)
	last := msgs[len(msgs)-1].(map[string]any)
	if last["content"] != "ERROR: tool 'system_execute_shell_command' is not available" {
		t.Errorf("last tool message = %v", last)
	}
	if len(rec.calls) != 2 || rec.calls[0].status != "COMPLETE" || rec.calls[1].status != "FAILED" {
		t.Errorf("recorded = %+v", rec.calls)
	}
}

func TestOpenAIRetryAfterThenSuccess(t *testing.T) {
	f := newFakeServer(t,
		status(429, `{"error":{"message":"Rate limit reached","type":"rate_limit"}}`, "Retry-After", "7"),
		status(503, `upstream busy`),
		reply("ok", nil, 1, 1),
	)
	p, log := testProvider(t, f, nil)
	resp, err := p.Complete(context.Background(), userRequest("x"))
	if err != nil || resp.Content != "ok" {
		t.Fatalf("resp %+v err %v", resp, err)
	}
	lines, delays := log.get()
	wantLines := []string{
		"retrying openai request (attempt 2/3) in 7s: HTTP 429",
		"retrying openai request (attempt 3/3) in 2s: HTTP 503",
	}
	if diff := cmp.Diff(wantLines, lines); diff != "" {
		t.Errorf("lines (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]time.Duration{7 * time.Second, 2 * time.Second}, delays); diff != "" {
		t.Errorf("delays (-want +got):\n%s", diff)
	}
}

func TestOpenAIRetryAfterDateAndCap(t *testing.T) {
	now := time.Date(2025, 1, 6, 13, 0, 0, 0, time.UTC)
	f := newFakeServer(t,
		status(429, ``, "Retry-After", now.Add(1500*time.Millisecond).Format(http.TimeFormat)),
		status(429, ``, "Retry-After", "3600"),
		reply("ok", nil, 1, 1),
	)
	p, log := testProvider(t, f, func(c *OpenAIConfig) { c.Now = func() time.Time { return now } })
	if _, err := p.Complete(context.Background(), userRequest("x")); err != nil {
		t.Fatal(err)
	}
	// HTTP dates have whole seconds: 13:00:01 is 1 s away.
	_, delays := log.get()
	if diff := cmp.Diff([]time.Duration{time.Second, 60 * time.Second}, delays); diff != "" {
		t.Errorf("delays (-want +got):\n%s", diff)
	}
}

func TestOpenAIServerErrorsExhausted(t *testing.T) {
	f := newFakeServer(t, status(500, `{"error":{"message":"boom"}}`))
	p, log := testProvider(t, f, func(c *OpenAIConfig) { c.Jitter = func() float64 { return 0.999 } })
	_, err := p.Complete(context.Background(), userRequest("x"))
	if ReasonOf(err, "") != ReasonLLMError || err.Error() != "openai: HTTP 500: boom" {
		t.Errorf("err = %v (%s)", err, ReasonOf(err, ""))
	}
	if f.requests() != 3 {
		t.Errorf("%d requests, want 3", f.requests())
	}
	lines, _ := log.get()
	want := []string{
		"retrying openai request (attempt 2/3) in 1.2s: HTTP 500",
		"retrying openai request (attempt 3/3) in 2.4s: HTTP 500",
	}
	if diff := cmp.Diff(want, lines); diff != "" {
		t.Errorf("lines (-want +got):\n%s", diff)
	}
}

func TestOpenAIClientErrorFailsAtOnce(t *testing.T) {
	f := newFakeServer(t, status(400, `{"error":{"message":"Invalid value for 'model'","type":"invalid_request_error"}}`))
	p, log := testProvider(t, f, nil)
	_, err := p.Complete(context.Background(), userRequest("x"))
	if ReasonOf(err, "") != ReasonLLMError || err.Error() != "openai: HTTP 400: Invalid value for 'model'" {
		t.Errorf("err = %v", err)
	}
	if lines, _ := log.get(); f.requests() != 1 || len(lines) != 0 {
		t.Errorf("%d requests, retries %v", f.requests(), lines)
	}
}

// TestOpenAIClientErrorHints: a refused key and an unknown model or path
// say what to check.
func TestOpenAIClientErrorHints(t *testing.T) {
	for _, tc := range []struct {
		code int
		body string
		want string
	}{
		{401, `{"error":{"message":"Incorrect API key provided"}}`, "openai: HTTP 401: Incorrect API key provided (check the key in OPENAI_API_KEY)"},
		{403, ``, "openai: HTTP 403: Forbidden (check the key in OPENAI_API_KEY)"},
		{404, `{"error":{"message":"The model 'gpt-9' does not exist"}}`, "openai: HTTP 404: The model 'gpt-9' does not exist (check the model and the server's base_url, URL)"},
	} {
		f := newFakeServer(t, status(tc.code, tc.body))
		p, _ := testProvider(t, f, nil)
		_, err := p.Complete(context.Background(), userRequest("x"))
		want := strings.ReplaceAll(tc.want, "URL", p.cfg.BaseURL)
		if ReasonOf(err, "") != ReasonLLMError || err == nil || err.Error() != want {
			t.Errorf("HTTP %d: err = %v\nwant %s", tc.code, err, want)
		}
	}
}

func TestOpenAIStalledServerTimesOut(t *testing.T) {
	f := newFakeServer(t, func(w http.ResponseWriter, r *http.Request) {
		<-r.Context().Done() // never answers; ends when the client gives up
	})
	p, log := testProvider(t, f, func(c *OpenAIConfig) { c.Timeout = 50 * time.Millisecond; c.Attempts = 2 })
	start := time.Now()
	_, err := p.Complete(context.Background(), userRequest("x"))
	if ReasonOf(err, "") != ReasonExecutionTimeout || err.Error() != "openai request timed out after 50ms" {
		t.Errorf("err = %v (%s)", err, ReasonOf(err, ""))
	}
	if time.Since(start) > 5*time.Second {
		t.Errorf("took %v", time.Since(start))
	}
	if lines, _ := log.get(); len(lines) != 1 || lines[0] != "retrying openai request (attempt 2/2) in 1s: timeout after 50ms" {
		t.Errorf("lines = %q", lines)
	}
}

func TestOpenAIMalformedJSON(t *testing.T) {
	f := newFakeServer(t, status(200, `{"choices": [`))
	p, log := testProvider(t, f, nil)
	_, err := p.Complete(context.Background(), userRequest("x"))
	if ReasonOf(err, "") != ReasonLLMError || !strings.HasPrefix(err.Error(), "invalid response from openai: ") {
		t.Errorf("err = %v", err)
	}
	if lines, _ := log.get(); f.requests() != 1 || len(lines) != 0 {
		t.Errorf("retried: %d requests", f.requests())
	}
	f2 := newFakeServer(t, status(200, `{"choices": []}`))
	p2, _ := testProvider(t, f2, nil)
	if _, err := p2.Complete(context.Background(), userRequest("x")); err == nil ||
		err.Error() != "invalid response from openai: no choices in the answer" {
		t.Errorf("no choices: err = %v", err)
	}
}

func TestOpenAIConnectionReset(t *testing.T) {
	f := newFakeServer(t, func(w http.ResponseWriter, r *http.Request) {
		conn, _, err := w.(http.Hijacker).Hijack()
		if err != nil {
			t.Error(err)
			return
		}
		conn.Close()
	})
	p, log := testProvider(t, f, nil)
	_, err := p.Complete(context.Background(), userRequest("x"))
	if ReasonOf(err, "") != ReasonConnectionError || !strings.HasPrefix(err.Error(), "connection error talking to openai: ") {
		t.Errorf("err = %v (%s)", err, ReasonOf(err, ""))
	}
	lines, _ := log.get()
	if f.requests() != 3 || len(lines) != 2 || !strings.HasPrefix(lines[0], "retrying openai request (attempt 2/3) in 1s: connection error: ") {
		t.Errorf("%d requests, lines %q", f.requests(), lines)
	}
	checkNoKey(t, append(lines, err.Error())...)
}

func TestOpenAIConnectionRefused(t *testing.T) {
	f := newFakeServer(t, reply("x", nil, 1, 1))
	p, _ := testProvider(t, f, func(c *OpenAIConfig) { c.Attempts = 1 })
	f.srv.Close()
	_, err := p.Complete(context.Background(), userRequest("x"))
	if ReasonOf(err, "") != ReasonConnectionError {
		t.Errorf("err = %v", err)
	}
}

func TestOpenAICancellation(t *testing.T) {
	arrived := make(chan struct{})
	f := newFakeServer(t, func(w http.ResponseWriter, r *http.Request) {
		close(arrived)
		<-r.Context().Done()
	})
	p, _ := testProvider(t, f, nil)
	ctx, cancel := context.WithCancel(context.Background())
	go func() { <-arrived; cancel() }()
	start := time.Now()
	_, err := p.Complete(ctx, userRequest("x"))
	if !errors.Is(err, context.Canceled) {
		t.Errorf("err = %v", err)
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("cancellation took %v", d)
	}
	if f.requests() != 1 {
		t.Errorf("%d requests after cancellation", f.requests())
	}

	// Cancelling during the wait before a retry returns at once too.
	f2 := newFakeServer(t, status(503, ""))
	ctx2, cancel2 := context.WithCancel(context.Background())
	p2 := NewOpenAI(OpenAIConfig{ProviderConfig: ProviderConfig{BaseURL: f2.srv.URL + "/v1"},
		RunOptions: RunOptions{Getenv: func(string) string { return testKey }, Notify: func(string) { cancel2() }}})
	defer p2.Close()
	start = time.Now()
	if _, err := p2.Complete(ctx2, userRequest("x")); !errors.Is(err, context.Canceled) {
		t.Errorf("err = %v", err)
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("cancelled sleep took %v", d)
	}
}

func TestOpenAIJSONSchema(t *testing.T) {
	f := newFakeServer(t, reply("```json\n{\"score\": 7}\n```", nil, 5, 5))
	p, _ := testProvider(t, f, nil)
	schema := json.RawMessage(`{"type":"object","properties":{"score":{"type":"integer"}},"required":["score"]}`)
	s := NewSession(SessionConfig{Provider: p, Model: "m", ResponseFormat: JSONOutput("review.schema", schema), Counter: tokens.None})
	s.AddUser("rate it")
	a, err := s.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]any{"type": "json_schema", "json_schema": map[string]any{
		"name": "review_schema", "strict": false,
		"schema": map[string]any{"type": "object", "properties": map[string]any{"score": map[string]any{"type": "integer"}},
			"required": []any{"score"}}}}
	if diff := cmp.Diff(want, f.body(0)["response_format"]); diff != "" {
		t.Errorf("response_format (-want +got):\n%s", diff)
	}
	out := ParseOutput(a.Content, func(v value.Value) []string {
		if d, ok := v.(*value.Dict); ok {
			if n, _ := d.Get("score"); n == value.Int(7) {
				return []string{"/score: must be at most 5"}
			}
		}
		return nil
	})
	r := &value.TaskResult{Status: value.StatusComplete, Content: a.Content}
	out.Apply(r)
	if value.JSON(r) != "{\"status\":\"COMPLETE\",\"content\":\"```json\\n{\\\"score\\\": 7}\\n```\",\"parsedContent\":{\"score\":7},\"notes\":{\"schemaError\":[\"/score: must be at most 5\"]}}" {
		t.Errorf("result = %s", value.JSON(r))
	}

	// Without a schema, json_object.
	f2 := newFakeServer(t, reply("{}", nil, 1, 1))
	p2, _ := testProvider(t, f2, nil)
	req := userRequest("x")
	req.ResponseFormat = JSONOutput("", nil)
	if _, err := p2.Complete(context.Background(), req); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(map[string]any{"type": "json_object"}, f2.body(0)["response_format"]); diff != "" {
		t.Errorf("json_object (-want +got):\n%s", diff)
	}
}

func TestOpenAIMissingKey(t *testing.T) {
	f := newFakeServer(t, reply("x", nil, 1, 1))
	p := NewOpenAI(OpenAIConfig{Name: "local", ProviderConfig: ProviderConfig{BaseURL: f.srv.URL + "/v1", APIKeyEnv: "LOCAL_KEY"},
		RunOptions: RunOptions{Getenv: func(string) string { return "" }}})
	defer p.Close()
	want := "provider 'local': the environment variable LOCAL_KEY is not set"
	if err := p.CheckKey(); err == nil || err.Error() != want || ReasonOf(err, "") != ReasonConfiguration {
		t.Errorf("CheckKey = %v", err)
	}
	if _, err := p.Complete(context.Background(), userRequest("x")); err == nil || err.Error() != want {
		t.Errorf("Complete = %v", err)
	}
	if f.requests() != 0 {
		t.Error("a request was sent without a key")
	}
}

func TestOpenAIBaseURLFromEnv(t *testing.T) {
	f := newFakeServer(t, reply("env", nil, 1, 1))
	p := NewOpenAI(OpenAIConfig{RunOptions: RunOptions{Getenv: func(k string) string {
		return map[string]string{"OPENAI_BASE_URL": f.srv.URL + "/v1/", "OPENAI_API_KEY": testKey}[k]
	}}})
	defer p.Close()
	resp, err := p.Complete(context.Background(), userRequest("x"))
	if err != nil || resp.Content != "env" {
		t.Errorf("resp %+v err %v", resp, err)
	}
	if NewOpenAI(OpenAIConfig{RunOptions: RunOptions{Getenv: func(string) string { return "" }}}).url != "https://api.openai.com/v1/chat/completions" {
		t.Error("default base URL")
	}
}

func TestBackoff(t *testing.T) {
	tests := []struct {
		k    int
		j    float64
		want time.Duration
	}{
		{1, 0.5, time.Second},
		{1, 0, 800 * time.Millisecond},
		{2, 0.5, 2 * time.Second},
		{3, 1, 4800 * time.Millisecond},
		{6, 0.5, 30 * time.Second},
		{40, 0.5, 30 * time.Second},
	}
	for _, tt := range tests {
		if got := backoff(tt.k, tt.j); got != tt.want {
			t.Errorf("backoff(%d, %v) = %v, want %v", tt.k, tt.j, got, tt.want)
		}
	}
	now := time.Date(2025, 1, 6, 13, 0, 0, 0, time.UTC)
	for h, want := range map[string]time.Duration{
		"2": 2 * time.Second, "0.5": 500 * time.Millisecond, "-3": 0, "120": 60 * time.Second,
		"Mon, 06 Jan 2025 13:00:05 GMT": 5 * time.Second, "Mon, 06 Jan 2025 12:00:00 GMT": 0,
	} {
		if got, ok := parseRetryAfter(h, now); !ok || got != want {
			t.Errorf("parseRetryAfter(%q) = %v, %v", h, got, ok)
		}
	}
	if _, ok := parseRetryAfter("soon", now); ok {
		t.Error("parseRetryAfter(soon) accepted")
	}
}

func TestOpenAIKeyNeverLeaks(t *testing.T) {
	// A server (or proxy) that echoes the key in its error message.
	f := newFakeServer(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Retry-After", "0")
		status(429, `{"error":{"message":"Incorrect API key provided: `+strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ")+`"}}`)(w, r)
	})
	var notified []string
	p, log := testProvider(t, f, func(c *OpenAIConfig) {
		c.Notify = func(m string) { notified = append(notified, m) }
	})
	_, err := p.Complete(context.Background(), userRequest("x"))
	if err == nil || err.Error() != "openai: HTTP 429: Incorrect API key provided: [redacted]" {
		t.Errorf("err = %v", err)
	}
	lines, _ := log.get()
	checkNoKey(t, append(append(lines, notified...), err.Error())...)
	if len(notified) != 2 {
		t.Errorf("retry lines: %q", notified)
	}
}

// A short key, such as a local server's "ollama", is redacted too.
func TestOpenAIShortKeyNeverLeaks(t *testing.T) {
	f := newFakeServer(t, func(w http.ResponseWriter, r *http.Request) {
		status(401, `{"error":{"message":"bad key `+strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ")+`"}}`)(w, r)
	})
	p, _ := testProvider(t, f, func(c *OpenAIConfig) {
		c.Getenv = func(string) string { return "ollama" }
	})
	_, err := p.Complete(context.Background(), userRequest("x"))
	if err == nil || strings.Contains(err.Error(), "ollama") || !strings.Contains(err.Error(), "[redacted]") {
		t.Errorf("err = %v", err)
	}
}

// TestOpenAIParallelCallsReuseConnections: rounds of 8 concurrent calls
// dial 8 connections in the first round and reuse them afterwards (with
// net/http's default of 2 idle connections per host, every round would
// dial 6 new ones).
func TestOpenAIParallelCallsReuseConnections(t *testing.T) {
	var mu sync.Mutex
	dialed := 0
	f := &fakeServer{t: t, script: []http.HandlerFunc{reply("ok", nil, 1, 1)}}
	f.srv = httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		time.Sleep(20 * time.Millisecond) // keep the round's calls concurrent
		f.serve(w, r)
	}))
	f.srv.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		if s == http.StateNew {
			mu.Lock()
			dialed++
			mu.Unlock()
		}
	}
	f.srv.Start()
	t.Cleanup(f.srv.Close)
	p, _ := testProvider(t, f, nil)
	const rounds, parallel = 3, 8
	for range rounds {
		var wg sync.WaitGroup
		errs := make(chan error, parallel)
		for range parallel {
			wg.Go(func() {
				if _, err := p.Complete(context.Background(), userRequest("hi")); err != nil {
					errs <- err
				}
			})
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			t.Fatal(err)
		}
	}
	if f.requests() != rounds*parallel {
		t.Fatalf("%d requests, want %d", f.requests(), rounds*parallel)
	}
	mu.Lock()
	defer mu.Unlock()
	if dialed != parallel {
		t.Errorf("%d connections dialed for %d rounds of %d parallel calls, want %d", dialed, rounds, parallel, parallel)
	}
}

// TestOpenAIBaseURLCredentialsNeverLeak: a password or a query string in
// base_url (either may hold a key) is not shown in a 404 message, nor in
// the message of a base_url that does not parse.
func TestOpenAIBaseURLCredentialsNeverLeak(t *testing.T) {
	f := newFakeServer(t, status(404, `{"error":{"message":"no such model"}}`))
	p, _ := testProvider(t, f, func(c *OpenAIConfig) {
		c.BaseURL = strings.Replace(f.srv.URL, "http://", "http://user:PASSWORD-SECRET@", 1) + "/v1?api-key=QUERY-SECRET"
	})
	p.url = f.srv.URL + "/v1/chat/completions"
	_, err := p.Complete(context.Background(), userRequest("x"))
	if err == nil || strings.Contains(err.Error(), "SECRET") || !strings.Contains(err.Error(), "http://user:xxxxx@") || !strings.Contains(err.Error(), "/v1?…") {
		t.Errorf("err = %v", err)
	}
	bad := NewOpenAI(OpenAIConfig{ProviderConfig: ProviderConfig{BaseURL: "http://h\x7f/v1?key=QUERY-SECRET"}, RunOptions: RunOptions{Getenv: func(string) string { return "k" }}})
	if _, err := bad.Complete(context.Background(), userRequest("x")); err == nil || strings.Contains(err.Error(), "SECRET") {
		t.Errorf("invalid base_url: %v", err)
	}
}
