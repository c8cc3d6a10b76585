package docs_test

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/evalrun/evalrun/handler/tokens"
)

var recordDemo = flag.Bool("record-demo", false, "re-record examples/demo/cassette.jsonl from examples/demo/answers.json")

// demoDir is the demo's directory, relative to this package.
const demoDir = "../examples/demo"

// The question the demo asks (also in demo.sh and answers.json).
const demoQuestion = "How does the client decide how long to wait before retrying a request?"

// TestDemoReplays runs the demo as make demo does and checks that every
// model call is answered from the shipped cassette and that the output
// shows the findings, the parsed report, the call tree, the resumed run
// spending nothing and the retrieval-backed answer.
func TestDemoReplays(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the demo")
	}
	var out bytes.Buffer
	cmd := exec.Command("bash", filepath.Join(demoDir, "demo.sh"), filepath.Join(binDir, "evalrun"))
	cmd.Env = append(os.Environ(), "NO_COLOR=1")
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		t.Fatalf("demo.sh: %v\n%s", err, &out)
	}
	got := out.String()
	for _, want := range []string{
		"log: reviewing 3 files: client.go, retry.go, retryafter.go",
		"log: [high] client.go:25 A retried POST is sent with an already consumed body",
		"log: [high] client.go:29 The body of a retried response is never closed",
		"log: [low] retry.go:24 Every 500 is now retried",
		`"verdict": "changes",`,
		"usage: 4 model calls, ",
		"[completed] step \"review each file\"",
		"usage: 4 model calls (4 replayed), ",
		"    [completed] task review/merge  1 turn  1,428 tokens  $0.0055  (replayed)",
		"4 turns, $0.0000 spent + $0.0183 replayed",
		" retry.go\n",
		"The wait is computed by `Policy.Delay` (retry.go:33)",
		"usage: 1 model call, ",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("the demo's output lacks %q", want)
		}
	}
	// The excerpt of the demo's output in the README is what the demo
	// prints (less the run header, whose id and time change).
	readme, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	blocks, err := parseBlocks(strings.Split(string(readme), "\n"))
	if err != nil {
		t.Fatal(err)
	}
	excerpt := 0
	for _, b := range blocks {
		if b.info != "" || len(b.lines) == 0 || !strings.HasPrefix(b.lines[0], "log: reviewing") {
			continue
		}
		for _, line := range b.lines {
			if line == "…" || strings.HasPrefix(line, "run ") {
				continue
			}
			excerpt++
			if !strings.Contains(got, line+"\n") {
				t.Errorf("the README shows the demo line %q, which the demo does not print", line)
			}
		}
	}
	if excerpt == 0 {
		t.Error("the README has no excerpt of the demo's output")
	}
	for _, bad := range []string{"no recorded response", "FAILED", `""`} {
		if strings.Contains(got, bad) {
			t.Errorf("the demo's output contains %q", bad)
		}
	}
	if t.Failed() {
		t.Logf("demo output:\n%s", got)
	}
}

// answer is one scripted model answer of examples/demo/answers.json: the
// answer to the first request whose last user message contains When.
type answer struct {
	When   string `json:"when"`
	Answer string `json:"answer"`
}

// scriptedServer is an OpenAI-compatible chat-completions server that
// answers from a list of authored answers, with usage counted by the
// o200k tokenizer as a real server would report it, and the cost at
// gpt-4.1's prices ($2 per million input tokens, $8 per million output
// tokens) in usage.cost, as routers such as OpenRouter report it.
func scriptedServer(t *testing.T, answers []answer) *httptest.Server {
	var mu sync.Mutex
	used := map[int]bool{}
	return httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			Messages []struct {
				Role    string `json:"role"`
				Content string `json:"content"`
			} `json:"messages"`
		}
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil || len(req.Messages) == 0 {
			http.Error(w, "bad request", http.StatusBadRequest)
			return
		}
		last := req.Messages[len(req.Messages)-1].Content
		in := 3
		for _, m := range req.Messages {
			in += tokens.Count(m.Content) + 4
		}
		for i, a := range answers {
			if strings.Contains(last, a.When) {
				mu.Lock()
				used[i] = true
				mu.Unlock()
				out := tokens.Count(a.Answer)
				w.Header().Set("Content-Type", "application/json")
				json.NewEncoder(w).Encode(map[string]any{
					"id": fmt.Sprintf("demo-%d", i), "object": "chat.completion", "created": 0, "model": "gpt-4.1",
					"choices": []any{map[string]any{"index": 0, "finish_reason": "stop",
						"message": map[string]any{"role": "assistant", "content": a.Answer}}},
					"usage": map[string]any{"prompt_tokens": in, "completion_tokens": out, "total_tokens": in + out,
						"cost": float64(in)*2e-6 + float64(out)*8e-6},
				})
				return
			}
		}
		t.Errorf("no scripted answer for a request whose last message is:\n%s", last)
		http.Error(w, "no scripted answer", http.StatusBadRequest)
	}))
}

