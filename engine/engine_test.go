package engine_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/evalrun/evalrun/config"
	"github.com/evalrun/evalrun/engine"
	"github.com/evalrun/evalrun/templates"
	"github.com/evalrun/evalrun/value"
)

// project writes files (path: content) into a new project directory, which
// holds .evalrun/ and so is its own root, and returns it.
func project(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	files[".evalrun/.keep"] += ""
	for name, text := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// env returns a Getenv with a home directory of its own, project-root
// discovery bounded at the temporary directory, and the given variables.
func env(t *testing.T, kv ...string) func(string) string {
	m := map[string]string{"HOME": t.TempDir(), "EVALRUN_HOME": t.TempDir(), templates.CeilingEnv: os.TempDir()}
	for i := 0; i+1 < len(kv); i += 2 {
		m[kv[i]] = kv[i+1]
	}
	return func(k string) string { return m[k] }
}

const greetXML = `<task name="greet" alias="hi" type="atomic">
  <description>Greet someone by name</description>
  <instructions>Hello {{name}}!</instructions>
</task>
`

// open opens an engine and closes it at the end of the test.
func open(t *testing.T, opts engine.Options) *engine.Engine {
	t.Helper()
	e, err := engine.Open(opts)
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	t.Cleanup(func() { e.Close() })
	return e
}

// TestOpenErrors: every error of Open says its kind, and the message the
// CLI prints after "evalrun: ".
func TestOpenErrors(t *testing.T) {
	for _, tc := range []struct {
		name   string
		files  map[string]string
		opts   engine.Options
		kind   engine.Kind
		msg    string // regexp of the message
		stderr string // regexp of what Open wrote
	}{
		{name: "config", files: map[string]string{".evalrun/config.toml": "[limits]\ntimeout = 3\n"},
			kind: engine.KindConfig, msg: `config\.toml:2:11: .*limits\.timeout`},
		{name: "template", files: map[string]string{".evalrun/templates/bad.xml": "<task name=\"bad\">"},
			kind: engine.KindTemplate, msg: `bad\.xml`, stderr: `^\.evalrun/templates/bad\.xml:1:`},
		{name: "templates dir is a file", files: map[string]string{"t.xml": greetXML}, opts: engine.Options{Templates: []string{"t.xml"}},
			kind: engine.KindUsage, msg: `^--templates t\.xml: not a directory$`},
		{name: "files", opts: engine.Options{Files: []string{"missing.txt"}},
			kind: engine.KindUsage, msg: `^cannot read missing\.txt: no such file or directory$`},
		{name: "provider", opts: engine.Options{Provider: "nope"},
			kind: engine.KindUsage, msg: `^unknown provider 'nope' \(--provider; known: .*echo`},
		{name: "api key", opts: engine.Options{Provider: "openai"},
			kind: engine.KindConfig, msg: `OPENAI_API_KEY`},
		{name: "timeout", opts: engine.Options{Timeout: -time.Second},
			kind: engine.KindUsage, msg: `must not be negative`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.files == nil {
				tc.files = map[string]string{}
			}
			var stderr bytes.Buffer
			tc.opts.WorkDir = project(t, tc.files)
			tc.opts.Stderr = &stderr
			tc.opts.Getenv = env(t)
			e, err := engine.Open(tc.opts)
			if err == nil {
				e.Close()
				t.Fatal("Open succeeded")
			}
			var ee *engine.Error
			if !errors.As(err, &ee) || ee.Kind != tc.kind {
				t.Fatalf("error %#v, want an *engine.Error of kind %v", err, tc.kind)
			}
			if !regexp.MustCompile(tc.msg).MatchString(err.Error()) {
				t.Errorf("message %q does not match %q", err.Error(), tc.msg)
			}
			if tc.kind == engine.KindConfig && tc.name == "config" && len(config.Errors(err)) != 1 {
				t.Errorf("config.Errors: %v", config.Errors(err))
			}
			if !regexp.MustCompile(tc.stderr).MatchString(stderr.String()) || (tc.stderr == "" && stderr.Len() > 0) {
				t.Errorf("stderr %q does not match %q", stderr.String(), tc.stderr)
			}
		})
	}
}

