package tasksystem

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/evalrun/evalrun/handler"
	"github.com/evalrun/evalrun/handler/tokens"
	"github.com/evalrun/evalrun/templates"
	"github.com/evalrun/evalrun/value"
)

// greet is the template (defatom greet (params name) (instructions "Hello {{name}}!")).
func greet() *templates.Template {
	t := &templates.Template{
		Name: "greet", Type: "atomic", Subtype: "standard", Description: "Dynamically defined task: greet",
		Instructions: "Hello {{name}}!", Inputs: []templates.Input{{Name: "name", Type: "any", Required: true}},
		InputsDeclared: true, Scope: templates.ScopeDefatom,
	}
	if err := templates.Infer(t); err != nil {
		panic(err)
	}
	return t
}

// baseNotes are the notes of every greet result under the echo provider.
func baseNotes() *value.Dict {
	return value.DictOf(
		"template_used", value.String("greet"),
		"template_source", value.String("defatom"),
		"model", value.String("gpt-4o-mini"),
		"provider", value.String("echo"),
		"context_source", value.String("none"),
		"file_count", value.Int(0),
	)
}

func failed(reason, msg string) *value.TaskResult { return value.Failed(reason, msg, baseNotes()) }

// resultDiff compares TaskResults with value equality (notes in order),
// leaving out notes.usage, which TestExecuteUsage checks.
func resultDiff(want, got *value.TaskResult) string {
	if got.Notes != nil && got.Notes.Has("usage") {
		c := *got
		c.Notes = value.NewDict(got.Notes.Len())
		for k, v := range got.Notes.All() {
			if k != "usage" {
				c.Notes.Set(k, v)
			}
		}
		got = &c
	}
	if want.Status == got.Status && want.Content == got.Content && value.Equal(want.ParsedOrNull(), got.ParsedOrNull()) &&
		want.NotesOrEmpty().String() == got.NotesOrEmpty().String() {
		return ""
	}
	return cmp.Diff(value.JSONIndent(want, "  "), value.JSONIndent(got, "  "))
}

