package tasksystem

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/evalrun/evalrun/agent"
	"github.com/evalrun/evalrun/handler"
	"github.com/evalrun/evalrun/templates"
	"github.com/evalrun/evalrun/trace"
	"github.com/evalrun/evalrun/value"
)

// fakeAgentScript records its arguments (NUL-separated) and stdin in $REC
// and prints $FAKE_OUT.
const fakeAgentScript = `#!/bin/sh
for a in "$@"; do printf '%s\0' "$a"; done > "$REC/argv"
cat > "$REC/stdin"
printf '%s' "$FAKE_OUT"
printf 'agent log line\n' >&2
exit ${FAKE_EXIT:-0}
`

type fakeAgentEnv struct {
	dir, script string
}

func newFakeAgent(t *testing.T) *fakeAgentEnv {
	t.Helper()
	dir := t.TempDir()
	script := filepath.Join(dir, "fake-agent")
	if err := os.WriteFile(script, []byte(fakeAgentScript), 0o755); err != nil {
		t.Fatal(err)
	}
	return &fakeAgentEnv{dir: dir, script: script}
}

func (f *fakeAgentEnv) def(out string, format agent.Format) agent.Definition {
	return agent.Definition{Name: "fake", Command: f.script + " --model {model} --sys {role}", Stdin: true, Format: format,
		Env: map[string]string{"REC": f.dir, "FAKE_OUT": out}, Models: map[string]string{"big": "big-model-1"}, DefaultModel: "big",
		Scope: agent.ScopeLocal}
}

func (f *fakeAgentEnv) argv(t *testing.T) []string {
	b, err := os.ReadFile(filepath.Join(f.dir, "argv"))
	if err != nil {
		t.Fatalf("the agent did not run: %v", err)
	}
	return strings.Split(strings.TrimSuffix(string(b), "\x00"), "\x00")
}

func (f *fakeAgentEnv) stdin(t *testing.T) string {
	b, _ := os.ReadFile(filepath.Join(f.dir, "stdin"))
	return string(b)
}

func agentTemplate(t *testing.T, agentName string) *templates.Template {
	tm := &templates.Template{Name: "review", Type: "atomic", Subtype: "standard", Description: "d",
		System: "Focus on {{focus}}.", Instructions: "Review \"this\" $(now)\nplease", Agent: agentName, Role: "reviewer",
		Scope: templates.ScopeLocal, Path: ".evalrun/templates/r.xml", Line: 1}
	if err := templates.Infer(tm); err != nil {
		t.Fatal(err)
	}
	return tm
}

const claudeOut = `{"type":"result","is_error":false,"num_turns":3,"result":"Looks good.","session_id":"sess-9","total_cost_usd":0.25,"usage":{"input_tokens":5,"cache_read_input_tokens":10,"cache_creation_input_tokens":0,"output_tokens":7}}`

func TestAgentExecutesATemplate(t *testing.T) {
	f := newFakeAgent(t)
	var announced []string
	e := NewExecutor(Options{WorkDir: f.dir, Roles: map[string]string{"reviewer": "You review code."},
		AgentSettings: AgentSettings{
			LookupAgent: func(n string) (agent.Definition, bool) {
				if n == "fake" {
					return f.def(claudeOut, agent.FormatClaudeJSON), true
				}
				return agent.Builtin(n)
			},
			Contexts:      "ENVIRONMENT: linux",
			AnnounceAgent: func(d agent.Definition, argv []string) { announced = append(announced, d.Name) },
		}})
	for i := 0; i < 2; i++ {
		r := e.Execute(context.Background(), Request{Template: agentTemplate(t, "fake"), Named: []NamedArg{{"focus", value.String("errors")}}})
		if r.Status != value.StatusComplete || r.Content != "Looks good." {
			t.Fatalf("result %s", value.JSONIndent(r, " "))
		}
		notes := r.Notes
		for k, want := range map[string]string{
			"executor": `"agent:fake"`, "model": `"big-model-1"`, "turns": "3", "cost_usd": "0.25", "session_id": `"sess-9"`,
			"usage": `(dict "input_tokens" 15 "output_tokens" 7 "turns" 3)`,
		} {
			if v, _ := notes.Get(k); v == nil || v.String() != want {
				t.Errorf("notes.%s = %v, want %s", k, v, want)
			}
		}
		ag, _ := notes.Get("agent")
		if !strings.Contains(ag.String(), `"argv" ("`+f.script+`" "--model" "big-model-1" "--sys" "You review code.\n\nFocus on errors.")`) ||
			!strings.Contains(ag.String(), `"exit_code" 0`) || !strings.Contains(ag.String(), `"stderr" "agent log line\n"`) {
			t.Errorf("notes.agent = %v", ag)
		}
	}
	if got := f.argv(t); !slices.Equal(got, []string{"--model", "big-model-1", "--sys", "You review code.\n\nFocus on errors."}) {
		t.Errorf("argv %q", got)
	}
	if got := f.stdin(t); got != "ENVIRONMENT: linux\n\nReview \"this\" $(now)\nplease" {
		t.Errorf("stdin %q", got)
	}
	if !slices.Equal(announced, []string{"fake"}) {
		t.Errorf("announced %q, want once", announced)
	}
	if u := e.Usage(); u.Calls != 2 || u.InputTokens != 30 || u.OutputTokens != 14 || u.Turns != 6 {
		t.Errorf("usage %+v", u)
	}
}

