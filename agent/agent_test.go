package agent_test

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/evalrun/evalrun/agent"
)

// fake returns a definition running the test binary as a fake agent with
// the given arguments (after the program word) and FAKE_* environment.
func fake(t *testing.T, args string, env map[string]string) agent.Definition {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	e := map[string]string{"EVALRUN_FAKE_AGENT": "1"}
	for k, v := range env {
		e[k] = v
	}
	return agent.Definition{Name: "fake", Command: "'" + exe + "' " + args, Env: e, Format: agent.FormatText}
}

func runner() *agent.Runner {
	r := agent.NewRunner()
	r.CountTokens = func(s string) int { return len(strings.Fields(s)) }
	return r
}

func readRecord(t *testing.T, path string) fakeRecord {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("the fake agent left no record: %v", err)
	}
	var rec fakeRecord
	if err := json.Unmarshal(b, &rec); err != nil {
		t.Fatal(err)
	}
	return rec
}

func agentError(t *testing.T, err error) *agent.Error {
	t.Helper()
	var ae *agent.Error
	if !errors.As(err, &ae) {
		t.Fatalf("error %v (%T) is not an *agent.Error", err, err)
	}
	return ae
}

// pids reads the pids a fake agent and its grandchild wrote.
func pids(t *testing.T, path string) []int {
	t.Helper()
	b, _ := os.ReadFile(path)
	var out []int
	for _, f := range strings.Fields(string(b)) {
		n, err := strconv.Atoi(f)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, n)
	}
	return out
}

// assertGone checks that the process group and every listed process are
// gone: kill(-pgid, 0) answers ESRCH, or only zombies awaiting their
// reaper remain.
func assertGone(t *testing.T, pgid int, others ...int) {
	t.Helper()
	if err := syscall.Kill(-pgid, 0); !errors.Is(err, syscall.ESRCH) && agent.GroupAlive(pgid) {
		t.Errorf("process group %d outlived the call (kill: %v)", pgid, err)
	}
	for _, p := range others {
		if err := syscall.Kill(p, 0); err == nil {
			st, _ := os.ReadFile("/proc/" + strconv.Itoa(p) + "/stat")
			if !strings.Contains(string(st), ") Z ") {
				t.Errorf("process %d outlived the call: %s", p, st)
			}
		}
	}
}

func TestPromptReachesTheAgentByteForByte(t *testing.T) {
	dir := t.TempDir()
	rec := filepath.Join(dir, "rec.json")
	prompt := "it's \"quoted\" $(rm -rf /) `id` $HOME\nsecond line\n\ttab; | & > <\\ {role}"
	d := fake(t, `--prompt {prompt} "--msg={prompt}!" -m {model} --sys {role} {task} '{root}' literal{date}`, map[string]string{"FAKE_RECORD": rec, "FAKE_STDOUT": "ok\n"})
	d.Models = map[string]string{"big": "model-id-1"}
	res, err := runner().Run(context.Background(), d, agent.Call{
		Prompt: prompt, System: "be 'brief'", Model: "big", Task: "review", Root: dir, Date: "2026-01-02",
	})
	if err != nil {
		t.Fatal(err)
	}
	r := readRecord(t, rec)
	want := []string{"--prompt", prompt, "--msg=" + prompt + "!", "-m", "model-id-1", "--sys", "be 'brief'", "review", dir, "literal2026-01-02"}
	if !slices.Equal(r.Argv, want) {
		t.Errorf("argv\n got %q\nwant %q", r.Argv, want)
	}
	if r.Stdin != "" {
		t.Errorf("stdin = %q, want empty", r.Stdin)
	}
	if r.Dir != dir {
		t.Errorf("dir = %q, want %q", r.Dir, dir)
	}
	if res.Content != "ok" {
		t.Errorf("content = %q, want %q (one final newline removed)", res.Content, "ok")
	}
	exe, _ := os.Executable()
	wantArgv := append([]string{exe}, want...)
	wantArgv[2], wantArgv[3] = "{prompt}", "--msg={prompt}!"
	if !slices.Equal(res.Argv, wantArgv) {
		t.Errorf("journal argv\n got %q\nwant %q", res.Argv, wantArgv)
	}
	if !res.UsageEstimated || res.Usage.OutputTokens != 1 || res.Turns != 1 {
		t.Errorf("usage = %+v estimated=%v turns=%d", res.Usage, res.UsageEstimated, res.Turns)
	}
	// system "be 'brief'" + blank line + prompt, counted by word
	if wantIn := len(strings.Fields("be 'brief'\n\n" + prompt)); res.Usage.InputTokens != wantIn {
		t.Errorf("input tokens = %d, want %d", res.Usage.InputTokens, wantIn)
	}
}

func TestPromptOnStdin200KiB(t *testing.T) {
	dir := t.TempDir()
	rec := filepath.Join(dir, "rec.json")
	var b strings.Builder
	for i := 0; b.Len() < 200<<10; i++ {
		b.WriteString("line " + strconv.Itoa(i) + " with 'quotes' and $(subst)\n")
	}
	prompt := b.String()
	d := fake(t, "-", map[string]string{"FAKE_RECORD": rec, "FAKE_STDOUT": "done"})
	d.Stdin = true
	res, err := runner().Run(context.Background(), d, agent.Call{Prompt: prompt, Root: dir})
	if err != nil {
		t.Fatal(err)
	}
	r := readRecord(t, rec)
	if r.Stdin != prompt {
		t.Errorf("stdin differs: got %d bytes, want %d", len(r.Stdin), len(prompt))
	}
	if !slices.Equal(r.Argv, []string{"-"}) || res.Content != "done" {
		t.Errorf("argv %q content %q", r.Argv, res.Content)
	}
}

