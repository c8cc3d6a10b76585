package tasksystem

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/evalrun/evalrun/templates"
	"github.com/evalrun/evalrun/value"
)

func TestShellQuote(t *testing.T) {
	tests := []struct{ in, want string }{
		{"", "''"},
		{"abc", "'abc'"},
		{"a b", "'a b'"},
		{"it's", `'it'\''s'`},
		{"'", `''\'''`},
		{"$(x) `y` \\ \"z\"\n", "'$(x) `y` \\ \"z\"\n'"},
	}
	for _, tt := range tests {
		if got, _ := shellQuote("git diff ", tt.in); got != tt.want {
			t.Errorf("shellQuote(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

// lookupOf resolves names from a map.
func lookupOf(m map[string]value.Value) templates.Lookup {
	return func(root string) (value.Value, bool) {
		v, ok := m[root]
		return v, ok
	}
}

func TestRenderCommand(t *testing.T) {
	vals := map[string]value.Value{
		"s":     value.String("it's here"),
		"files": value.List{value.String("a b.go"), value.String("c'd.go")},
		"plan":  value.DictOf("path", value.String("x y"), "n", value.Int(3)),
		"empty": value.Null{},
		"n":     value.Int(7),
	}
	tests := []struct{ src, want string }{
		{"git diff --staged", "git diff --staged"},
		{"echo {{s}}", `echo 'it'\''s here'`},
		{"echo {{ s | upper }}", `echo 'IT'\''S HERE'`},
		{`ls {{files | join(" ")}}`, `ls 'a b.go c'\''d.go'`},
		{"cat {{plan.path}} -n {{plan.n}}", "cat 'x y' -n '3'"},
		{"echo {{files}}", `echo '["a b.go","c'\''d.go"]'`},
		{"echo {{s | json}}", `echo '"it'\''s here"'`},
		{`grep {{empty | default("none")}} {{empty}}`, "grep 'none' ''"},
		{"echo {{n}}{{n}}", "echo '7''7'"},
		{`echo \{{s}} {{ s | truncate(2) }}`, "echo {{s}} 'it…'"},
		{"echo {{ open\necho }}", "echo {{ open\necho }}"},
		{`echo {{ empty | default("a}}b") }} done`, "echo 'a}}b' done"},
		{`echo {{ empty | default("it's") }}`, `echo 'it'\''s'`},
		{`echo \\{{n}}`, `echo \{{n}}`},
		{"echo }} {{n}} {{", "echo }} '7' {{"},
	}
	for _, tt := range tests {
		txt, err := templates.Parse(tt.src)
		if err != nil {
			t.Fatal(err)
		}
		got, err := renderCommand(txt, lookupOf(vals))
		if err != nil {
			t.Errorf("renderCommand(%q): %v", tt.src, err)
			continue
		}
		if got != tt.want {
			t.Errorf("renderCommand(%q) = %q, want %q", tt.src, got, tt.want)
		}
	}
	txt := templates.MustParse("echo {{plan.missing}}")
	if _, err := renderCommand(txt, lookupOf(vals)); err == nil ||
		err.Error() != "Missing parameter(s) or access error for substitution: plan.missing" {
		t.Errorf("missing: err = %v", err)
	}
}

// TestNaiveQuotingIsUnsafe documents why renderCommand quotes the rendered
// text of each placeholder instead of returning quoted values from the
// lookup: with pre-quoted values the json filter puts the quoted text inside
// double quotes, where the shell expands $(...).
func TestNaiveQuotingIsUnsafe(t *testing.T) {
	naive := func(lookup templates.Lookup) templates.Lookup {
		return func(root string) (value.Value, bool) {
			v, ok := lookup(root)
			if !ok {
				return nil, false
			}
			q, _ := shellQuote("", value.Text(v))
			return value.String(q), true
		}
	}
	vals := lookupOf(map[string]value.Value{"x": value.String("$(id)"), "plan": value.DictOf("path", value.String("p"))})
	txt := templates.MustParse("echo {{x | json}}")
	if got, _ := txt.Render(naive(vals)); got != `echo "'$(id)'"` {
		t.Errorf("naive json = %q", got)
	}
	if _, missing := templates.MustParse("cat {{plan.path}}").Render(naive(vals)); len(missing) == 0 {
		t.Errorf("naive quoting kept dotted references working")
	}
	if got, _ := renderCommand(txt, vals); got != `echo '"$(id)"'` {
		t.Errorf("renderCommand json = %q", got)
	}
}

// TestCommandHostileValues runs commands with hostile input values: nothing
// in a value is executed, and each value reaches the command as one word,
// byte for byte.
func TestCommandHostileValues(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	victim := filepath.Join(dir, "victim")
	if err := os.WriteFile(victim, []byte("keep"), 0o644); err != nil {
		t.Fatal(err)
	}
	hostile := []string{
		"'; rm -rf " + victim + "; echo '",
		"$(touch pwned)",
		"`touch pwned2`",
		"a\ntouch pwned3\n",
		"\"; touch pwned4; echo \"",
		"${IFS}; touch pwned5",
		"'\\''; touch pwned6 #",
		"*",
		"-n",
		"",
	}
	// The placeholder bare, and inside the template's own double or
	// single quotes, where a value is escaped for those quotes.
	for _, text := range []string{"printf '[%s]' {{v}}", `printf '[%s]' "{{v}}"`, `printf '[%s]' '{{v}}'`, `printf '[%s]' "a{{v}}"b`} {
		for _, h := range hostile {
			tm := &templates.Template{Name: "hostile", Type: "atomic", Instructions: "{{command_output}}",
				Command: &templates.Command{Text: text, FailOnError: true}}
			if err := templates.Infer(tm); err != nil {
				t.Fatal(err)
			}
			res := NewExecutor(Options{}).Execute(context.Background(), Request{Template: tm, Named: []NamedArg{{"v", value.String(h)}}})
			want := "[" + h + "]"
			if strings.Contains(text, "a{{v}}") {
				want = "[a" + h + "b]"
			}
			if res.Status != value.StatusComplete || res.Content != want {
				t.Errorf("%s, value %q: result %v, content %q", text, h, res, res.Content)
			}
		}
	}
	// In a here-document's body a value is escaped (<<EOF) or kept
	// (<<'EOF'); one holding the delimiter line fails the task.
	reason := func(r *value.TaskResult) string {
		e, _ := r.NotesOrEmpty().Get("error")
		d, _ := e.(*value.Dict)
		if d == nil {
			return ""
		}
		v, _ := d.Get("reason")
		return value.Text(v)
	}
	for _, text := range []string{"cat <<EOF\n[{{v}}]\nEOF", "cat <<'EOF'\n[{{v}}]\nEOF"} {
		for _, h := range append(hostile, "x\nEOF\ntouch pwned7\ncat <<EOF") {
			tm := &templates.Template{Name: "hostile", Type: "atomic", Instructions: "{{command_output}}",
				Command: &templates.Command{Text: text, FailOnError: true}}
			if err := templates.Infer(tm); err != nil {
				t.Fatal(err)
			}
			res := NewExecutor(Options{}).Execute(context.Background(), Request{Template: tm, Named: []NamedArg{{"v", value.String(h)}}})
			if strings.Contains(h, "\nEOF\n") {
				if res.Status != value.StatusFailed || reason(res) != "input_validation_failure" || !strings.Contains(res.Content, "{{v}}: the value holds the line that ends the here-document") {
					t.Errorf("%s, value %q: result %v, reason %q", text, h, res, reason(res))
				}
				continue
			}
			if res.Status != value.StatusComplete || res.Content != "["+h+"]\n" {
				t.Errorf("%s, value %q: result %v, content %q", text, h, res, res.Content)
			}
		}
	}
	for _, f := range []string{"pwned", "pwned2", "pwned3", "pwned4", "pwned5", "pwned6", "pwned7"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err == nil {
			t.Errorf("%s was created: a value was executed", f)
		}
	}
	if _, err := os.Stat(victim); err != nil {
		t.Errorf("victim removed: %v", err)
	}
}

func TestShellCommandRun(t *testing.T) {
	dir := t.TempDir()
	ctx := context.Background()
	t.Run("interleaved and exact", func(t *testing.T) {
		res, err := shellCommand{text: "echo out; echo err >&2; printf 'last\\n\\n'; pwd", dir: dir}.run(ctx)
		real, _ := filepath.EvalSymlinks(dir)
		if err != nil || res.status != 0 || res.output != "out\nerr\nlast\n\n"+real+"\n" {
			t.Errorf("res = %+v, err %v", res, err)
		}
	})
	t.Run("exit status", func(t *testing.T) {
		res, err := shellCommand{text: "echo first line; echo second; exit 3", dir: dir}.run(ctx)
		if err != nil || res.status != 3 || commandExitMessage(res) != "command exited with status 3: first line" {
			t.Errorf("res = %+v, err %v, message %q", res, err, commandExitMessage(res))
		}
		res, _ = shellCommand{text: "exit 4", dir: dir}.run(ctx)
		if commandExitMessage(res) != "command exited with status 4" {
			t.Errorf("message = %q", commandExitMessage(res))
		}
		res, _ = shellCommand{text: "kill -TERM $$", dir: dir}.run(ctx)
		if res.status != 128+15 {
			t.Errorf("signalled: status %d", res.status)
		}
	})
	t.Run("shell attribute", func(t *testing.T) {
		res, err := shellCommand{shell: "bash", text: "echo ${BASH_VERSION:+bash}", dir: dir}.run(ctx)
		if err != nil {
			t.Skip("no bash:", err)
		}
		if res.output != "bash\n" {
			t.Errorf("output = %q", res.output)
		}
		if _, err := (shellCommand{shell: "no-such-shell-xyz", text: "true", dir: dir}).run(ctx); err == nil {
			t.Errorf("missing shell ran")
		}
	})
	t.Run("output cap", func(t *testing.T) {
		res, err := shellCommand{text: "head -c 1100000 /dev/zero | tr '\\0' a; echo; echo tail", dir: dir}.run(ctx)
		want := strings.Repeat("a", MaxCommandOutput) + "\n[output truncated]"
		if err != nil || res.output != want {
			t.Errorf("len %d, suffix %q, err %v", len(res.output), res.output[max(0, len(res.output)-30):], err)
		}
		// A cut never splits a code point.
		res, _ = shellCommand{text: "printf a; yes é | tr -d '\\n' | head -c 1100000", dir: dir}.run(ctx)
		body := strings.TrimSuffix(res.output, "\n[output truncated]")
		if body == res.output || !strings.HasPrefix(body, "aé") || len(body) != MaxCommandOutput-1 {
			t.Errorf("cut at %d bytes, suffix %q", len(body), res.output[max(0, len(res.output)-30):])
		}
	})
	t.Run("timeout", func(t *testing.T) {
		start := time.Now()
		_, err := shellCommand{text: "echo started; sleep 20", dir: dir, timeout: 200 * time.Millisecond}.run(ctx)
		if !errors.Is(err, errCommandTimeout) || time.Since(start) > 5*time.Second {
			t.Errorf("err = %v after %v", err, time.Since(start))
		}
	})
	t.Run("cancel", func(t *testing.T) {
		cctx, cancel := context.WithCancel(ctx)
		time.AfterFunc(100*time.Millisecond, cancel)
		start := time.Now()
		_, err := shellCommand{text: "sleep 20", dir: dir}.run(cctx)
		if !errors.Is(err, context.Canceled) || time.Since(start) > 5*time.Second {
			t.Errorf("err = %v after %v", err, time.Since(start))
		}
	})
}

// TestCommandProcessGroupKill checks that background children are killed,
// whether the command times out or exits while they run, and that a child
// holding the output pipe open does not keep the task waiting.
func TestCommandProcessGroupKill(t *testing.T) {
	if _, err := os.Stat("/proc/self/stat"); err != nil {
		t.Skip("needs /proc")
	}
	dir := t.TempDir()
	for _, tt := range []struct {
		name    string
		text    string
		timeout time.Duration
	}{
		{"on timeout", "sleep 30 & echo $!; sleep 30", 300 * time.Millisecond},
		{"after exit", "sleep 30 & echo $!", 0},
		{"grandchild", "sh -c 'sleep 30 & echo $!; wait' & sleep 0.2", 0},
	} {
		t.Run(tt.name, func(t *testing.T) {
			start := time.Now()
			out := &bytes.Buffer{}
			res, err := shellCommand{text: tt.text, dir: dir, timeout: tt.timeout}.run(context.Background())
			out.WriteString(res.output)
			if elapsed := time.Since(start); elapsed > 10*time.Second {
				t.Fatalf("took %v", elapsed)
			}
			if tt.timeout > 0 {
				if !errors.Is(err, errCommandTimeout) {
					t.Fatalf("err = %v", err)
				}
				return // the output is not returned on timeout; the group kill is checked below
			}
			if err != nil {
				t.Fatal(err)
			}
			pid, err := strconv.Atoi(strings.TrimSpace(firstLine(out.String())))
			if err != nil {
				t.Fatalf("output %q", out.String())
			}
			waitGone(t, pid)
		})
	}
	// The timeout case: the sleeping child writes its pid to a file first.
	pidFile := filepath.Join(dir, "pid")
	_, err := shellCommand{text: "sleep 30 & echo $! > " + pidFile + "; sleep 30", dir: dir, timeout: 300 * time.Millisecond}.run(context.Background())
	if !errors.Is(err, errCommandTimeout) {
		t.Fatalf("err = %v", err)
	}
	data, _ := os.ReadFile(pidFile)
	pid, err := strconv.Atoi(strings.TrimSpace(string(data)))
	if err != nil {
		t.Fatalf("pid file %q", data)
	}
	waitGone(t, pid)
}

// waitGone waits until process pid has exited (gone, or a zombie nobody
// reaped yet).
func waitGone(t *testing.T, pid int) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for time.Now().Before(deadline) {
		stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
		if err != nil {
			return
		}
		// The state follows the parenthesised command name.
		if i := bytes.LastIndexByte(stat, ')'); i >= 0 && i+2 < len(stat) && (stat[i+2] == 'Z' || stat[i+2] == 'X') {
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Errorf("process %d still running", pid)
}

// cmdTemplate is a template whose instructions show the command output.
func cmdTemplate(scope templates.Scope, cmd *templates.Command, instr string) *templates.Template {
	tm := &templates.Template{Name: "review/git-diff", Type: "atomic", Description: "d", Instructions: instr, Command: cmd, Scope: scope}
	if err := templates.Infer(tm); err != nil {
		panic(err)
	}
	return tm
}

func TestExecuteCommand(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	reason := func(r *value.TaskResult) string {
		e, ok := r.Notes.Get("error")
		if !ok {
			return ""
		}
		v, _ := e.(*value.Dict).Get("reason")
		return value.Text(v)
	}
	tests := []struct {
		name    string
		scope   templates.Scope
		cmd     templates.Command
		instr   string
		args    []NamedArg
		status  string
		reason  string
		content string
		echo    string
	}{
		{"local echoes", templates.ScopeLocal, templates.Command{Text: "echo {{who}}", FailOnError: true},
			"[{{command_output}}] {{command}}", []NamedArg{{"who", value.String("a b")}},
			"COMPLETE", "", "[a b\n] echo 'a b'", "running command of review/git-diff (local): echo 'a b'\n"},
		{"dir echoes", templates.ScopeDir, templates.Command{Text: "printf x", FailOnError: true},
			"{{command_output}}", nil, "COMPLETE", "", "x", "running command of review/git-diff (dir): printf x\n"},
		{"global is silent", templates.ScopeGlobal, templates.Command{Text: "printf x", FailOnError: true},
			"{{command_output}}", nil, "COMPLETE", "", "x", ""},
		{"failure", templates.ScopeDefatom, templates.Command{Text: "echo bad thing >&2; exit 2", FailOnError: true},
			"{{command_output}}", nil, "FAILED", "tool_execution_error", "command exited with status 2: bad thing", ""},
		{"failure ignored", templates.ScopeDefatom, templates.Command{Text: "echo partial; exit 2"},
			"{{command_output}}", nil, "COMPLETE", "", "partial\n", ""},
		{"timeout", templates.ScopeDefatom, templates.Command{Text: "sleep 20", Timeout: 300 * time.Millisecond, FailOnError: true},
			"{{command_output}}", nil, "FAILED", "execution_timeout", "command timed out after 300ms", ""},
		{"not run without command_output", templates.ScopeLocal, templates.Command{Text: "touch ran", FailOnError: true},
			"{{command}}", nil, "COMPLETE", "", "touch ran", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var stderr bytes.Buffer
			cmd := tt.cmd
			res := NewExecutor(Options{Stderr: &stderr}).Execute(context.Background(),
				Request{Template: cmdTemplate(tt.scope, &cmd, tt.instr), Named: tt.args})
			if res.Status != tt.status || reason(res) != tt.reason || res.Content != tt.content {
				t.Errorf("result %s %q %q, want %s %q %q", res.Status, reason(res), res.Content, tt.status, tt.reason, tt.content)
			}
			if stderr.String() != tt.echo {
				t.Errorf("stderr = %q, want %q", stderr.String(), tt.echo)
			}
		})
	}
	if _, err := os.Stat(filepath.Join(dir, "ran")); err == nil {
		t.Errorf("the command ran although {{command_output}} is not used")
	}

	// The command runs in WorkDir; system counts as a use.
	wd := t.TempDir()
	tm := &templates.Template{Name: "w", Type: "atomic", System: "{{command_output}}", Instructions: "x",
		Command: &templates.Command{Text: "pwd", FailOnError: true}}
	rec := &recorder{name: "rec"}
	NewExecutor(Options{WorkDir: wd, DefaultProvider: rec}).Execute(context.Background(), Request{Template: tm})
	real, _ := filepath.EvalSymlinks(wd)
	if got := rec.last().System; got != DefaultBasePrompt+"\n\n"+real+"\n" {
		t.Errorf("system = %q", got)
	}

	// Cancellation while the command runs.
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(100*time.Millisecond, cancel)
	res := NewExecutor(Options{}).Execute(ctx, Request{Template: cmdTemplate(templates.ScopeGlobal,
		&templates.Command{Text: "sleep 20", FailOnError: true}, "{{command_output}}")})
	if res.Content != "cancelled" || reason(res) != "execution_halted" {
		t.Errorf("cancelled: %v %q", res, reason(res))
	}
}

// FuzzRenderCommand checks that quoting changes only the placeholders: the
// command text with its quotes taken off reads as the plain rendering.
func FuzzRenderCommand(f *testing.F) {
	for _, s := range []string{
		"git diff", "echo {{x}}", `echo \{{x}} {{ y | default("}}") }}`, "{{ a\n}}", `{{ x | default("a\"}}") }}`,
		"{{x}}{{y}}", "a {{ \"b }} c", "{{x | join(\", \")}}", `\\{{x}}`, "{{x}\n}}",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, src string) {
		txt, err := templates.Parse(src)
		if err != nil {
			return
		}
		lookup := func(string) (value.Value, bool) { return value.String("it's"), true }
		plain, missing := txt.Render(lookup)
		quoted, err := renderCommand(txt, lookup)
		if (err != nil) != (len(missing) > 0) {
			t.Fatalf("renderCommand(%q): %v, missing %v", src, err, missing)
		}
		if err != nil {
			return
		}
		// The value as quoted outside quotes, then inside single quotes
		// (inside double quotes it needs no escape).
		got := strings.ReplaceAll(quoted, `'it'\''s'`, "it's")
		if got = strings.ReplaceAll(got, `it'\''s`, "it's"); got != plain {
			t.Fatalf("renderCommand(%q) = %q; unquoted %q, want %q", src, quoted, got, plain)
		}
	})
}