func TestAgentSelection(t *testing.T) {
	f := newFakeAgent(t)
	lookup := func(n string) (agent.Definition, bool) {
		if n == "fake" {
			return f.def("from agent\n", agent.FormatText), true
		}
		return agent.Builtin(n)
	}
	names := func() []string { return append(agent.BuiltinNames(), "fake") }
	tests := []struct {
		name                     string
		override, dflt, template string
		status, content          string
		executor                 string
	}{
		{"template agent", "", "", "fake", "COMPLETE", "from agent", "agent:fake"},
		{"default agent", "", "fake", "", "COMPLETE", "from agent", "agent:fake"},
		{"--agent none forces a provider", "none", "fake", "fake", "COMPLETE", "Review \"this\" $(now)\nplease", ""},
		{"no agent", "", "", "", "COMPLETE", "Review \"this\" $(now)\nplease", ""},
		{"unknown agent", "cluade", "", "fake", "FAILED", "unknown agent 'cluade' (did you mean 'claude'?)", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := NewExecutor(Options{WorkDir: f.dir, AgentSettings: AgentSettings{Agent: tt.override, DefaultAgent: tt.dflt, LookupAgent: lookup, AgentNames: names}})
			r := e.Execute(context.Background(), Request{Template: agentTemplate(t, tt.template), Named: []NamedArg{{"focus", value.String("x")}}})
			if string(r.Status) != tt.status || r.Content != tt.content {
				t.Errorf("got %s %q", r.Status, r.Content)
			}
			ex, _ := r.Notes.Get("executor")
			if got := ""; ex != nil {
				got = string(ex.(value.String))
				if got != tt.executor {
					t.Errorf("executor %q", got)
				}
			} else if tt.executor != "" {
				t.Errorf("no executor note")
			}
			if tt.status == "FAILED" {
				if reason, _ := r.Notes.Get("error"); reason == nil || !strings.Contains(reason.String(), "configuration_error") {
					t.Errorf("error note %v", reason)
				}
			}
		})
	}
}