func TestPromptTooLongForAnArgument(t *testing.T) {
	dir := t.TempDir()
	rec := filepath.Join(dir, "rec.json")
	d := fake(t, "{prompt}", map[string]string{"FAKE_RECORD": rec})
	_, err := runner().Run(context.Background(), d, agent.Call{Prompt: strings.Repeat("a", 100<<10+1), Root: dir})
	ae := agentError(t, err)
	if ae.Kind != "input_validation_failure" || ae.Msg != "prompt too long for an argument (102401 bytes); set stdin = true" {
		t.Errorf("got %s: %s", ae.Kind, ae.Msg)
	}
	if _, err := os.Stat(rec); err == nil {
		t.Error("the agent started although the prompt was too long")
	}
	// Exactly 100 KiB still goes as an argument.
	if _, err := runner().Run(context.Background(), d, agent.Call{Prompt: strings.Repeat("a", 100<<10), Root: dir}); err != nil {
		t.Fatal(err)
	}
	if r := readRecord(t, rec); len(r.Argv) != 1 || len(r.Argv[0]) != 100<<10 {
		t.Errorf("argv of %d words", len(r.Argv))
	}
}

func TestEnvironmentWordsAndRoleFile(t *testing.T) {
	dir := t.TempDir()
	rec := filepath.Join(dir, "rec.json")
	exe, _ := os.Executable()
	d := agent.Definition{
		Name: "gem", Format: agent.FormatText, Bin: exe,
		Command: "GEMINI_SYSTEM_MD={{.role_file}} EXTRA=x{{ .model }}y {{.bin}} --model {{.model}} {{.prompt}}",
		Env:     map[string]string{"EVALRUN_FAKE_AGENT": "1", "FAKE_RECORD": rec, "DISABLE_AUTOUPDATER": "1"},
	}
	if err := d.Validate(); err != nil {
		t.Fatal(err)
	}
	t.Setenv("INHERITED_VAR", "from-parent")
	_, err := runner().Run(context.Background(), d, agent.Call{Prompt: "p", System: "You are a 'role'.\nLine 2", Model: "m1", Root: dir})
	if err != nil {
		t.Fatal(err)
	}
	r := readRecord(t, rec)
	if r.RoleFile != "You are a 'role'.\nLine 2" {
		t.Errorf("role file held %q", r.RoleFile)
	}
	if r.Env["EXTRA"] != "xm1y" || r.Env["DISABLE_AUTOUPDATER"] != "1" || r.Env["INHERITED_VAR"] != "from-parent" {
		t.Errorf("env EXTRA=%q DISABLE_AUTOUPDATER=%q INHERITED_VAR=%q", r.Env["EXTRA"], r.Env["DISABLE_AUTOUPDATER"], r.Env["INHERITED_VAR"])
	}
	if !slices.Equal(r.Argv, []string{"--model", "m1", "p"}) {
		t.Errorf("argv %q", r.Argv)
	}
	if _, err := os.Stat(r.Env["GEMINI_SYSTEM_MD"]); !os.IsNotExist(err) {
		t.Errorf("role file %s not removed after the call (%v)", r.Env["GEMINI_SYSTEM_MD"], err)
	}
}

// A command with neither {role} nor {role_file} (codex exec -, aider
// --message, start's "ollama run {{.model}} {{.prompt}}") gets the system
// prompt before the user prompt, less the built-in fallback role.
func TestSystemPromptWithoutAPlace(t *testing.T) {
	for _, tc := range []struct {
		name, command string
		stdin         bool
		call          agent.Call
		wantArg       string
		wantStdin     string
	}{
		{"stdin", "", true, agent.Call{Prompt: "Review x", System: "You are a reviewer.\n\nFocus on y."}, "", "You are a reviewer.\n\nFocus on y.\n\nReview x"},
		{"argument", "{{.prompt}}", false, agent.Call{Prompt: "Review x", System: "You are a reviewer."}, "You are a reviewer.\n\nReview x", ""},
		{"fallback role left out", "", true, agent.Call{Prompt: "Review x", System: "You are a helpful assistant.\n\nFocus on y.", FallbackRole: "You are a helpful assistant."}, "", "Focus on y.\n\nReview x"},
		{"fallback role only", "", true, agent.Call{Prompt: "Review x", System: "You are a helpful assistant.", FallbackRole: "You are a helpful assistant."}, "", "Review x"},
		{"role placed", "--sys {role} {prompt}", false, agent.Call{Prompt: "Review x", System: "You are a reviewer."}, "Review x", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rec := filepath.Join(t.TempDir(), "rec.json")
			d := fake(t, tc.command, map[string]string{"FAKE_RECORD": rec})
			d.Stdin = tc.stdin
			tc.call.Root = t.TempDir()
			if _, err := runner().Run(context.Background(), d, tc.call); err != nil {
				t.Fatal(err)
			}
			r := readRecord(t, rec)
			if tc.wantArg != "" && (len(r.Argv) == 0 || r.Argv[len(r.Argv)-1] != tc.wantArg) {
				t.Errorf("argv %q, want %q last", r.Argv, tc.wantArg)
			}
			if r.Stdin != tc.wantStdin {
				t.Errorf("stdin %q, want %q", r.Stdin, tc.wantStdin)
			}
		})
	}
}

