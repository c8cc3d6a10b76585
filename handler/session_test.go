package handler

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"

	"github.com/evalrun/evalrun/handler/tokens"
	"github.com/evalrun/evalrun/value"
	"github.com/google/go-cmp/cmp"
)

// countingCounter counts one token per word and remembers the texts it
// was asked to count.
type countingCounter struct {
	mu    sync.Mutex
	texts []string
}

func (c *countingCounter) Count(text string) int {
	c.mu.Lock()
	c.texts = append(c.texts, text)
	c.mu.Unlock()
	return len(strings.Fields(text))
}

func (c *countingCounter) calls() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.texts)
}

func TestSessionContextLimit(t *testing.T) {
	// system 2 words + 4, user 5 words + 4, 3 for the reply = 18 tokens.
	cfg := SessionConfig{Provider: Echo{}, System: "be brief", Counter: &countingCounter{}, Task: "t",
		ContextWindow: 20, ContextFraction: 0.85} // limit floor(17) = 17
	s := NewSession(cfg)
	s.AddUser("one two three four five")
	_, err := s.Run(context.Background())
	var limit *LimitError
	if !errors.As(err, &limit) || *limit != (LimitError{Resource: ResourceContext, Used: 18, Limit: 17}) {
		t.Fatalf("err = %#v", err)
	}
	if err.Error() != "Resource exhausted: context (18/17)" {
		t.Errorf("message = %q", err)
	}
	if s.Turns() != 0 {
		t.Errorf("a call was made")
	}

	// At the limit the call is made, with the 80 % warning.
	cfg.ContextFraction = 0.9 // limit 18
	var printed []string
	cfg.OnWarning = func(m string) { printed = append(printed, m) }
	s = NewSession(cfg)
	s.AddUser("one two three four five")
	a, err := s.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"warning: task 't' at 100% of its context limit (18/18 tokens)"}
	if diff := cmp.Diff(want, a.Warnings); diff != "" {
		t.Errorf("warnings (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(want, printed); diff != "" {
		t.Errorf("printed (-want +got):\n%s", diff)
	}
	// Echo's usage is counted: input is the prompt, output the reply.
	if a.Usage != (Usage{InputTokens: 18, OutputTokens: 5}) {
		t.Errorf("usage = %+v", a.Usage)
	}
}

func TestContextLimitDefaults(t *testing.T) {
	s := NewSession(SessionConfig{Provider: Echo{}})
	if s.ContextLimit() != 102400 {
		t.Errorf("default limit = %d", s.ContextLimit())
	}
	s = NewSession(SessionConfig{Provider: windowed{Echo{}, 32768}})
	if s.ContextLimit() != 26214 {
		t.Errorf("provider window limit = %d", s.ContextLimit())
	}
	s = NewSession(SessionConfig{Provider: windowed{Echo{}, 32768}, ContextWindow: 1000, ContextFraction: 0.5})
	if s.ContextLimit() != 500 {
		t.Errorf("configured limit = %d", s.ContextLimit())
	}
	if ContextLimit(128000, 0.8) != 102400 || ContextLimit(128000, 0.7) != 89600 {
		t.Error("ContextLimit rounding")
	}
}

type windowed struct {
	Echo
	window int
}

func (w windowed) ContextWindow() int { return w.window }

func TestSessionWarningsOnce(t *testing.T) {
	// A model that calls a tool forever: 10 turns, the warning at 8.
	tools := fakeTools{"noop": func(*value.Dict) *value.TaskResult { return ok("ok") }}
	p := &loopingModel{}
	s := NewSession(SessionConfig{Provider: p, Task: "review/git-diff", Tools: tools, AllowedTools: []string{"noop"},
		Counter: tokens.None})
	s.AddUser("go")
	_, err := s.Run(context.Background())
	var limit *LimitError
	if !errors.As(err, &limit) || limit.Error() != "Resource exhausted: turns (10/10)" {
		t.Fatalf("err = %v", err)
	}
	want := []string{"warning: task 'review/git-diff' at 80% of its turn limit (8/10 turns)"}
	if diff := cmp.Diff(want, s.Warnings()); diff != "" {
		t.Errorf("warnings (-want +got):\n%s", diff)
	}
	if p.calls != 10 || s.Turns() != 10 {
		t.Errorf("calls %d turns %d", p.calls, s.Turns())
	}
	// Usage survives the failure.
	if got := value.JSON(s.UsageNote()); got != `{"input_tokens":10,"output_tokens":10,"turns":10}` {
		t.Errorf("usage note = %s", got)
	}
}

// loopingModel always asks for the noop tool.
type loopingModel struct{ calls int }

func (*loopingModel) Name() string { return "loop" }

func (l *loopingModel) Complete(ctx context.Context, req *Request) (*Response, error) {
	l.calls++
	return &Response{ToolCalls: []ToolCall{{ID: "c", Name: "noop", Arguments: "{}"}}, Usage: Usage{1, 1}}, nil
}

// toolModel answers with scripted tool calls, then with the text of the
// tool messages it received.
type toolModel struct {
	script [][]ToolCall
	reqs   []Request
}

func (*toolModel) Name() string { return "tools" }