func TestAgentFailures(t *testing.T) {
	f := newFakeAgent(t)
	d := f.def("", agent.FormatText)
	d.Env["FAKE_EXIT"] = "3"
	e := NewExecutor(Options{WorkDir: f.dir, AgentSettings: AgentSettings{Agent: "fake", LookupAgent: func(string) (agent.Definition, bool) { return d, true }}})
	r := e.Execute(context.Background(), Request{Template: agentTemplate(t, ""), Named: []NamedArg{{"focus", value.String("x")}}})
	if r.Status != value.StatusFailed || r.Content != "agent 'fake' exited with status 3: agent log line" {
		t.Errorf("got %s %q", r.Status, r.Content)
	}
	if ec, _ := r.Notes.Get("exit_code"); ec == nil || ec.String() != "3" {
		t.Errorf("exit_code %v", ec)
	}
	// A Claude Code result stopped at --max-turns: the call fails, and its
	// cost, tokens and session are kept.
	d = f.def(`{"type":"result","subtype":"error_max_turns","is_error":true,"num_turns":2,"session_id":"sess-7","total_cost_usd":0.5,"usage":{"input_tokens":30,"output_tokens":4},"errors":["Reached maximum number of turns (1)"]}`, agent.FormatClaudeJSON)
	d.Env["FAKE_EXIT"] = "1"
	e = NewExecutor(Options{WorkDir: f.dir, AgentSettings: AgentSettings{Agent: "fake", LookupAgent: func(string) (agent.Definition, bool) { return d, true }}})
	r = e.Execute(context.Background(), Request{Template: agentTemplate(t, ""), Named: []NamedArg{{"focus", value.String("x")}}})
	if r.Status != value.StatusFailed || r.Content != "agent 'fake' exited with status 1: Reached maximum number of turns (1)" {
		t.Errorf("got %s %q", r.Status, r.Content)
	}
	if c, _ := r.Notes.Get("cost_usd"); c == nil || c.String() != "0.5" {
		t.Errorf("cost_usd %v", c)
	}
	if s, _ := r.Notes.Get("session_id"); s == nil || s.String() != `"sess-7"` {
		t.Errorf("session_id %v", s)
	}
	if u := e.Usage(); u.InputTokens != 30 || u.OutputTokens != 4 || u.Turns != 2 || u.CostUSD != 0.5 {
		t.Errorf("usage %+v", u)
	}
	t.Setenv("PATH", t.TempDir())
	e = NewExecutor(Options{WorkDir: f.dir, AgentSettings: AgentSettings{Agent: "claude"}})
	r = e.Execute(context.Background(), Request{Template: agentTemplate(t, ""), Named: []NamedArg{{"focus", value.String("x")}}})
	if r.Status != value.StatusFailed || r.Content != "agent 'claude': program 'claude' not found in PATH" {
		t.Errorf("got %s %q", r.Status, r.Content)
	}
	if reason, _ := r.Notes.Get("error"); reason == nil || !strings.Contains(reason.String(), `"configuration_error"`) {
		t.Errorf("error note %v", reason)
	}
}

func TestRoleSelection(t *testing.T) {
	roles := map[string]string{"reviewer": "R", "default": "D", "writer": "W"}
	utd := func(ctx context.Context, name, model string) (string, bool, error) {
		if name == "utd" {
			return "UTD role for " + model, true, nil
		}
		return "", false, nil
	}
	tests := []struct {
		role, dflt, tmplRole string
		want                 string
	}{
		{"writer", "utd", "reviewer", "W"},
		{"", "writer", "reviewer", "R"},
		{"", "utd", "", "UTD role for gpt-4o-mini"},
		{"", "", "", "D"},
		{"", "", "unknown-in-template", "D"},
		{"nope", "", "", "FAIL configuration_error: unknown role 'nope'"},
	}
	for _, tt := range tests {
		e := NewExecutor(Options{Roles: roles, AgentSettings: AgentSettings{Role: tt.role, DefaultRole: tt.dflt, RoleText: utd}})
		tm := agentTemplate(t, "")
		tm.Role = tt.tmplRole
		got, err := e.basePrompt(context.Background(), tm, "gpt-4o-mini")
		if err != nil {
			got = "FAIL " + err.(*failure).reason + ": " + err.Error()
		}
		if got != tt.want {
			t.Errorf("role=%q default=%q template=%q: got %q, want %q", tt.role, tt.dflt, tt.tmplRole, got, tt.want)
		}
	}
	// Without roles at all the base prompt is the default one.
	e := NewExecutor(Options{})
	if got, _ := e.basePrompt(context.Background(), agentTemplate(t, ""), "m"); got != DefaultBasePrompt {
		t.Errorf("got %q", got)
	}
}

func TestAgentRequestHash(t *testing.T) {
	req := &handler.Request{Model: "m", System: "s", Messages: []handler.Message{{Role: "user", Content: "u"}}}
	sum := sha256.Sum256([]byte(`{"agent":"claude","messages":[{"content":"u","role":"user"}],"model":"m","system":"s"}`))
	if got := AgentRequestHash("claude", req); got != hex.EncodeToString(sum[:]) {
		t.Errorf("hash %s", got)
	}
	if AgentRequestHash("codex", req) == AgentRequestHash("claude", req) || AgentRequestHash("claude", req) == handler.RequestHash(req) {
		t.Error("the agent name is not part of the hash")
	}
	// A call's read-only flag and directory join the hashed object; a
	// call without them keeps the hash of AgentRequestHash.
	if AgentCallHash("claude", req, false, "") != AgentRequestHash("claude", req) {
		t.Error("a call without conditions changed its hash")
	}
	sum = sha256.Sum256([]byte(`{"agent":"claude","dir":"src/auth","read_only":true,"messages":[{"content":"u","role":"user"}],"model":"m","system":"s"}`))
	if got := AgentCallHash("claude", req, true, "src/auth"); got != hex.EncodeToString(sum[:]) {
		t.Errorf("read-only hash in src/auth %s", got)
	}
	sum = sha256.Sum256([]byte(`{"agent":"claude","read_only":true,"messages":[{"content":"u","role":"user"}],"model":"m","system":"s"}`))
	if got := AgentCallHash("claude", req, true, ""); got != hex.EncodeToString(sum[:]) {
		t.Errorf("read-only hash %s", got)
	}
}