func TestExecuteGreet(t *testing.T) {
	subtask := greet()
	subtask.Subtype = "subtask"
	typed := greet()
	typed.Inputs[0].Type = "string"

	tests := []struct {
		name string
		req  Request
		want *value.TaskResult
	}{
		{"named", Request{Template: greet(), Named: []NamedArg{{"name", value.String("Bob")}}},
			&value.TaskResult{Status: "COMPLETE", Content: "Hello Bob!", Notes: baseNotes()}},
		{"symbol renders its name", Request{Template: greet(), Named: []NamedArg{{"name", value.Symbol("Ann")}}},
			&value.TaskResult{Status: "COMPLETE", Content: "Hello Ann!", Notes: baseNotes()}},
		{"list renders as JSON", Request{Template: greet(), Named: []NamedArg{{"name", value.List{value.Int(1), value.String("a")}}}},
			&value.TaskResult{Status: "COMPLETE", Content: `Hello [1,"a"]!`, Notes: baseNotes()}},
		{"task result renders its content", Request{Template: greet(), Named: []NamedArg{{"name", &value.TaskResult{Status: "COMPLETE", Content: "Eve"}}}},
			&value.TaskResult{Status: "COMPLETE", Content: "Hello Eve!", Notes: baseNotes()}},
		{"positional", Request{Template: greet(), Positional: []value.Value{value.String("Bob")}},
			&value.TaskResult{Status: "COMPLETE", Content: "Hello Bob!", Notes: baseNotes()}},
		{"missing", Request{Template: greet()},
			failed("input_validation_failure", "Missing parameter(s) or access error for substitution: name")},
		{"unknown parameter", Request{Template: greet(), Named: []NamedArg{{"name", value.String("Bob")}, {"nmae", value.String("x")}}},
			failed("input_validation_failure", "Unknown parameter(s) for task 'greet': nmae")},
		{"typed input", Request{Template: typed, Named: []NamedArg{{"name", value.Int(5)}}},
			failed("input_validation_failure", "Parameter 'name' of task 'greet' expects string, got int")},
		{"name as called", Request{Name: "hi", Template: typed, Named: []NamedArg{{"name", value.Int(5)}}},
			failed("input_validation_failure", "Parameter 'name' of task 'hi' expects string, got int")},
		{"too many positional", Request{Template: greet(), Positional: []value.Value{value.Int(1), value.Int(2)}},
			failed("input_validation_failure", "Task 'greet' expects at most 1 positional arguments, got 2")},
		{"subtask + inherit full fails", Request{Template: subtask, Named: []NamedArg{{"name", value.String("Bob")}},
			Context: templates.ContextSettings{InheritContext: "full"}},
			failed("input_validation_failure", "Context validation failed after merging: freshContext='enabled' cannot be combined with inheritContext='full' or 'subset'")},
		{"subtask + inherit full + fresh disabled", Request{Template: subtask, Named: []NamedArg{{"name", value.String("Bob")}},
			Context: templates.ContextSettings{InheritContext: "full", FreshContext: "disabled"}},
			&value.TaskResult{Status: "COMPLETE", Content: "Hello Bob!", Notes: baseNotes()}},
		{"binding fails before context validation", Request{Template: subtask, Context: templates.ContextSettings{InheritContext: "full"}},
			failed("input_validation_failure", "Missing parameter(s) or access error for substitution: name")},
		{"no template", Request{Name: "nope"},
			value.Failed("template_not_found", "Template not found: 'nope'", nil)},
	}
	ex := NewExecutor(Options{})
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := ex.Execute(context.Background(), tt.req)
			if diff := resultDiff(tt.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

// TestExecuteFailedNotes checks the exact notes of SPEC §11.5's example.
func TestExecuteFailedNotes(t *testing.T) {
	got := NewExecutor(Options{}).Execute(context.Background(), Request{Template: greet()})
	want := `(dict "template_used" "greet" "template_source" "defatom" "model" "gpt-4o-mini" "provider" "echo" ` +
		`"context_source" "none" "file_count" 0 "error" (dict "type" "TASK_FAILURE" "reason" "input_validation_failure" ` +
		`"message" "Missing parameter(s) or access error for substitution: name"))`
	if diff := cmp.Diff(want, got.Notes.String()); diff != "" {
		t.Errorf("notes (-want +got):\n%s", diff)
	}
	if got.String() != `#<TaskResult FAILED "Missing parameter(s) or access error for substitution: name">` {
		t.Errorf("printed = %s", got)
	}
}

// recorder is a provider that records requests and answers with a fixed
// text or error.
type recorder struct {
	name   string
	model  string
	answer string
	err    error
	mu     sync.Mutex
	reqs   []*handler.Request
}

func (r *recorder) Name() string { return r.name }

func (r *recorder) DefaultModel() string { return r.model }

func (r *recorder) Complete(ctx context.Context, req *handler.Request) (*handler.Response, error) {
	r.mu.Lock()
	r.reqs = append(r.reqs, req)
	r.mu.Unlock()
	if r.err != nil {
		return nil, r.err
	}
	return &handler.Response{Content: r.answer}, nil
}

func (r *recorder) last() *handler.Request {
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.reqs) == 0 {
		return nil
	}
	return r.reqs[len(r.reqs)-1]
}

func TestExecutePrompt(t *testing.T) {
	temp := 0.5
	tm := &templates.Template{
		Name: "ask", Type: "atomic", Role: "reviewer", Temperature: &temp,
		System:       "Be brief about {{topic}}. Model {{model}}.",
		Instructions: "{{instructions}} | {{date}} | [{{file}}{{file_contents}}{{command}}{{command_output}}] | {{topic | upper}}",
	}
	if err := templates.Infer(tm); err != nil {
		t.Fatal(err)
	}
	start := time.Date(2025, 1, 6, 13, 3, 0, 0, time.UTC)
	rec := &recorder{name: "rec", answer: "ok"}
	ex := NewExecutor(Options{
		Start: start, DefaultProvider: rec, Roles: map[string]string{"reviewer": "You review."},
	})
	res := ex.Execute(context.Background(), Request{Template: tm, Named: []NamedArg{{"topic", value.String("go")}}})
	if res.Status != "COMPLETE" || res.Content != "ok" {
		t.Fatalf("result = %v", res)
	}
	date := start.Local().Format("2006-01-02T15:04:05-07:00")
	want := &handler.Request{
		Model:       "gpt-4o-mini",
		System:      "You review.\n\nBe brief about go. Model gpt-4o-mini.",
		Messages:    []handler.Message{{Role: "user", Content: "None | " + date + " | [] | GO"}},
		Temperature: &temp,
	}
	if diff := cmp.Diff(want, rec.last()); diff != "" {
		t.Errorf("request (-want +got):\n%s", diff)
	}
	if p, _ := res.Notes.Get("provider"); p != value.String("rec") {
		t.Errorf("notes.provider = %v", p)
	}
}

func TestExecuteBuiltins(t *testing.T) {
	saved := time.Local
	defer func() { time.Local = saved }()
	start := time.Date(2025, 1, 6, 13, 3, 0, 0, time.UTC)
	tests := []struct {
		name  string
		local *time.Location
		opts  Options
		tmpl  string
		args  []NamedArg
		want  string
	}{
		{"date in UTC has +00:00, never Z", time.UTC, Options{}, "{{date}}", nil, "2025-01-06T13:03:00+00:00"},
		{"date in local time", time.FixedZone("CET", 3600), Options{}, "{{date}}", nil, "2025-01-06T14:03:00+01:00"},
		{"instructions default", time.UTC, Options{}, "{{instructions}}", nil, "None"},
		{"instructions given", time.UTC, Options{Instructions: "be careful"}, "{{instructions}}", nil, "be careful"},
		{"an input shadows a built-in", time.UTC, Options{Instructions: "be careful"}, "{{instructions}} {{model}}",
			[]NamedArg{{"instructions", value.String("mine")}, {"model", value.String("m")}}, "mine m"},
		{"model built-in is the call's model", time.UTC, Options{Model: "gpt-x"}, "{{model}}", nil, "gpt-x"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			time.Local = tt.local
			tt.opts.Start = start
			tm := &templates.Template{Name: "b", Type: "atomic", Instructions: tt.tmpl}
			if err := templates.Infer(tm); err != nil {
				t.Fatal(err)
			}
			res := NewExecutor(tt.opts).Execute(context.Background(), Request{Template: tm, Named: tt.args})
			if res.Content != tt.want {
				t.Errorf("content = %q, want %q (%v)", res.Content, tt.want, res)
			}
		})
	}
}

