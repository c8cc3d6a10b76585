package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/evalrun/evalrun/handler"
	"github.com/google/go-cmp/cmp"
)

// write creates a file named name in dir with text and returns its path.
func write(t *testing.T, dir, name, text string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// base shows paths by their base name in error messages.
var base = WithDisplay(filepath.Base)

func TestDefaults(t *testing.T) {
	cfg, err := Load("", filepath.Join(t.TempDir(), "missing.toml"))
	if err != nil {
		t.Fatal(err)
	}
	want := &Config{
		Providers: map[string]Provider{},
		Roles:     map[string]string{},
		Limits: Limits{MaxTurns: 10, ContextFraction: 0.8, Concurrency: 8, RecursionDepth: 10000,
			MaxStringBytes: 67108864, LLMAttempts: 3},
		Context:  Context{FreshTopK: 5, SubsetK: 5},
		Temporal: Temporal{Namespace: "default", TaskQueue: "evalrun"},
	}
	if diff := cmp.Diff(want, cfg); diff != "" {
		t.Errorf("defaults (-want +got):\n%s", diff)
	}
	if !cfg.HasProvider("echo") || !cfg.HasProvider("openai") || !cfg.HasProvider("replay") || cfg.HasProvider("x") {
		t.Errorf("built-in provider names wrong")
	}
}

// specExample is the configuration of SPEC §18.
const specExample = `default_provider = "local-llm"
[providers.local-llm]            # type is openai, echo or replay
type = "openai"
base_url = "http://localhost:8000/v1"
api_key_env = "LOCAL_LLM_KEY"
model = "qwen2.5-coder-32b"
context_window = 32768
timeout = "120s"
[providers.replay]
type = "replay"
cassette = ".evalrun/cassette.jsonl"
[limits]                         # defaults; timeout "" = none, max_steps 0 = unlimited
max_turns = 10
context_fraction = 0.8
concurrency = 8
recursion_depth = 10000
timeout = ""
max_steps = 0
max_string_bytes = 67108864
llm_attempts = 3
[context]
fresh_top_k = 5
subset_k = 5
[tools]
shell_allow = ["go", "git"]      # programs system_execute_shell_command may start; ["*"] allows any
[roles.reviewer]
system = "You are a meticulous senior reviewer. Be concrete and brief."
`

func TestSpecExample(t *testing.T) {
	dir := t.TempDir()
	g := write(t, dir, "global.toml", specExample)
	cfg, err := Load(g, "")
	if err != nil {
		t.Fatal(err)
	}
	if cfg.DefaultProvider != "local-llm" {
		t.Errorf("default_provider %q", cfg.DefaultProvider)
	}
	want := Provider{handler.ProviderConfig{Type: "openai", BaseURL: "http://localhost:8000/v1", APIKeyEnv: "LOCAL_LLM_KEY",
		Model: "qwen2.5-coder-32b", ContextWindow: 32768, Timeout: 120 * time.Second}}
	if diff := cmp.Diff(want, cfg.Providers["local-llm"]); diff != "" {
		t.Errorf("local-llm (-want +got):\n%s", diff)
	}
	if cfg.Providers["replay"].Cassette != ".evalrun/cassette.jsonl" {
		t.Errorf("replay %+v", cfg.Providers["replay"])
	}
	if diff := cmp.Diff([]string{"go", "git"}, cfg.Tools.ShellAllow); diff != "" {
		t.Error(diff)
	}
	if cfg.Roles["reviewer"] != "You are a meticulous senior reviewer. Be concrete and brief." {
		t.Errorf("role %q", cfg.Roles["reviewer"])
	}
	if diff := cmp.Diff([]string{g}, cfg.Files); diff != "" {
		t.Error(diff)
	}
}

func TestMerge(t *testing.T) {
	dir := t.TempDir()
	g := write(t, dir, "g/config.toml", `
default_provider = "big"
[providers.big]
type = "openai"
model = "gpt-4o"
temperature = 0.5
[providers.small]
type = "echo"
[limits]
max_turns = 4
timeout = "5m"
[tools]
shell_allow = ["go", "git"]
[roles.reviewer]
system = "global reviewer"
[roles.writer]
system = "global writer"
`)
	l := write(t, dir, "l/config.toml", `
[providers.big]
model = "gpt-4.1"
temperature = 0
[limits]
concurrency = 2
timeout = ""
[tools]
shell_allow = ["make"]
[roles.reviewer]
system = "local reviewer"
`)
	cfg, err := Load(g, l)
	if err != nil {
		t.Fatal(err)
	}
	zero := 0.0
	want := &Config{
		DefaultProvider: "big",
		Providers: map[string]Provider{
			"big":   {handler.ProviderConfig{Type: "openai", Model: "gpt-4.1", Temperature: &zero}},
			"small": {handler.ProviderConfig{Type: "echo"}},
		},
		Limits: Limits{MaxTurns: 4, ContextFraction: 0.8, Concurrency: 2, RecursionDepth: 10000,
			MaxStringBytes: 67108864, LLMAttempts: 3},
		Context:  Context{FreshTopK: 5, SubsetK: 5},
		Tools:    Tools{ShellAllow: []string{"make"}},
		Roles:    map[string]string{"reviewer": "local reviewer", "writer": "global writer"},
		Files:    []string{g, l},
		Temporal: Temporal{Namespace: "default", TaskQueue: "evalrun"},
	}
	cfg.AgentConfig = AgentConfig{} // agents_test.go checks the tables of §22
	if diff := cmp.Diff(want, cfg); diff != "" {
		t.Errorf("merged (-want +got):\n%s", diff)
	}
}

// TestMergeTypeFromGlobal: a local section may complete a global one, and
// the check for a type sees the merged section.
func TestMergeTypeFromGlobal(t *testing.T) {
	dir := t.TempDir()
	g := write(t, dir, "g.toml", "[providers.x]\ntype = \"echo\"\n")
	l := write(t, dir, "l.toml", "default_provider = \"x\"\n[providers.x]\nmodel = \"m\"\n")
	cfg, err := Load(g, l)
	if err != nil {
		t.Fatal(err)
	}
	if p := cfg.Providers["x"]; p.Type != "echo" || p.Model != "m" {
		t.Errorf("x = %+v", p)
	}
}

func TestErrors(t *testing.T) {
	for _, tc := range []struct {
		name, text string
		want       []string
	}{
		{"syntax", "[limits\n", []string{"c.toml:1:8: TOML syntax error: expected ']' to close table name"}},
		{"syntax value", "x = = 1\n", []string{"c.toml:1:5: TOML syntax error: unexpected character U+003D '=' at start of value"}},
		{"unquoted string", "default_provider = local  # mine\n", []string{"c.toml:1:20: TOML syntax error: unexpected character U+006C 'l' at start of value (a string needs quotes: \"local\")"}},
		{"duplicate key", "[limits]\nmax_turns = 3\nmax_turns = 4\n", []string{"c.toml:3:1: TOML syntax error: key max_turns is already defined"}},
		{"unknown key", "[limits]\nmax_turn = 3\n", []string{"c.toml:2:1: unknown key 'limits.max_turn' (did you mean 'max_turns'?)"}},
		{"unknown keys", "colour = 1\n[providers.p]\ntype = \"echo\"\nmodle = \"x\"\n",
			[]string{"c.toml:1:1: unknown key 'colour'", "c.toml:4:1: unknown key 'providers.p.modle' (did you mean 'model'?)"}},
		{"unknown table", "[limit]\nmax_turns = 3\n", []string{"c.toml:1:2: unknown key 'limit' (did you mean 'limits'?)"}},
		{"wrong type", "[limits]\nmax_turns = \"ten\"\n", []string{"c.toml:2:13: limits.max_turns: expected an integer, got a string"}},
		{"wrong type float", "[limits]\nconcurrency = 2.5\n", []string{"c.toml:2:15: limits.concurrency: expected an integer, got a float"}},
		{"wrong type string", "default_provider = 3\n", []string{"c.toml:1:20: default_provider: expected a string, got an integer"}},
		{"wrong type duration", "[limits]\ntimeout = 30\n", []string{`c.toml:2:11: limits.timeout: expected a duration string such as "10m" (or "" for none), got an integer`}},
		{"wrong type list", "[tools]\nshell_allow = \"go\"\n", []string{"c.toml:2:15: tools.shell_allow: expected an array of strings, got a string"}},
		{"wrong type list element", "[tools]\nshell_allow = [1]\n", []string{"c.toml:2:16: tools.shell_allow: expected an array of strings, got an array holding an integer"}},
		{"wrong type table", "limits = 3\n", []string{"c.toml:1:10: limits: expected a table, got an integer"}},
		{"too large", "[limits]\nmax_steps = 99999999999999999999\n", []string{"c.toml:2:13: limits.max_steps: decimal number is too large to fit in a 64-bit signed integer"}},
		{"provider type", "[providers.p]\ntype = \"anthropic\"\n", []string{`c.toml:2:8: providers.p.type: invalid value "anthropic": expected openai, echo or replay`}},
		{"provider without type", "[providers.p]\nmodel = \"m\"\n", []string{"c.toml:1:12: providers.p: missing key 'type' (openai, echo or replay)"}},
		{"provider timeout", "[providers.openai]\ntimeout = \"2 minutes\"\n", []string{`c.toml:2:11: providers.openai.timeout: invalid duration "2 minutes": expected a Go duration such as "90s" or "5m"`}},
		{"provider timeout zero", "[providers.openai]\ntimeout = \"0s\"\n", []string{`c.toml:2:11: providers.openai.timeout: must be a positive duration, got "0s"`}},
		{"limits timeout", "[limits]\ntimeout = \"soon\"\n", []string{`c.toml:2:11: limits.timeout: invalid duration "soon": expected a Go duration such as "90s" or "5m"`}},
		{"limits timeout negative", "[limits]\ntimeout = \"-1s\"\n", []string{`c.toml:2:11: limits.timeout: must not be negative, got "-1s"`}},
		{"temperature", "[providers.openai]\ntemperature = 2.5\n", []string{"c.toml:2:15: providers.openai.temperature: must be between 0 and 2, got 2.5"}},
		{"context window", "[providers.openai]\ncontext_window = 0\n", []string{"c.toml:2:18: providers.openai.context_window: must be at least 1, got 0"}},
		{"base url", "[providers.openai]\nbase_url = \"localhost:8000\"\n", []string{`c.toml:2:12: providers.openai.base_url: invalid URL "localhost:8000": expected http://HOST/... or https://HOST/...`}},
		{"api key env", "[providers.openai]\napi_key_env = \"MY KEY\"\n", []string{`c.toml:2:15: providers.openai.api_key_env: invalid environment variable name "MY KEY"`}},
		{"ranges", "[limits]\nmax_turns = 0\ncontext_fraction = 1.5\nconcurrency = 0\nmax_steps = -1\n[context]\nsubset_k = 0\n",
			[]string{
				"c.toml:2:13: limits.max_turns: must be at least 1, got 0",
				"c.toml:3:20: limits.context_fraction: must be greater than 0 and at most 1, got 1.5",
				"c.toml:4:15: limits.concurrency: must be at least 1, got 0",
				"c.toml:5:13: limits.max_steps: must be at least 0, got -1",
				"c.toml:7:12: context.subset_k: must be at least 1, got 0",
			}},
		{"default provider", "default_provider = \"nope\"\n", []string{"c.toml:1:20: default_provider: unknown provider 'nope' (known: echo, openai, replay)"}},
		{"default provider typo", "default_provider = \"ecoh\"\n", []string{"c.toml:1:20: default_provider: unknown provider 'ecoh' (known: echo, openai, replay; did you mean 'echo'?)"}},
		{"inline table", "providers = { p = { type = \"x\" } }\n", []string{`c.toml:1:28: providers.p.type: invalid value "x": expected openai, echo or replay`}},
		{"quoted name", "[providers.\"my llm\"]\ntype = \"echo\"\n", []string{`c.toml:1:12: invalid provider name 'my llm': use letters, digits, '.', '_' and '-'`}},
		{"columns in code points", "[roles.\"é\"]\nsystem = \"é\"\nx = 1\n", []string{"c.toml:3:1: unknown key 'roles.\"é\".x'"}},
		{"columns in code points 2", "[providers.\"é\"]\ntype = \"echo\"\n", []string{"c.toml:1:12: invalid provider name 'é': use letters, digits, '.', '_' and '-'"}},
		{"columns in code points 3", "roles = { \"é\" = { system = 1 } }\n", []string{"c.toml:1:28: roles.\"é\".system: expected a string, got an integer"}},
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

// TestErrorsOfBothFiles: the errors of both files are reported, each with
// its file.
func TestErrorsOfBothFiles(t *testing.T) {
	dir := t.TempDir()
	g := write(t, dir, "global.toml", "[limits]\nmax_turns = 0\n")
	l := write(t, dir, "local.toml", "bogus = true\n")
	_, err := Load(g, l, base)
	got := err.Error()
	want := "global.toml:2:13: limits.max_turns: must be at least 1, got 0\nlocal.toml:1:1: unknown key 'bogus'"
	if got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}

func TestDisplay(t *testing.T) {
	p := write(t, t.TempDir(), "config.toml", "[limits]\nmax_turns = \"ten\"\n")
	_, err := Load(p, "", base)
	errs := Errors(err)
	if len(errs) != 1 {
		t.Fatalf("errors %v", err)
	}
	want := "config.toml:2:13: limits.max_turns: expected an integer, got a string\n" +
		"max_turns = \"ten\"\n" +
		"            ^\n"
	if got := errs[0].Display(); got != want {
		t.Errorf("Display:\n%s\nwant\n%s", got, want)
	}
	if errs[0].Key != "limits.max_turns" {
		t.Errorf("Key %q", errs[0].Key)
	}
}

func TestUnreadable(t *testing.T) {
	dir := t.TempDir()
	_, err := Load(dir, "", base) // a directory
	if err == nil || !strings.Contains(err.Error(), "cannot read configuration") {
		t.Errorf("error %v", err)
	}
}

func TestGlobalPath(t *testing.T) {
	env := func(m map[string]string) func(string) string { return func(k string) string { return m[k] } }
	if got := GlobalPath(env(map[string]string{"EVALRUN_HOME": "/eh", "HOME": "/h"})); got != filepath.Join("/eh", "config.toml") {
		t.Errorf("with EVALRUN_HOME: %s", got)
	}
	if got := GlobalPath(env(map[string]string{"HOME": "/h"})); got != filepath.Join("/h", ".config", "evalrun", "config.toml") {
		t.Errorf("with HOME: %s", got)
	}
	if got := LocalPath("/p"); got != filepath.Join("/p", ".evalrun", "config.toml") {
		t.Errorf("LocalPath: %s", got)
	}
}
