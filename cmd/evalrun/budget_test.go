package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"
)

// costServer is an in-process OpenAI-compatible server (SPEC §14.5)
// answering every request with 100 prompt and 10 completion tokens and,
// when reportCost is set, usage.cost = cost (as OpenRouter does, SPEC
// §14.9). It counts the requests it received and how many were in flight
// at once.
type costServer struct {
	*httptest.Server
	reportCost bool
	cost       float64
	delay      time.Duration

	mu       sync.Mutex
	requests int
	inFlight int
	maxIn    int
}

func newCostServer(t *testing.T, reportCost bool, cost float64, delay time.Duration) *costServer {
	s := &costServer{reportCost: reportCost, cost: cost, delay: delay}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		s.mu.Lock()
		s.requests++
		s.inFlight++
		s.maxIn = max(s.maxIn, s.inFlight)
		s.mu.Unlock()
		time.Sleep(s.delay)
		usage := `"prompt_tokens":100,"completion_tokens":10,"total_tokens":110`
		if s.reportCost {
			usage += fmt.Sprintf(`,"cost":%v`, s.cost)
		}
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"id":"1","object":"chat.completion","choices":[{"index":0,"message":{"role":"assistant","content":"done"},"finish_reason":"stop"}],"usage":{%s}}`, usage)
		s.mu.Lock()
		s.inFlight--
		s.mu.Unlock()
	}))
	t.Cleanup(s.Close)
	return s
}

// count returns the number of requests received.
func (s *costServer) count() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.requests
}

// costProject writes a project whose provider "router" is the server,
// with the configuration text extra appended, and returns its directory
// and the environment of its runs.
func costProject(t *testing.T, srv *costServer, extra string) (string, map[string]string) {
	dir := t.TempDir()
	cfg := fmt.Sprintf(`default_provider = "router"

[providers.router]
type = "openai"
base_url = %q
api_key_env = "ROUTER_KEY"
model = "vendor/model-a"

[limits]
concurrency = 4
`, srv.URL) + extra
	if err := os.MkdirAll(filepath.Join(dir, ".evalrun"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, ".evalrun", "config.toml"), []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir, map[string]string{"ROUTER_KEY": "k", "HOME": t.TempDir(), "EVALRUN_HOME": t.TempDir()}
}

// runIn runs the evalrun command in dir and returns its exit code, stdout
// and stderr.
func runIn(t *testing.T, dir string, env map[string]string, args ...string) (int, string, string) {
	t.Helper()
	t.Chdir(dir)
	var stdout, stderr bytes.Buffer
	a := &app{stdin: strings.NewReader(""), stdout: &stdout, stderr: &stderr, getenv: withCeiling(func(k string) string { return env[k] })}
	code := a.main(args)
	return code, stdout.String(), stderr.String()
}

// fiftyCalls is a parallel-map of 50 task calls whose value is, per call,
// its status and, when it failed, its reason and message.
const fiftyCalls = `(defatom summarise (params n) (instructions "Summarise part {{n}}"))
(parallel-map
  (lambda (n)
    (let ((r (summarise (n n))))
      (if (task-ok? r)
          "ok"
          (string-append "failed " (get (get (get-field r "notes") "error") "reason") ": " (get-field r "content")))))
  (range 50))