// A program word or bin starting with ~/ is under the home directory, as
// start's shell has it; a ~ that comes from a placeholder value is not
// expanded.
func TestTildeProgram(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	exe, _ := os.Executable()
	if err := os.MkdirAll(filepath.Join(home, ".local", "bin"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(exe, filepath.Join(home, ".local", "bin", "claude")); err != nil {
		t.Fatal(err)
	}
	for _, d := range []agent.Definition{
		{Name: "a", Command: "~/.local/bin/claude -p {prompt}"},
		{Name: "b", Bin: "~/.local/bin/claude", Command: "{{.bin}} -p {{.prompt}}"},
	} {
		rec := filepath.Join(t.TempDir(), "rec.json")
		d.Env = map[string]string{"EVALRUN_FAKE_AGENT": "1", "FAKE_RECORD": rec, "FAKE_STDOUT": "ok"}
		res, err := runner().Run(context.Background(), d, agent.Call{Prompt: "~/not-expanded", Root: t.TempDir()})
		if err != nil {
			t.Fatalf("%s: %v", d.Name, err)
		}
		if r := readRecord(t, rec); res.Content != "ok" || !slices.Equal(r.Argv, []string{"-p", "~/not-expanded"}) {
			t.Errorf("%s: %q, argv %q", d.Name, res.Content, r.Argv)
		}
	}
}

func TestShellSyntaxStaysLiteral(t *testing.T) {
	dir := t.TempDir()
	rec := filepath.Join(dir, "rec.json")
	d := fake(t, `a | b ; $(c) "$HOME" '>' \$x {prompt}`, map[string]string{"FAKE_RECORD": rec})
	if _, err := runner().Run(context.Background(), d, agent.Call{Prompt: "$(whoami)", Root: dir}); err != nil {
		t.Fatal(err)
	}
	want := []string{"a", "|", "b", ";", "$(c)", "$HOME", ">", "$x", "$(whoami)"}
	if r := readRecord(t, rec); !slices.Equal(r.Argv, want) {
		t.Errorf("argv %q, want %q", r.Argv, want)
	}
}

func TestFormats(t *testing.T) {
	tests := []struct {
		name, format, stdout string
		content              string
		in, out, turns       int
		cost                 float64
		hasCost              bool
		session              string
		estimated            bool
	}{
		{name: "text", format: "text", stdout: "answer\n\n", content: "answer\n", in: 1, out: 1, turns: 1, estimated: true},
		{name: "claude", format: "claude-json",
			stdout:  `{"type":"result","subtype":"success","is_error":false,"duration_ms":2100,"num_turns":4,"result":"The fix is in main.go.","session_id":"s-123","total_cost_usd":0.0123,"usage":{"input_tokens":10,"cache_creation_input_tokens":200,"cache_read_input_tokens":3000,"output_tokens":55}}` + "\n",
			content: "The fix is in main.go.", in: 3210, out: 55, turns: 4, cost: 0.0123, hasCost: true, session: "s-123"},
		{name: "codex", format: "codex-jsonl", stdout: `{"type":"thread.started","thread_id":"th_1"}
{"type":"turn.started"}
{"type":"item.completed","item":{"id":"item_0","type":"reasoning","text":"thinking"}}
{"type":"item.completed","item":{"id":"item_1","type":"agent_message","text":"first"}}
{"type":"turn.completed","usage":{"input_tokens":100,"cached_input_tokens":50,"output_tokens":7}}
{"type":"turn.started"}
{"type":"item.completed","item":{"id":"item_2","type":"command_execution","command":"ls"}}
{"type":"item.completed","item":{"id":"item_3","type":"agent_message","text":"final answer"}}
{"type":"turn.completed","usage":{"input_tokens":220,"cached_input_tokens":150,"output_tokens":10}}
`, content: "final answer", in: 220, out: 10, turns: 2, session: "th_1"},
		// A retried stream is reported as an "error" event; the turn then
		// completes. A line that is no JSON event is skipped.
		{name: "codex reconnect", format: "codex-jsonl", stdout: `{"type":"thread.started","thread_id":"019a-77"}
{"type":"turn.started"}
{"type":"error","message":"Reconnecting... 1/5 (stream disconnected before completion: Transport error)"}
warning: proxy configuration ignored
{"type":"item.started","item":{"id":"item_0","type":"command_execution","command":"bash -lc ls","aggregated_output":"","exit_code":null,"status":"in_progress"}}
{"type":"item.completed","item":{"id":"item_0","type":"command_execution","command":"bash -lc ls","aggregated_output":"go.mod\n","exit_code":0,"status":"completed"}}
{"type":"item.completed","item":{"id":"item_1","type":"agent_message","text":"Done."}}
{"type":"turn.completed","usage":{"input_tokens":24763,"cached_input_tokens":24448,"output_tokens":122}}
`, content: "Done.", in: 24763, out: 122, turns: 1, session: "019a-77"},
		{name: "claude stream-json", format: "claude-json", stdout: `{"type":"system","subtype":"init","cwd":"/p","session_id":"s-9","tools":["Bash"],"model":"claude-sonnet-4-5"}
{"type":"assistant","message":{"id":"msg_1","type":"message","role":"assistant","content":[{"type":"tool_use","id":"toolu_1","name":"Bash","input":{"command":"ls"}}]},"session_id":"s-9"}
{"type":"user","message":{"role":"user","content":[{"tool_use_id":"toolu_1","type":"tool_result","content":"go.mod"}]},"session_id":"s-9"}
{"type":"assistant","message":{"id":"msg_2","type":"message","role":"assistant","content":[{"type":"text","text":"One file."}]},"session_id":"s-9"}
{"type":"result","subtype":"success","is_error":false,"duration_ms":3000,"num_turns":3,"result":"One file.","session_id":"s-9","total_cost_usd":0.02,"usage":{"input_tokens":5,"cache_creation_input_tokens":0,"cache_read_input_tokens":100,"output_tokens":9}}
`, content: "One file.", in: 105, out: 9, turns: 3, cost: 0.02, hasCost: true, session: "s-9"},
		// --verbose (or verbose in Claude Code's settings) turns json
		// into an array of the session's messages.
		{name: "claude json array", format: "claude-json", stdout: `[{"type":"system","subtype":"hook_response","session_id":"s-a","hook_name":"SessionStart:Callback","stdout":"","stderr":""},{"type":"system","subtype":"init","cwd":"/p","session_id":"s-a","tools":["Bash"],"model":"claude-opus-4-5-20251101"},{"type":"assistant","message":{"role":"assistant","content":[{"type":"text","text":"hi"}]},"session_id":"s-a"},{"type":"result","subtype":"success","is_error":false,"num_turns":1,"result":"hi","session_id":"s-a","total_cost_usd":0.003,"usage":{"input_tokens":4,"cache_read_input_tokens":0,"cache_creation_input_tokens":10,"output_tokens":2}}]
`, content: "hi", in: 14, out: 2, turns: 1, cost: 0.003, hasCost: true, session: "s-a"},
		// --json-schema: the answer is the structured output.
		{name: "claude structured_output", format: "claude-json", stdout: `{"type":"result","subtype":"success","is_error":false,"num_turns":2,"result":"Here is the name.","structured_output":{ "name": "evalrun" },"session_id":"s","total_cost_usd":0.01,"usage":{"input_tokens":3,"output_tokens":4}}`,
			content: `{"name":"evalrun"}`, in: 3, out: 4, turns: 2, cost: 0.01, hasCost: true, session: "s"},
		// Claude Code before total_cost_usd.
		{name: "claude cost_usd", format: "claude-json", stdout: `{"type":"result","subtype":"success","cost_usd":0.003,"is_error":false,"duration_ms":5443,"duration_api_ms":3709,"num_turns":1,"result":"ok","session_id":"abc-123-def"}`,
			content: "ok", in: 1, out: 1, turns: 1, cost: 0.003, hasCost: true, session: "abc-123-def", estimated: true},
		{name: "gemini thoughts", format: "gemini-json", stdout: `{
  "session_id": "g-1",
  "response": "Paris.",
  "stats": {"models": {"gemini-2.5-pro": {"tokens": {"prompt": 24939, "candidates": 20, "total": 25113, "cached": 21263, "thoughts": 154, "tool": 0}}}},
  "error": null
}`, content: "Paris.", in: 24939, out: 174, turns: 1, session: "g-1"},
		// Gemini CLI 0.1 printed this notice on stdout, before the JSON.
		{name: "gemini preamble", format: "gemini-json", stdout: "Loaded cached credentials.\n{\n  \"response\": \"Paris.\",\n  \"stats\": {\"models\": {\"m\": {\"tokens\": {\"prompt\": 5, \"candidates\": 1}}}}\n}\n",
			content: "Paris.", in: 5, out: 1, turns: 1},
		{name: "gemini stream-json", format: "gemini-json", stdout: `{"type":"init","timestamp":"2025-10-10T12:00:00.000Z","session_id":"g-2","model":"gemini-2.5-flash"}
{"type":"message","timestamp":"2025-10-10T12:00:00.000Z","role":"user","content":"List files"}
{"type":"message","timestamp":"2025-10-10T12:00:01.000Z","role":"assistant","content":"Let me look.","delta":true}
{"type":"tool_use","timestamp":"2025-10-10T12:00:01.000Z","tool_name":"list_directory","tool_id":"t1","parameters":{"dir_path":"."}}
{"type":"tool_result","timestamp":"2025-10-10T12:00:02.000Z","tool_id":"t1","status":"success","output":"go.mod"}
{"type":"message","timestamp":"2025-10-10T12:00:03.000Z","role":"assistant","content":"There is ","delta":true}
{"type":"message","timestamp":"2025-10-10T12:00:03.000Z","role":"assistant","content":"one file.","delta":true}
{"type":"result","timestamp":"2025-10-10T12:00:03.000Z","status":"success","stats":{"total_tokens":300,"input_tokens":250,"output_tokens":50,"cached":0,"input":250,"duration_ms":3000,"tool_calls":1}}
`, content: "There is one file.", in: 250, out: 50, turns: 1, session: "g-2"},
		{name: "gemini", format: "gemini-json",
			stdout:  `{"response":"Paris.","stats":{"models":{"gemini-2.5-pro":{"api":{"totalRequests":2},"tokens":{"prompt":24939,"candidates":20,"total":25113,"cached":21263}},"gemini-2.5-flash":{"tokens":{"prompt":61,"candidates":5}}},"tools":{"totalCalls":1}}}`,
			content: "Paris.", in: 25000, out: 25, turns: 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := fake(t, "", map[string]string{"FAKE_STDOUT": tt.stdout})
			d.Format = agent.Format(tt.format)
			res, err := runner().Run(context.Background(), d, agent.Call{Prompt: "q", Root: t.TempDir()})
			if err != nil {
				t.Fatal(err)
			}
			if res.Content != tt.content || res.Usage.InputTokens != tt.in || res.Usage.OutputTokens != tt.out ||
				res.Turns != tt.turns || res.CostUSD != tt.cost || res.HasCost != tt.hasCost || res.SessionID != tt.session ||
				res.UsageEstimated != tt.estimated {
				t.Errorf("got %+v", *res)
			}
		})
	}
}

func TestFailures(t *testing.T) {
	tests := []struct {
		name, format, stdout, stderr, exit string
		kind, msg                          string
		code                               int
	}{
		{name: "exit status with last stderr line", format: "text", stdout: "partial", stderr: "starting\nError: model not found\n\n  \n", exit: "2",
			kind: "agent_error", msg: "agent 'fake' exited with status 2: Error: model not found", code: 2},
		{name: "exit status without stderr", format: "text", exit: "1", kind: "agent_error", msg: "agent 'fake' exited with status 1", code: 1},
		{name: "claude is_error", format: "claude-json", stdout: `{"type":"result","subtype":"error_during_execution","is_error":true,"result":"Credit balance is too low","num_turns":1}`,
			kind: "agent_error", msg: "Credit balance is too low"},
		{name: "claude is_error and exit 1 without stderr", format: "claude-json", stdout: `{"type":"result","is_error":true,"result":"Invalid API key"}`, exit: "1",
			kind: "agent_error", msg: "agent 'fake' exited with status 1: Invalid API key", code: 1},
		{name: "claude not json", format: "claude-json", stdout: "Welcome to Claude!\n",
			kind: "agent_error", msg: "agent 'fake' printed no valid claude-json: offset 1: invalid character 'W' looking for beginning of value"},
		{name: "claude two objects", format: "claude-json", stdout: `{"result":"a"} {"result":"b"}`,
			kind: "agent_error", msg: "agent 'fake' printed no valid claude-json: text after the JSON object at offset 15"},
		{name: "claude no result", format: "claude-json", stdout: `{"type":"result"}`,
			kind: "agent_error", msg: `agent 'fake' printed no valid claude-json: no "result" field`},
		{name: "claude array without result", format: "claude-json", stdout: `[{"type":"system","subtype":"init"}]`,
			kind: "agent_error", msg: `agent 'fake' printed no valid claude-json: no element of type "result" in the JSON array`},
		// A stream cut before its result line (the agent was killed).
		{name: "claude stream cut short", format: "claude-json", stdout: "{\"type\":\"system\",\"subtype\":\"init\",\"session_id\":\"s\"}\n{\"type\":\"assistant\",\"message\":{\"content\":[]}}\n{\"type\":\"resu",
			kind: "agent_error", msg: `agent 'fake' printed no valid claude-json: the stream has no "result" event (it ended before its result)`},
		{name: "gemini stream cut short", format: "gemini-json", stdout: "{\"type\":\"init\",\"session_id\":\"g\",\"model\":\"m\"}\n{\"type\":\"message\",\"role\":\"assistant\",\"content\":\"Par\",\"delta\":true}\n",
			kind: "agent_error", msg: `agent 'fake' printed no valid gemini-json: the stream has no "result" event (it ended before its result)`},
		{name: "claude empty", format: "claude-json", kind: "agent_error", msg: "agent 'fake' printed no valid claude-json: empty output"},
		{name: "codex turn.failed", format: "codex-jsonl", stdout: `{"type":"thread.started","thread_id":"t"}
{"type":"turn.started"}
{"type":"turn.failed","error":{"message":"stream disconnected before completion"}}
`, kind: "agent_error", msg: "stream disconnected before completion"},
		{name: "codex error event", format: "codex-jsonl", stdout: `{"type":"error","message":"unexpected status 401 Unauthorized"}`,
			kind: "agent_error", msg: "unexpected status 401 Unauthorized"},
		{name: "codex bad line", format: "codex-jsonl", stdout: "{\"type\":\"thread.started\"}\nnot json\n",
			kind: "agent_error", msg: "agent 'fake' printed no valid codex-jsonl: line 2: invalid character 'o' in literal null (expecting 'u')"},
		{name: "codex no message", format: "codex-jsonl", stdout: `{"type":"turn.completed","usage":{"input_tokens":1,"output_tokens":1}}`,
			kind: "agent_error", msg: "agent 'fake' printed no valid codex-jsonl: no item.completed event with an agent_message item"},
		{name: "gemini error", format: "gemini-json", stdout: `{"error":{"type":"ApiError","message":"Quota exceeded for gemini-2.5-pro","code":429}}`, exit: "0",
			kind: "agent_error", msg: "Quota exceeded for gemini-2.5-pro"},
		// Claude Code 2.x at --max-turns: no "result", the message in
		// "errors", exit status 1.
		{name: "claude error_max_turns", format: "claude-json", exit: "1",
			stdout: `{"type":"result","subtype":"error_max_turns","is_error":true,"duration_ms":5000,"num_turns":2,"session_id":"s","total_cost_usd":0.01,"usage":{"input_tokens":3,"output_tokens":4},"errors":["Reached maximum number of turns (1)"]}` + "\n",
			kind:   "agent_error", msg: "agent 'fake' exited with status 1: Reached maximum number of turns (1)", code: 1},
		// Earlier versions: is_error false, no result, exit 0.
		{name: "claude error subtype without is_error", format: "claude-json",
			stdout: `{"type":"result","subtype":"error_max_turns","is_error":false,"num_turns":11,"session_id":"s","total_cost_usd":0.3}`,
			kind:   "agent_error", msg: "error_max_turns"},
		{name: "claude stream-json error", format: "claude-json", exit: "1", stderr: "warning: update available\n",
			stdout: "{\"type\":\"system\",\"subtype\":\"init\",\"session_id\":\"s\"}\n{\"type\":\"result\",\"subtype\":\"error_during_execution\",\"is_error\":true,\"num_turns\":0,\"errors\":[{\"message\":\"API Error: 529 Overloaded\"}]}\n",
			kind:   "agent_error", msg: "agent 'fake' exited with status 1: API Error: 529 Overloaded", code: 1},
		// gemini prints its error object, indented, on stderr and exits
		// with its code.
		{name: "gemini error on stderr", format: "gemini-json", exit: "53",
			stderr: "Loaded cached credentials.\n{\n  \"session_id\": \"g\",\n  \"error\": {\n    \"type\": \"FatalTurnLimitedError\",\n    \"message\": \"Reached max session turns for this session.\",\n    \"code\": 53\n  }\n}\n",
			kind:   "agent_error", msg: "agent 'fake' exited with status 53: Reached max session turns for this session.", code: 53},
		{name: "gemini stream-json error", format: "gemini-json",
			stdout: "{\"type\":\"init\",\"session_id\":\"g\",\"model\":\"m\"}\n{\"type\":\"error\",\"severity\":\"warning\",\"message\":\"slow\"}\n{\"type\":\"result\",\"status\":\"error\",\"error\":{\"type\":\"ApiError\",\"message\":\"Quota exceeded\"},\"stats\":{\"input_tokens\":1,\"output_tokens\":0}}\n",
			kind:   "agent_error", msg: "Quota exceeded"},
		{name: "codex error event then exit", format: "codex-jsonl", exit: "1",
			stdout: "{\"type\":\"thread.started\",\"thread_id\":\"t\"}\n{\"type\":\"turn.started\"}\n{\"type\":\"error\",\"message\":\"Reconnecting... 5/5\"}\n{\"type\":\"turn.failed\",\"error\":{\"message\":\"stream disconnected before completion: error sending request\"}}\n",
			kind:   "agent_error", msg: "agent 'fake' exited with status 1: stream disconnected before completion: error sending request", code: 1},
		// An interrupted turn: codex prints no terminal event for it.
		{name: "codex interrupted turn", format: "codex-jsonl", stdout: "{\"type\":\"thread.started\",\"thread_id\":\"t\"}\n{\"type\":\"turn.started\"}\n{\"type\":\"item.completed\",\"item\":{\"id\":\"item_0\",\"type\":\"agent_message\",\"text\":\"I will now\"}}\n",
			kind: "agent_error", msg: "agent 'fake' printed no valid codex-jsonl: the last turn.started has no turn.completed (the turn was interrupted)"},
		{name: "gemini no response", format: "gemini-json", stdout: `{"stats":{}}`,
			kind: "agent_error", msg: `agent 'fake' printed no valid gemini-json: no "response" field`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := fake(t, "", map[string]string{"FAKE_STDOUT": tt.stdout, "FAKE_STDERR": tt.stderr, "FAKE_EXIT": tt.exit})
			d.Format = agent.Format(tt.format)
			_, err := runner().Run(context.Background(), d, agent.Call{Prompt: "q", Root: t.TempDir()})
			ae := agentError(t, err)
			if ae.Kind != tt.kind || ae.Msg != tt.msg || ae.ExitCode != tt.code {
				t.Errorf("got %s (exit %d): %q\nwant %s (exit %d): %q", ae.Kind, ae.ExitCode, ae.Msg, tt.kind, tt.code, tt.msg)
			}
			if ae.Stderr != tt.stderr {
				t.Errorf("stderr tail %q, want %q", ae.Stderr, tt.stderr)
			}
			if agent.ReasonOf(err) != tt.kind {
				t.Errorf("ReasonOf = %s", agent.ReasonOf(err))
			}
		})
	}
}

