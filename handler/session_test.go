package handler

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"

	"github.com/evalrun/evalrun/handler/tokens"
	"github.com/evalrun/evalrun/trace"
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
	tools := NewTools(ToolsConfig{})
	tools.Register(Tool{Name: "noop", Run: func(context.Context, *value.Dict) *value.TaskResult { return complete("ok", nil) }})
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

type recordedCall struct {
	name   string
	params string
	status string
	text   string
	parent string
}

// memRecorder is a trace sink that keeps the tool spans that ended and
// the model spans' executors.
type memRecorder struct {
	mu     sync.Mutex
	calls  []recordedCall
	models []string
}

func (r *memRecorder) Observe(e trace.Event) {
	if e.Type != trace.Ended || e.Span.Kind() == trace.Task {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	sp := e.Span
	if sp.Kind() == trace.Model {
		r.models = append(r.models, sp.Executor()+" "+string(sp.Result().Status))
		return
	}
	rc := recordedCall{name: sp.Name(), params: "nil", parent: sp.Parent().Name()}
	if in := sp.Inputs(); in != nil {
		rc.params = value.JSON(in)
	}
	res := sp.Result().Value.(*value.TaskResult)
	rc.status, rc.text = res.Status, res.Content
	r.calls = append(r.calls, rc)
}

func TestSessionToolLoop(t *testing.T) {
	tools := NewTools(ToolsConfig{Interactive: func() bool { return false }})
	tools.Register(Tool{
		Name:   "greet",
		Params: []Param{{Name: "name", Kind: ParamString, Required: true}},
		Run: func(_ context.Context, p *value.Dict) *value.TaskResult {
			n, _ := paramString(p, "name")
			return complete("hello "+n, nil)
		},
	})
	tools.Register(Tool{Name: "boom", Run: func(context.Context, *value.Dict) *value.TaskResult {
		return value.Failed(ReasonToolExecution, "it broke", nil)
	}})
	m := &toolModel{script: [][]ToolCall{
		{{ID: "1", Name: "greet", Arguments: `{"name":"Bob"}`}, {ID: "2", Name: "boom", Arguments: ""}},
		{{ID: "3", Name: ToolShell, Arguments: `{"command":"ls"}`}, {ID: "4", Name: "greet", Arguments: `[1]`},
			{ID: "5", Name: "greet", Arguments: `{"nom":"x"}`}, {ID: "6", Name: "nosuch", Arguments: `{}`}},
	}}
	rec := &memRecorder{}
	s := NewSession(SessionConfig{Provider: m, Task: "t", Tools: tools, Counter: tokens.None,
		AllowedTools: []string{"greet", "boom", ToolShell, ToolUserInput, "missing", "greet"}})
	wantWarnings := []string{
		"warning: task 't' cannot use tool 'system_execute_shell_command': shell tool is not enabled (set [tools] shell_allow)",
		"warning: task 't' cannot use tool 'request_user_input': stdin and stderr are not terminals",
		"warning: task 't' cannot use tool 'missing': no such tool",
	}
	if diff := cmp.Diff(wantWarnings, s.Warnings()); diff != "" {
		t.Errorf("warnings (-want +got):\n%s", diff)
	}
	s.AddUser("hi")
	ctx, task := trace.Start(trace.WithSinks(context.Background(), rec), trace.Task, "t", nil)
	a, err := s.Run(ctx)
	if err != nil {
		t.Fatal(err)
	}
	wantContent := "1=hello Bob|2=ERROR: it broke|3=ERROR: tool 'system_execute_shell_command' is not available|" +
		"4=ERROR: invalid arguments for tool 'greet': expected a JSON object, got list|" +
		"5=ERROR: Unknown parameter(s) for tool 'greet': nom|6=ERROR: tool 'nosuch' is not available"
	if a.Content != wantContent {
		t.Errorf("content = %q", a.Content)
	}
	// Three model calls, three turns; usage summed.
	if a.Turns != 3 || a.Usage != (Usage{40, 17}) {
		t.Errorf("turns %d usage %+v", a.Turns, a.Usage)
	}
	// The offered tools, in the allowed order.
	if len(m.reqs[0].Tools) != 2 || m.reqs[0].Tools[0].Name != "greet" || m.reqs[0].Tools[1].Name != "boom" {
		t.Errorf("offered = %+v", m.reqs[0].Tools)
	}
	// The second request holds the assistant message and the tool answers.
	wantMsgs := []Message{
		{Role: RoleUser, Content: "hi"},
		{Role: RoleAssistant, ToolCalls: []ToolCall{{ID: "1", Name: "greet", Arguments: `{"name":"Bob"}`}, {ID: "2", Name: "boom"}}},
		{Role: RoleTool, Content: "hello Bob", ToolCallID: "1"},
		{Role: RoleTool, Content: "ERROR: it broke", ToolCallID: "2"},
	}
	if diff := cmp.Diff(wantMsgs, m.reqs[1].Messages); diff != "" {
		t.Errorf("second request (-want +got):\n%s", diff)
	}
	// Every tool call is a span inside the task's, the unavailable ones
	// and those with invalid arguments too.
	wantRec := []recordedCall{
		{"greet", `{"name":"Bob"}`, "COMPLETE", "hello Bob", "t"},
		{"boom", `{}`, "FAILED", "it broke", "t"},
		{ToolShell, "nil", "FAILED", "tool 'system_execute_shell_command' is not available", "t"},
		{"greet", "nil", "FAILED", "invalid arguments for tool 'greet': expected a JSON object, got list", "t"},
		{"greet", `{"nom":"x"}`, "FAILED", "Unknown parameter(s) for tool 'greet': nom", "t"},
		{"nosuch", "nil", "FAILED", "tool 'nosuch' is not available", "t"},
	}
	if diff := cmp.Diff(wantRec, rec.calls, cmp.AllowUnexported(recordedCall{})); diff != "" {
		t.Errorf("recorded (-want +got):\n%s", diff)
	}
	// One model span per request.
	if diff := cmp.Diff([]string{"tools: completed", "tools: completed", "tools: completed"}, rec.models); diff != "" {
		t.Errorf("model spans (-want +got):\n%s", diff)
	}
	task.End(trace.Result{Status: trace.Completed}, trace.Usage{})
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
	tools := NewTools(ToolsConfig{})
	s := NewSession(SessionConfig{Provider: Echo{}, System: "sys", Tools: tools, AllowedTools: []string{ToolListDirectory}})
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
	tools := NewTools(ToolsConfig{})
	tools.Register(Tool{Name: "stop", Run: func(context.Context, *value.Dict) *value.TaskResult {
		cancel()
		return complete("", nil)
	}})
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
