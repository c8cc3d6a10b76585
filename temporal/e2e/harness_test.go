package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	enumspb "go.temporal.io/api/enums/v1"
	historypb "go.temporal.io/api/history/v1"
	"go.temporal.io/sdk/client"
	"go.temporal.io/server/temporaltest"
)

// The evalrun binary, built once per test process by evalrunBinary.
var (
	buildOnce sync.Once
	buildDir  string
	buildExe  string
	buildErr  error
)

func TestMain(m *testing.M) {
	code := m.Run()
	if buildDir != "" {
		_ = os.RemoveAll(buildDir)
	}
	os.Exit(code)
}

// repoRoot is the root of the evalrun repository, two directories above
// this package.
func repoRoot(tb testing.TB) string {
	tb.Helper()
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		tb.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(root, "cmd", "evalrun")); err != nil {
		tb.Fatalf("no evalrun repository at %s: %v", root, err)
	}
	return root
}

// evalrunBinary builds evalrun with the temporal build tag (once per test
// process) and returns its path.
func evalrunBinary(tb testing.TB) string {
	tb.Helper()
	root := repoRoot(tb)
	buildOnce.Do(func() {
		buildDir, buildErr = os.MkdirTemp("", "evalrun-e2e-")
		if buildErr != nil {
			return
		}
		buildExe = filepath.Join(buildDir, "evalrun")
		cmd := exec.Command("go", "build", "-tags", "temporal", "-o", buildExe, "./cmd/evalrun")
		cmd.Dir = root
		if out, err := cmd.CombinedOutput(); err != nil {
			buildErr = fmt.Errorf("go build -tags temporal ./cmd/evalrun: %w\n%s", err, out)
		}
	})
	if buildErr != nil {
		tb.Fatal(buildErr)
	}
	return buildExe
}

// greetTemplate is the template of the task calls of the tests.
const greetTemplate = `<task name="greet" type="atomic">
  <description>Greet someone by name</description>
  <instructions>Hello {{name}}!</instructions>
</task>
`

// project makes a project directory holding the greet template and the
// given config.toml.
func project(tb testing.TB, config string) string {
	tb.Helper()
	dir := tb.TempDir()
	tpl := filepath.Join(dir, ".evalrun", "templates")
	if err := os.MkdirAll(tpl, 0o755); err != nil {
		tb.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(tpl, "greet.xml"), []byte(greetTemplate), 0o644); err != nil {
		tb.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, ".evalrun", "config.toml"), []byte(config), 0o644); err != nil {
		tb.Fatal(err)
	}
	return dir
}

// processEnv is the environment of an evalrun process: an empty HOME and
// EVALRUN_HOME of its own, PATH, and extra.
func processEnv(tb testing.TB, extra ...string) []string {
	home := tb.TempDir()
	env := []string{"HOME=" + home, "EVALRUN_HOME=" + filepath.Join(home, ".evalrun"), "PATH=" + os.Getenv("PATH")}
	return append(env, extra...)
}

// providerEnv is the environment of a process whose model calls go to the
// fake provider fp under the name who.
func providerEnv(tb testing.TB, fp *fakeProvider, who string) []string {
	return processEnv(tb, "OPENAI_API_KEY=test-key", "OPENAI_BASE_URL="+fp.baseURL(who))
}

// request is one request the fake provider received.
type request struct {
	who, prompt string
	start, end  time.Time
	answered    bool
}

// fakeProvider is an OpenAI-compatible chat completions server on
// loopback. Each client uses a base URL of its own (/WHO/v1), so the
// provider knows which process made each request; it answers after delay
// with "re: PROMPT", PROMPT being the last user message.
type fakeProvider struct {
	srv   *httptest.Server
	delay time.Duration

	mu       sync.Mutex
	requests []*request
}

// newFakeProvider starts a fake provider answering after delay.
func newFakeProvider(tb testing.TB, delay time.Duration) *fakeProvider {
	fp := &fakeProvider{delay: delay}
	fp.srv = httptest.NewServer(http.HandlerFunc(fp.serve))
	tb.Cleanup(fp.srv.Close)
	return fp
}

// baseURL is the OpenAI base URL for the client named who.
func (fp *fakeProvider) baseURL(who string) string { return fp.srv.URL + "/" + who + "/v1" }

// answer is the content the provider answers prompt with.
func answer(prompt string) string { return "re: " + prompt }