// TestRun: a run prints the provenance line of the templates a program
// names statically before evaluating it, the echo notice before the first
// model call of the implicit echo provider, and log lines; the usage counts
// every model call.
func TestRun(t *testing.T) {
	dir := project(t, map[string]string{".evalrun/templates/greet.xml": greetXML})
	var stderr bytes.Buffer
	e := open(t, engine.Options{WorkDir: dir, Stderr: &stderr, Getenv: env(t),
		Inputs: []engine.Input{{Name: "who", Value: value.String("Ann")}}})
	v, err := e.Eval(context.Background(), "<test>", `(log-message "before") (get-field (greet (name who)) "content")`)
	if err != nil {
		t.Fatal(err)
	}
	if v != value.String("Hello Ann!") {
		t.Errorf("value %s", v)
	}
	want := "template greet: local .evalrun/templates/greet.xml:1\n" +
		"log: before\n" +
		"notice: no LLM provider configured and OPENAI_API_KEY is unset; using the echo provider\n"
	if diff := cmp.Diff(want, stderr.String()); diff != "" {
		t.Errorf("stderr (-want +got):\n%s", diff)
	}
	if u := e.Usage(); u.Calls != 1 || u.Turns != 1 {
		t.Errorf("usage %+v", u)
	}
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
}

// TestTask: Task runs a template by name, alias or type:subtype with its
// inputs and the run's instructions; an unknown name and a malformed
// reserved input are usage errors.
func TestTask(t *testing.T) {
	dir := project(t, map[string]string{
		".evalrun/templates/greet.xml": greetXML,
		".evalrun/templates/say.xml": `<task name="say" type="atomic" subtype="say">
  <description>Say the instructions</description>
  <instructions>Say: {{instructions}}</instructions>
</task>`,
	})
	var stderr bytes.Buffer
	e := open(t, engine.Options{WorkDir: dir, Provider: "echo", Instructions: "hi there", Stderr: &stderr, Getenv: env(t)})
	ctx := context.Background()
	for _, tc := range []struct {
		name   string
		inputs []engine.Input
		want   string
	}{
		{"greet", []engine.Input{{Name: "name", Value: value.String("Bo")}}, "Hello Bo!"},
		{"hi", []engine.Input{{Name: "name", Value: value.String("Cy")}}, "Hello Cy!"},
		{"atomic:say", nil, "Say: hi there"},
	} {
		res, err := e.Task(ctx, tc.name, tc.inputs)
		if err != nil || res.Status != value.StatusComplete || res.Content != tc.want {
			t.Errorf("Task(%s) = %v, %v; want %q", tc.name, res, err, tc.want)
		}
	}
	if want := "template greet: local .evalrun/templates/greet.xml:1\ntemplate say: local .evalrun/templates/say.xml:1\n"; stderr.String() != want {
		t.Errorf("stderr %q, want %q", stderr.String(), want)
	}

	_, err := e.Task(ctx, "gret", nil)
	var ut *engine.UnknownTemplateError
	if !errors.As(err, &ut) || err.Error() != "unknown template 'gret' (did you mean 'greet'?)" {
		t.Errorf("unknown name: %v", err)
	}
	_, err = e.Task(ctx, "greet", []engine.Input{{Name: "files", Value: value.Int(3)}})
	var ie *engine.InputError
	var ee *engine.Error
	if !errors.As(err, &ie) || ie.Name != "files" || !errors.As(err, &ee) || ee.Kind != engine.KindUsage {
		t.Errorf("files=3: %v", err)
	}
}

// TestDryRun: under DryRun every prompt is written below the project and
// Close ends stderr with the summary line.
func TestDryRun(t *testing.T) {
	dir := project(t, map[string]string{".evalrun/templates/greet.xml": greetXML})
	var stderr bytes.Buffer
	e := open(t, engine.Options{WorkDir: dir, DryRun: true, Stderr: &stderr, Getenv: env(t)})
	if _, err := e.Eval(context.Background(), "<test>", `(greet (name "Di")) (greet (name "Ed"))`); err != nil {
		t.Fatal(err)
	}
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	prompts, _ := filepath.Glob(filepath.Join(dir, ".evalrun", "dry-run", "*", "*-greet.md"))
	if len(prompts) != 2 {
		t.Errorf("prompts %v", prompts)
	}
	if !regexp.MustCompile(`\ndry run: 2 prompts written to \.evalrun/dry-run/[0-9]{8}-[0-9]{6}-[0-9a-f]{4}/\n$`).MatchString(stderr.String()) {
		t.Errorf("stderr %q", stderr.String())
	}
	// A second Close does nothing.
	n := stderr.Len()
	if err := e.Close(); err != nil || stderr.Len() != n {
		t.Errorf("second Close: %v, %q", err, stderr.String()[n:])
	}
}