// memJournal is a trace sink in memory whose Gate answers from the
// results of an earlier run, as the journal does under --resume.
type memJournal struct {
	mu      sync.Mutex
	ended   map[string][]*value.TaskResult // by template+hash
	earlier map[string][]*value.TaskResult
	used    map[string]int
}

func (j *memJournal) Observe(e trace.Event) {
	if e.Type != trace.Ended || e.Span.Kind() != trace.Task {
		return
	}
	r := e.Span.Result()
	res, ok := r.Value.(*value.TaskResult)
	if !ok || r.Replayed || res.Status != value.StatusComplete {
		return
	}
	j.mu.Lock()
	defer j.mu.Unlock()
	key := e.Span.Name() + "/" + e.Span.Key()
	j.ended[key] = append(j.ended[key], res)
}

func (j *memJournal) Before(s *trace.Span) (trace.Answer, bool) {
	j.mu.Lock()
	defer j.mu.Unlock()
	key := s.Name() + "/" + s.Key()
	n := j.used[key]
	if n >= len(j.earlier[key]) {
		return trace.Answer{}, false
	}
	j.used[key]++
	r := *j.earlier[key][n]
	r.Notes = r.Notes.With("replayed", value.Bool(true))
	return trace.Answer{Value: &r, Usage: trace.Usage{InputTokens: 1, OutputTokens: 1, Turns: 1}}, true
}

// A resumed run replays completed agent calls from the journal: the agent
// is not started again.
func TestAgentCallsReplayFromTheJournal(t *testing.T) {
	f := newFakeAgent(t)
	lookup := func(string) (agent.Definition, bool) { return f.def("answer", agent.FormatText), true }
	first := &memJournal{ended: map[string][]*value.TaskResult{}, used: map[string]int{}}
	e := NewExecutor(Options{WorkDir: f.dir, AgentSettings: AgentSettings{Agent: "fake", LookupAgent: lookup}})
	r := e.Execute(trace.WithSinks(context.Background(), first), Request{Template: agentTemplate(t, ""), Named: []NamedArg{{"focus", value.String("x")}}})
	if r.Status != value.StatusComplete {
		t.Fatal(r.Content)
	}
	os.Remove(filepath.Join(f.dir, "argv"))
	second := &memJournal{ended: map[string][]*value.TaskResult{}, earlier: first.ended, used: map[string]int{}}
	e = NewExecutor(Options{WorkDir: f.dir, AgentSettings: AgentSettings{Agent: "fake", LookupAgent: lookup}})
	r = e.Execute(trace.WithSinks(context.Background(), second), Request{Template: agentTemplate(t, ""), Named: []NamedArg{{"focus", value.String("x")}}})
	if rep, _ := r.Notes.Get("replayed"); r.Content != "answer" || rep == nil {
		t.Errorf("got %q replayed=%v", r.Content, rep)
	}
	if _, err := os.Stat(filepath.Join(f.dir, "argv")); err == nil {
		t.Error("the agent ran again on resume")
	}
	if u := e.Usage(); u.Replayed != 1 {
		t.Errorf("usage %+v", u)
	}
}