func (m *toolModel) Complete(ctx context.Context, req *Request) (*Response, error) {
	m.reqs = append(m.reqs, Request{Messages: append([]Message(nil), req.Messages...), Tools: req.Tools})
	if len(m.script) > 0 {
		calls := m.script[0]
		m.script = m.script[1:]
		return &Response{Content: "", ToolCalls: calls, Usage: Usage{10, 5}}, nil
	}
	var parts []string
	for _, msg := range req.Messages {
		if msg.Role == RoleTool {
			parts = append(parts, msg.ToolCallID+"="+msg.Content)
		}
	}
	return &Response{Content: strings.Join(parts, "|"), Usage: Usage{20, 7}}, nil
}

func TestSessionToolsWithoutRegistry(t *testing.T) {
	m := &toolModel{script: [][]ToolCall{{{ID: "a", Name: "greet", Arguments: `{}`}}}}
	s := NewSession(SessionConfig{Provider: m, Task: "t", AllowedTools: []string{"greet"}, Counter: tokens.None})
	if diff := cmp.Diff([]string{"warning: task 't' cannot use tool 'greet': no tools are configured"}, s.Warnings()); diff != "" {
		t.Error(diff)
	}
	s.AddUser("x")
	a, err := s.Run(context.Background())
	if err != nil || a.Content != "a=ERROR: tool 'greet' is not available" {
		t.Errorf("answer %+v, err %v", a, err)
	}
}

func TestSessionIncrementalCounting(t *testing.T) {
	c := &countingCounter{}
	s := NewSession(SessionConfig{Provider: Echo{}, System: "sys", Counter: c, MaxTurns: 100})
	for i := range 3 {
		s.AddUser("question")
		if _, err := s.Run(context.Background()); err != nil {
			t.Fatal(err)
		}
		// The system prompt once, then per turn the user message and the
		// echoed reply.
		if got, want := c.calls(), 1+2*(i+1); got != want {
			t.Errorf("turn %d: %d texts counted, want %d", i+1, got, want)
		}
	}
	// sys 1+4, 6 messages × (1+4), 3.
	if got := s.PromptTokens(); got != 5+30+3 {
		t.Errorf("PromptTokens = %d", got)
	}
}

func TestSessionTokensWithTools(t *testing.T) {
	tools := listTools("[]")
	s := NewSession(SessionConfig{Provider: Echo{}, System: "sys", Tools: tools, AllowedTools: []string{"system_list_directory"}})
	plain := NewSession(SessionConfig{Provider: Echo{}, System: "sys"})
	defs := toolsJSON(s.Tools())
	if got, want := s.PromptTokens()-plain.PromptTokens(), tokens.Count(defs); got != want || want == 0 {
		t.Errorf("tool tokens = %d, want %d", got, want)
	}
	// Tool calls count with their name and arguments.
	s.AddMessages(Message{Role: RoleAssistant, ToolCalls: []ToolCall{{ID: "x", Name: "a_b", Arguments: `{"k":1}`}}})
	plain.AddMessages(Message{Role: RoleAssistant})
	if got, want := s.PromptTokens()-plain.PromptTokens(), tokens.Count(defs)+tokens.Count("a_b")+tokens.Count(`{"k":1}`); got != want {
		t.Errorf("with a tool call = %d, want %d", got, want)
	}
}

func TestSessionProviderTemperature(t *testing.T) {
	zero := 0.0
	half := 0.5
	p := &tempProvider{temp: &zero}
	s := NewSession(SessionConfig{Provider: p, Counter: tokens.None})
	s.AddUser("x")
	if _, err := s.Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	if p.got == nil || *p.got != 0 {
		t.Errorf("provider temperature not sent: %v", p.got)
	}
	s = NewSession(SessionConfig{Provider: p, Temperature: &half, Counter: tokens.None})
	s.AddUser("x")
	s.Run(context.Background())
	if p.got == nil || *p.got != 0.5 {
		t.Errorf("template temperature did not win: %v", p.got)
	}
}

type tempProvider struct {
	temp *float64
	got  *float64
}

func (*tempProvider) Name() string                   { return "temp" }
func (p *tempProvider) DefaultTemperature() *float64 { return p.temp }
func (p *tempProvider) Complete(_ context.Context, req *Request) (*Response, error) {
	p.got = req.Temperature
	return &Response{Content: "ok"}, nil
}

func TestSessionCancelledDuringTools(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	tools := fakeTools{"stop": func(*value.Dict) *value.TaskResult {
		cancel()
		return ok("")
	}}
	m := &toolModel{script: [][]ToolCall{{{ID: "1", Name: "stop"}, {ID: "2", Name: "stop"}}}}
	s := NewSession(SessionConfig{Provider: m, Tools: tools, AllowedTools: []string{"stop"}, Counter: tokens.None})
	s.AddUser("x")
	if _, err := s.Run(ctx); !errors.Is(err, context.Canceled) {
		t.Errorf("err = %v", err)
	}
	if len(m.reqs) != 1 {
		t.Errorf("the model was called again after cancellation")
	}
}

func TestNextRequestAndHash(t *testing.T) {
	temp := 0.0
	s := NewSession(SessionConfig{Provider: Echo{}, Model: "m", System: "sys", Temperature: &temp,
		ResponseFormat: JSONOutput("", nil)})
	s.AddUser("hi")
	req := s.NextRequest()
	want := `{"messages":[{"content":"hi","role":"user"}],"model":"m","response_format":{"type":"json_object"},"system":"sys","temperature":0}`
	if got := CanonicalRequest(req); got != want {
		t.Errorf("canonical = %s", got)
	}
}
