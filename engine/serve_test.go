package engine_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/evalrun/evalrun/engine"
)

// syncBuffer is a buffer written by the server's goroutine and read by
// the test.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// serveProject starts engine.Serve on addr over dir and returns the page's
// URL, the stderr buffer and the function that stops it.
func serveProject(t *testing.T, dir, addr string) (string, *syncBuffer, func() error) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	stderr := &syncBuffer{}
	ready := make(chan string, 1)
	done := make(chan error, 1)
	go func() {
		done <- engine.Serve(ctx, engine.ServeOptions{WorkDir: dir, Getenv: env(t), Addr: addr, Stderr: stderr,
			Ready: func(u string) { ready <- u }})
	}()
	select {
	case u := <-ready:
		var once sync.Once
		var err error
		return u, stderr, func() error {
			once.Do(func() { cancel(); err = <-done })
			return err
		}
	case err := <-done:
		cancel()
		t.Fatalf("Serve: %v", err)
	case <-time.After(10 * time.Second):
		cancel()
		t.Fatal("Serve did not start")
	}
	return "", nil, nil
}

// TestServeShowsTheJournalOfARealRun runs a task on the echo provider with
// the journal on, then reads its prompt and answer through the viewer.
func TestServeShowsTheJournalOfARealRun(t *testing.T) {
	dir := project(t, map[string]string{".evalrun/templates/greet.xml": greetXML})
	e, err := engine.Open(engine.Options{WorkDir: dir, Provider: "echo", Getenv: env(t),
		Journal: &engine.JournalInfo{WorkflowPath: "<eval>", WorkflowText: `(greet (name "Ada"))`}})
	if err != nil {
		t.Fatal(err)
	}
	v, err := e.Eval(context.Background(), "<eval>", `(greet (name "Ada"))`)
	e.Finish(v, err)
	id := e.RunID()
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}

	url, stderr, stop := serveProject(t, dir, "127.0.0.1:0")
	defer stop()
	if !strings.HasPrefix(stderr.String(), "evalrun serve: http://127.0.0.1:") || strings.Contains(stderr.String(), "warning") {
		t.Errorf("stderr = %q", stderr.String())
	}
	var call struct {
		Name       string  `json:"name"`
		UserPrompt *string `json:"user_prompt"`
		Answer     *string `json:"answer"`
		Executor   string  `json:"executor"`
	}
	getJSON(t, url+"api/runs/"+id+"/calls/1", &call)
	if call.Name != "greet" || call.UserPrompt == nil || *call.UserPrompt != "Hello Ada!" || call.Answer == nil || !strings.Contains(*call.Answer, "Hello Ada!") {
		t.Errorf("call = %+v (prompt %v, answer %v)", call, deref(call.UserPrompt), deref(call.Answer))
	}
	var list []map[string]any
	getJSON(t, url+"api/templates", &list)
	found := false
	for _, it := range list {
		if it["name"] == "greet" {
			found = it["scope"] == "local" && it["alias"] == "hi" && strings.Contains(it["xml"].(string), "Hello {{name}}!") &&
				it["source"] == "local .evalrun/templates/greet.xml:1" && it["dir"] == ".evalrun/templates"
		}
	}
	if !found {
		t.Errorf("templates lack the local greet: %v", list)
	}

	// A foreign Host header is refused on the real listener too.
	req, _ := http.NewRequest("GET", url+"api/runs", nil)
	req.Host = "rebind.example:80"
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusForbidden {
		t.Errorf("foreign Host: %d", resp.StatusCode)
	}
	if err := stop(); err != nil {
		t.Errorf("Serve after cancel: %v", err)
	}
}

func deref(s *string) string {
	if s == nil {
		return "<nil>"
	}
	return *s
}

func getJSON(t *testing.T, url string, out any) {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != 200 {
		t.Fatalf("GET %s: %d %s", url, resp.StatusCode, b)
	}
	if err := json.Unmarshal(b, out); err != nil {
		t.Fatalf("GET %s: %v", url, err)
	}
}

func TestServeAddressRules(t *testing.T) {
	dir := project(t, map[string]string{})
	// Beyond loopback: a warning.
	_, stderr, stop := serveProject(t, dir, "0.0.0.0:0")
	stop()
	if !strings.HasPrefix(stderr.String(), "warning: serving on 0.0.0.0:") || !strings.Contains(stderr.String(), "anyone who can reach the address can read the journal") ||
		!strings.Contains(stderr.String(), "evalrun serve: http://localhost:") {
		t.Errorf("stderr = %q", stderr.String())
	}
	// A malformed address and one in use are usage errors.
	for _, addr := range []string{"7700", "127.0.0.1:notaport"} {
		err := engine.Serve(context.Background(), engine.ServeOptions{WorkDir: dir, Getenv: env(t), Addr: addr})
		var ee *engine.Error
		if !errors.As(err, &ee) || ee.Kind != engine.KindUsage {
			t.Errorf("Serve(%q) = %v, want a usage error", addr, err)
		}
	}
	url, _, stop2 := serveProject(t, dir, "127.0.0.1:0")
	defer stop2()
	busy := strings.TrimSuffix(strings.TrimPrefix(url, "http://"), "/")
	err := engine.Serve(context.Background(), engine.ServeOptions{WorkDir: dir, Getenv: env(t), Addr: busy})
	if err == nil || !strings.Contains(err.Error(), "cannot listen on "+busy) || !strings.HasSuffix(err.Error(), "(is another evalrun serve running? --addr 127.0.0.1:0 picks a free port)") {
		t.Errorf("address in use: %v", err)
	}
}

// The viewer's template listing has the items of `templates list --json`
// (the active templates, then the asset library of scope "asset"), field
// for field, each with its XML.
func TestTemplateListingIsTemplatesListJSON(t *testing.T) {
	dir := project(t, map[string]string{".evalrun/templates/greet.xml": greetXML})
	ws, err := engine.LoadWorkspace(engine.Options{WorkDir: dir, Getenv: env(t)})
	if err != nil {
		t.Fatal(err)
	}
	want := append(ws.TemplateList(), engine.AssetItems()...)
	got := engine.TemplateListing(ws)
	fields := func(v any) string {
		b, _ := json.Marshal(v)
		var m map[string]any
		json.Unmarshal(b, &m)
		for _, k := range []string{"dir", "source", "xml"} { // the viewer's additions
			delete(m, k)
		}
		b, _ = json.Marshal(m)
		return string(b)
	}
	if len(got) != len(want) {
		t.Fatalf("%d templates, templates list --json has %d", len(got), len(want))
	}
	for i := range want {
		if g, w := fields(got[i]), fields(want[i]); g != w {
			t.Errorf("template %d = %s, templates list --json has %s", i, g, w)
		}
		if got[i].XML == "" || !strings.HasPrefix(got[i].XML, "<") {
			t.Errorf("template %s has no XML", got[i].Name)
		}
	}
	if a := got[len(got)-1]; a.Scope != "asset" || a.Source != "asset <asset>/"+a.Name+".xml:1" {
		t.Errorf("last template = %+v, want an asset", a)
	}
}