// TestRecord: Options.Record resolves against WorkDir and records the
// run's answers.
func TestRecord(t *testing.T) {
	dir := project(t, map[string]string{})
	e := open(t, engine.Options{WorkDir: dir, Provider: "echo", Record: "cass.jsonl", Getenv: env(t)})
	if _, err := e.Eval(context.Background(), "<test>", `(defatom hi (instructions "Hi")) (hi)`); err != nil {
		t.Fatal(err)
	}
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(filepath.Join(dir, "cass.jsonl"))
	if err != nil || !strings.Contains(string(data), `"content":"Hi"`) {
		t.Errorf("cassette %q, %v", data, err)
	}
}

// TestContext: the get-context lookup of a run refreshes the project's
// index first.
func TestContext(t *testing.T) {
	dir := project(t, map[string]string{
		"docs/retries.md": "Retries with exponential backoff and jitter.\n",
		"docs/other.md":   "Nothing to see here.\n",
	})
	e := open(t, engine.Options{WorkDir: dir, Getenv: env(t)})
	res := e.Context(context.Background(), engine.ContextQuery{Query: "exponential backoff", TopK: 5})
	if res.Error != "" || len(res.Matches) == 0 || res.Matches[0].ID != "docs/retries.md" {
		t.Errorf("result %+v", res)
	}
}

// TestImplicitOpenAI: with OPENAI_API_KEY set and no provider configured,
// calls go to the openai provider at $OPENAI_BASE_URL, without the echo
// notice (SPEC §14.5); DryRun never calls the server.
func TestImplicitOpenAI(t *testing.T) {
	var calls atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"id":"1","object":"chat.completion","choices":[{"index":0,"message":{"role":"assistant","content":"from the server"},"finish_reason":"stop"}],"usage":{"prompt_tokens":5,"completion_tokens":3,"total_tokens":8}}`)
	}))
	defer srv.Close()
	getenv := env(t, "OPENAI_API_KEY", "k", "OPENAI_BASE_URL", srv.URL)
	const prog = `(defatom hi (instructions "Hi")) (define r (hi)) (list (get-field r "content") (get (get-field r "notes") "provider"))`
	for _, dry := range []bool{false, true} {
		var stderr bytes.Buffer
		e := open(t, engine.Options{WorkDir: project(t, map[string]string{}), DryRun: dry, Stderr: &stderr, Getenv: getenv})
		v, err := e.Eval(context.Background(), "<test>", prog)
		if err != nil {
			t.Fatal(err)
		}
		// The server reports no cost and no prices are configured: the
		// call's cost is unknown; the dry run's echo answer is free.
		want, wantUsage := `("from the server" "openai")`, engine.Usage{Calls: 1, InputTokens: 5, OutputTokens: 3, Turns: 1, CostUnknown: 1}
		if dry {
			want = `("Hi" "echo")`
			wantUsage.CostUnknown = 0
			wantUsage.InputTokens, wantUsage.OutputTokens = e.Usage().InputTokens, e.Usage().OutputTokens
		}
		if v.String() != want || e.Usage() != wantUsage || strings.Contains(stderr.String(), "notice") {
			t.Errorf("dry=%v: %s, usage %+v, stderr %q", dry, v, e.Usage(), stderr.String())
		}
	}
	if calls.Load() != 1 {
		t.Errorf("%d calls, want 1", calls.Load())
	}
}

// TestWorkspace: LoadWorkspace reports template problems in the workspace
// without writing anything.
func TestWorkspace(t *testing.T) {
	dir := project(t, map[string]string{
		".evalrun/templates/greet.xml": greetXML,
		".evalrun/templates/bad.xml":   `<task name="bad">`,
	})
	ws, err := engine.LoadWorkspace(engine.Options{WorkDir: dir, Getenv: env(t)})
	if err != nil {
		t.Fatal(err)
	}
	var ee *engine.Error
	if !errors.As(ws.Err(), &ee) || ee.Kind != engine.KindTemplate || len(ws.Diagnostics) == 0 {
		t.Errorf("Err %v, diagnostics %v", ws.Err(), ws.Diagnostics)
	}
	if _, err := ws.ShowTemplate("hi"); err != nil || ws.Root != dir {
		t.Errorf("registry without greet, or root %s", ws.Root)
	}
	if got := engine.HiddenWarning("map", nil); got != `template 'map' is hidden by the primitive 'map'; use (call "map" ...)` {
		t.Errorf("HiddenWarning: %s", got)
	}
}
