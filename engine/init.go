package engine

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// InitConfig is the .evalrun/config.toml that Init writes: every key that
// the configuration accepts, commented out, with its default (or, in the
// tables of names such as [agents.NAME], an example).
// Removing the "# " in front of a key line gives a valid configuration
// (a test checks it).
const InitConfig = `# evalrun configuration of this project. Every key is shown commented out,
# with its default or, for named tables, an example; uncomment a line to
# change it. The global file
# ~/.config/evalrun/config.toml (or $EVALRUN_HOME/config.toml) is read first
# and this one wins key by key. Reference: docs/configuration.md.

# The provider of calls that neither --provider nor the template chooses.
# Without it: openai when OPENAI_API_KEY is set, else the offline echo
# provider, which answers every task with the prompt it was sent.
# default_provider = "openai"

# The agent (docs/agents.md) that executes task calls nothing else assigns:
# claude, codex, gemini, aider, qwen or a name under [agents]. Unset or
# "none": calls go to the provider.
# default_agent = "claude"

# The role of calls whose template names none, tried before [roles.default].
# default_role = "default"

# Any OpenAI-compatible server (OpenAI, Ollama, vLLM, llama.cpp, LM Studio,
# OpenRouter). The names openai, echo and replay exist without a section.
# [providers.local]
# type = "openai"                      # openai, echo or replay
# base_url = "http://localhost:11434/v1"
# api_key_env = "OPENAI_API_KEY"       # the variable holding the key; never the key itself
# model = "gpt-4o-mini"
# context_window = 128000
# timeout = "120s"
# temperature = 0.2                    # sent only when set
# prices = { input = 0.15, output = 0.6, cached_input = 0.075 }  # US dollars per million tokens

# Answers recorded with --record, replayed offline.
# [providers.replay]
# type = "replay"
# cassette = ".evalrun/cassette.jsonl"

# [limits]
# max_turns = 10                       # assistant messages per task
# context_fraction = 0.8               # share of context_window a task may fill
# concurrency = 8                      # task and tool executions at once
# recursion_depth = 10000              # nested calls
# timeout = ""                         # for the whole run, e.g. "10m"; "" = none
# max_steps = 0                        # evaluation steps; 0 = unlimited
# max_string_bytes = 67108864          # largest string a workflow may build
# llm_attempts = 3                     # tries per model request (429, 5xx, network)
# max_cost_usd = 0                     # budget of a run in US dollars; 0 = none
# max_tokens = 0                       # budget of a run in input + output tokens; 0 = none

# [context]
# fresh_top_k = 5                      # files a fresh_context lookup delivers
# subset_k = 5                         # ambient items inherit_context="subset" keeps

# [tools]
# shell_allow = ["git", "go"]          # programs system_execute_shell_command may start; [] = tool off

# System prompts; a template chooses one with role="NAME".
# [roles.default]
# system = "You are a helpful assistant."

# A role may instead be built from a file, a command's output and a prompt.
# [roles.reviewer]
# description = "Careful reviewer"     # shown by evalrun roles list
# file = "~/roles/reviewer.md"         # ~/ is your home; relative to the project root otherwise
# command = "go version"
# shell = "sh"
# command_timeout = 30                 # seconds, or a duration such as "30s"
# prompt = "{file_contents} Toolchain: {command_output}"

# A coding agent; claude, codex, gemini, aider and qwen are built in.
# [agents.mine]
# description = "My agent"             # shown by evalrun agents list
# command = "mine --model {model} {prompt}"
# bin = "mine"                         # what {bin} stands for
# stdin = false                        # true: the prompt goes to stdin, not {prompt}
# format = "text"                      # text, claude-json, codex-jsonl or gemini-json
# default_model = "fast"
# models = { fast = "mine-fast-1" }    # names you type -> model ids
# timeout = "30m"                      # per call
# max_parallel = 8                     # processes at once; default [limits] concurrency
# env = { MINE_QUIET = "1" }           # added to the inherited environment
# read_only_args = ["--read-only"]     # appended for read-only calls

# A document placed before the prompt of task calls.
# [contexts.project]
# file = "PROJECT.md"
# required = true                      # every call; otherwise --context NAME or TAG
# description = "What this project is" # shown by evalrun contexts list
# [contexts.toolchain]
# command = "go version"
# shell = "sh"
# command_timeout = "10s"
# prompt = "Toolchain: {command_output}"
# tags = ["go"]                        # --context go selects it

# A task in the format of start: evalrun task review "focus on errors".
# [tasks.review]
# alias = "rv"
# description = "Review the staged changes"
# role = "reviewer"
# agent = "claude"                     # before default_agent
# model = "sonnet"
# file = "REVIEW.md"                   # {file_contents}
# command = "git diff --staged"        # {command_output}
# shell = "sh"
# command_timeout = 30
# prompt = "{file_contents} {instructions} {command_output}"

# Plans of Claude-Code-Workflow sessions (docs/plans.md).
# [plan]
# max_tasks = 10                       # tasks a plan may have
# A task's meta.agent mapped to the agent that runs it ("none": the provider).
# [plan.agents]
# "@code-developer" = "claude"

# Where runs on Temporal go (docs/temporal.md; an evalrun built with
# -tags temporal): evalrun worker connects to address unless --temporal is
# given; run and status use it with --remote. A flag wins over its key.
# [temporal]
# address = "127.0.0.1:7233"           # HOST:PORT of the Temporal frontend
# namespace = "default"
# task_queue = "evalrun"

# Prices per model id, for providers serving many models (OpenRouter); they
# win over the provider's prices. A cost the server reports wins over both.
# [prices."openai/gpt-4o"]
# input = 2.5
# output = 10.0
# cached_input = 1.25
`

