package tools

import (
	"context"
	"strings"
	"sync"
	"testing"

	"github.com/evalrun/evalrun/handler"
	"github.com/evalrun/evalrun/handler/tokens"
	"github.com/evalrun/evalrun/trace"
	"github.com/evalrun/evalrun/value"
	"github.com/google/go-cmp/cmp"
)

// toolModel answers with scripted tool calls, then with the text of the
// tool messages it received.
type toolModel struct {
	script [][]handler.ToolCall
	reqs   []handler.Request
}

func (*toolModel) Name() string { return "tools" }

func (m *toolModel) Complete(ctx context.Context, req *handler.Request) (*handler.Response, error) {
	m.reqs = append(m.reqs, handler.Request{Messages: append([]handler.Message(nil), req.Messages...), Tools: req.Tools})
	if len(m.script) > 0 {
		calls := m.script[0]
		m.script = m.script[1:]
		return &handler.Response{Content: "", ToolCalls: calls, Usage: handler.Usage{InputTokens: 10, OutputTokens: 5}}, nil
	}
	var parts []string
	for _, msg := range req.Messages {
		if msg.Role == handler.RoleTool {
			parts = append(parts, msg.ToolCallID+"="+msg.Content)
		}
	}
	return &handler.Response{Content: strings.Join(parts, "|"), Usage: handler.Usage{InputTokens: 20, OutputTokens: 7}}, nil
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
		return value.Failed(handler.ReasonToolExecution, "it broke", nil)
	}})
	m := &toolModel{script: [][]handler.ToolCall{
		{{ID: "1", Name: "greet", Arguments: `{"name":"Bob"}`}, {ID: "2", Name: "boom", Arguments: ""}},
		{{ID: "3", Name: ToolShell, Arguments: `{"command":"ls"}`}, {ID: "4", Name: "greet", Arguments: `[1]`},
			{ID: "5", Name: "greet", Arguments: `{"nom":"x"}`}, {ID: "6", Name: "nosuch", Arguments: `{}`}},
	}}
	rec := &memRecorder{}
	s := handler.NewSession(handler.SessionConfig{Provider: m, Task: "t", Tools: tools, Counter: tokens.None,
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
	if a.Turns != 3 || a.Usage != (handler.Usage{InputTokens: 40, OutputTokens: 17}) {
		t.Errorf("turns %d usage %+v", a.Turns, a.Usage)
	}
	// The offered tools, in the allowed order.
	if len(m.reqs[0].Tools) != 2 || m.reqs[0].Tools[0].Name != "greet" || m.reqs[0].Tools[1].Name != "boom" {
		t.Errorf("offered = %+v", m.reqs[0].Tools)
	}
	// The second request holds the assistant message and the tool answers.
	wantMsgs := []handler.Message{
		{Role: handler.RoleUser, Content: "hi"},
		{Role: handler.RoleAssistant, ToolCalls: []handler.ToolCall{{ID: "1", Name: "greet", Arguments: `{"name":"Bob"}`}, {ID: "2", Name: "boom"}}},
		{Role: handler.RoleTool, Content: "hello Bob", ToolCallID: "1"},
		{Role: handler.RoleTool, Content: "ERROR: it broke", ToolCallID: "2"},
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
