package engine_test

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/evalrun/evalrun/engine"
	"github.com/evalrun/evalrun/value"
)

// fakeClaude prints claude-json with the user prompt (its stdin) echoed in
// .result and records its arguments and stdin in calls/.
const fakeClaude = `#!/bin/sh
mkdir -p calls
n=$(ls calls | grep -c 'argv$')
for a in "$@"; do printf '%s\0' "$a"; done > calls/$n.argv
cat > calls/$n.stdin
printf '{"type":"result","is_error":false,"num_turns":2,"result":"claude saw %s","total_cost_usd":0.5,"usage":{"input_tokens":100,"output_tokens":20}}' "$(head -c 40 calls/$n.stdin | tr -d '\n"\\')"
`

// fakeCodex prints codex-jsonl events.
const fakeCodex = `#!/bin/sh
cat > /dev/null
echo '{"type":"thread.started","thread_id":"t1"}'
echo '{"type":"turn.started"}'
echo '{"type":"item.completed","item":{"id":"i1","type":"agent_message","text":"codex done"}}'
echo '{"type":"turn.completed","usage":{"input_tokens":50,"cached_input_tokens":10,"output_tokens":5}}'
`

const agentsConfig = `[agents.fakeclaude]
command = "./fake-claude.sh -p --model {model} --append-system-prompt {role}"
stdin = true
format = "claude-json"
default_model = "sonnet"
models = { sonnet = "claude-sonnet-4-5" }

[agents.fakecodex]
command = "./fake-codex.sh exec --json -"
stdin = true
format = "codex-jsonl"

[roles.reviewer]
prompt = "You review code for {model}."

[contexts.env]
file = "ENV.md"
required = true

[contexts.missing]
file = "NOPE.md"
required = true

[contexts.style]
prompt = "Style: terse."
tags = ["writing"]

[tasks.say]
alias = "sy"
agent = "fakeclaude"
prompt = "Say {instructions}"
`

const reviewXML = `<task name="review" type="atomic" role="reviewer">
  <description>Review</description>
  <agent>fakeclaude</agent>
  <system>Focus on {{focus}}.</system>
  <instructions>Review "it" $(now)</instructions>
</task>
`

const summaryXML = `<task name="summary" type="atomic">
  <description>Summary</description>
  <agent>fakecodex</agent>
  <instructions>Summarise</instructions>
</task>
`

