package config

import (
	"slices"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/evalrun/evalrun/agent"
)

func TestAgentTables(t *testing.T) {
	dir := t.TempDir()
	g := write(t, dir, "g.toml", `default_agent = "claude"
default_role = "reviewer"
[agents.claude]
command = "claude -p --model {model}"
stdin = true
[agents.mine]
description = "my agent"
command = "GEMINI_SYSTEM_MD={{.role_file}} {{.bin}} --model {{.model}} {{.prompt}}"
bin = "/opt/gemini"
format = "gemini-json"
default_model = "pro"
models = { pro = "gemini-2.5-pro" }
timeout = "10m"
max_parallel = 2
env = { DISABLE_AUTOUPDATER = "1" }
read_only_args = ["--sandbox"]
[roles.reviewer]
description = "Reviews code"
file = "~/roles/reviewer.md"
prompt = "{file_contents}\nToday is {date}."
command_timeout = 5
[contexts.zeta]
file = "ENV.md"
required = true
[contexts.alpha]
prompt = "Be kind."
tags = ["style", "tone"]
[tasks.git-diff-review]
alias = "gdr"
description = "Review git diff changes"
role = "reviewer"
agent = "claude"
command = "git diff --staged"
shell = "bash"
command_timeout = "45s"
prompt = """
Review this.
{instructions}
{command_output}
"""
[tasks.explain]
prompt = "Explain {instructions}"
`)
	l := write(t, dir, "l.toml", `[agents.claude]
command = "claude -p --output-format json"
format = "claude-json"
stdin = true
[contexts.project]
file = "PROJECT.md"
required = true
[tasks.explain]
alias = "ex"
prompt = "Explain simply: {instructions}"
`)
	cfg, err := Load(g, l, WithDisplay(func(p string) string {
		if p == l {
			return ".evalrun/config.toml"
		}
		return "~/.config/evalrun/config.toml"
	}))
	if err != nil {
		t.Fatal(err)
	}
	c := cfg.AgentConfig
	if c.DefaultAgent != "claude" || c.DefaultRole != "reviewer" {
		t.Errorf("defaults %q %q", c.DefaultAgent, c.DefaultRole)
	}
	// The local table replaces the global one whole.
	want := agent.Definition{Name: "claude", Command: "claude -p --output-format json", Stdin: true, Format: "claude-json",
		Scope: "local", Source: ".evalrun/config.toml:1"}
	if diff := cmp.Diff(want, c.Agents["claude"]); diff != "" {
		t.Errorf("claude (-want +got):\n%s", diff)
	}
	want = agent.Definition{Name: "mine", Description: "my agent", Command: "GEMINI_SYSTEM_MD={{.role_file}} {{.bin}} --model {{.model}} {{.prompt}}",
		Bin: "/opt/gemini", Format: "gemini-json", DefaultModel: "pro", Models: map[string]string{"pro": "gemini-2.5-pro"},
		Timeout: 10 * time.Minute, MaxParallel: 2, Env: map[string]string{"DISABLE_AUTOUPDATER": "1"}, ReadOnlyArgs: []string{"--sandbox"},
		Scope: "global", Source: "~/.config/evalrun/config.toml:6"}
	if diff := cmp.Diff(want, c.Agents["mine"]); diff != "" {
		t.Errorf("mine (-want +got):\n%s", diff)
	}
	if d, ok := c.AgentDefinition("codex"); !ok || d.Scope != "builtin" {
		t.Errorf("codex: %+v %v", d, ok)
	}
	if got := c.AgentNames(); !cmp.Equal(got, []string{"aider", "claude", "codex", "gemini", "mine", "qwen"}) {
		t.Errorf("names %q", got)
	}
	if got := c.UnknownAgent("cluade"); got != "unknown agent 'cluade' (did you mean 'claude'?)" {
		t.Error(got)
	}
	wantRole := Role{Name: "reviewer", Description: "Reviews code",
		UTD:    UTD{File: "~/roles/reviewer.md", Prompt: "{file_contents}\nToday is {date}.", CommandTimeout: 5 * time.Second},
		Origin: Origin{Scope: "global", Path: "~/.config/evalrun/config.toml", Line: 17}}
	if diff := cmp.Diff(wantRole, c.RoleDefs["reviewer"]); diff != "" {
		t.Errorf("role (-want +got):\n%s", diff)
	}
	if !cfg.HasRole("reviewer") {
		t.Error("HasRole(reviewer) is false")
	}
	var names []string
	for _, x := range c.Contexts {
		names = append(names, x.Name+"@"+x.Origin.String())
	}
	wantNames := []string{"zeta@global (~/.config/evalrun/config.toml:22)", "alpha@global (~/.config/evalrun/config.toml:25)", "project@local (.evalrun/config.toml:5)"}
	if diff := cmp.Diff(wantNames, names); diff != "" {
		t.Errorf("contexts (-want +got):\n%s", diff)
	}
	if x := c.Contexts[1]; !cmp.Equal(x.Tags, []string{"style", "tone"}) || x.Required {
		t.Errorf("alpha %+v", x)
	}
	wantTask := Task{Name: "git-diff-review", Alias: "gdr", Description: "Review git diff changes", Role: "reviewer", Agent: "claude",
		UTD:    UTD{Command: "git diff --staged", Shell: "bash", CommandTimeout: 45 * time.Second, Prompt: "Review this.\n{instructions}\n{command_output}\n"},
		Origin: Origin{Scope: "global", Path: "~/.config/evalrun/config.toml", Line: 28}}
	if diff := cmp.Diff(wantTask, c.Tasks["git-diff-review"]); diff != "" {
		t.Errorf("task (-want +got):\n%s", diff)
	}
	if ex := c.Tasks["explain"]; ex.Alias != "ex" || ex.Prompt != "Explain simply: {instructions}" || ex.Origin.String() != "local (.evalrun/config.toml:8)" {
		t.Errorf("explain %+v", ex)
	}
}

