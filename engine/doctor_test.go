package engine_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/evalrun/evalrun/engine"
)

// doctorLines runs Doctor on dir and returns its checks as
// "name status: detail" lines, with dir shown as ROOT.
func doctorLines(t *testing.T, dir string) []string {
	t.Helper()
	var lines []string
	for _, c := range engine.Doctor(context.Background(), engine.Options{WorkDir: dir, Getenv: env(t)}) {
		lines = append(lines, strings.ReplaceAll(fmt.Sprintf("%s %s: %s", c.Name, c.Status, c.Detail), dir, "ROOT"))
	}
	return lines
}

func TestDoctorHealthyProject(t *testing.T) {
	dir := agentProject(t)
	got := strings.Join(doctorLines(t, dir), "\n")
	want := strings.Join([]string{
		"configuration ok: .evalrun/config.toml",
		"provider warning: no provider configured and OPENAI_API_KEY is unset: calls go to the echo provider",
		`agent fakeclaude ok: ROOT/fake-claude.sh ({"type":"result","is_error":false,"num_turns":2,"result":"claude saw ","total_cost_usd":0.5,"usage":{"input_tokens":100,"output_tokens":20}})`,
		`agent fakecodex ok: ROOT/fake-codex.sh ({"type":"thread.started","thread_id":"t1"})`,
		"role reviewer ok: 21 bytes from prompt",
		"context env ok: 21 bytes",
		"context missing warning: NOPE.md not found: the context is skipped",
		"context style ok: 13 bytes",
		"templates ok: 5 templates valid (1 from configuration tasks)",
		"aliases ok: 1 alias, no collision",
		"index warning: .evalrun/index.db does not exist yet (evalrun index creates it)",
		"journal warning: .evalrun/journal.db does not exist yet (the first run creates it)",
	}, "\n")
	if got != want {
		t.Errorf("doctor:\n%s\nwant:\n%s", got, want)
	}
	// --version ran in the project root, as agents do, and wrote nothing
	// into the databases' place.
	if _, err := os.Stat(filepath.Join(dir, "calls", "0.argv")); err != nil {
		t.Errorf("the fake agent's --version did not run in the project root: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, ".evalrun", "journal.db")); !os.IsNotExist(err) {
		t.Errorf("doctor created the journal: %v", err)
	}
}

func TestDoctorFailures(t *testing.T) {
	dir := project(t, map[string]string{
		".evalrun/config.toml": `[agents.ghost]
command = "no-such-agent-program-xyz -p {prompt}"

[agents.interactive]
bin = "sh"
command = "{{.bin}} --model {{.model}}"

[tasks.say]
alias = "hello"
prompt = "Say {instructions}"
`,
		".evalrun/templates/hello.xml": `<task name="hello" type="atomic"><description>Hi</description><instructions>Hi</instructions></task>`,
	})
	lines := doctorLines(t, dir)
	for _, want := range []string{
		"agent ghost failed: program 'no-such-agent-program-xyz' not found in PATH",
		"aliases failed: alias 'hello' of say (",
		"agent interactive warning: the command has no {prompt} and stdin is not set: the agent is not given the prompt",
	} {
		found := false
		for _, l := range lines {
			found = found || strings.HasPrefix(l, want)
		}
		if !found {
			t.Errorf("no line %q in:\n%s", want, strings.Join(lines, "\n"))
		}
	}
}

// TestDoctorSingularCounts: every count doctor prints is singular for one
// ("1 byte", "1 template", "1 alias").
func TestDoctorSingularCounts(t *testing.T) {
	dir := project(t, map[string]string{
		".evalrun/config.toml": `[roles.terse]
prompt = "x"

[contexts.one]
prompt = "y"
`,
	})
	lines := strings.Join(doctorLines(t, dir), "\n")
	for _, want := range []string{"role terse ok: 1 byte from prompt", "context one ok: 1 byte"} {
		if !strings.Contains(lines, want+"\n") {
			t.Errorf("no line %q in:\n%s", want, lines)
		}
	}
	if strings.Contains(lines, " 1 bytes") || strings.Contains(lines, " 1 templates") || strings.Contains(lines, " 1 aliases") {
		t.Errorf("a plural for one in:\n%s", lines)
	}
}