func TestExecuteModelAndProvider(t *testing.T) {
	def := &recorder{name: "default", answer: "d"}
	local := &recorder{name: "local-llm", model: "qwen", answer: "l"}
	run := &recorder{name: "run", answer: "r"}
	providers := func(name string) (handler.Provider, bool) {
		if name == "local-llm" {
			return local, true
		}
		return nil, false
	}
	tests := []struct {
		name                 string
		opts                 Options
		model, provider      string
		wantModel, wantProv  string
		wantStatus, wantText string
	}{
		{"defaults", Options{DefaultProvider: def}, "", "", "gpt-4o-mini", "default", "COMPLETE", "d"},
		{"template model", Options{DefaultProvider: def}, "gpt-4.1", "", "gpt-4.1", "default", "COMPLETE", "d"},
		{"run model wins", Options{DefaultProvider: def, Model: "o3"}, "gpt-4.1", "", "o3", "default", "COMPLETE", "d"},
		{"template provider and its default model", Options{DefaultProvider: def, Providers: providers}, "", "local-llm", "qwen", "local-llm", "COMPLETE", "l"},
		{"provider:model prefix", Options{DefaultProvider: def, Providers: providers}, "local-llm:big", "", "big", "local-llm", "COMPLETE", "l"},
		{"unknown prefix is part of the model", Options{DefaultProvider: def, Providers: providers}, "openai:gpt", "", "openai:gpt", "default", "COMPLETE", "d"},
		{"run provider wins", Options{DefaultProvider: def, Provider: run, Providers: providers}, "local-llm:big", "local-llm", "big", "run", "COMPLETE", "r"},
		{"echo always exists", Options{DefaultProvider: def}, "", "echo", "gpt-4o-mini", "echo", "COMPLETE", "Hi"},
		{"unknown template provider", Options{DefaultProvider: def}, "", "nope", "gpt-4o-mini", "nope", "FAILED",
			"unknown provider 'nope' for template 'p'"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tm := &templates.Template{Name: "p", Type: "atomic", Instructions: "Hi", Model: tt.model, Provider: tt.provider}
			res := NewExecutor(tt.opts).Execute(context.Background(), Request{Template: tm})
			m, _ := res.Notes.Get("model")
			p, _ := res.Notes.Get("provider")
			got := []string{value.Text(m), value.Text(p), res.Status, res.Content}
			want := []string{tt.wantModel, tt.wantProv, tt.wantStatus, tt.wantText}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
			if res.Status == "FAILED" {
				e, _ := res.Notes.Get("error")
				if r, _ := e.(*value.Dict).Get("reason"); r != value.String("configuration_error") {
					t.Errorf("reason = %v", r)
				}
			}
		})
	}
}

