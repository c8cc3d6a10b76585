package tools

import (
	"context"
	"errors"
	"github.com/evalrun/evalrun/handler"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/evalrun/evalrun/value"
	"github.com/google/go-cmp/cmp"
)

func writeFile(t *testing.T, dir, name, content string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// project makes a project root with a subdirectory, a symbolic link out of
// it and a file outside.
func project(t *testing.T) (root, outside string) {
	t.Helper()
	base := t.TempDir()
	root = filepath.Join(base, "proj")
	outside = filepath.Join(base, "outside")
	writeFile(t, root, "a.txt", "alpha\n")
	writeFile(t, root, "sub/b.go", "package b")
	writeFile(t, root, ".hidden", "h")
	writeFile(t, root, "bin.dat", "x\x00y")
	writeFile(t, outside, "secret.txt", "secret")
	if err := os.Symlink(filepath.Join(outside, "secret.txt"), filepath.Join(root, "link.txt")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(root, "outdir")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("sub", filepath.Join(root, "subl")); err != nil {
		t.Fatal(err)
	}
	return root, outside
}

func call(t *testing.T, tools *Tools, name string, kv ...any) *value.TaskResult {
	t.Helper()
	return tools.CallTool(context.Background(), name, value.DictOf(kv...))
}

func wantResult(t *testing.T, r *value.TaskResult, status, content string) {
	t.Helper()
	if r.Status != status || r.Content != content {
		t.Errorf("result = %s %q, want %s %q (notes %v)", r.Status, r.Content, status, content, r.NotesOrEmpty())
	}
}

func reason(r *value.TaskResult) string {
	e, _ := r.NotesOrEmpty().Get("error")
	d, _ := e.(*value.Dict)
	if d == nil {
		return ""
	}
	v, _ := d.Get("reason")
	return string(v.(value.String))
}

func strs(ss ...string) value.List {
	l := make(value.List, len(ss))
	for i, s := range ss {
		l[i] = value.String(s)
	}
	return l
}

func TestReadFiles(t *testing.T) {
	root, outside := project(t)
	tools := NewTools(ToolsConfig{Root: root, WorkDir: filepath.Join(root, "sub")})
	r := call(t, tools, ToolReadFiles, "file_paths", strs("../a.txt", "b.go", "missing.txt", "../bin.dat", "../subl/b.go", "."))
	wantResult(t, r, "COMPLETE", "--- File: a.txt ---\nalpha\n\n--- File: sub/b.go ---\npackage b\n--- File: sub/b.go ---\npackage b\n--- End of Files ---")
	skipped, _ := r.NotesOrEmpty().Get("skipped_files")
	if diff := cmp.Diff(strs("missing.txt", "../bin.dat", "."), skipped); diff != "" {
		t.Errorf("skipped (-want +got):\n%s", diff)
	}

	for _, p := range []string{"../link.txt", filepath.Join(outside, "secret.txt"), "../../outside/secret.txt", "../outdir/secret.txt",
		"../../outside/none.txt", "../outdir/none.txt", "../outdir/a/b/none.txt"} {
		r = call(t, tools, ToolReadFiles, "file_paths", strs("../a.txt", p))
		wantResult(t, r, "FAILED", "path outside the project root: "+p)
		if reason(r) != handler.ReasonInputValidation {
			t.Errorf("%s: reason %q", p, reason(r))
		}
	}

	// Large files are cut at 100 KiB.
	big := strings.Repeat("é", 60<<10) // 120 KiB
	writeFile(t, root, "big.txt", big)
	r = call(t, tools, ToolReadFiles, "file_paths", strs("../big.txt"))
	want := "--- File: big.txt ---\n" + big[:MaxToolFileBytes] + "\n[truncated: " + itoa(len(big)-MaxToolFileBytes) + " more bytes]\n--- End of Files ---"
	if r.Content != want {
		t.Errorf("big file: %d bytes, want %d", len(r.Content), len(want))
	}
}

func itoa(n int) string { return value.Int(n).String() }

func TestParamValidation(t *testing.T) {
	root, _ := project(t)
	tools := NewTools(ToolsConfig{Root: root, WorkDir: root})
	tests := []struct {
		name string
		kv   []any
		msg  string
	}{
		{ToolReadFiles, nil, "Missing required parameter(s) for tool 'system_read_files': file_paths"},
		{ToolReadFiles, []any{"file_paths", value.String("a.txt")}, "Parameter 'file_paths' of tool 'system_read_files' expects list of strings, got string"},
		{ToolReadFiles, []any{"file_paths", value.List{value.Int(1)}}, "Parameter 'file_paths' of tool 'system_read_files' expects list of strings, got list containing int"},
		{ToolReadFiles, []any{"file_paths", strs(), "x", value.Int(1), "y", value.Int(2)}, "Unknown parameter(s) for tool 'system_read_files': x, y"},
		{ToolReadFiles, []any{"file_path", strs()}, "Unknown parameter(s) for tool 'system_read_files': file_path (did you mean 'file_paths'?)"},
		{ToolListDirectory, []any{"directory_path", value.Int(3)}, "Parameter 'directory_path' of tool 'system_list_directory' expects string, got int"},
		{ToolGetContext, []any{"query", value.String("q"), "top_k", value.Float(1.5)}, "Parameter 'top_k' of tool 'system_get_context' expects int, got float"},
		{ToolShell, []any{"command", value.String("ls"), "timeout", value.String("9")}, "Parameter 'timeout' of tool 'system_execute_shell_command' expects number, got string"},
	}
	for _, tt := range tests {
		r := call(t, tools, tt.name, tt.kv...)
		wantResult(t, r, "FAILED", tt.msg)
		if reason(r) != handler.ReasonInputValidation {
			t.Errorf("%s: reason %q", tt.msg, reason(r))
		}
	}
	// Symbols are strings; null is absent.
	r := call(t, tools, ToolListDirectory, "directory_path", value.Symbol("sub"))
	wantResult(t, r, "COMPLETE", `["b.go"]`)
	r = tools.CallTool(context.Background(), "nope", nil)
	wantResult(t, r, "FAILED", "Tool 'nope' not found in registered executors.")
	if !tools.HasTool(ToolShell) || tools.HasTool("nope") {
		t.Error("HasTool")
	}
	if diff := cmp.Diff([]string{ToolUserInput, ToolShell, ToolGetContext, ToolListDirectory, ToolReadFiles}, tools.Names()); diff != "" {
		t.Errorf("names (-want +got):\n%s", diff)
	}
}

func TestListDirectory(t *testing.T) {
	root, _ := project(t)
	tools := NewTools(ToolsConfig{Root: root, WorkDir: root})
	r := call(t, tools, ToolListDirectory, "directory_path", value.String("."))
	wantResult(t, r, "COMPLETE", `[".hidden","a.txt","bin.dat","link.txt","outdir/","sub/","subl/"]`)
	r = call(t, tools, ToolListDirectory, "directory_path", value.String("outdir"))
	wantResult(t, r, "FAILED", "path outside the project root: outdir")
	r = call(t, tools, ToolListDirectory, "directory_path", value.String("nodir"))
	wantResult(t, r, "FAILED", "cannot list directory nodir: no such file or directory")
	if reason(r) != handler.ReasonToolExecution {
		t.Errorf("reason %q", reason(r))
	}
	r = call(t, tools, ToolListDirectory, "directory_path", value.String("/"))
	wantResult(t, r, "FAILED", "path outside the project root: /")
}

func TestShellTool(t *testing.T) {
	root, _ := project(t)
	disabled := NewTools(ToolsConfig{Root: root, WorkDir: root})
	r := call(t, disabled, ToolShell, "command", value.String("echo hi"))
	wantResult(t, r, "FAILED", "shell tool is not enabled (set [tools] shell_allow)")
	if reason(r) != handler.ReasonConfiguration {
		t.Errorf("reason %q", reason(r))
	}

	tools := NewTools(ToolsConfig{Root: root, WorkDir: root, ShellAllow: []string{"echo", "ls", "sh", "sleep", "nonexistent-program-xyz"}})
	r = call(t, tools, ToolShell, "command", value.String(`echo 'a  b' "c\"d" e\ f $ x|y`))
	// | inside a word is still an operator.
	wantResult(t, r, "FAILED", "invalid command: shell operator '|' is not supported (the command runs without a shell)")

	r = call(t, tools, ToolShell, "command", value.String(`echo 'a  b' "c\"d" e\ f`))
	wantResult(t, r, "COMPLETE", "a  b c\"d e f\n")
	if diff := cmp.Diff(`{"exit_code":0,"stdout":"a  b c\"d e f\n","stderr":""}`, value.JSON(r.Notes)); diff != "" {
		t.Errorf("notes (-want +got):\n%s", diff)
	}

	r = call(t, tools, ToolShell, "command", value.String("ls"), "cwd", value.String("sub"))
	wantResult(t, r, "COMPLETE", "b.go\n")

	r = call(t, tools, ToolShell, "command", value.String(`sh -c 'echo out; echo first >&2; echo second >&2; exit 3'`))
	wantResult(t, r, "FAILED", "command exited with status 3: first")
	if reason(r) != handler.ReasonToolExecution {
		t.Errorf("reason %q", reason(r))
	}
	if code, _ := r.Notes.Get("exit_code"); code != value.Int(3) {
		t.Errorf("exit_code %v", code)
	}
	if out, _ := r.Notes.Get("stdout"); out != value.String("out\n") {
		t.Errorf("stdout %v", out)
	}

	r = call(t, tools, ToolShell, "command", value.String("cat /etc/passwd"))
	wantResult(t, r, "FAILED", "program 'cat' is not allowed (see [tools] shell_allow)")
	if reason(r) != handler.ReasonInputValidation {
		t.Errorf("reason %q", reason(r))
	}
	r = call(t, tools, ToolShell, "command", value.String("/usr/bin/echo x"))
	wantResult(t, r, "FAILED", "program '/usr/bin/echo' is not allowed (see [tools] shell_allow)")
	r = call(t, tools, ToolShell, "command", value.String("ls"), "cwd", value.String("outdir"))
	wantResult(t, r, "FAILED", "path outside the project root: outdir")
	if reason(r) != handler.ReasonInputValidation {
		t.Errorf("reason %q", reason(r))
	}
	r = call(t, tools, ToolShell, "command", value.String("ls"), "cwd", value.String("a.txt"))
	wantResult(t, r, "FAILED", "cwd is not a directory: a.txt")
	r = call(t, tools, ToolShell, "command", value.String("ls"), "timeout", value.Int(601))
	wantResult(t, r, "FAILED", "Parameter 'timeout' of tool 'system_execute_shell_command' must be more than 0 and at most 600 seconds, got 601")
	r = call(t, tools, ToolShell, "command", value.String("nonexistent-program-xyz"))
	wantResult(t, r, "FAILED", "cannot run nonexistent-program-xyz: executable file not found in $PATH")
	r = call(t, tools, ToolShell, "command", value.String("echo $HOME"))
	wantResult(t, r, "FAILED", "invalid command: variable expansion and command substitution are not supported (the command runs without a shell)")

	start := time.Now()
	r = call(t, tools, ToolShell, "command", value.String("sleep 5"), "timeout", value.Float(0.2))
	wantResult(t, r, "FAILED", "command timed out after 200ms: sleep 5")
	if reason(r) != handler.ReasonExecutionTimeout || time.Since(start) > 3*time.Second {
		t.Errorf("reason %q after %v", reason(r), time.Since(start))
	}

	t.Setenv("OPENAI_API_KEY", testKey)
	t.Setenv("LOCAL_LLM_KEY", testKey)
	t.Setenv("EVALRUN_VISIBLE", "yes")
	hidden := NewTools(ToolsConfig{Root: root, WorkDir: root, ShellAllow: []string{"sh"}, HideEnv: []string{"LOCAL_LLM_KEY"}})
	r = call(t, hidden, ToolShell, "command", value.String(`sh -c 'echo ${OPENAI_API_KEY:-none} ${LOCAL_LLM_KEY:-none} $EVALRUN_VISIBLE'`))
	wantResult(t, r, "COMPLETE", "none none yes\n")

	any := NewTools(ToolsConfig{Root: root, WorkDir: root, ShellAllow: []string{"*"}})
	r = call(t, any, ToolShell, "command", value.String("true"))
	wantResult(t, r, "COMPLETE", "")

	dry := NewTools(ToolsConfig{Root: root, WorkDir: root, ShellAllow: []string{"*"}, DryRun: true})
	r = call(t, dry, ToolShell, "command", value.String("touch "+filepath.Join(root, "made")))
	wantResult(t, r, "COMPLETE", "")
	if _, err := os.Stat(filepath.Join(root, "made")); !errors.Is(err, os.ErrNotExist) {
		t.Error("the dry run ran the command")
	}
	if d, _ := r.Notes.Get("dry_run"); d != value.Bool(true) {
		t.Errorf("notes = %v", r.Notes)
	}
}

func TestShellToolCancelled(t *testing.T) {
	root, _ := project(t)
	tools := NewTools(ToolsConfig{Root: root, WorkDir: root, ShellAllow: []string{"sleep"}})
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	start := time.Now()
	r := tools.CallTool(ctx, ToolShell, value.DictOf("command", value.String("sleep 10")))
	if reason(r) != handler.ReasonExecutionHalted || time.Since(start) > 3*time.Second {
		t.Errorf("result %v after %v", r, time.Since(start))
	}
}

func TestUserInput(t *testing.T) {
	var stderr strings.Builder
	tools := NewTools(ToolsConfig{Stdin: strings.NewReader("Bob\r\nAlice"), Stderr: &stderr, Interactive: func() bool { return true }})
	r := call(t, tools, ToolUserInput, "prompt", value.String("Name?"))
	wantResult(t, r, "COMPLETE", "Bob")
	r = call(t, tools, ToolUserInput, "prompt", value.String("Again: "))
	wantResult(t, r, "COMPLETE", "Alice")
	r = call(t, tools, ToolUserInput, "prompt", value.String("More?"))
	wantResult(t, r, "FAILED", "no input: end of file")
	if stderr.String() != "Name? Again: More? " {
		t.Errorf("stderr = %q", stderr.String())
	}
	defs, warnings := tools.Offer("t", []string{ToolUserInput})
	if len(defs) != 1 || len(warnings) != 0 {
		t.Errorf("offer: %v %v", defs, warnings)
	}
}

// fakeMemory answers like memory.Result.ToolResult.
func fakeMemory(ctx context.Context, query string, topK int) *value.TaskResult {
	if query == "broken" {
		return value.Failed(handler.ReasonContextRetrieval, "index broken", nil)
	}
	ids := strs("a.go", "b.go")[:min(2, max(topK, 2))]
	notes := value.DictOf("context_summary", value.String("2 matches for \""+query+"\" (content strategy, 9 files indexed)"),
		"matches", value.List{})
	return complete(value.JSON(ids), notes)
}

func TestGetContext(t *testing.T) {
	none := NewTools(ToolsConfig{})
	r := call(t, none, ToolGetContext, "query", value.String("retry"))
	wantResult(t, r, "FAILED", "system_get_context is not available: no memory index is configured")
	if reason(r) != handler.ReasonConfiguration {
		t.Errorf("reason %q", reason(r))
	}
	tools := NewTools(ToolsConfig{Context: ContextFunc(fakeMemory)})
	r = call(t, tools, ToolGetContext, "query", value.String("retry"), "top_k", value.Int(2))
	wantResult(t, r, "COMPLETE", `["a.go","b.go"]`)
	if s, _ := r.Notes.Get("context_summary"); s != value.String(`2 matches for "retry" (content strategy, 9 files indexed)`) {
		t.Errorf("summary %v", s)
	}
	r = call(t, tools, ToolGetContext, "query", value.String("broken"))
	wantResult(t, r, "FAILED", "index broken")
	if reason(r) != handler.ReasonContextRetrieval {
		t.Errorf("reason %q", reason(r))
	}
}

func TestToolPanicIsAFailure(t *testing.T) {
	tools := NewTools(ToolsConfig{})
	tools.Register(Tool{Name: "bad", Run: func(context.Context, *value.Dict) *value.TaskResult { panic("oops") }})
	r := call(t, tools, "bad")
	wantResult(t, r, "FAILED", "tool 'bad' panicked: oops")
}

const testKey = "sk-test-0123456789abcdef-SECRET"

func TestColonNames(t *testing.T) {
	root, _ := project(t)
	tools := NewTools(ToolsConfig{Root: root, WorkDir: root})
	for _, name := range []string{"system:read_files", "system:list_directory", "system:get_context", "system:execute_shell_command"} {
		if !tools.HasTool(name) {
			t.Errorf("HasTool(%q) = false", name)
		}
	}
	if tools.HasTool("system:nothing") || tools.HasTool("other:read_files") {
		t.Error("a colon name without a built-in tool is a tool")
	}
	r := call(t, tools, "system:read_files", "file_paths", strs("a.txt"))
	wantResult(t, r, "COMPLETE", "--- File: a.txt ---\nalpha\n\n--- End of Files ---")

	// Both spellings in allowed_tools offer the tool once, by its name.
	defs, warnings := tools.Offer("t", []string{"system:read_files", ToolReadFiles})
	if len(defs) != 1 || defs[0].Name != ToolReadFiles || len(warnings) != 0 {
		t.Errorf("Offer = %v, %v", defs, warnings)
	}

	// A tool registered under the colon name itself wins.
	tools.Register(Tool{Name: "system:read_files", Run: func(context.Context, *value.Dict) *value.TaskResult {
		return &value.TaskResult{Status: value.StatusComplete, Content: "own"}
	}})
	wantResult(t, call(t, tools, "system:read_files"), "COMPLETE", "own")
}
