package agent

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"
)

// Format is how an agent prints its answer (SPEC §22.3).
type Format string

// The output formats.
const (
	FormatText       Format = "text"
	FormatClaudeJSON Format = "claude-json"
	FormatCodexJSONL Format = "codex-jsonl"
	FormatGeminiJSON Format = "gemini-json"
	FormatAiderText  Format = "aider-text"
)

// Formats lists the valid formats in documentation order.
var Formats = []Format{FormatText, FormatClaudeJSON, FormatCodexJSONL, FormatGeminiJSON, FormatAiderText}

// ValidFormat reports whether f is one of Formats.
func ValidFormat(f Format) bool { return slices.Contains(Formats, f) }

// FormatList is Formats joined with ", ", as error messages list them.
func FormatList() string {
	names := make([]string, len(Formats))
	for i, f := range Formats {
		names[i] = string(f)
	}
	return strings.Join(names, ", ")
}

// DefaultTimeout is the per-call timeout of an agent that sets none.
const DefaultTimeout = 30 * time.Minute

// Scopes of a definition, as `evalrun agents list` prints them.
const (
	ScopeBuiltin = "builtin"
	ScopeGlobal  = "global"
	ScopeLocal   = "local"
)

// Definition is one agent: a program evalrun starts to execute a task call.
// It is independent of the configuration file that defined it.
type Definition struct {
	// Name is the agent's name (the key of [agents.NAME]).
	Name string
	// Description is shown by `evalrun agents list`.
	Description string
	// Command is the command line before splitting (SPEC §22.1).
	Command string
	// Bin is the program {bin} stands for; empty means the first program
	// word of Command, else Name.
	Bin string
	// Stdin sends the prompt on the process's stdin instead of {prompt}.
	Stdin bool
	// Format is the output format; empty means text.
	Format Format
	// Models maps names a user types to model ids.
	Models map[string]string
	// DefaultModel is the model when the call names none.
	DefaultModel string
	// Timeout limits one call; 0 means DefaultTimeout.
	Timeout time.Duration
	// MaxParallel limits the processes of this agent running at once; 0
	// means the runner's default.
	MaxParallel int
	// Env is added to the inherited environment.
	Env map[string]string
	// ReadOnlyArgs are appended to the words for read-only calls.
	ReadOnlyArgs []string
	// Scope is builtin, global or local.
	Scope string
	// Source is where the definition was written (FILE:LINE), empty for
	// built-in agents.
	Source string
}

// format returns the definition's format, text when unset.
func (d Definition) format() Format {
	if d.Format == "" {
		return FormatText
	}
	return d.Format
}

// timeout returns the call timeout, DefaultTimeout when unset.
func (d Definition) timeout() time.Duration {
	if d.Timeout <= 0 {
		return DefaultTimeout
	}
	return d.Timeout
}

// Model maps a model name through Models; an empty name is DefaultModel.
// A name not in Models is passed on unchanged.
func (d Definition) Model(name string) string {
	if name == "" {
		name = d.DefaultModel
	}
	if id, ok := d.Models[name]; ok {
		return id
	}
	return name
}

// Validate checks the definition as the configuration loader must (SPEC
// §22.1): a non-empty command that splits, known placeholders only, a
// known format, and not {prompt} together with stdin.
func (d Definition) Validate() error {
	if d.Format != "" && !ValidFormat(d.Format) {
		return fmt.Errorf("unknown format %q (want one of %s)", d.Format, FormatList())
	}
	tmpl, err := ParseCommand(d.Command)
	if err != nil {
		return err
	}
	if d.Stdin && tmpl.Uses("prompt") {
		return fmt.Errorf("the command uses {prompt} and stdin = true; use one of them")
	}
	for _, a := range d.ReadOnlyArgs {
		if err := checkPlaceholders(a); err != nil {
			return fmt.Errorf("read_only_args: %w", err)
		}
	}
	return nil
}

// builtins are the agents that exist without configuration (SPEC §22.1).
var builtins = map[string]Definition{
	"claude": {
		Name: "claude", Description: "Claude Code, non-interactive",
		Command: "claude -p --output-format json --model {model} --append-system-prompt {role}",
		Stdin:   true, Format: FormatClaudeJSON,
		ReadOnlyArgs: []string{"--permission-mode", "plan"},
	},
	"codex": {
		Name: "codex", Description: "OpenAI Codex CLI, non-interactive",
		Command: "codex exec --json --skip-git-repo-check -m {model} -",
		Stdin:   true, Format: FormatCodexJSONL,
		ReadOnlyArgs: []string{"--sandbox", "read-only"},
	},
	"gemini": {
		Name: "gemini", Description: "Gemini CLI, non-interactive",
		Command: "GEMINI_SYSTEM_MD={role_file} gemini --prompt={prompt} -m {model} --output-format json",
		Format:  FormatGeminiJSON,
	},
	"aider": {
		Name: "aider", Description: "aider, one message",
		Command: "aider --yes-always --no-pretty --no-show-model-warnings --no-check-update --no-analytics --message={prompt} --model {model}",
		Format:  FormatAiderText,
	},
	"qwen": {
		Name: "qwen", Description: "Qwen Code, non-interactive",
		Command: "qwen --prompt={prompt} -m {model}",
		Format:  FormatText,
	},
}

// BuiltinNames lists the built-in agents in alphabetical order.
func BuiltinNames() []string { return slices.Sorted(maps.Keys(builtins)) }

// Builtin returns the built-in agent called name.
func Builtin(name string) (Definition, bool) {
	d, ok := builtins[name]
	if !ok {
		return Definition{}, false
	}
	d.Scope = ScopeBuiltin
	d.Models = maps.Clone(d.Models)
	d.ReadOnlyArgs = slices.Clone(d.ReadOnlyArgs)
	return d, true
}