// InitTemplate is the first template Init writes, .evalrun/templates/hello.xml.
const InitTemplate = `<!-- A first template. Call it from a workflow as (hello (name "Ada")),
     or run it alone with: evalrun task hello, setting the input name=Ada.
     Reference: docs/templates.md -->
<task name="hello" type="atomic">
  <description>Greet someone by name in one friendly sentence</description>
  <inputs>
    <input name="name" type="string">Who to greet</input>
    <input name="tone" type="string" default="friendly">The tone of the greeting</input>
  </inputs>
  <instructions>Write a one-sentence {{tone}} greeting for {{name}}.</instructions>
</task>
`

// InitGitignore keeps the run's local state out of version control.
const InitGitignore = `# Local state of evalrun runs; the configuration and templates are shared.
journal.db*
index.db*
dry-run/
`

// InitFiles are the files Init creates, relative to the directory, in the
// order they are written.
var InitFiles = []struct {
	Path, Text string
}{
	{".evalrun/config.toml", InitConfig},
	{".evalrun/templates/hello.xml", InitTemplate},
	{".evalrun/.gitignore", InitGitignore},
}

// ErrInitExists is the error of Init when a file it would create exists.
var ErrInitExists = errors.New("already exists")

// Init creates the .evalrun directory of a new project in dir: a
// config.toml with every key commented out at its default, a first
// template and a .gitignore for the journal and index. It refuses to
// overwrite: when any of those files exists, nothing is written and the
// error wraps ErrInitExists and names the file (joined to dir). It returns the paths it
// created, relative to dir.
func Init(dir string) ([]string, error) {
	for _, f := range InitFiles {
		_, err := os.Lstat(filepath.Join(dir, filepath.FromSlash(f.Path)))
		if err == nil {
			return nil, fmt.Errorf("%s %w; nothing was written", filepath.ToSlash(filepath.Join(dir, f.Path)), ErrInitExists)
		}
		if !errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("init: %w", err)
		}
	}
	var created []string
	for _, f := range InitFiles {
		path := filepath.Join(dir, filepath.FromSlash(f.Path))
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			return created, fmt.Errorf("init: %w", err)
		}
		// O_EXCL: a file that appeared since the check is not overwritten.
		fh, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
		if err != nil {
			if errors.Is(err, fs.ErrExist) {
				return created, fmt.Errorf("%s %w", filepath.ToSlash(filepath.Join(dir, f.Path)), ErrInitExists)
			}
			return created, fmt.Errorf("init: %w", err)
		}
		_, werr := fh.WriteString(f.Text)
		if cerr := fh.Close(); werr == nil {
			werr = cerr
		}
		if werr != nil {
			return created, fmt.Errorf("init: %w", werr)
		}
		created = append(created, f.Path)
	}
	return created, nil
}