// --record writes agent answers; the replay side answers them offline.
func TestAgentRecordAndReplay(t *testing.T) {
	f := newFakeAgent(t)
	lookup := func(string) (agent.Definition, bool) { return f.def(claudeOut, agent.FormatClaudeJSON), true }
	cassette := filepath.Join(t.TempDir(), "c.jsonl")
	rec := handler.NewCassette(cassette)
	e := NewExecutor(Options{WorkDir: f.dir, AgentSettings: AgentSettings{Agent: "fake", LookupAgent: lookup, AgentRecord: rec.RecordHash}})
	r := e.Execute(context.Background(), Request{Template: agentTemplate(t, ""), Named: []NamedArg{{"focus", value.String("x")}}})
	if r.Status != value.StatusComplete {
		t.Fatal(r.Content)
	}
	rec.Close()
	data, _ := os.ReadFile(cassette)
	if !strings.Contains(string(data), `"content":"Looks good."`) || !strings.Contains(string(data), `"cost_usd":0.25`) {
		t.Errorf("cassette %s", data)
	}
	os.Remove(filepath.Join(f.dir, "argv"))
	rp := handler.NewReplay("", cassette)
	e = NewExecutor(Options{WorkDir: f.dir, AgentSettings: AgentSettings{Agent: "fake", LookupAgent: lookup, AgentReplay: rp.Lookup}})
	r = e.Execute(context.Background(), Request{Template: agentTemplate(t, ""), Named: []NamedArg{{"focus", value.String("x")}}})
	if r.Status != value.StatusComplete || r.Content != "Looks good." {
		t.Errorf("replayed %s %q", r.Status, r.Content)
	}
	if c, _ := r.Notes.Get("cost_usd"); c == nil || c.String() != "0.25" {
		t.Errorf("cost %v", c)
	}
	if _, err := os.Stat(filepath.Join(f.dir, "argv")); err == nil {
		t.Error("the agent ran under replay")
	}
	// A different prompt is not recorded.
	r = e.Execute(context.Background(), Request{Template: agentTemplate(t, ""), Named: []NamedArg{{"focus", value.String("y")}}})
	if r.Status != value.StatusFailed || !strings.HasPrefix(r.Content, "replay: no recorded response for request ") {
		t.Errorf("unrecorded %s %q", r.Status, r.Content)
	}
}

func TestAgentDryRun(t *testing.T) {
	f := newFakeAgent(t)
	lookup := func(string) (agent.Definition, bool) { return f.def(claudeOut, agent.FormatClaudeJSON), true }
	var gotArgv []string
	var gotReq *handler.Request
	e := NewExecutor(Options{WorkDir: f.dir, AgentSettings: AgentSettings{Agent: "fake", LookupAgent: lookup,
		AgentDryRun: func(ctx context.Context, tm *templates.Template, d agent.Definition, argv []string, req *handler.Request) error {
			gotArgv, gotReq = argv, req
			return nil
		}}})
	r := e.Execute(context.Background(), Request{Template: agentTemplate(t, ""), Named: []NamedArg{{"focus", value.String("x")}}})
	if r.Status != value.StatusComplete || r.Content != "Review \"this\" $(now)\nplease" {
		t.Errorf("got %s %q", r.Status, r.Content)
	}
	if len(gotArgv) < 5 || gotArgv[len(gotArgv)-4] != "--model" || gotReq == nil || gotReq.System != "You are a helpful assistant.\n\nFocus on x." {
		t.Errorf("argv %q req %+v", gotArgv, gotReq)
	}
	if _, err := os.Stat(filepath.Join(f.dir, "argv")); err == nil {
		t.Error("the agent ran in a dry run")
	}
	// A dry run is free: no cost note, nothing unknown (SPEC §14.9).
	if c, ok := r.Notes.Get("cost_usd"); ok || e.Usage().CostUnknown != 0 || e.Usage().CostUSD != 0 {
		t.Errorf("dry run cost %v, usage %+v", c, e.Usage())
	}
}

// TestAgentCostPrices: an agent that reports no cost is priced by the
// prices of agent:NAME and its model, else its cost is unknown; a
// reported cost wins (SPEC §14.9, §22.3).
func TestAgentCostPrices(t *testing.T) {
	f := newFakeAgent(t)
	noCost := strings.Replace(claudeOut, `"total_cost_usd":0.25,`, "", 1)
	for _, tc := range []struct {
		out     string
		prices  *handler.Prices
		note    string
		unknown int
	}{
		{claudeOut, &handler.Prices{Input: 1e6, Output: 1e6}, "0.25", 0},
		// 15 input and 7 output tokens at $1000 and $2000 per million.
		{noCost, &handler.Prices{Input: 1000, Output: 2000}, "0.029", 0},
		{noCost, nil, "", 1},
	} {
		lookup := func(string) (agent.Definition, bool) { return f.def(tc.out, agent.FormatClaudeJSON), true }
		var asked string
		e := NewExecutor(Options{WorkDir: f.dir, AgentSettings: AgentSettings{Agent: "fake", LookupAgent: lookup},
			Prices: func(provider, model string) *handler.Prices { asked = provider; return tc.prices }})
		r := e.Execute(context.Background(), Request{Template: agentTemplate(t, ""), Named: []NamedArg{{"focus", value.String("x")}}})
		note := ""
		if c, ok := r.Notes.Get("cost_usd"); ok {
			note = c.String()
		}
		if r.Status != value.StatusComplete || note != tc.note || e.Usage().CostUnknown != tc.unknown {
			t.Errorf("%s: status %s, cost note %q (want %q), usage %+v", tc.out, r.Status, note, tc.note, e.Usage())
		}
		if tc.out == noCost && asked != "agent:fake" {
			t.Errorf("prices asked for %q, want agent:fake", asked)
		}
	}
}