`

// outcomes counts the calls of fiftyCalls' printed value: completed ones,
// and refused ones by message.
func outcomes(t *testing.T, stdout string) (ok int, refused map[string]int) {
	t.Helper()
	var vals []string
	if err := json.Unmarshal([]byte(stdout), &vals); err != nil {
		t.Fatalf("value %q: %v", stdout, err)
	}
	if len(vals) != 50 {
		t.Fatalf("%d values, want 50", len(vals))
	}
	refused = map[string]int{}
	for _, v := range vals {
		if v == "ok" {
			ok++
			continue
		}
		refused[v]++
	}
	return ok, refused
}

var budgetMessageRE = regexp.MustCompile(`^failed resource_exhaustion: budget spent: \$0\.1[0-3]00 of \$0\.1000$`)

// TestBudgetStopsParallelMap: a parallel-map of 50 calls of $0.01 with a
// budget of $0.10 (SPEC §14.9). Once ten calls have been paid for, no
// call starts — the server sees at most the ten plus the three others
// that were running (concurrency 4) — the calls running finish COMPLETE,
// every other call fails with resource_exhaustion and "budget spent:
// $X of $0.1000", and evalrun exits 1 with the message. The cost comes
// from the server's usage.cost, or, for a server that reports none, from
// the configured prices; both give the same run.
func TestBudgetStopsParallelMap(t *testing.T) {
	for _, tc := range []struct {
		name       string
		reportCost bool
		config     string
		flags      []string
	}{
		{"server cost, --max-cost", true, "", []string{"--max-cost", "0.10"}},
		// 100 × $50/M + 10 × $500/M = $0.01 a call.
		{"provider prices, max_cost_usd", false, "max_cost_usd = 0.10\n\n[providers.router.prices]\ninput = 50.0\noutput = 500.0\n", nil},
		{"model prices", false, "max_cost_usd = 0.10\n\n[prices.\"vendor/model-a\"]\ninput = 50.0\noutput = 500.0\n", nil},
		// The server's cost wins over prices that would give $1 a call.
		{"server cost wins", true, "\n[providers.router.prices]\ninput = 9000.0\noutput = 10000.0\n", []string{"--max-cost", "0.1"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := newCostServer(t, tc.reportCost, 0.01, 20*time.Millisecond)
			dir, env := costProject(t, srv, tc.config)
			if err := os.WriteFile(filepath.Join(dir, "fifty.sexp"), []byte(fiftyCalls), 0o644); err != nil {
				t.Fatal(err)
			}
			args := append([]string{"run", "--json", "fifty.sexp"}, tc.flags...)
			code, stdout, stderr := runIn(t, dir, env, args...)
			if code != exitEval {
				t.Fatalf("exit %d, want 1\nstderr:\n%s", code, stderr)
			}
			n := srv.count()
			if n < 10 || n > 13 {
				t.Errorf("the server answered %d requests, want 10 to 13 (10 paid for, at most 3 running)", n)
			}
			ok, refused := outcomes(t, stdout)
			if ok != n {
				t.Errorf("%d calls completed, the server answered %d: every call that started must finish", ok, n)
			}
			total := 0
			for msg, k := range refused {
				if !budgetMessageRE.MatchString(msg) {
					t.Errorf("refused call: %q", msg)
				}
				total += k
			}
			if total != 50-n {
				t.Errorf("%d calls refused, want %d", total, 50-n)
			}
			lines := strings.Split(strings.TrimSpace(stderr), "\n")
			if !slicesContainRE(lines, `^evalrun: budget spent: \$0\.1[0-3]00 of \$0\.1000$`) {
				t.Errorf("no budget message on stderr:\n%s", stderr)
			}
			wantUsage := fmt.Sprintf("usage: %d model calls, %d input + %d output tokens, %d turns, $%.4f", n, 100*n, 10*n, n, 0.01*float64(n))
			if lines[len(lines)-1] != wantUsage {
				t.Errorf("usage line %q, want %q", lines[len(lines)-1], wantUsage)
			}
		})
	}
}

func slicesContainRE(lines []string, re string) bool {
	r := regexp.MustCompile(re)
	for _, l := range lines {
		if r.MatchString(l) {
			return true
		}
	}
	return false
}

// TestBudgetAcrossResume: a resumed run counts what the runs it resumes
// spent, and its replayed calls only once (SPEC §14.9, §16.4).
func TestBudgetAcrossResume(t *testing.T) {
	srv := newCostServer(t, true, 0.01, 20*time.Millisecond)
	dir, env := costProject(t, srv, "")
	if err := os.WriteFile(filepath.Join(dir, "fifty.sexp"), []byte(fiftyCalls), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, stderr := runIn(t, dir, env, "run", "--json", "--max-cost", "0.10", "fifty.sexp")
	if code != exitEval {
		t.Fatalf("first run: exit %d\n%s", code, stderr)
	}
	first := srv.count()

	// The same budget, kept from the run it resumes (no --max-cost): the
	// first part spent it, so the resumed run starts no call; the
	// completed calls are replayed, and cost nothing again.
	code, stdout, stderr := runIn(t, dir, env, "run", "--json", "--resume", "last")
	if code != exitEval {
		t.Fatalf("resumed run: exit %d\n%s", code, stderr)
	}
	if srv.count() != first {
		t.Errorf("the resumed run made %d requests, want none: its budget was spent by the first part", srv.count()-first)
	}
	ok, _ := outcomes(t, stdout)
	if ok != first {
		t.Errorf("%d calls completed (replayed), want %d", ok, first)
	}
	wantMsg := fmt.Sprintf("evalrun: budget spent: $%.4f of $0.1000", 0.01*float64(first))
	if !strings.Contains(stderr, wantMsg+"\n") {
		t.Errorf("stderr lacks %q:\n%s", wantMsg, stderr)
	}
	if !strings.Contains(stderr, fmt.Sprintf("usage: %d model calls (%d replayed),", first, first)) {
		t.Errorf("usage line of the resumed run:\n%s", stderr)
	}

	// A larger budget: the resumed run spends only what is left of it,
	// counting the first part once although its calls are replayed again.
	code, _, stderr = runIn(t, dir, env, "run", "--json", "--max-cost", "0.20", "--resume", "last")
	if code != exitEval {
		t.Fatalf("second resumed run: exit %d\n%s", code, stderr)
	}
	total := srv.count()
	if total < 20 || total > 23 {
		t.Errorf("%d requests over the three runs, want 20 to 23 (a $0.20 budget, 3 calls may be running)", total)
	}

	// runs and status show what each run cost; status --json sums it.
	code, stdout, _ = runIn(t, dir, env, "runs", "--json")
	if code != exitOK {
		t.Fatalf("runs --json: exit %d", code)
	}
	var runs []struct {
		Status   string  `json:"status"`
		CostUSD  float64 `json:"cost_usd"`
		Replayed float64 `json:"replayed_cost_usd"`
		Unknown  int     `json:"cost_unknown_calls"`
		Error    string  `json:"error"`
	}
	if err := json.Unmarshal([]byte(stdout), &runs); err != nil || len(runs) != 3 {
		t.Fatalf("runs --json: %v\n%s", err, stdout)
	}
	// Newest first: the last run replayed the first part and paid for the
	// rest (cost_usd is what it paid, replayed_cost_usd the recorded cost
	// of what it replayed); the first run paid for its calls.
	if got, want := fmt.Sprintf("%.4f + %.4f", runs[0].CostUSD, runs[0].Replayed), fmt.Sprintf("%.4f + %.4f", 0.01*float64(total-first), 0.01*float64(first)); got != want {
		t.Errorf("last run cost paid + replayed = %s, want %s", got, want)
	}
	if runs[2].Replayed != 0 {
		t.Errorf("first run replayed_cost_usd = %v, want 0", runs[2].Replayed)
	}
	// The run that only replayed paid nothing: its COST column says so
	// and marks the replayed cost; its status header shows both.
	code, stdout, _ = runIn(t, dir, env, "runs")
	if lines := strings.Split(stdout, "\n"); code != exitOK || len(lines) < 4 || !strings.Contains(lines[2], "  $0.0000+r  ") {
		t.Errorf("runs: exit %d\n%s", code, stdout)
	}
	code, stdout, _ = runIn(t, dir, env, "status", "last")
	if want := fmt.Sprintf("  $%.4f spent + $%.4f replayed\n", 0.01*float64(total-first), 0.01*float64(first)); code != exitOK || !strings.Contains(stdout, want) {
		t.Errorf("status header lacks %q:\n%s", want, stdout)
	}
	if got, want := fmt.Sprintf("%.4f", runs[2].CostUSD), fmt.Sprintf("%.4f", 0.01*float64(first)); got != want || runs[2].Status != "failed" || !strings.HasPrefix(runs[2].Error, "budget spent: ") {
		t.Errorf("first run: cost %s (want %s), status %s, error %q", got, want, runs[2].Status, runs[2].Error)
	}
}

// TestCostUnknown: a server that reports no cost and a provider without
// prices: the calls' cost is unknown, the usage line says so, and
// notes.cost_usd is absent (SPEC §14.9); a server that reports a cost
// gives notes.cost_usd.
func TestCostUnknown(t *testing.T) {
	srv := newCostServer(t, false, 0, 0)
	dir, env := costProject(t, srv, "")
	code, stdout, stderr := runIn(t, dir, env, "eval", `(defatom hi (instructions "Hi")) (list (get (get-field (hi) "notes") "cost_usd") (get (get-field (hi) "notes") "cost_usd"))`)
	if code != exitOK || stdout != "(null null)\n" || stderr != "usage: 2 model calls, 200 input + 20 output tokens, 2 turns, cost unknown for 2 calls\n" {
		t.Errorf("exit %d\nstdout: %q\nstderr: %q", code, stdout, stderr)
	}
	srv2 := newCostServer(t, true, 0.0123, 0)
	dir, env = costProject(t, srv2, "")
	code, stdout, stderr = runIn(t, dir, env, "eval", `(defatom hi (instructions "Hi")) (list (get (get-field (hi) "notes") "cost_usd") (run-usage))`)
	if code != exitOK || stdout != `(0.0123 (dict "calls" 1 "input_tokens" 100 "output_tokens" 10 "cost_usd" 0.0123 "cost_unknown_calls" 0))`+"\n" ||
		stderr != "usage: 1 model call, 100 input + 10 output tokens, 1 turn, $0.0123\n" {
		t.Errorf("exit %d\nstdout: %q\nstderr: %q", code, stdout, stderr)
	}
}

// TestBudgetWarnsAboutUnknownCost: a cost budget cannot count a call
// whose cost is unknown (no prices, no usage.cost): the first such call
// gets one warning, when it ends, so that the budget does not seem to
// hold; a token budget, or known prices, give none.
func TestBudgetWarnsAboutUnknownCost(t *testing.T) {
	srv := newCostServer(t, false, 0, 0)
	prog := `(defatom hi (instructions "Hi")) (hi) (hi) "done"`
	warning := "warning: the cost of 'hi' (router:vendor/model-a) is unknown: --max-cost counts only calls whose cost is known; give its model or provider prices ([prices.\"MODEL-ID\"] or the provider's prices)\n"
	usage := "usage: 2 model calls, 200 input + 20 output tokens, 2 turns, cost unknown for 2 calls\n"
	dir, env := costProject(t, srv, "")
	code, stdout, stderr := runIn(t, dir, env, "eval", "--max-cost", "0.0001", prog)
	if code != exitOK || stdout != "\"done\"\n" || stderr != warning+usage {
		t.Errorf("--max-cost without prices: exit %d\nstdout: %q\nstderr: %q\nwant: %q", code, stdout, stderr, warning+usage)
	}
	dir, env = costProject(t, srv, "max_cost_usd = 0.0001\n")
	code, _, stderr = runIn(t, dir, env, "eval", prog)
	if want := strings.Replace(warning, "--max-cost", "[limits] max_cost_usd", 1) + usage; code != exitOK || stderr != want {
		t.Errorf("max_cost_usd without prices: exit %d\nstderr: %q\nwant: %q", code, stderr, want)
	}
	for _, args := range [][]string{{"--max-tokens", "100000"}, {}} {
		dir, env = costProject(t, srv, "")
		code, _, stderr = runIn(t, dir, env, append(append([]string{"eval"}, args...), prog)...)
		if code != exitOK || stderr != usage {
			t.Errorf("eval %v: exit %d, stderr %q; want no warning", args, code, stderr)
		}
	}
	dir, env = costProject(t, srv, "[prices.\"vendor/model-a\"]\ninput = 1.0\noutput = 2.0\n")
	code, _, stderr = runIn(t, dir, env, "eval", "--max-cost", "1", prog)
	if code != exitOK || strings.Contains(stderr, "warning") {
		t.Errorf("--max-cost with prices: exit %d, stderr %q; want no warning", code, stderr)
	}
}

// TestCheckWarnsWithoutPrices: with a cost budget, `evalrun check` warns
// about a provider that has no prices (SPEC §14.9); one with prices, or
// no budget, gives no warning.
func TestCheckWarnsWithoutPrices(t *testing.T) {
	srv := newCostServer(t, false, 0, 0)
	for _, tc := range []struct {
		config, want string
	}{
		{"max_cost_usd = 2.0\n", "warning: provider 'router' has no prices: [limits] max_cost_usd counts its calls only when the server reports usage.cost\n"},
		{"max_cost_usd = 2.0\n[prices.\"vendor/model-a\"]\ninput = 1.0\noutput = 2.0\n", ""},
		{"max_tokens = 1000\n", ""},
	} {
		dir, env := costProject(t, srv, tc.config)
		os.WriteFile(filepath.Join(dir, "w.sexp"), []byte(`(list 1)`), 0o644)
		code, stdout, stderr := runIn(t, dir, env, "check", "w.sexp")
		if code != exitOK || stdout != "w.sexp: ok\n" || stderr != tc.want {
			t.Errorf("config %q: exit %d\nstdout: %q\nstderr: %q", tc.config, code, stdout, stderr)
		}
	}
}

// TestTokenBudget: --max-tokens counts input + output tokens (SPEC
// §14.9): ten calls of 110 tokens spend 1100.
func TestTokenBudget(t *testing.T) {
	srv := newCostServer(t, false, 0, 20*time.Millisecond)
	dir, env := costProject(t, srv, "")
	if err := os.WriteFile(filepath.Join(dir, "fifty.sexp"), []byte(fiftyCalls), 0o644); err != nil {
		t.Fatal(err)
	}
	code, stdout, stderr := runIn(t, dir, env, "run", "--json", "--max-tokens", "1100", "fifty.sexp")
	n := srv.count()
	if code != exitEval || n < 10 || n > 13 {
		t.Fatalf("exit %d, %d requests\n%s", code, n, stderr)
	}
	ok, refused := outcomes(t, stdout)
	re := regexp.MustCompile(`^failed resource_exhaustion: budget spent: 1(100|210|320|430) of 1100 tokens$`)
	for msg := range refused {
		if !re.MatchString(msg) {
			t.Errorf("refused call: %q", msg)
		}
	}
	if ok != n || !slicesContainRE(strings.Split(stderr, "\n"), `^evalrun: budget spent: 1(100|210|320|430) of 1100 tokens$`) {
		t.Errorf("%d completed of %d started\n%s", ok, n, stderr)
	}
}
