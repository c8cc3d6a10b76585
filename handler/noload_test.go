package handler

import (
	"context"
	"os"
	"os/exec"
	"testing"

	"github.com/evalrun/evalrun/handler/tokens"
	"github.com/evalrun/evalrun/value"
)

// TestNoModelCallNoTokenizer checks, in a fresh process, that building
// providers, tools and sessions, calling tools and hashing requests never
// loads the tokenizer: only a model call does (SPEC §14.2).
func TestNoModelCallNoTokenizer(t *testing.T) {
	if os.Getenv("EVALRUN_NOLOAD_CHILD") == "1" {
		noLoadChild(t)
		return
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestNoModelCallNoTokenizer$", "-test.v")
	cmd.Env = append(os.Environ(), "EVALRUN_NOLOAD_CHILD=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("child: %v\n%s", err, out)
	}
}

func noLoadChild(t *testing.T) {
	root := t.TempDir()
	for _, name := range []string{"openai", "echo", "replay"} {
		p, err := NewProvider(name, ProviderConfig{}, RunOptions{Root: root, Getenv: func(string) string { return "" }})
		if err != nil {
			t.Fatal(err)
		}
		if o, ok := p.(*OpenAI); ok {
			o.Close()
		}
	}
	tools := fakeTools{"system_read_files": func(*value.Dict) *value.TaskResult { return ok("") }}
	tools.CallTool(context.Background(), "system_read_files", value.DictOf("file_paths", value.List{}))
	s := NewSession(SessionConfig{Provider: Echo{}, System: "sys", Tools: tools, AllowedTools: []string{"system_read_files"}})
	s.AddUser("hello")
	RequestHash(s.NextRequest())
	NewCassette(root + "/c.jsonl").Wrap(Echo{})
	if tokens.Loaded() {
		t.Fatal("the tokenizer was loaded without a model call")
	}
	if _, err := s.Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	if !tokens.Loaded() {
		t.Fatal("a model call did not count tokens")
	}
}