// TestRecordDemoCassette re-records examples/demo/cassette.jsonl: it runs
// the demo's model calls once against a scripted server that gives the
// answers of examples/demo/answers.json, with --record. Run it after
// changing the demo project, its templates or its answers:
//
//	go test ./docs -run TestRecordDemoCassette -record-demo
func TestRecordDemoCassette(t *testing.T) {
	if !*recordDemo {
		t.Skip("re-records the demo cassette only with -record-demo")
	}
	data, err := os.ReadFile(filepath.Join(demoDir, "answers.json"))
	if err != nil {
		t.Fatal(err)
	}
	var answers []answer
	if err := json.Unmarshal(data, &answers); err != nil {
		t.Fatalf("answers.json: %v", err)
	}
	srv := scriptedServer(t, answers)
	defer srv.Close()

	base := t.TempDir()
	home := filepath.Join(base, "home")
	evalrunHome := filepath.Join(home, "evalrun")
	if err := os.MkdirAll(evalrunHome, 0o755); err != nil {
		t.Fatal(err)
	}
	config := fmt.Sprintf("[providers.scripted]\ntype = \"openai\"\nbase_url = %q\napi_key_env = \"DEMO_SCRIPTED_KEY\"\nmodel = \"gpt-4.1\"\n", srv.URL+"/v1")
	if err := os.WriteFile(filepath.Join(evalrunHome, "config.toml"), []byte(config), 0o644); err != nil {
		t.Fatal(err)
	}
	cassette := filepath.Join(base, "cassette.jsonl")
	project := filepath.Join(base, "httpclient")
	patch, err := filepath.Abs(filepath.Join(demoDir, "change.patch"))
	if err != nil {
		t.Fatal(err)
	}
	env := []string{"PATH=" + os.Getenv("PATH"), "HOME=" + home, "EVALRUN_HOME=" + evalrunHome,
		"EVALRUN_CEILING_DIRECTORIES=" + base, "DEMO_SCRIPTED_KEY=scripted", "NO_COLOR=1"}
	run := func(name string, args ...string) string {
		t.Helper()
		var out bytes.Buffer
		cmd := exec.Command(name, args...)
		cmd.Dir, cmd.Env = project, env
		cmd.Stdout, cmd.Stderr = &out, &out
		if err := cmd.Run(); err != nil {
			t.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, &out)
		}
		return out.String()
	}
	if err := exec.Command("cp", "-R", filepath.Join(demoDir, "project"), project).Run(); err != nil {
		t.Fatal(err)
	}
	// The same git state as demo.sh makes.
	run("git", "init", "-q")
	run("git", "add", ".")
	run("git", "-c", "user.name=demo", "-c", "user.email=demo@example.com", "commit", "-qm", "httpclient: retries with backoff")
	run("git", "apply", "--index", patch)
	evalrun := filepath.Join(binDir, "evalrun")
	t.Log(run(evalrun, "run", "review.sexp", "--json", "--provider", "scripted", "--record", cassette))
	t.Log(run(evalrun, "task", "ask", demoQuestion, "--provider", "scripted", "--record", cassette))
	rec, err := os.ReadFile(cassette)
	if err != nil {
		t.Fatal(err)
	}
	if n := bytes.Count(rec, []byte("\n")); n != len(answers) {
		t.Fatalf("recorded %d answers, want %d", n, len(answers))
	}
	if err := os.WriteFile(filepath.Join(demoDir, "cassette.jsonl"), rec, 0o644); err != nil {
		t.Fatal(err)
	}
}