// An agent without default_model takes the first entry of its models
// table as written (start's rule), in a table or inline; default_model
// wins; no models, no model.
func TestAgentDefaultModelIsFirstModel(t *testing.T) {
	l := write(t, t.TempDir(), "l.toml", `[agents.table]
command = "a --model {model} {prompt}"
  [agents.table.models]
  sonnet = "claude-sonnet"
  haiku = "claude-haiku"
  opus = "claude-opus"
[agents.inline]
command = "b --model {model} {prompt}"
models = { zeta = "z-1", alpha = "a-1" }
[agents.chosen]
command = "c --model {model} {prompt}"
default_model = "alpha"
models = { zeta = "z-1", alpha = "a-1" }
[agents.none]
command = "d {prompt}"
`)
	cfg, err := Load("", l)
	if err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string]string{"table": "sonnet", "inline": "zeta", "chosen": "alpha", "none": ""} {
		if got := cfg.Agents[name].DefaultModel; got != want {
			t.Errorf("%s: default model %q, want %q", name, got, want)
		}
	}
}

// A local file alone is the local scope.
func TestAgentTablesLocalOnly(t *testing.T) {
	l := write(t, t.TempDir(), "l.toml", "[agents.x]\ncommand = \"x {prompt}\"\n")
	cfg, err := Load("", l)
	if err != nil {
		t.Fatal(err)
	}
	if s := cfg.Agents["x"].Scope; s != "local" {
		t.Errorf("scope %q", s)
	}
}

