package agent_test

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/evalrun/evalrun/agent"
)

func TestValidate(t *testing.T) {
	tests := []struct {
		def  agent.Definition
		want string
	}{
		{agent.Definition{Command: "claude -p {prompt}"}, ""},
		{agent.Definition{Command: `tool --json '{"a":1}' {} {X} {{}} {prompt}`}, ""},
		{agent.Definition{Command: "   \n "}, "empty command"},
		{agent.Definition{Command: "FOO=1 BAR=2"}, "empty command"},
		{agent.Definition{Command: "claude --x {promt}"}, "unknown placeholder {promt} (known: {prompt}, {role}, {role_file}, {model}, {date}, {instructions}, {task}, {root}, {bin})"},
		{agent.Definition{Command: "claude --x {{.modle}}"}, "unknown placeholder {{.modle}} (known: {prompt}"},
		{agent.Definition{Command: "claude --append-system-prompt '{system_prompt}'"}, "unknown placeholder {system_prompt} (start's earlier name of the role: write {role})"},
		{agent.Definition{Command: "claude 'open"}, "unterminated single quote"},
		{agent.Definition{Command: `claude "open`}, "unterminated double quote"},
		{agent.Definition{Command: `claude \`}, "unterminated escape at the end of the command"},
		{agent.Definition{Command: "claude {prompt}", Stdin: true}, "the command uses {prompt} and stdin = true; use one of them"},
		{agent.Definition{Command: "claude", Format: "json"}, `unknown format "json" (want one of text, claude-json, codex-jsonl, gemini-json, aider-text)`},
		{agent.Definition{Command: "claude", ReadOnlyArgs: []string{"{nope}"}}, "read_only_args: unknown placeholder {nope}"},
	}
	for _, tt := range tests {
		err := tt.def.Validate()
		if err != nil && strings.Contains(err.Error(), "placeholder") && !strings.HasPrefix(err.Error(), "read_only_args") {
			var ce *agent.CommandError
			if !errors.As(err, &ce) {
				t.Errorf("%q: %v is no *agent.CommandError", tt.def.Command, err)
			}
		}
		got := ""
		if err != nil {
			got = err.Error()
		}
		if tt.want == "" && got != "" || tt.want != "" && !strings.HasPrefix(got, tt.want) {
			t.Errorf("%q: got %q, want %q", tt.def.Command, got, tt.want)
		}
	}
}

// Commands written for start are Go templates: an action of that language,
// a capitalised or unclosed placeholder fails with the offset of what is
// wrong, instead of reaching the agent as literal text.
func TestTemplateActionsAreErrors(t *testing.T) {
	tests := []struct {
		command string
		offset  int
		msg     string
	}{
		{"{{.bin}} {{if .model}}--model {{.model}}{{end}} {{.prompt}}", 9,
			"unsupported template action {{if .model}}: only placeholders {{.NAME}} are replaced (no if, range, pipes, functions or {{- trim markers)"},
		{`claude {{.prompt | printf "%q"}}`, 7, `unsupported template action {{.prompt | printf "%q"}}`},
		{"claude {{- .prompt -}}", 7, "unsupported template action {{- .prompt -}}"},
		{"{{.Bin}} {{.prompt}}", 0, "unknown placeholder {{.Bin}} (placeholders are lower case: {{.bin}})"},
		{"claude --model {{.model}} {{.prompt}", 26, "unclosed {{ (a placeholder is {{.NAME}} or {NAME})"},
		{"claude {{ .promt }}", 7, "unknown placeholder {{ .promt }} (known: {prompt}"},
		{"claude -p {prompt} --x {promt}", 23, "unknown placeholder {promt} (known: {prompt}"},
	}
	for _, tt := range tests {
		_, err := agent.ParseCommand(tt.command)
		var ce *agent.CommandError
		if !errors.As(err, &ce) {
			t.Errorf("%q: got %v, want a *agent.CommandError", tt.command, err)
			continue
		}
		if ce.Offset != tt.offset || !strings.HasPrefix(ce.Msg, tt.msg) {
			t.Errorf("%q: got offset %d %q\nwant offset %d %q", tt.command, ce.Offset, ce.Msg, tt.offset, tt.msg)
		}
	}
	// Double braces that start no action stay literal text.
	for _, ok := range []string{`tool --json '{{"a":1}}' {{}} {prompt}`, "tool {{ }} x"} {
		if _, err := agent.ParseCommand(ok); err != nil {
			t.Errorf("%q: %v", ok, err)
		}
	}
}

func TestDisplay(t *testing.T) {
	tests := []struct {
		cmd  string
		want []string
	}{
		{`a "b c" 'd e' f\ g "x\"y" '{prompt}' --m={model}`, []string{"a", "b c", "d e", "f g", `x"y`, "{prompt}", "--m=M"}},
		{"X=1 Y={model} prog {{.prompt}} {{ .task }}", []string{"X=1", "Y=M", "prog", "{prompt}", "T"}},
		{"{{ .bin }} run", []string{"prog-bin", "run"}},
		{"a\\\nb", []string{"ab"}},
		{"'' x", []string{"", "x"}},
	}
	for _, tt := range tests {
		d := agent.Definition{Name: "n", Command: tt.cmd, Bin: "prog-bin"}
		if strings.HasPrefix(tt.cmd, "a") || strings.HasPrefix(tt.cmd, "X") || strings.HasPrefix(tt.cmd, "'") {
			d.Bin = ""
		}
		got, err := d.Display(agent.Call{Model: "M", Task: "T"})
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(got, tt.want) {
			t.Errorf("%q: got %q, want %q", tt.cmd, got, tt.want)
		}
	}
}

func TestBuiltins(t *testing.T) {
	if got := agent.BuiltinNames(); !slices.Equal(got, []string{"aider", "claude", "codex", "gemini", "qwen"}) {
		t.Fatalf("builtins %q", got)
	}
	want := map[string]struct {
		cmd    string
		stdin  bool
		format agent.Format
		argv   []string
	}{
		"claude": {"claude -p --output-format json --model {model} --append-system-prompt {role}", true, agent.FormatClaudeJSON,
			[]string{"claude", "-p", "--output-format", "json", "--model", "opus", "--append-system-prompt", "Be brief."}},
		"codex": {"codex exec --json --skip-git-repo-check -m {model} -", true, agent.FormatCodexJSONL,
			[]string{"codex", "exec", "--json", "--skip-git-repo-check", "-m", "opus", "-"}},
		"gemini": {"GEMINI_SYSTEM_MD={role_file} gemini --prompt={prompt} -m {model} --output-format json", false, agent.FormatGeminiJSON,
			[]string{"GEMINI_SYSTEM_MD={role_file}", "gemini", "--prompt={prompt}", "-m", "opus", "--output-format", "json"}},
		"aider": {"aider --yes-always --no-pretty --no-show-model-warnings --no-check-update --no-analytics --message={prompt} --model {model}", false, agent.FormatAiderText,
			[]string{"aider", "--yes-always", "--no-pretty", "--no-show-model-warnings", "--no-check-update", "--no-analytics", "--message={prompt}", "--model", "opus"}},
		"qwen": {"qwen --prompt={prompt} -m {model}", false, agent.FormatText, []string{"qwen", "--prompt={prompt}", "-m", "opus"}},
	}
	for name, w := range want {
		d, ok := agent.Builtin(name)
		if !ok || d.Command != w.cmd || d.Stdin != w.stdin || d.Format != w.format || d.Scope != "builtin" {
			t.Errorf("%s: %+v", name, d)
		}
		if err := d.Validate(); err != nil {
			t.Errorf("%s: %v", name, err)
		}
		got, err := d.Display(agent.Call{Model: "opus", System: "Be brief.", Prompt: "secret prompt"})
		if err != nil || !slices.Equal(got, w.argv) {
			t.Errorf("%s: argv %q (%v), want %q", name, got, err, w.argv)
		}
	}
	// Without a model the agent's own default applies: --model {model} is dropped.
	d, _ := agent.Builtin("claude")
	got, _ := d.Display(agent.Call{System: "S"})
	if !slices.Equal(got, []string{"claude", "-p", "--output-format", "json", "--append-system-prompt", "S"}) {
		t.Errorf("claude without model: %q", got)
	}
}

func TestModelMap(t *testing.T) {
	d := agent.Definition{DefaultModel: "sonnet", Models: map[string]string{"sonnet": "claude-sonnet-4-5", "opus": "claude-opus-4-1"}}
	for in, want := range map[string]string{"": "claude-sonnet-4-5", "opus": "claude-opus-4-1", "custom-id": "custom-id"} {
		if got := d.Model(in); got != want {
			t.Errorf("Model(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestBuiltinPromptNotAnOption: a prompt that starts with "-" ("--yolo",
// a Markdown list) never becomes a word of its own after the program
// name, where the agent's option parser would take it for an option
// (yargs takes `-p --yolo` as an empty prompt and the --yolo flag;
// argparse refuses `--message -x`). Built-ins read the prompt on stdin or
// as the value inside an --option=VALUE word; shell syntax in it reaches
// the agent byte for byte.
func TestBuiltinPromptNotAnOption(t *testing.T) {
	for _, name := range agent.BuiltinNames() {
		d, _ := agent.Builtin(name)
		for _, prompt := range []string{"--yolo", "-rf", "- fix the bug\n- add a test", "$(touch x) `id` ; | && 'q' \"d\""} {
			inv, err := d.Prepare(agent.Call{Model: "m", Prompt: prompt}, "/tmp/role.md")
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			found := inv.Stdin == prompt
			for _, w := range inv.Argv[1:] {
				if w == prompt || strings.HasPrefix(prompt, "-") && strings.HasPrefix(w, prompt) {
					t.Errorf("%s: prompt %q is a word of its own: %q", name, prompt, inv.Argv)
				}
				if opt, v, ok := strings.Cut(w, "="); ok && strings.HasPrefix(opt, "--") && v == prompt {
					found = true
				}
			}
			if !found {
				t.Errorf("%s: prompt %q not passed on stdin or as --opt=PROMPT: argv %q, stdin %q", name, prompt, inv.Argv, inv.Stdin)
			}
		}
	}
}