func agentProject(t *testing.T) string {
	dir := project(t, map[string]string{
		".evalrun/config.toml":           agentsConfig,
		".evalrun/templates/review.xml":  reviewXML,
		".evalrun/templates/summary.xml": summaryXML,
		"ENV.md":                         "ENVIRONMENT: test box",
	})
	for name, text := range map[string]string{"fake-claude.sh": fakeClaude, "fake-codex.sh": fakeCodex} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func TestAgentWorkflow(t *testing.T) {
	dir := agentProject(t)
	var stderr bytes.Buffer
	e := open(t, engine.Options{WorkDir: dir, Stderr: &stderr, Getenv: env(t), AgentOptions: engine.AgentOptions{ListContexts: true}})
	v, err := e.Eval(context.Background(), "<test>", `(list (review (focus "errors")) (summary))`)
	if err != nil {
		t.Fatal(err)
	}
	l := v.(value.List)
	r1, r2 := l[0].(*value.TaskResult), l[1].(*value.TaskResult)
	if r1.Content != "claude saw ENVIRONMENT: test boxStyle: terse" && !strings.HasPrefix(r1.Content, "claude saw ENVIRONMENT: test box") {
		t.Errorf("review: %s %q", r1.Status, r1.Content)
	}
	if r2.Status != value.StatusComplete || r2.Content != "codex done" {
		t.Errorf("summary: %s %q", r2.Status, r2.Content)
	}
	argv, _ := os.ReadFile(filepath.Join(dir, "calls", "0.argv"))
	wantArgv := "-p\x00--model\x00claude-sonnet-4-5\x00--append-system-prompt\x00You review code for claude-sonnet-4-5.\n\nFocus on errors.\x00"
	if string(argv) != wantArgv {
		t.Errorf("argv %q\nwant %q", argv, wantArgv)
	}
	stdin, _ := os.ReadFile(filepath.Join(dir, "calls", "0.stdin"))
	if string(stdin) != "ENVIRONMENT: test box\n\nReview \"it\" $(now)" {
		t.Errorf("stdin %q", stdin)
	}
	for _, want := range []string{
		"contexts:\n  ✓ env       ENV.md\n  ✗ missing   NOPE.md (not found)\n",
		"agent fakeclaude from local (.evalrun/config.toml:1): ./fake-claude.sh -p --model {model} --append-system-prompt {role}\n",
		"agent fakecodex from local (.evalrun/config.toml:8): ./fake-codex.sh exec --json -\n",
	} {
		if !strings.Contains(stderr.String(), want) {
			t.Errorf("stderr lacks %q:\n%s", want, stderr.String())
		}
	}
	if u := e.Usage(); u.Calls != 2 || u.InputTokens != 150 || u.OutputTokens != 25 || u.Turns != 3 {
		t.Errorf("usage %+v", u)
	}
	// A configuration task runs like a template, here with its agent.
	v, err = e.Eval(context.Background(), "<test>", `(sy)`)
	if err != nil {
		t.Fatal(err)
	}
	if r := v.(*value.TaskResult); r.Status != value.StatusComplete || !strings.HasPrefix(r.Content, "claude saw ENVIRONMENT: test box") {
		t.Errorf("say: %s %q", r.Status, r.Content)
	}
	stdin, _ = os.ReadFile(filepath.Join(dir, "calls", "1.stdin"))
	if string(stdin) != "ENVIRONMENT: test box\n\nSay None" {
		t.Errorf("stdin %q", stdin)
	}
}

func TestAgentOptionsAndContexts(t *testing.T) {
	dir := agentProject(t)
	var stderr bytes.Buffer
	e := open(t, engine.Options{WorkDir: dir, Stderr: &stderr, Getenv: env(t),
		AgentOptions: engine.AgentOptions{Agent: "fakecodex", Contexts: []string{"writing"}, ListContexts: true}})
	v, err := e.Eval(context.Background(), "<test>", `(review (focus "x"))`)
	if err != nil {
		t.Fatal(err)
	}
	if r := v.(*value.TaskResult); r.Content != "codex done" {
		t.Errorf("--agent fakecodex: %q", r.Content)
	}
	if !strings.Contains(stderr.String(), "contexts:\n  ✓ env       ENV.md\n  ✗ missing   NOPE.md (not found)\n  ✓ style     prompt\n") {
		t.Errorf("stderr %s", stderr.String())
	}
	// Without ListContexts (repl, eval, context) the list is not printed.
	var quiet bytes.Buffer
	open(t, engine.Options{WorkDir: dir, Stderr: &quiet, Getenv: env(t), AgentOptions: engine.AgentOptions{Contexts: []string{"writing"}}})
	if strings.Contains(quiet.String(), "contexts:") {
		t.Errorf("the contexts were listed without ListContexts:\n%s", quiet.String())
	}
	for _, tc := range []struct {
		opts engine.AgentOptions
		prov string
		kind engine.Kind
		msg  string
	}{
		{engine.AgentOptions{Agent: "fakeclaude"}, "echo", engine.KindUsage, "--agent and --provider cannot be used together"},
		{engine.AgentOptions{Role: "reviewr"}, "", engine.KindConfig, "--role: unknown role 'reviewr' (did you mean 'reviewer'?)"},
		{engine.AgentOptions{Contexts: []string{"writng"}}, "", engine.KindConfig, "--context: unknown context or tag 'writng' (did you mean 'writing'?)"},
	} {
		_, err := engine.Open(engine.Options{WorkDir: dir, Getenv: env(t), Provider: tc.prov, AgentOptions: tc.opts})
		var ee *engine.Error
		if !errors.As(err, &ee) || ee.Kind != tc.kind || ee.Err.Error() != tc.msg {
			t.Errorf("%+v: %v", tc.opts, err)
		}
	}
}

// start's contexts marked default = true are selected by the pseudo-tag
// "default", and only by it.
func TestDefaultContextsAreThePseudoTagDefault(t *testing.T) {
	dir := agentProject(t)
	f, err := os.OpenFile(filepath.Join(dir, ".evalrun", "config.toml"), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteString("\n[contexts.proj]\nprompt = \"Project: demo.\"\ndefault = true\n"); err != nil {
		t.Fatal(err)
	}
	f.Close()
	for _, tc := range []struct {
		contexts []string
		want     bool
	}{{nil, false}, {[]string{"writing"}, false}, {[]string{"default"}, true}} {
		var stderr bytes.Buffer
		open(t, engine.Options{WorkDir: dir, Stderr: &stderr, Getenv: env(t),
			AgentOptions: engine.AgentOptions{Contexts: tc.contexts, ListContexts: true}})
		if got := strings.Contains(stderr.String(), "✓ proj "); got != tc.want {
			t.Errorf("--context %v: proj selected %v, want %v:\n%s", tc.contexts, got, tc.want, stderr.String())
		}
	}
}

func TestAgentDryRun(t *testing.T) {
	dir := agentProject(t)
	var stderr bytes.Buffer
	e := open(t, engine.Options{WorkDir: dir, Stderr: &stderr, Getenv: env(t), DryRun: true})
	v, err := e.Eval(context.Background(), "<test>", `(review (focus "x"))`)
	if err != nil {
		t.Fatal(err)
	}
	if r := v.(*value.TaskResult); r.Content != "ENVIRONMENT: test box\n\nReview \"it\" $(now)" {
		t.Errorf("echo answer %q", r.Content)
	}
	if _, err := os.Stat(filepath.Join(dir, "calls")); err == nil {
		t.Error("the agent ran in a dry run")
	}
	files, _ := filepath.Glob(filepath.Join(dir, ".evalrun", "dry-run", "*", "001-review.md"))
	if len(files) != 1 {
		t.Fatalf("prompt files %v", files)
	}
	text, _ := os.ReadFile(files[0])
	for _, want := range []string{
		"- agent: fakeclaude\n",
		"- argv: ./fake-claude.sh -p --model claude-sonnet-4-5 --append-system-prompt 'You review code for claude-sonnet-4-5.\n\nFocus on x.'\n",
		"## system\n\nYou review code for claude-sonnet-4-5.\n\nFocus on x.\n",
		"## user\n\nENVIRONMENT: test box\n\nReview \"it\" $(now)\n",
	} {
		if !strings.Contains(string(text), want) {
			t.Errorf("prompt file lacks %q:\n%s", want, text)
		}
	}
	if strings.Contains(string(text), "- system:") {
		t.Errorf("fakeclaude places its system prompt, yet:\n%s", text)
	}
	// fakecodex has no {role}: the file says where the system prompt goes.
	e = open(t, engine.Options{WorkDir: dir, Stderr: &stderr, Getenv: env(t), DryRun: true,
		AgentOptions: engine.AgentOptions{Agent: "fakecodex"}})
	if _, err := e.Eval(context.Background(), "<test>", `(review (focus "x"))`); err != nil {
		t.Fatal(err)
	}
	files, _ = filepath.Glob(filepath.Join(dir, ".evalrun", "dry-run", "*", "001-review.md"))
	found := false
	for _, f := range files {
		text, _ := os.ReadFile(f)
		found = found || strings.Contains(string(text), "- agent: fakecodex\n- argv: ./fake-codex.sh exec --json -\n- system: sent before the user prompt (the command has no {role} or {role_file})\n")
	}
	if !found {
		t.Errorf("no prompt file of fakecodex says where its system prompt goes (%v)", files)
	}
}

// parallel-map over 20 agent calls never runs more than max_parallel = 3
// agent processes at once, as the fake agent measures.
func TestAgentMaxParallel(t *testing.T) {
	dir := project(t, map[string]string{
		".evalrun/config.toml": `[agents.slow]
command = "./slow.sh {prompt}"
max_parallel = 3
`,
		".evalrun/templates/ask.xml": `<task name="ask" type="atomic"><description>d</description><agent>slow</agent><instructions>n={{n}}</instructions></task>`,
	})
	script := "#!/bin/sh\nstart=$(date +%s%N)\nsleep 0.2\necho \"$start $(date +%s%N)\" >> intervals\necho \"$1\"\n"
	if err := os.WriteFile(filepath.Join(dir, "slow.sh"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	e := open(t, engine.Options{WorkDir: dir, Getenv: env(t)})
	v, err := e.Eval(context.Background(), "<test>", `(parallel-map (lambda (i) (get-field (ask (n i)) "content")) (range 20))`)
	if err != nil {
		t.Fatal(err)
	}
	if l := v.(value.List); len(l) != 20 || l[7] != value.String("n=7") {
		t.Errorf("results %v", v)
	}
	b, _ := os.ReadFile(filepath.Join(dir, "intervals"))
	type ev struct {
		t     int64
		delta int
	}
	var evs []ev
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		f := strings.Fields(line)
		s, _ := strconv.ParseInt(f[0], 10, 64)
		en, _ := strconv.ParseInt(f[1], 10, 64)
		evs = append(evs, ev{s, 1}, ev{en, -1})
	}
	if len(evs) != 40 {
		t.Fatalf("%d calls measured", len(evs)/2)
	}
	sort.Slice(evs, func(i, j int) bool { return evs[i].t < evs[j].t || evs[i].t == evs[j].t && evs[i].delta < evs[j].delta })
	cur, peak := 0, 0
	for _, x := range evs {
		cur += x.delta
		peak = max(peak, cur)
	}
	if peak > 3 || peak < 2 {
		t.Errorf("peak of %d agent processes at once, want 2..3", peak)
	}
}

func TestWorkspaceListsAgentsRolesContexts(t *testing.T) {
	dir := agentProject(t)
	ws, err := engine.LoadWorkspace(engine.Options{WorkDir: dir, Getenv: env(t)})
	if err != nil {
		t.Fatal(err)
	}
	var agents []string
	for _, a := range ws.Agents() {
		agents = append(agents, a.Name+" "+a.Scope+" "+strconv.FormatBool(a.Path != ""))
	}
	want := "aider builtin false,claude builtin false,codex builtin false,fakeclaude local true,fakecodex local true,gemini builtin false,qwen builtin false"
	if got := strings.Join(agents, ","); got != want {
		t.Errorf("agents %s", got)
	}
	if r := ws.Roles(); len(r) != 1 || r[0].Name != "reviewer" || r[0].Kind != "prompt" || r[0].Origin != "local (.evalrun/config.toml:13)" {
		t.Errorf("roles %+v", r)
	}
	c := ws.Contexts()
	if len(c) != 3 || !c[0].Found || c[1].Found || c[2].Where != "prompt" || c[2].Tags[0] != "writing" {
		t.Errorf("contexts %+v", c)
	}
	if tm, ok := ws.Templates.Lookup("sy"); !ok || tm.Name != "say" || tm.Agent != "fakeclaude" || tm.Source() != "local .evalrun/config.toml:28" {
		t.Errorf("say %+v", tm)
	}
	p, err := ws.AddAsset("commit-message", "local", "", env(t))
	if err != nil || p != ".evalrun/templates/commit-message.xml" {
		t.Errorf("AddAsset %q %v", p, err)
	}
	if _, err := ws.AddAsset("commit-message", "local", "", env(t)); err == nil || !strings.Contains(err.Error(), "file exists; not overwritten") {
		t.Errorf("second AddAsset: %v", err)
	}
}

// --record writes agent answers; --provider replay answers agent calls
// from the cassette without starting the agents.
func TestAgentRecordReplay(t *testing.T) {
	dir := agentProject(t)
	cassette := filepath.Join(dir, "agents.jsonl")
	e := open(t, engine.Options{WorkDir: dir, Getenv: env(t), Record: cassette})
	first, err := e.Eval(context.Background(), "<test>", `(list (get-field (review (focus "x")) "content") (get-field (summary) "content"))`)
	if err != nil {
		t.Fatal(err)
	}
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(cassette)
	if n := strings.Count(string(data), "\n"); n != 2 || !strings.Contains(string(data), `"cost_usd":0.5`) {
		t.Fatalf("cassette of %d lines:\n%s", n, data)
	}
	os.RemoveAll(filepath.Join(dir, "calls"))
	os.Remove(filepath.Join(dir, "fake-codex.sh"))
	e = open(t, engine.Options{WorkDir: dir, Getenv: env(t, "EVALRUN_CASSETTE", cassette), Provider: "replay"})
	second, err := e.Eval(context.Background(), "<test>", `(list (get-field (review (focus "x")) "content") (get-field (summary) "content"))`)
	if err != nil {
		t.Fatal(err)
	}
	if !value.Equal(first, second) {
		t.Errorf("replayed %v, recorded %v", second, first)
	}
	if _, err := os.Stat(filepath.Join(dir, "calls")); err == nil {
		t.Error("an agent ran under replay")
	}
}

// A failing sibling of parallel-map cancels the agent calls running beside
// it: their process groups are ended and no process is left behind.
func TestAgentCancelledBySibling(t *testing.T) {
	dir := project(t, map[string]string{
		".evalrun/config.toml":         "[agents.hang]\ncommand = \"./hang.sh\"\n[agents.ready]\ncommand = \"./ready.sh\"\n",
		".evalrun/templates/wait.xml":  `<task name="wait" type="atomic"><description>d</description><agent>hang</agent><instructions>n={{n}}</instructions></task>`,
		".evalrun/templates/ready.xml": `<task name="ready" type="atomic"><description>d</description><agent>ready</agent><instructions>ready?</instructions></task>`,
	})
	for name, script := range map[string]string{
		"hang.sh": "#!/bin/sh\necho $$ >> pids\nsleep 30 &\necho $! >> pids\nwait\n",
		// ready.sh returns once both hanging agents and their children run.
		"ready.sh": "#!/bin/sh\nfor i in $(seq 200); do [ \"$(wc -l < pids 2>/dev/null)\" = 4 ] && break; sleep 0.05; done\necho ok\n",
	} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(script), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	e := open(t, engine.Options{WorkDir: dir, Getenv: env(t)})
	start := time.Now()
	_, err := e.Eval(context.Background(), "<test>",
		`(parallel-map (lambda (i) (if (= i 0) (progn (ready) (error "boom")) (wait (n i)))) (range 3))`)
	if err == nil || !strings.Contains(err.Error(), "boom") {
		t.Fatalf("err %v", err)
	}
	if el := time.Since(start); el > 20*time.Second {
		t.Errorf("took %v: the agents were not cancelled", el)
	}
	b, _ := os.ReadFile(filepath.Join(dir, "pids"))
	pids := strings.Fields(string(b))
	if len(pids) != 4 {
		t.Fatalf("pids %q: both agents should have started", pids)
	}
	for _, p := range pids {
		n, _ := strconv.Atoi(p)
		if st, err := os.ReadFile("/proc/" + p + "/stat"); err == nil && !strings.Contains(string(st), ") Z ") {
			t.Errorf("process %d outlived the cancelled call: %s", n, st)
		}
	}
}

// TestContextsRenderedOnFirstTaskCall: without the contexts list (eval,
// repl), a required context's command runs before the first task call and
// not at all in a run that calls no task.
func TestContextsRenderedOnFirstTaskCall(t *testing.T) {
	dir := project(t, map[string]string{
		".evalrun/config.toml": "[contexts.toolchain]\nrequired = true\ncommand = \"echo ran >> marker; echo TOOLCHAIN\"\n",
	})
	open := func() *engine.Engine {
		e, err := engine.Open(engine.Options{WorkDir: dir, Provider: "echo", Getenv: env(t)})
		if err != nil {
			t.Fatal(err)
		}
		return e
	}
	e := open()
	if v, err := e.Eval(context.Background(), "<eval>", "(+ 1 2)"); err != nil || v.String() != "3" {
		t.Fatalf("eval: %v %v", v, err)
	}
	e.Close()
	if _, err := os.Stat(filepath.Join(dir, "marker")); err == nil {
		t.Fatal("a run without task calls ran the context's command")
	}
	e = open()
	defer e.Close()
	v, err := e.Eval(context.Background(), "<eval>", `(defatom hi (instructions "hello")) (list (get-field (hi) "content") (get-field (hi) "content"))`)
	if err != nil {
		t.Fatal(err)
	}
	if got := v.String(); got != `("TOOLCHAIN\n\nhello" "TOOLCHAIN\n\nhello")` {
		t.Errorf("task contents %s", got)
	}
	if data, _ := os.ReadFile(filepath.Join(dir, "marker")); string(data) != "ran\n" {
		t.Errorf("the context's command ran %q times, want once", data)
	}
}

// fakeAider prints what aider 0.86 prints on stdout for --no-pretty
// --message in a git repository, and records its arguments.
const fakeAider = `#!/bin/sh
for a in "$@"; do printf '%s\0' "$a"; done > aider.argv
cat <<'OUT'
Detected dumb terminal, disabling fancy input and pretty output.

Aider v0.86.1
Main model: anthropic/claude-sonnet-4-20250514 with diff edit format, infinite output
Weak model: anthropic/claude-3-5-haiku-20241022
Git repo: .git with 42 files
Repo-map: using 4096 tokens, auto refresh

The function is fine.

Tokens: 12k sent, 1.2k received. Cost: $0.04 message, $0.04 session.
OUT
`

// TestBuiltinAiderAgent runs the built-in aider agent, unconfigured, with
// a fake aider on PATH: the answer is aider's reply alone, the usage and
// cost those aider reported.
func TestBuiltinAiderAgent(t *testing.T) {
	dir := project(t, map[string]string{".evalrun/templates/ask.xml": `<task name="ask" type="atomic">
  <description>Ask</description>
  <agent>aider</agent>
  <instructions>Is f fine?</instructions>
</task>
`})
	bin := t.TempDir()
	if err := os.WriteFile(filepath.Join(bin, "aider"), []byte(fakeAider), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	e := open(t, engine.Options{WorkDir: dir, Stderr: &bytes.Buffer{}, Getenv: env(t)})
	v, err := e.Eval(context.Background(), "<test>", `(ask)`)
	if err != nil {
		t.Fatal(err)
	}
	r := v.(*value.TaskResult)
	if r.Status != value.StatusComplete || r.Content != "The function is fine." {
		t.Errorf("aider: %s %q", r.Status, r.Content)
	}
	if u := e.Usage(); u.InputTokens != 12000 || u.OutputTokens != 1200 || u.CostUSD != 0.04 {
		t.Errorf("usage %+v", u)
	}
	argv, _ := os.ReadFile(filepath.Join(dir, "aider.argv"))
	if want := "--yes-always\x00--no-pretty\x00--no-show-model-warnings\x00--no-check-update\x00--no-analytics\x00--message=Is f fine?\x00"; string(argv) != want {
		t.Errorf("argv %q\nwant %q", argv, want)
	}
}
