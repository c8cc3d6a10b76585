package editors_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/pelletier/go-toml/v2"

	"github.com/evalrun/evalrun/agent"
	"github.com/evalrun/evalrun/config"
	"github.com/evalrun/evalrun/engine"
	"github.com/evalrun/evalrun/templates/jsonschema"
	"github.com/evalrun/evalrun/value"
)

const schemaFile = "evalrun-config.schema.json"

func loadSchema(t *testing.T) (*jsonschema.Schema, map[string]any) {
	t.Helper()
	data, err := os.ReadFile(schemaFile)
	if err != nil {
		t.Fatal(err)
	}
	s, err := jsonschema.CompileJSON(string(data))
	if err != nil {
		t.Fatalf("%s does not compile: %v", schemaFile, err)
	}
	var doc map[string]any
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	return s, doc
}

// validateTOML decodes TOML text and validates it against the schema,
// returning the violations as "POINTER: message".
func validateTOML(t *testing.T, s *jsonschema.Schema, text string) []string {
	t.Helper()
	var m map[string]any
	if err := toml.Unmarshal([]byte(text), &m); err != nil {
		t.Fatalf("TOML: %v\n%s", err, text)
	}
	j, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	v, err := value.ParseJSON(string(j))
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, viol := range s.Validate(v) {
		out = append(out, viol.String())
	}
	return out
}

// repositoryConfigs returns every .evalrun/config.toml of the repository.
func repositoryConfigs(t *testing.T) []string {
	t.Helper()
	var files []string
	filepath.WalkDir("..", func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		if d.IsDir() && (d.Name() == ".git" || d.Name() == "bin" || d.Name() == "node_modules") {
			return filepath.SkipDir
		}
		if !d.IsDir() && d.Name() == "config.toml" && filepath.Base(filepath.Dir(p)) == ".evalrun" {
			files = append(files, p)
		}
		return nil
	})
	if len(files) < 2 {
		t.Fatalf("only %d configuration files found", len(files))
	}
	return files
}

// TestSchemaAcceptsEveryConfigOfTheRepository: every .evalrun/config.toml
// of the repository loads with package config and is valid under the
// schema, and so is the configuration evalrun init writes, uncommented,
// which shows every key of the schema.
func TestSchemaAcceptsEveryConfigOfTheRepository(t *testing.T) {
	s, doc := loadSchema(t)
	for _, f := range repositoryConfigs(t) {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := config.Load("", f); err != nil {
			t.Errorf("%s does not load: %v", f, err)
		}
		if v := validateTOML(t, s, string(data)); len(v) > 0 {
			t.Errorf("%s is not valid under the schema: %v", f, v)
		}
	}
	keyLine := regexp.MustCompile(`(?m)^# (\[[a-z0-9._"/-]+\]|[a-z_]+ = .*|"@[a-z-]+" = .*)$`)
	var b strings.Builder
	for _, m := range keyLine.FindAllStringSubmatch(engine.InitConfig, -1) {
		b.WriteString(m[1] + "\n")
	}
	if v := validateTOML(t, s, b.String()); len(v) > 0 {
		t.Errorf("the configuration of evalrun init, uncommented, is not valid under the schema: %v", v)
	}
	// It shows every key of the schema.
	var m map[string]any
	if err := toml.Unmarshal([]byte(b.String()), &m); err != nil {
		t.Fatalf("the configuration of evalrun init, uncommented: %v\n%s", err, b.String())
	}
	for _, k := range leafKeys(doc) {
		if !hasKey(m, strings.Split(k, ".")) {
			t.Errorf("the configuration of evalrun init does not show %s", k)
		}
	}
}

// leafKeys returns the dotted paths of the schema's keys, with "*" for a
// table of names.
func leafKeys(doc map[string]any) []string {
	defs, _ := doc["$defs"].(map[string]any)
	var keys []string
	var walk func(prefix string, node map[string]any)
	walk = func(prefix string, node map[string]any) {
		if ref, ok := node["$ref"].(string); ok {
			node = defs[strings.TrimPrefix(ref, "#/$defs/")].(map[string]any)
		}
		props, _ := node["properties"].(map[string]any)
		add, _ := node["additionalProperties"].(map[string]any)
		if len(props) == 0 && add == nil {
			keys = append(keys, prefix)
			return
		}
		for k, sub := range props {
			walk(strings.TrimPrefix(prefix+"."+k, "."), sub.(map[string]any))
		}
		if add != nil {
			walk(prefix+".*", add)
		}
	}
	walk("", doc)
	sort.Strings(keys)
	return keys
}