type reasonErr struct{}

func (reasonErr) Error() string  { return "connection refused" }
func (reasonErr) Reason() string { return "connection_error" }

func TestExecuteProviderErrors(t *testing.T) {
	tm := &templates.Template{Name: "p", Type: "atomic", Instructions: "Hi"}
	tests := []struct {
		name         string
		err          error
		reason, text string
	}{
		{"plain error is llm_error", errors.New("HTTP 400: bad request"), "llm_error", "HTTP 400: bad request"},
		{"error with a reason", reasonErr{}, "connection_error", "connection refused"},
		{"wrapped error with a reason", errors.Join(errors.New("x"), reasonErr{}), "connection_error", "x\nconnection refused"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ex := NewExecutor(Options{DefaultProvider: &recorder{name: "bad", err: tt.err}})
			res := ex.Execute(context.Background(), Request{Template: tm})
			e, _ := res.Notes.Get("error")
			r, _ := e.(*value.Dict).Get("reason")
			if res.Status != "FAILED" || res.Content != tt.text || r != value.String(tt.reason) {
				t.Errorf("result = %v, reason %v", res, r)
			}
		})
	}
}

// blocker blocks until its context is cancelled.
type blocker struct{ started chan struct{} }

func (blocker) Name() string { return "block" }

func (b blocker) Complete(ctx context.Context, _ *handler.Request) (*handler.Response, error) {
	close(b.started)
	<-ctx.Done()
	return nil, ctx.Err()
}

func TestExecuteCancelled(t *testing.T) {
	tm := &templates.Template{Name: "p", Type: "atomic", Instructions: "Hi"}
	reason := func(r *value.TaskResult) value.Value {
		e, _ := r.Notes.Get("error")
		v, _ := e.(*value.Dict).Get("reason")
		return v
	}

	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	p := &countingProvider{}
	ex := NewExecutor(Options{DefaultProvider: p})
	res := ex.Execute(ctx, Request{Template: tm})
	if res.Content != "cancelled" || reason(res) != value.String("execution_halted") || p.calls.Load() != 0 {
		t.Errorf("pre-cancelled: %v %v, %d model calls", res, reason(res), p.calls.Load())
	}

	b := blocker{started: make(chan struct{})}
	ctx, cancel2 := context.WithCancelCause(context.Background())
	go func() {
		<-b.started
		cancel2(errors.New("timeout exceeded (5m0s)"))
	}()
	res = NewExecutor(Options{DefaultProvider: b}).Execute(ctx, Request{Template: tm})
	if res.Content != "cancelled: timeout exceeded (5m0s)" || reason(res) != value.String("execution_halted") {
		t.Errorf("in flight: %v %v", res, reason(res))
	}
}