func (fp *fakeProvider) serve(w http.ResponseWriter, r *http.Request) {
	who, rest, _ := strings.Cut(strings.TrimPrefix(r.URL.Path, "/"), "/")
	if rest != "v1/chat/completions" {
		http.Error(w, "unexpected path "+r.URL.Path, http.StatusNotFound)
		return
	}
	var body struct {
		Messages []struct {
			Role    string `json:"role"`
			Content string `json:"content"`
		} `json:"messages"`
	}
	if err := json.NewDecoder(r.Body).Decode(&body); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	prompt := ""
	for _, m := range body.Messages {
		if m.Role == "user" {
			prompt = m.Content
		}
	}
	req := &request{who: who, prompt: prompt, start: time.Now()}
	fp.mu.Lock()
	fp.requests = append(fp.requests, req)
	fp.mu.Unlock()
	select {
	case <-time.After(fp.delay):
	case <-r.Context().Done():
		fp.mu.Lock()
		req.end = time.Now()
		fp.mu.Unlock()
		return
	}
	content, _ := json.Marshal(answer(prompt))
	w.Header().Set("Content-Type", "application/json")
	_, _ = fmt.Fprintf(w, `{"id":"1","object":"chat.completion","model":"fake","choices":[{"index":0,"message":{"role":"assistant","content":%s},"finish_reason":"stop"}],"usage":{"prompt_tokens":5,"completion_tokens":3,"total_tokens":8}}`, content)
	fp.mu.Lock()
	req.end, req.answered = time.Now(), true
	fp.mu.Unlock()
}

// snapshot returns a copy of the requests received so far.
func (fp *fakeProvider) snapshot() []request {
	fp.mu.Lock()
	defer fp.mu.Unlock()
	out := make([]request, len(fp.requests))
	for i, r := range fp.requests {
		out[i] = *r
	}
	return out
}

// server is a Temporal server running in the test process.
type server struct {
	ts        *temporaltest.TestServer
	hostPort  string
	namespace string
	client    client.Client
}

// startServer starts a Temporal server for the test or benchmark (stopped
// at its end); a test gets the server's and clients' logs in its output.
func startServer(t testing.TB) *server {
	t.Helper()
	start := time.Now()
	var ts *temporaltest.TestServer
	if tt, ok := t.(*testing.T); ok {
		ts = temporaltest.NewServer(temporaltest.WithT(tt))
	} else {
		ts = temporaltest.NewServer()
		t.Cleanup(ts.Stop)
	}
	s := &server{ts: ts, hostPort: ts.GetFrontendHostPort(), namespace: ts.GetDefaultNamespace(), client: ts.GetDefaultClient()}
	t.Logf("Temporal server at %s (namespace %s) in %v", s.hostPort, s.namespace, time.Since(start).Round(time.Millisecond))
	return s
}

// syncBuffer is a bytes.Buffer safe for a process writing and a test
// reading at once.
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

// process is a started evalrun process.
type process struct {
	cmd            *exec.Cmd
	stdout, stderr *syncBuffer
	done           chan struct{}
	err            error
}

// start starts exe with args in dir; the process is killed at the end of
// the test if it still runs.
func start(tb testing.TB, dir string, env []string, exe string, args ...string) *process {
	tb.Helper()
	p := &process{cmd: exec.Command(exe, args...), stdout: &syncBuffer{}, stderr: &syncBuffer{}, done: make(chan struct{})}
	p.cmd.Dir, p.cmd.Env = dir, env
	p.cmd.Stdout, p.cmd.Stderr = p.stdout, p.stderr
	if err := p.cmd.Start(); err != nil {
		tb.Fatalf("start evalrun %s: %v", strings.Join(args, " "), err)
	}
	go func() {
		p.err = p.cmd.Wait()
		close(p.done)
	}()
	tb.Cleanup(func() {
		select {
		case <-p.done:
		default:
			_ = p.cmd.Process.Kill()
			<-p.done
		}
	})
	return p
}

// wait waits up to timeout for the process to exit and returns its exit
// code.
func (p *process) wait(tb testing.TB, timeout time.Duration) int {
	tb.Helper()
	select {
	case <-p.done:
	case <-time.After(timeout):
		_ = p.cmd.Process.Kill()
		<-p.done
		tb.Fatalf("evalrun %s still ran after %v\nstdout:\n%s\nstderr:\n%s", strings.Join(p.cmd.Args[1:], " "), timeout, p.stdout, p.stderr)
	}
	return p.cmd.ProcessState.ExitCode()
}

// identityPrefix is how the Temporal SDK's default identity of a process
// begins: its pid and "@".
func (p *process) identityPrefix() string { return fmt.Sprintf("%d@", p.cmd.Process.Pid) }

// stop ends a worker with SIGTERM, as a user stops it, and waits for it.
func (p *process) stop(tb testing.TB) {
	tb.Helper()
	_ = p.cmd.Process.Signal(syscall.SIGTERM)
	if code := p.wait(tb, time.Minute); code != 0 {
		tb.Errorf("worker exited with %d after SIGTERM\nstderr:\n%s", code, p.stderr)
	}
}