// TestSchemaAgreesWithTheConfigPackage: a configuration setting every key
// of the schema loads with package config (so the schema offers no key
// evalrun refuses), and a misspelt key is refused by both.
func TestSchemaAgreesWithTheConfigPackage(t *testing.T) {
	s, doc := loadSchema(t)
	keys := leafKeys(doc)
	full := `default_provider = "local"
default_agent = "claude"
default_role = "reviewer"
[providers.local]
type = "openai"
base_url = "http://localhost:11434/v1"
api_key_env = "LOCAL_KEY"
model = "qwen2.5-coder"
context_window = 32768
timeout = "90s"
temperature = 0.0
cassette = "c.jsonl"
prices = { input = 2.5, output = 10.0, cached_input = 1.25 }
[prices."openai/gpt-4o"]
input = 2.5
output = 10.0
cached_input = 1.25
[limits]
max_turns = 4
context_fraction = 0.5
concurrency = 2
recursion_depth = 500
timeout = "10m"
max_steps = 100000
max_string_bytes = 1048576
llm_attempts = 5
max_cost_usd = 2.0
max_tokens = 100000
[context]
fresh_top_k = 3
subset_k = 2
[tools]
shell_allow = ["git", "go"]
[roles.reviewer]
system = "Be brief."
description = "Careful reviewer"
[roles.go-expert]
file = "~/roles/go-expert.md"
command = "go version"
shell = "bash"
command_timeout = 5
prompt = "{file_contents} {command_output} {model} {date}"
[agents.mine]
description = "My agent"
command = "{bin} --model {model} --system {role}"
bin = "/opt/mine/bin/mine"
stdin = true
format = "claude-json"
default_model = "fast"
models = { fast = "mine-fast-1" }
timeout = "20m"
max_parallel = 2
env = { MINE_QUIET = "1" }
read_only_args = ["--read-only"]
[contexts.environment]
file = "ENVIRONMENT.md"
required = true
description = "The machine"
[contexts.tools]
command = "go env GOVERSION"
shell = "sh"
command_timeout = "10s"
prompt = "Go: {command_output}"
tags = ["go"]
[tasks.diff-review]
alias = "dr"
description = "Review the staged diff"
role = "reviewer"
agent = "mine"
model = "fast"
file = "REVIEW.md"
command = "git diff --staged"
shell = "sh"
command_timeout = 30
prompt = "{instructions} {file_contents} {command_output}"
[plan]
max_tasks = 12
[plan.agents]
"@code-developer" = "mine"
[temporal]
address = "127.0.0.1:7233"
namespace = "default"
task_queue = "evalrun"
`
	// Every key of the schema is set above.
	var m map[string]any
	if err := toml.Unmarshal([]byte(full), &m); err != nil {
		t.Fatal(err)
	}
	for _, k := range keys {
		if !hasKey(m, strings.Split(k, ".")) {
			t.Errorf("schema key %s is not exercised by the test configuration", k)
		}
	}
	dir := t.TempDir()
	path := filepath.Join(dir, "config.toml")
	if err := os.WriteFile(path, []byte(full), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := config.Load("", path); err != nil {
		t.Errorf("package config refuses a configuration the schema accepts: %v", err)
	}
	if v := validateTOML(t, s, full); len(v) > 0 {
		t.Errorf("the schema refuses the full configuration: %v", v)
	}
	for _, bad := range []string{
		"[limits]\nmax_turn = 3\n",
		"[providers.x]\nmodle = \"m\"\n",
		"default_providr = \"x\"\n",
		"[limits]\nmax_turns = 0\n",
		"[providers.x]\ntype = \"anthropic\"\n",
		"[limits]\ncontext_fraction = 1.5\n",
		"[roles.r]\ndescription = \"no text\"\n",
		"[roles.r]\nprompt = \"x\"\ncommand_timeout = 0\n",
		"[roles.r]\nfile = \" \"\n",
		"default_agent = \"\"\n",
		"[agents.a]\nformat = \"text\"\n",
		"[agents.a]\ncommand = \"a {prompt}\"\nformat = \"xml\"\n",
		"[agents.a]\ncommand = \"a {prompt}\"\ntimeout = \"soon\"\n",
		"[agents.a]\ncommand = \"a {prompt}\"\nmax_parallel = 0\n",
		"[agents.a]\ncommand = \"a {prompt}\"\nenv = { \"BAD-NAME\" = \"1\" }\n",
		"[agents.\"my agent\"]\ncommand = \"a {prompt}\"\n",
		"[agents.a]\ncommand = \"a {prompt}\"\nmodle = \"m\"\n",
		"[agents.a]\ncommand = \"a {prompt}\"\nstdin = true\n",
		"[agents.a]\ncommand = \"a {{ .prompt }}\"\nstdin = true\n",
		"[contexts.c]\ntags = [\"go\"]\n",
		"[contexts.c]\nprompt = \"x\"\ntags = [\"\"]\n",
		"[tasks.t]\ndescription = \"no text\"\n",
		"[tasks.t]\nprompt = \"x\"\nalias = \"Bad Alias\"\n",
		"[tasks.t]\nprompt = \"x\"\nagent = \"\"\n",
		"[plan]\nmax_tasks = 0\n",
		"[plan]\nmax_task = 3\n",
		"[plan.agents]\n\"code-developer\" = \"claude\"\n",
		"[plan.agents]\n\"@code-developer\" = \"\"\n",
		"[limits]\nmax_cost_usd = -1.0\n",
		"[prices.m]\ninput = 1.0\n",
		"[providers.x]\nprices = { input = 1.0, output = 2.0, cache = 0.5 }\n",
		"[temporal]\naddress = \"localhost\"\n",
		"[temporal]\naddress = \"http://h:7233\"\n",
		"[temporal]\nnamespace = \"\"\n",
		"[temporal]\ntaskqueue = \"q\"\n",
	} {
		if err := os.WriteFile(path, []byte(bad), 0o644); err != nil {
			t.Fatal(err)
		}
		_, cerr := config.Load("", path)
		v := validateTOML(t, s, bad)
		if cerr == nil || len(v) == 0 {
			t.Errorf("%q: package config error %v, schema violations %v; want both to refuse it", bad, cerr, v)
		}
	}
	// Each of the ways to give a role, context or task its text is enough
	// alone, and the other forms of a value are accepted by both.
	for _, good := range []string{
		"[roles.r]\nprompt = \"x\"\n",
		"[roles.r]\nfile = \"r.md\"\n",
		"[roles.r]\ncommand = \"date\"\ncommand_timeout = \"1m30s\"\n",
		"[contexts.c]\nfile = \"c.md\"\n",
		"[contexts.c]\ncommand = \"date\"\n",
		"[tasks.t]\ncommand = \"date\"\n",
		"default_agent = \"none\"\n",
		"[agents.a]\ncommand = \"a {prompt}\"\n",
		"[agents.a]\ncommand = \"a {prompt}\"\nstdin = false\n",
		"[agents.a]\ncommand = \"a -\"\nstdin = true\n",
		"[plan.agents]\n\"@code-developer\" = \"none\"\n",
		"[temporal]\naddress = \"[::1]:7233\"\n",
	} {
		if err := os.WriteFile(path, []byte(good), 0o644); err != nil {
			t.Fatal(err)
		}
		_, cerr := config.Load("", path)
		v := validateTOML(t, s, good)
		if cerr != nil || len(v) > 0 {
			t.Errorf("%q: package config error %v, schema violations %v; want both to accept it", good, cerr, v)
		}
	}
}

func hasKey(m map[string]any, path []string) bool {
	if len(path) == 0 {
		return true
	}
	if path[0] == "*" {
		if len(path) == 1 {
			// A table of names with values that are not tables, such as
			// env = { NAME = "value" }.
			return len(m) > 0
		}
		for _, v := range m {
			if sub, ok := v.(map[string]any); ok && hasKey(sub, path[1:]) {
				return true
			}
		}
		return false
	}
	v, ok := m[path[0]]
	if !ok {
		return false
	}
	if len(path) == 1 {
		return true
	}
	sub, ok := v.(map[string]any)
	return ok && hasKey(sub, path[1:])
}

// TestConfigurationReferenceListsEveryKey: docs/configuration.md names
// every key of the schema.
func TestConfigurationReferenceListsEveryKey(t *testing.T) {
	_, doc := loadSchema(t)
	page, err := os.ReadFile("../docs/configuration.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range leafKeys(doc) {
		parts := strings.Split(k, ".")
		last := parts[len(parts)-1]
		if last == "*" {
			// A table of names (env, models, plan.agents) is documented
			// under its own key.
			last = parts[len(parts)-2]
		}
		if !strings.Contains(string(page), "`"+last+"`") {
			t.Errorf("docs/configuration.md does not document %s", k)
		}
	}
}

// snake turns a Go field name into its TOML key: LLMAttempts → llm_attempts.
func snake(name string) string {
	var b strings.Builder
	r := []rune(name)
	for i, c := range r {
		upper := c >= 'A' && c <= 'Z'
		if upper && i > 0 {
			prevLower := r[i-1] >= 'a' && r[i-1] <= 'z'
			nextLower := i+1 < len(r) && r[i+1] >= 'a' && r[i+1] <= 'z'
			if prevLower || (nextLower && r[i-1] >= 'A' && r[i-1] <= 'Z') {
				b.WriteByte('_')
			}
		}
		b.WriteString(strings.ToLower(string(c)))
	}
	return b.String()
}

// TestSchemaCoversConfigFields: every field of the configuration's
// sections (package config) is a key of the schema, of the configuration
// evalrun init writes and of docs/configuration.md, so a key added to
// evalrun cannot be left out of them.
func TestSchemaCoversConfigFields(t *testing.T) {
	_, doc := loadSchema(t)
	keys := map[string]bool{}
	for _, k := range leafKeys(doc) {
		keys[k] = true
	}
	page, err := os.ReadFile("../docs/configuration.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, sec := range []struct {
		prefix string
		typ    reflect.Type
	}{
		{"providers.*", reflect.TypeOf(config.Provider{})},
		{"limits", reflect.TypeOf(config.Limits{})},
		{"context", reflect.TypeOf(config.Context{})},
		{"tools", reflect.TypeOf(config.Tools{})},
		{"temporal", reflect.TypeOf(config.Temporal{})},
	} {
		for _, f := range reflect.VisibleFields(sec.typ) {
			if f.Anonymous || !f.IsExported() {
				// An embedded struct's fields are keys of the section.
				continue
			}
			key := snake(f.Name)
			path := sec.prefix + "." + key
			if !keys[path] && !hasLeafUnder(keys, path) {
				t.Errorf("config.%s.%s: the schema has no key %s", sec.typ.Name(), f.Name, path)
			}
			if !strings.Contains(engine.InitConfig, "# "+key+" = ") {
				t.Errorf("config.%s.%s: the configuration of evalrun init does not show %s", sec.typ.Name(), f.Name, key)
			}
			if !strings.Contains(string(page), "`"+key+"`") {
				t.Errorf("config.%s.%s: docs/configuration.md does not document %s", sec.typ.Name(), f.Name, key)
			}
		}
	}
	for _, tc := range [][2]string{{"LLMAttempts", "llm_attempts"}, {"APIKeyEnv", "api_key_env"}, {"BaseURL", "base_url"}, {"FreshTopK", "fresh_top_k"}} {
		if got := snake(tc[0]); got != tc[1] {
			t.Errorf("snake(%s) = %s, want %s", tc[0], got, tc[1])
		}
	}
}

// hasLeafUnder reports whether a leaf key lies below path (a table such
// as providers.*.prices).
func hasLeafUnder(keys map[string]bool, path string) bool {
	for k := range keys {
		if strings.HasPrefix(k, path+".") {
			return true
		}
	}
	return false
}

// TestSchemaAgentFormats checks that the schema's enum of an agent's format
// is the list the configuration loader accepts.
func TestSchemaAgentFormats(t *testing.T) {
	s, doc := loadSchema(t)
	var enum []any
	var find func(v any)
	find = func(v any) {
		switch n := v.(type) {
		case map[string]any:
			if f, ok := n["format"].(map[string]any); ok {
				if e, ok := f["enum"].([]any); ok && enum == nil {
					enum = e
				}
			}
			for _, c := range n {
				find(c)
			}
		case []any:
			for _, c := range n {
				find(c)
			}
		}
	}
	find(doc)
	var got []string
	for _, e := range enum {
		got = append(got, e.(string))
	}
	var want []string
	for _, f := range agent.Formats {
		want = append(want, string(f))
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("the schema's agent formats are %q, the loader's %q", got, want)
	}
	if v := validateTOML(t, s, "[agents.aider]\ncommand = \"aider --no-pretty --message {prompt}\"\nformat = \"aider-text\"\n"); v != nil {
		t.Errorf("the schema refuses format = \"aider-text\": %v", v)
	}
}