// A call the agent reports as failed still counts the tokens and cost the
// agent reported.
func TestFailedCallKeepsReportedUsage(t *testing.T) {
	d := fake(t, "", map[string]string{"FAKE_EXIT": "1", "FAKE_STDOUT": `{"type":"result","subtype":"error_max_turns","is_error":true,"num_turns":2,"session_id":"s","total_cost_usd":0.25,"usage":{"input_tokens":10,"cache_read_input_tokens":90,"output_tokens":40},"errors":["Reached maximum number of turns (1)"]}`})
	d.Format = agent.FormatClaudeJSON
	_, err := runner().Run(context.Background(), d, agent.Call{Prompt: "q", Root: t.TempDir()})
	ae := agentError(t, err)
	r := ae.Result
	if r == nil || r.Usage != (agent.Usage{InputTokens: 100, OutputTokens: 40}) || !r.HasCost || r.CostUSD != 0.25 || r.Turns != 2 || r.SessionID != "s" {
		t.Fatalf("result of the failed call: %+v", r)
	}
}

func TestOutputOver16MiB(t *testing.T) {
	d := fake(t, "", map[string]string{"FAKE_MODE": "huge", "FAKE_BYTES": strconv.Itoa(16<<20 + 1)})
	_, err := runner().Run(context.Background(), d, agent.Call{Root: t.TempDir()})
	ae := agentError(t, err)
	if ae.Kind != "agent_error" || ae.Msg != "agent 'fake': output over 16 MiB" {
		t.Errorf("got %s: %s", ae.Kind, ae.Msg)
	}
	// Exactly 16 MiB is kept whole.
	d = fake(t, "", map[string]string{"FAKE_MODE": "huge", "FAKE_BYTES": strconv.Itoa(16 << 20)})
	res, err := runner().Run(context.Background(), d, agent.Call{Root: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Content) != 16<<20 {
		t.Errorf("content of %d bytes", len(res.Content))
	}
}

func TestStderrTailAndVerbose(t *testing.T) {
	var b strings.Builder
	for i := 0; i < 3000; i++ {
		b.WriteString("progress line " + strconv.Itoa(i) + " " + strings.Repeat(".", 20) + "\n")
	}
	stderr := b.String() + "last words"
	d := fake(t, "", map[string]string{"FAKE_STDERR": stderr, "FAKE_STDOUT": "x"})
	r := runner()
	var mu sync.Mutex
	var verbose strings.Builder
	r.Verbose = writerFunc(func(p []byte) (int, error) { mu.Lock(); defer mu.Unlock(); return verbose.Write(p) })
	res, err := r.Run(context.Background(), d, agent.Call{Root: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	if res.Stderr != stderr[len(stderr)-64<<10:] {
		t.Errorf("stderr tail of %d bytes, want the last 65536", len(res.Stderr))
	}
	lines := strings.Split(strings.TrimSuffix(verbose.String(), "\n"), "\n")
	if len(lines) != 3001 || lines[0] != "[fake] progress line 0 ...................." || lines[3000] != "[fake] last words" {
		t.Errorf("verbose: %d lines, first %q, last %q", len(lines), lines[0], lines[len(lines)-1])
	}
}

type writerFunc func([]byte) (int, error)

func (f writerFunc) Write(p []byte) (int, error) { return f(p) }

func TestProgramNotFound(t *testing.T) {
	d := agent.Definition{Name: "claude", Command: "claude-not-installed-xyz -p"}
	_, err := runner().Run(context.Background(), d, agent.Call{Root: t.TempDir()})
	ae := agentError(t, err)
	if ae.Kind != "configuration_error" || ae.Msg != "agent 'claude': program 'claude-not-installed-xyz' not found in PATH" {
		t.Errorf("got %s: %s", ae.Kind, ae.Msg)
	}
}

func TestTimeoutKillsTheGroup(t *testing.T) {
	dir := t.TempDir()
	pidfile := filepath.Join(dir, "pids")
	d := fake(t, "", map[string]string{"FAKE_MODE": "hang", "FAKE_PIDFILE": pidfile, "FAKE_GRANDCHILD": "1"})
	d.Timeout = 300 * time.Millisecond
	r := runner()
	r.Grace = 200 * time.Millisecond
	start := time.Now()
	_, err := r.Run(context.Background(), d, agent.Call{Root: dir})
	ae := agentError(t, err)
	if ae.Kind != "execution_timeout" || ae.Msg != "agent 'fake' timed out after 300ms" {
		t.Errorf("got %s: %s", ae.Kind, ae.Msg)
	}
	if el := time.Since(start); el > 5*time.Second {
		t.Errorf("took %v", el)
	}
	p := pids(t, pidfile)
	if len(p) != 2 {
		t.Fatalf("pids %v, want the agent's and its grandchild's", p)
	}
	// The grandchild ignores SIGTERM: only SIGKILL after the grace period ends it.
	assertGone(t, p[0], p[1])
}

func TestCancellationKillsAProcessThatIgnoresSIGTERM(t *testing.T) {
	dir := t.TempDir()
	pidfile := filepath.Join(dir, "pids")
	d := fake(t, "", map[string]string{"FAKE_MODE": "hang", "FAKE_IGNORE_TERM": "1", "FAKE_GRANDCHILD": "1", "FAKE_PIDFILE": pidfile})
	r := runner()
	r.Grace = 400 * time.Millisecond
	started := make(chan int, 1)
	r.OnStart = func(_ agent.Definition, pid int) { started <- pid }
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		_, err := r.Run(ctx, d, agent.Call{Root: dir})
		done <- err
	}()
	pgid := <-started
	for len(pids(t, pidfile)) < 2 {
		time.Sleep(10 * time.Millisecond)
	}
	cancelled := time.Now()
	cancel()
	err := <-done
	el := time.Since(cancelled)
	ae := agentError(t, err)
	if ae.Kind != "execution_halted" || !errors.Is(err, context.Canceled) {
		t.Errorf("got %s: %s", ae.Kind, ae.Msg)
	}
	if el < 400*time.Millisecond {
		t.Errorf("returned after %v, before the grace period: SIGTERM was not ignored?", el)
	}
	if ae.ExitCode != 128+int(syscall.SIGKILL) {
		t.Errorf("exit code %d, want %d (SIGKILL)", ae.ExitCode, 128+int(syscall.SIGKILL))
	}
	p := pids(t, pidfile)
	if p[0] != pgid {
		t.Errorf("pgid %d, agent pid %d", pgid, p[0])
	}
	assertGone(t, pgid, p...)
}

func TestLeftoverGrandchildIsKilled(t *testing.T) {
	dir := t.TempDir()
	pidfile := filepath.Join(dir, "pids")
	d := fake(t, "", map[string]string{"FAKE_MODE": "orphan", "FAKE_PIDFILE": pidfile, "FAKE_STDOUT": "finished"})
	r := runner()
	r.Grace = 200 * time.Millisecond
	res, err := r.Run(context.Background(), d, agent.Call{Root: dir})
	if err != nil {
		t.Fatal(err)
	}
	if res.Content != "finished" || res.ExitCode != 0 {
		t.Errorf("content %q exit %d", res.Content, res.ExitCode)
	}
	p := pids(t, pidfile)
	if len(p) != 2 {
		t.Fatalf("pids %v", p)
	}
	assertGone(t, p[0], p[1])
}

// A process that left the agent's process group and holds its stdout open
// (a daemon) does not keep the call waiting beyond the grace period.
func TestDaemonHoldingStdout(t *testing.T) {
	pids := filepath.Join(t.TempDir(), "pids")
	d := fake(t, "", map[string]string{"FAKE_MODE": "daemon", "FAKE_STDOUT": "answer", "FAKE_PIDFILE": pids})
	t.Cleanup(func() {
		b, _ := os.ReadFile(pids)
		for _, l := range strings.Fields(string(b)) {
			if pid, _ := strconv.Atoi(l); pid > 0 {
				_ = syscall.Kill(pid, syscall.SIGKILL)
			}
		}
	})
	r := runner()
	r.Grace = 300 * time.Millisecond
	begin := time.Now()
	res, err := r.Run(context.Background(), d, agent.Call{Root: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	if res.Content != "answer" {
		t.Errorf("content %q", res.Content)
	}
	if el := time.Since(begin); el > 3*time.Second {
		t.Errorf("the call took %v", el)
	}
}

func TestMaxParallel(t *testing.T) {
	dir := t.TempDir()
	intervals := filepath.Join(dir, "intervals")
	d := fake(t, "", map[string]string{"FAKE_MODE": "interval", "FAKE_INTERVALS": intervals, "FAKE_STDOUT": "ok"})
	d.MaxParallel = 3
	r := runner()
	var wg sync.WaitGroup
	errs := make(chan error, 20)
	for i := 0; i < 20; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, err := r.Run(context.Background(), d, agent.Call{Root: dir})
			errs <- err
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	b, _ := os.ReadFile(intervals)
	type ev struct {
		t     int64
		delta int
	}
	var evs []ev
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		f := strings.Fields(line)
		s, _ := strconv.ParseInt(f[0], 10, 64)
		e, _ := strconv.ParseInt(f[1], 10, 64)
		evs = append(evs, ev{s, 1}, ev{e, -1})
	}
	if len(evs) != 40 {
		t.Fatalf("%d intervals recorded", len(evs)/2)
	}
	sort.Slice(evs, func(i, j int) bool { return evs[i].t < evs[j].t || evs[i].t == evs[j].t && evs[i].delta < evs[j].delta })
	cur, peak := 0, 0
	for _, e := range evs {
		cur += e.delta
		peak = max(peak, cur)
	}
	if peak > 3 {
		t.Errorf("%d agent processes ran at once, max_parallel is 3", peak)
	}
	if peak < 2 {
		t.Errorf("at most %d process ran at once: the calls were not run in parallel", peak)
	}
}

func TestReadOnlyArgsAndEmptyModel(t *testing.T) {
	dir := t.TempDir()
	rec := filepath.Join(dir, "rec.json")
	d := fake(t, "-p --model {model} --x", map[string]string{"FAKE_RECORD": rec})
	d.ReadOnlyArgs = []string{"--permission-mode", "plan"}
	if _, err := runner().Run(context.Background(), d, agent.Call{Root: dir, ReadOnly: true}); err != nil {
		t.Fatal(err)
	}
	if r := readRecord(t, rec); !slices.Equal(r.Argv, []string{"-p", "--x", "--permission-mode", "plan"}) {
		t.Errorf("argv %q", r.Argv)
	}
}

func TestKillAll(t *testing.T) {
	dir := t.TempDir()
	pidfile := filepath.Join(dir, "pids")
	d := fake(t, "", map[string]string{"FAKE_MODE": "hang", "FAKE_IGNORE_TERM": "1", "FAKE_GRANDCHILD": "1", "FAKE_PIDFILE": pidfile})
	r := runner()
	r.Grace = time.Hour // only KillAll can end it in time
	started := make(chan int, 1)
	r.OnStart = func(_ agent.Definition, pid int) { started <- pid }
	done := make(chan error, 1)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		_, err := r.Run(ctx, d, agent.Call{Root: dir})
		done <- err
	}()
	pgid := <-started
	for len(pids(t, pidfile)) < 2 {
		time.Sleep(10 * time.Millisecond)
	}
	agent.KillAll()
	select {
	case err := <-done:
		if ae := agentError(t, err); ae.ExitCode != 128+int(syscall.SIGKILL) {
			t.Errorf("exit code %d", ae.ExitCode)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Run did not return after KillAll")
	}
	assertGone(t, pgid, pids(t, pidfile)...)
}

// TestLinesCarriageReturn: a line redrawn with \r (a progress bar, a
// spinner) is reported at each \r, so the last line is the bar's latest
// state and not the run of states the \n ends; \r\n ends one line.
func TestLinesCarriageReturn(t *testing.T) {
	d := fake(t, "", map[string]string{"FAKE_STDERR": "Receiving objects:  10%\rReceiving objects:  55%\rReceiving objects: 100%, done.\r\nwindows line\r\n", "FAKE_STDOUT": "answer\n"})
	var mu sync.Mutex
	var got []string
	if _, err := runner().Run(context.Background(), d, agent.Call{Root: t.TempDir(), Lines: func(l string) {
		mu.Lock()
		defer mu.Unlock()
		got = append(got, l)
	}}); err != nil {
		t.Fatal(err)
	}
	stderr := []string{}
	for _, l := range got {
		if l != "answer" {
			stderr = append(stderr, l)
		}
	}
	want := []string{"Receiving objects:  10%", "Receiving objects:  55%", "Receiving objects: 100%, done.", "windows line"}
	if strings.Join(stderr, "|") != strings.Join(want, "|") {
		t.Errorf("lines %q, want %q", stderr, want)
	}
}

// TestLines: Call.Lines gets every non-empty line of stdout and stderr,
// trimmed, as the agent prints it (the live display's last line).
func TestLines(t *testing.T) {
	d := fake(t, "", map[string]string{"FAKE_STDERR": "thinking\n\n  editing a.go  \nno newline", "FAKE_STDOUT": "answer\n"})
	var mu sync.Mutex
	got := map[string]bool{}
	n := 0
	res, err := runner().Run(context.Background(), d, agent.Call{Root: t.TempDir(), Lines: func(l string) {
		mu.Lock()
		defer mu.Unlock()
		got[l] = true
		n++
	}})
	if err != nil {
		t.Fatal(err)
	}
	if res.Content != "answer" {
		t.Errorf("content %q", res.Content)
	}
	if n != 3 || !got["thinking"] || !got["editing a.go"] || !got["answer"] {
		t.Errorf("lines %v (%d calls), want thinking, editing a.go and answer", got, n)
	}
}