// The descriptive keys of start's asset schemas (tags, origin, an agent's
// url and models_url), its UTD key timeout, a context's default and its
// { id = … } model tables are accepted as pasted.
func TestStartAssetKeys(t *testing.T) {
	p := write(t, t.TempDir(), "c.toml", `[agents.claude]
bin = "claude"
command = "{{.bin}} --model {{.model}} --append-system-prompt-file {{.role_file}} {{.prompt}}"
description = "Claude Code by Anthropic - agentic coding assistant"
url = "https://docs.claude.com/claude-code"
models_url = "https://docs.anthropic.com/en/docs/about-claude/models"
tags = ["anthropic", "claude", "coding", "agent"]
origin = "start.cue.works/agents/claude"
[agents.claude.models]
haiku = { id = "claude-3-5-haiku-20241022", name = "Haiku" }
sonnet = "claude-sonnet-4-20250514"

[roles.golang-agent]
description = "Go expert"
tags = ["golang"]
command = "go version"
timeout = 7
prompt = "Go: {command_output}"

[contexts.project]
default = true
file = "./PROJECT.md"
tags = ["project", "documentation"]

[tasks.code-review]
description = "Review code changes before committing"
role = "golang-agent"
agent = "claude"
command = "git diff --staged"
prompt = "Review: {command_output} {instructions}"
timeout = 30
tags = ["review", "git"]
`)
	cfg, err := Load("", p, base)
	if err != nil {
		t.Fatal(err)
	}
	d := cfg.Agents["claude"]
	if d.Models["haiku"] != "claude-3-5-haiku-20241022" || d.Models["sonnet"] != "claude-sonnet-4-20250514" || d.DefaultModel != "haiku" {
		t.Errorf("models %v, default %q", d.Models, d.DefaultModel)
	}
	if r := cfg.RoleDefs["golang-agent"]; r.CommandTimeout != 7*time.Second {
		t.Errorf("role timeout %v", r.CommandTimeout)
	}
	if tk := cfg.Tasks["code-review"]; tk.CommandTimeout != 30*time.Second {
		t.Errorf("task timeout %v", tk.CommandTimeout)
	}
	if len(cfg.Contexts) != 1 || cfg.Contexts[0].Required || !slices.Equal(cfg.Contexts[0].Tags, []string{"project", "documentation"}) {
		t.Errorf("contexts %+v", cfg.Contexts)
	}
}

// start writes the placeholders of roles, contexts and tasks as Go
// templates, {{.name}}: they are read as {name}.
func TestStartPlaceholdersInPrompts(t *testing.T) {
	p := write(t, t.TempDir(), "c.toml", `[roles.r]
prompt = "Role for {{ .model }} on {{.date}}"
[contexts.env]
required = true
file = "~/context/ENVIRONMENT.md"
prompt = "User environment context: {{.file_contents}}"
[tasks.code-review]
command = "git diff --staged"
prompt = """
Review:
{{.command_output}}
## Custom Instructions
{{.instructions}} {not-a-placeholder} {{"json": 1}}
"""
`)
	cfg, err := Load("", p, base)
	if err != nil {
		t.Fatal(err)
	}
	if got := cfg.RoleDefs["r"].Prompt; got != "Role for {model} on {date}" {
		t.Errorf("role prompt %q", got)
	}
	if got := cfg.Contexts[0].Prompt; got != "User environment context: {file_contents}" {
		t.Errorf("context prompt %q", got)
	}
	if got := cfg.Tasks["code-review"].Prompt; got != "Review:\n{command_output}\n## Custom Instructions\n{instructions} {not-a-placeholder} {{\"json\": 1}}\n" {
		t.Errorf("task prompt %q", got)
	}
}