// The context limit is checked before the agent starts.
func TestAgentContextLimit(t *testing.T) {
	f := newFakeAgent(t)
	lookup := func(string) (agent.Definition, bool) { return f.def("x", agent.FormatText), true }
	e := NewExecutor(Options{WorkDir: f.dir, Counter: tokensByWord{}, AgentSettings: AgentSettings{Agent: "fake", LookupAgent: lookup}})
	tm := agentTemplate(t, "")
	tm.Limits.MaxContextFraction = 0.0001 // floor(128000 × 0.0001) = 12 tokens
	r := e.Execute(context.Background(), Request{Template: tm, Named: []NamedArg{{"focus", value.String("x")}}})
	// system "You are a helpful assistant.\n\nFocus on x." = 8 words, user 4 words, 2×4 + 3
	if r.Status != value.StatusFailed || r.Content != "Resource exhausted: context (23/12)" {
		t.Errorf("got %s %q", r.Status, r.Content)
	}
	if _, err := os.Stat(filepath.Join(f.dir, "argv")); err == nil {
		t.Error("the agent started although the prompt was over the limit")
	}
}

type tokensByWord struct{}

func (tokensByWord) Count(s string) int { return len(strings.Fields(s)) }

func TestAgentReadOnly(t *testing.T) {
	f := newFakeAgent(t)
	d := f.def("x", agent.FormatText)
	d.ReadOnlyArgs = []string{"--permission-mode", "plan"}
	e := NewExecutor(Options{WorkDir: f.dir, AgentSettings: AgentSettings{Agent: "fake", ReadOnly: true,
		LookupAgent: func(string) (agent.Definition, bool) { return d, true }}})
	if r := e.Execute(context.Background(), Request{Template: agentTemplate(t, ""), Named: []NamedArg{{"focus", value.String("x")}}}); r.Status != value.StatusComplete {
		t.Fatal(r.Content)
	}
	if got := f.argv(t); !slices.Equal(got[len(got)-2:], []string{"--permission-mode", "plan"}) {
		t.Errorf("argv %q", got)
	}
}

func TestAgentJSONOutput(t *testing.T) {
	f := newFakeAgent(t)
	e := NewExecutor(Options{WorkDir: f.dir, AgentSettings: AgentSettings{Agent: "fake",
		LookupAgent: func(string) (agent.Definition, bool) {
			return f.def(`{"verdict": "approve", "issues": []}`, agent.FormatText), true
		}}})
	tm := agentTemplate(t, "")
	tm.OutputFormat = &templates.OutputFormat{Type: "json"}
	r := e.Execute(context.Background(), Request{Template: tm, Named: []NamedArg{{"focus", value.String("x")}}})
	if r.Status != value.StatusComplete || r.ParsedOrNull().String() != `(dict "verdict" "approve" "issues" nil)` {
		t.Errorf("got %s %q parsed %v", r.Status, r.Content, r.ParsedOrNull())
	}
}

func TestAgentTimeout(t *testing.T) {
	d := agent.Definition{Name: "slow", Command: "sleep 5", Timeout: 200 * time.Millisecond}
	e := NewExecutor(Options{WorkDir: t.TempDir(), AgentSettings: AgentSettings{Agent: "slow",
		LookupAgent: func(string) (agent.Definition, bool) { return d, true }}})
	start := time.Now()
	r := e.Execute(context.Background(), Request{Template: agentTemplate(t, ""), Named: []NamedArg{{"focus", value.String("x")}}})
	if r.Status != value.StatusFailed || r.Content != "agent 'slow' timed out after 200ms" {
		t.Errorf("got %s %q", r.Status, r.Content)
	}
	if reason, _ := r.Notes.Get("error"); reason == nil || !strings.Contains(reason.String(), `"execution_timeout"`) {
		t.Errorf("error note %v", reason)
	}
	if el := time.Since(start); el > 3*time.Second {
		t.Errorf("took %v", el)
	}
}
