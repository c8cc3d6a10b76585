package main

import (
	"bytes"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
)

// TestImplicitOpenAI: with OPENAI_API_KEY set and no provider configured,
// calls go to the openai provider at $OPENAI_BASE_URL, without the echo
// notice (SPEC §14.5).
func TestImplicitOpenAI(t *testing.T) {
	var calls atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		body, _ := io.ReadAll(r.Body)
		if r.URL.Path != "/chat/completions" || r.Header.Get("Authorization") != "Bearer k" || !bytes.Contains(body, []byte(`"model":"gpt-4o-mini"`)) {
			t.Errorf("request %s %s %q", r.URL.Path, r.Header.Get("Authorization"), body)
		}
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"id":"1","object":"chat.completion","choices":[{"index":0,"message":{"role":"assistant","content":"from the server"},"finish_reason":"stop"}],"usage":{"prompt_tokens":5,"completion_tokens":3,"total_tokens":8}}`)
	}))
	defer srv.Close()
	t.Chdir(t.TempDir())
	env := map[string]string{"OPENAI_API_KEY": "k", "OPENAI_BASE_URL": srv.URL, "HOME": t.TempDir()}
	var stdout, stderr bytes.Buffer
	a := &app{stdin: strings.NewReader(""), stdout: &stdout, stderr: &stderr, getenv: withCeiling(func(k string) string { return env[k] })}
	code := a.main([]string{"eval", `(defatom hi (instructions "Hi")) (define r (hi)) (list (get-field r "content") (get (get-field r "notes") "provider"))`})
	// The usage line reports the server's token counts (SPEC §17.3); the
	// server reports no cost and openai has no prices (SPEC §14.9).
	if code != exitOK || stdout.String() != "(\"from the server\" \"openai\")\n" ||
		stderr.String() != "usage: 1 model call, 5 input + 3 output tokens, 1 turn, cost unknown for 1 call\n" {
		t.Errorf("exit %d\nstdout:\n%s\nstderr:\n%s", code, &stdout, &stderr)
	}
	if calls.Load() != 1 {
		t.Errorf("%d calls, want 1", calls.Load())
	}
	// --dry-run never calls the server.
	stdout.Reset()
	stderr.Reset()
	code = a.main([]string{"eval", "--dry-run", `(defatom hi (instructions "Hi")) (get-field (hi) "content")`})
	if code != exitOK || stdout.String() != "\"Hi\"\n" || calls.Load() != 1 {
		t.Errorf("dry run: exit %d, %d calls\nstdout:\n%s\nstderr:\n%s", code, calls.Load(), &stdout, &stderr)
	}
}