func TestAgentTableErrors(t *testing.T) {
	for _, tc := range []struct {
		name, text string
		want       []string
	}{
		{"unknown placeholder", "[agents.a]\ncommand = \"a {promt}\"\n",
			[]string{"c.toml:2:14: agents.a.command: unknown placeholder {promt} (known: {prompt}, {role}, {role_file}, {model}, {date}, {instructions}, {task}, {root}, {bin})"}},
		// The column is that of the placeholder in the file, past escapes
		// of the string before it.
		{"template action", "[agents.a]\ncommand = \"GEMINI_SYSTEM_MD=\\\"{{.role_file}}\\\" \\u00e9 {{.bin}} {{if .model}}-m {{.model}}{{end}}\"\n",
			[]string{"c.toml:2:64: agents.a.command: unsupported template action {{if .model}}: only placeholders {{.NAME}} are replaced (no if, range, pipes, functions or {{- trim markers)"}},
		{"capitalised placeholder in a literal string", "[agents.a]\ncommand = '{{.Bin}} {{.prompt}}'\n",
			[]string{"c.toml:2:12: agents.a.command: unknown placeholder {{.Bin}} (placeholders are lower case: {{.bin}})"}},
		{"unclosed in a multi-line string", "[agents.a]\ncommand = \"\"\"\nclaude \\\n  {{.prompt}\n\"\"\"\n",
			[]string{"c.toml:4:3: agents.a.command: unclosed {{ (a placeholder is {{.NAME}} or {NAME})"}},
		{"empty command", "[agents.a]\ncommand = \"  \"\n", []string{"c.toml:2:11: agents.a.command: empty command"}},
		{"missing command", "[agents.a]\nstdin = true\n", []string{"c.toml:1:9: agents.a: missing key 'command'"}},
		{"bad format", "[agents.a]\ncommand = \"a\"\nformat = \"json\"\n",
			[]string{`c.toml:3:10: agents.a.format: unknown format "json" (want one of text, claude-json, codex-jsonl, gemini-json, aider-text)`}},
		{"prompt and stdin", "[agents.a]\ncommand = \"a {prompt}\"\nstdin = true\n",
			[]string{"c.toml:2:11: agents.a.command: the command uses {prompt} and stdin = true; use one of them"}},
		{"unterminated", "[agents.a]\ncommand = \"a 'b\"\n", []string{"c.toml:2:11: agents.a.command: unterminated single quote"}},
		{"timeout", "[agents.a]\ncommand = \"a\"\ntimeout = \"soon\"\n", []string{`c.toml:3:11: agents.a.timeout: invalid duration "soon": expected a Go duration such as "90s" or "5m"`}},
		{"max parallel", "[agents.a]\ncommand = \"a\"\nmax_parallel = 0\n", []string{"c.toml:3:16: agents.a.max_parallel: must be at least 1, got 0"}},
		{"unknown key", "[agents.a]\ncommand = \"a\"\nformt = \"text\"\n", []string{"c.toml:3:1: unknown key 'agents.a.formt' (did you mean 'format'?)"}},
		{"wrong type", "[agents.a]\ncommand = \"a\"\nstdin = \"yes\"\n", []string{"c.toml:3:9: agents.a.stdin: expected a boolean, got a string"}},
		{"default agent", "default_agent = \"cluade\"\n", []string{"c.toml:1:17: default_agent: unknown agent 'cluade' (did you mean 'claude'?)"}},
		{"default role", "default_role = \"reviewr\"\n[roles.reviewer]\nsystem = \"x\"\n", []string{"c.toml:1:16: default_role: unknown role 'reviewr' (did you mean 'reviewer'?)"}},
		// One- and two-character names get no hint (suggest.Near).
		{"short role", "default_role = \"x\"\n[roles.y]\nsystem = \"x\"\n", []string{"c.toml:1:16: default_role: unknown role 'x'"}},
		{"role without text", "[roles.r]\ndescription = \"x\"\n", []string{"c.toml:1:8: roles.r: needs one of 'system', 'file', 'command' or 'prompt'"}},
		{"role placeholder", "[roles.r]\nprompt = \"{file_content}\"\n", []string{"c.toml:2:10: roles.r.prompt: unknown placeholder {file_content} (did you mean {file_contents}?)"}},
		{"role timeout", "[roles.r]\ncommand = \"date\"\ncommand_timeout = 0\n", []string{"c.toml:3:19: roles.r.command_timeout: must be at least 1 second, got 0"}},
		{"context without text", "[contexts.c]\nrequired = true\n", []string{"c.toml:1:11: contexts.c: needs one of 'file', 'command' or 'prompt'"}},
		{"task alias", "[tasks.t]\nalias = \"GDR\"\nprompt = \"x\"\n", []string{`c.toml:2:9: tasks.t.alias: invalid alias "GDR": use lower-case letters and digits in words joined by '-'`}},
		{"task alias twice", "[tasks.a]\nalias = \"x\"\nprompt = \"x\"\n[tasks.b]\nalias = \"x\"\nprompt = \"y\"\n",
			[]string{`c.toml:5:9: tasks.b.alias: alias "x" is already the alias of task 'a'`}},
		{"task without text", "[tasks.t]\nalias = \"t\"\n", []string{"c.toml:1:8: tasks.t: needs one of 'file', 'command' or 'prompt'"}},
		{"task placeholder", "[tasks.t]\nprompt = \"{instruction}\"\n", []string{"c.toml:2:10: tasks.t.prompt: unknown placeholder {instruction} (did you mean {instructions}?)"}},
		{"task role", "[tasks.t]\nrole = \"nobody\"\nprompt = \"x\"\n", []string{"c.toml:1:8: tasks.t.role: unknown role 'nobody' (no role is configured: a [roles.NAME] table of config.toml defines one)"}},
		{"task unknown key", "[tasks.t]\nprompt = \"x\"\nagnet = \"claude\"\n", []string{"c.toml:3:1: unknown key 'tasks.t.agnet' (did you mean 'agent'?)"}},
		{"model table without id", "[agents.a]\ncommand = \"a\"\n[agents.a.models.sonnet]\nname = \"Sonnet\"\n",
			[]string{`c.toml:3:18: agents.a.models.sonnet: expected a model id string, or a table with id = "MODEL-ID" (start's form)`}},
		{"both timeouts", "[tasks.t]\nprompt = \"x\"\ncommand_timeout = 5\ntimeout = 6\n",
			[]string{"c.toml:4:11: tasks.t.timeout: give one of command_timeout and timeout (start's name of it)"}},
		{"start timeout", "[roles.r]\ncommand = \"date\"\ntimeout = 0\n", []string{"c.toml:3:11: roles.r.timeout: must be at least 1 second, got 0"}},
		{"start placeholder unknown", "[tasks.t]\nprompt = \"Do {{.instruction}} now\"\n",
			[]string{"c.toml:2:14: tasks.t.prompt: unknown placeholder {{.instruction}} (did you mean {instructions}?)"}},
		{"start action in a task", "[tasks.t]\nprompt = \"\"\"\nReview\n{{if .instructions}}Focus: {{.instructions}}{{end}}\n\"\"\"\n",
			[]string{"c.toml:4:1: tasks.t.prompt: unsupported template action {{if .instructions}}: only placeholders {{.NAME}} are replaced (no if, range, pipes, functions or {{- trim markers)"}},
		{"start instructions in a role", "[roles.r]\nprompt = \"x {{.instructions}}\"\n",
			[]string{"c.toml:2:13: roles.r.prompt: unknown placeholder {{.instructions}} (known: {file}, {file_contents}, {command}, {command_output}, {date}, {model})"}},
		{"start's keys", "[settings]\ndefault_agent = \"a\"\n[agents.a]\ncommand = \"a\"\nurl = \"https://example.com\"\n[context.env]\nfile = \"E.md\"\n", []string{
			"c.toml:1:2: unknown key 'settings' (start's [settings] table: write default_agent and default_role at the top level of the file; shell and command_timeout are keys of each role, context or task)",
			"c.toml:6:2: unknown key 'context.env' (start's [context.env] is [contexts.env] here)",
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := write(t, t.TempDir(), "c.toml", tc.text)
			_, err := Load("", p, base)
			if err == nil {
				t.Fatal("no error")
			}
			var got []string
			for _, e := range Errors(err) {
				got = append(got, e.Error())
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("errors (-want +got):\n%s", diff)
			}
		})
	}
}