// run runs exe with args in dir to its end and returns stdout, stderr and
// the exit code.
func run(tb testing.TB, dir string, env []string, exe string, args ...string) (stdout, stderr string, code int) {
	tb.Helper()
	p := start(tb, dir, env, exe, args...)
	code = p.wait(tb, 3*time.Minute)
	return p.stdout.String(), p.stderr.String(), code
}

// startWorker starts "evalrun worker" against s in dir and waits until
// it polls the task queue for workflow and activity tasks.
func startWorker(t testing.TB, s *server, dir string, env []string, exe, queue string, extra ...string) *process {
	t.Helper()
	args := append([]string{"worker", "--temporal", s.hostPort, "--namespace", s.namespace, "--task-queue", queue}, extra...)
	p := start(t, dir, env, exe, args...)
	waitFor(t, 2*time.Minute, "worker "+p.identityPrefix()+" polling "+queue, func() bool {
		select {
		case <-p.done:
			t.Fatalf("worker exited with %v\nstderr:\n%s", p.err, p.stderr)
		default:
		}
		return s.polling(queue, p.identityPrefix())
	})
	return p
}

// polling says whether a poller whose identity starts with prefix polls
// queue for workflow and for activity tasks.
func (s *server) polling(queue, prefix string) bool {
	for _, typ := range []enumspb.TaskQueueType{enumspb.TASK_QUEUE_TYPE_WORKFLOW, enumspb.TASK_QUEUE_TYPE_ACTIVITY} {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		resp, err := s.client.DescribeTaskQueue(ctx, queue, typ)
		cancel()
		if err != nil {
			return false
		}
		found := false
		for _, p := range resp.GetPollers() {
			if strings.HasPrefix(p.GetIdentity(), prefix) {
				found = true
			}
		}
		if !found {
			return false
		}
	}
	return true
}

// waitFor polls cond every 50 ms until it holds, failing the test after
// timeout.
func waitFor(tb testing.TB, timeout time.Duration, what string, cond func() bool) {
	tb.Helper()
	deadline := time.Now().Add(timeout)
	for !cond() {
		if time.Now().After(deadline) {
			tb.Fatalf("timed out after %v waiting for %s", timeout, what)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// followingRE finds the workflow id in the stderr of a followed run.
var followingRE = regexp.MustCompile(`evalrun: following workflow (\S+)`)

// workflowID waits for the followed run p to name its workflow.
func workflowID(tb testing.TB, p *process) string {
	tb.Helper()
	var id string
	waitFor(tb, time.Minute, "the workflow id on stderr", func() bool {
		if m := followingRE.FindStringSubmatch(p.stderr.String()); m != nil {
			id = m[1]
			return true
		}
		select {
		case <-p.done:
			tb.Fatalf("evalrun run exited with %v before naming its workflow\nstderr:\n%s", p.err, p.stderr)
		default:
		}
		return false
	})
	return id
}

// completion is one completed activity of a workflow's history.
type completion struct {
	identity string
	result   string
}

// completions returns the completed activities of workflow id so far, in
// history order.
func (s *server) completions(tb testing.TB, id string) []completion {
	tb.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	it := s.client.GetWorkflowHistory(ctx, id, "", false, enumspb.HISTORY_EVENT_FILTER_TYPE_ALL_EVENT)
	var out []completion
	for it.HasNext() {
		ev, err := it.Next()
		if err != nil {
			tb.Fatalf("history of %s: %v", id, err)
		}
		if ev.GetEventType() != enumspb.EVENT_TYPE_ACTIVITY_TASK_COMPLETED {
			continue
		}
		a := ev.GetAttributes().(*historypb.HistoryEvent_ActivityTaskCompletedEventAttributes).ActivityTaskCompletedEventAttributes
		var res strings.Builder
		for _, p := range a.GetResult().GetPayloads() {
			res.Write(p.GetData())
		}
		out = append(out, completion{identity: a.GetIdentity(), result: res.String()})
	}
	return out
}

// completedBy returns the prompts whose call completed in the history with
// a worker identity starting with prefix.
func completedBy(cs []completion, prompts []string, prefix string) map[string]bool {
	out := map[string]bool{}
	for _, c := range cs {
		if !strings.HasPrefix(c.identity, prefix) {
			continue
		}
		for _, p := range prompts {
			if q, _ := json.Marshal(answer(p)); strings.Contains(c.result, string(q)) {
				out[p] = true
			}
		}
	}
	return out
}

// writeFile writes text to name in dir and returns its path.
func writeFile(tb testing.TB, dir, name, text string) string {
	tb.Helper()
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		tb.Fatal(err)
	}
	return path
}