func TestExecuteSharedTemplateConcurrently(t *testing.T) {
	tm := greet()
	ex := NewExecutor(Options{})
	var wg sync.WaitGroup
	for i := range 32 {
		wg.Go(func() {
			n := value.Int(i)
			res := ex.Execute(context.Background(), Request{Template: tm, Positional: []value.Value{n}})
			if res.Content != "Hello "+n.String()+"!" {
				t.Errorf("content = %q", res.Content)
			}
		})
	}
	wg.Wait()
}

func TestExecuteSystemPrompt(t *testing.T) {
	tests := []struct {
		name   string
		role   string
		roles  map[string]string
		system string
		want   string
	}{
		{"base only", "", nil, "", "You are a helpful assistant."},
		{"base and system", "", nil, "Extra.", "You are a helpful assistant.\n\nExtra."},
		{"default role", "", map[string]string{"default": "Default role."}, "", "Default role."},
		{"template role", "r", map[string]string{"default": "D.", "r": "R."}, "S.", "R.\n\nS."},
		{"unknown role falls back", "zz", map[string]string{"default": "D."}, "", "D."},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec := &recorder{name: "rec"}
			tm := &templates.Template{Name: "p", Type: "atomic", Instructions: "Hi", System: tt.system, Role: tt.role}
			NewExecutor(Options{DefaultProvider: rec, Roles: tt.roles}).Execute(context.Background(), Request{Template: tm})
			if got := rec.last().System; got != tt.want {
				t.Errorf("system = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestExecuteUninferredTemplate(t *testing.T) {
	// A template that never went through Infer is compiled on the fly; a
	// malformed one fails without calling the model.
	ok := &templates.Template{Name: "p", Type: "atomic", Instructions: "Hi {{who}}"}
	res := NewExecutor(Options{}).Execute(context.Background(), Request{Template: ok, Named: []NamedArg{{"who", value.String("you")}}})
	if res.Content != "Hi you" {
		t.Errorf("content = %q", res.Content)
	}
	bad := &templates.Template{Name: "p", Type: "atomic", Instructions: "Hi {{who | uper}}"}
	res = NewExecutor(Options{}).Execute(context.Background(), Request{Template: bad})
	e, _ := res.Notes.Get("error")
	if r, _ := e.(*value.Dict).Get("reason"); r != value.String("xml_validation_failure") ||
		res.Content != "invalid placeholder {{who | uper}}: unknown filter 'uper' (did you mean 'upper'?)" {
		t.Errorf("result = %v, reason %v", res, r)
	}
}

func TestResourceExhausted(t *testing.T) {
	got := resourceExhausted(&handler.LimitError{Resource: "turns", Used: 10, Limit: 10}, baseNotes())
	want := &value.TaskResult{Status: "FAILED", Content: "Resource exhausted: turns (10/10)", Notes: baseNotes().With("error", value.DictOf(
		"type", value.String("RESOURCE_EXHAUSTION"), "resource", value.String("turns"),
		"message", value.String("Resource exhausted: turns (10/10)"),
		"metrics", value.DictOf("used", value.Int(10), "limit", value.Int(10)),
	))}
	if diff := resultDiff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

// BenchmarkExecuteEcho is the per-call overhead of the whole task pipeline
// (bind, context, render, session, notes) with the echo provider,
// tokenization excluded (target ≤ 100 µs); BenchmarkExecuteEchoTokenized
// counts tokens too.
func BenchmarkExecuteEcho(b *testing.B) { benchmarkExecute(b, tokens.None) }

// BenchmarkExecuteEchoTokenized is BenchmarkExecuteEcho with o200k counting.
func BenchmarkExecuteEchoTokenized(b *testing.B) { benchmarkExecute(b, nil) }

func benchmarkExecute(b *testing.B, counter tokens.Counter) {
	tm := greet()
	ex := NewExecutor(Options{Counter: counter})
	ctx := context.Background()
	req := Request{Template: tm, Named: []NamedArg{{"name", value.String("Bob")}}}
	b.ReportAllocs()
	for b.Loop() {
		if res := ex.Execute(ctx, req); res.Status != value.StatusComplete {
			b.Fatal(res)
		}
	}
}

func TestExecuteUsage(t *testing.T) {
	ex := NewExecutor(Options{})
	r := ex.Execute(context.Background(), Request{Template: greet(), Named: []NamedArg{{"name", value.String("Bob")}}})
	usage, ok := r.Notes.Get("usage")
	if !ok {
		t.Fatalf("no usage note in %s", r.Notes)
	}
	u := usage.(*value.Dict)
	in, _ := u.Get("input_tokens")
	out, _ := u.Get("output_tokens")
	turns, _ := u.Get("turns")
	// "Hello Bob!" is 3 o200k tokens; the prompt is the system message, the
	// user message, 4 per message and 3 for the reply.
	if out != value.Int(3) || turns != value.Int(1) || in.(value.Int) <= 3+2*4 {
		t.Errorf("usage = %s", u)
	}
}

func TestExecuteStructuredOutput(t *testing.T) {
	schema, err := templates.CompileSchema("Point", "inline", `{"type":"object","required":["x","y"],"properties":{"x":{"type":"integer"}}}`)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, answer string
		format       *templates.OutputFormat
		parsed       string // JSON of parsedContent
		parseErr     bool
		schemaErr    string // JSON of notes.schemaError, "" when absent
	}{
		{"json without schema", `{"x": 1}`, &templates.OutputFormat{Type: "json"}, `{"x":1}`, false, ""},
		{"fenced json", "```json\n[1, 2]\n```", &templates.OutputFormat{Type: "json"}, `[1,2]`, false, ""},
		{"invalid json keeps COMPLETE", `not json`, &templates.OutputFormat{Type: "json"}, `null`, true, ""},
		{"schema violation keeps parsed", `{"x": "a"}`, &templates.OutputFormat{Type: "json", Schema: "Point", Compiled: schema}, `{"x":"a"}`, false, "violations"},
		{"text output is not parsed", `{"x": 1}`, &templates.OutputFormat{Type: "text"}, `null`, false, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tmpl := &templates.Template{Name: "answer", Type: "atomic", Subtype: "standard", Instructions: "{{text}}",
				Inputs: []templates.Input{{Name: "text", Type: "any", Required: true}}, InputsDeclared: true, OutputFormat: tt.format}
			if err := templates.Infer(tmpl); err != nil {
				t.Fatal(err)
			}
			r := NewExecutor(Options{}).Execute(context.Background(), Request{Template: tmpl, Named: []NamedArg{{"text", value.String(tt.answer)}}})
			if r.Status != value.StatusComplete || r.Content != tt.answer {
				t.Fatalf("got %s", r)
			}
			if got := value.JSON(r.ParsedOrNull()); got != tt.parsed {
				t.Errorf("parsedContent = %s, want %s", got, tt.parsed)
			}
			if _, ok := r.Notes.Get("parseError"); ok != tt.parseErr {
				t.Errorf("parseError present = %v, want %v (%s)", ok, tt.parseErr, r.Notes)
			}
			se, ok := r.Notes.Get("schemaError")
			if ok != (tt.schemaErr != "") {
				t.Fatalf("schemaError present = %v (%s)", ok, r.Notes)
			}
			if ok {
				l := se.(value.List)
				if len(l) != 2 {
					t.Errorf("schemaError = %s, want a missing y and a wrong type of x", se)
				}
			}
		})
	}
}

// countingProvider is the echo provider, counting its calls.
type countingProvider struct {
	handler.Echo
	calls atomic.Int32
}

func (p *countingProvider) Complete(ctx context.Context, req *handler.Request) (*handler.Response, error) {
	p.calls.Add(1)
	return p.Echo.Complete(ctx, req)
}
