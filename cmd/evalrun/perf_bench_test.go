package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/evalrun/evalrun/sexp"
)

// Process-level benchmarks of task calls. Each builds the binary with go
// build (no race detector, no coverage), as a user runs it, and times
// whole processes in a project directory of their own with HOME and
// EVALRUN_HOME pointing to empty directories.

// greetTemplate is the template of the benchmarks' task calls.
const greetTemplate = `<task name="greet" type="atomic">
  <description>Greet someone by name</description>
  <instructions>Hello {{name}}!</instructions>
</task>
`

// benchProject makes a project directory with the greet template and the
// given config.toml, and the environment of a process run in it.
func benchProject(tb testing.TB, config string) (dir string, env []string) {
	tb.Helper()
	dir = tb.TempDir()
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
	home := tb.TempDir()
	env = []string{"HOME=" + home, "EVALRUN_HOME=" + filepath.Join(home, ".evalrun"), "PATH=" + os.Getenv("PATH")}
	return dir, env
}

// buildEvalrun builds the command into a temporary directory.
func buildEvalrun(b *testing.B) string {
	b.Helper()
	if testing.Short() {
		b.Skip("builds the binary")
	}
	exe := filepath.Join(b.TempDir(), "evalrun")
	if runtime.GOOS == "windows" {
		exe += ".exe"
	}
	if out, err := exec.Command("go", "build", "-o", exe, ".").CombinedOutput(); err != nil {
		b.Fatalf("go build: %v\n%s", err, out)
	}
	return exe
}

// baselineExe returns the evalrun binary named by EVALRUN_BENCH_BASELINE,
// or "" when it is not set. The whole-process benchmarks run it
// alternately with the binary they build and report its figures too
// (base-…), so that a change is measured against an earlier build in one
// run, on a machine whose load varies from run to run.
func baselineExe() string { return os.Getenv("EVALRUN_BENCH_BASELINE") }

// runProcess runs exe with args in dir and returns its stdout; a non-zero
// exit fails the benchmark.
func runProcess(b *testing.B, dir string, env []string, exe string, args ...string) string {
	cmd := exec.Command(exe, args...)
	cmd.Dir, cmd.Env = dir, env
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		b.Fatalf("evalrun %s: %v\n%s", strings.Join(args, " "), err, &stderr)
	}
	return stdout.String()
}

// BenchmarkTaskProcess measures a process making one echo task call,
// "evalrun task greet", against "evalrun eval '(+ 1 2)'" in the same
// project, alternately: the task's whole-process time should stay within
// 15 ms of the evaluation's (reported as task-ms, eval-ms and extra-ms).
func BenchmarkTaskProcess(b *testing.B) {
	exe := buildEvalrun(b)
	dir, env := benchProject(b, "")
	var task, eval time.Duration
	for b.Loop() {
		start := time.Now()
		if out := runProcess(b, dir, env, exe, "task", "--provider", "echo", "greet", "--set", "name=Di"); out != "Hello Di!\n" {
			b.Fatalf("task output %q", out)
		}
		task += time.Since(start)
		start = time.Now()
		if out := runProcess(b, dir, env, exe, "eval", "(+ 1 2)"); out != "3\n" {
			b.Fatalf("eval output %q", out)
		}
		eval += time.Since(start)
	}
	n := float64(b.N)
	b.ReportMetric(float64(task.Microseconds())/1000/n, "task-ms")
	b.ReportMetric(float64(eval.Microseconds())/1000/n, "eval-ms")
	b.ReportMetric(float64((task-eval).Microseconds())/1000/n, "extra-ms")
}

// BenchmarkRunNoCallProcess measures what recording a run that makes no
// call costs: "evalrun run sum.sexp" of (+ 1 2), which writes its run to
// the journal when it ends, against "evalrun eval '(+ 1 2)'", which does
// not, alternately in the same project (reported as run-ms, eval-ms and
// extra-ms). The journal exists already, as in a project after its first
// run.
func BenchmarkRunNoCallProcess(b *testing.B) {
	exe := buildEvalrun(b)
	dir, env := benchProject(b, "")
	if err := os.WriteFile(filepath.Join(dir, "sum.sexp"), []byte("(+ 1 2)\n"), 0o644); err != nil {
		b.Fatal(err)
	}
	runProcess(b, dir, env, exe, "run", "sum.sexp") // creates the journal
	var run, eval time.Duration
	for b.Loop() {
		start := time.Now()
		if out := runProcess(b, dir, env, exe, "run", "sum.sexp"); out != "3\n" {
			b.Fatalf("run output %q", out)
		}
		run += time.Since(start)
		start = time.Now()
		if out := runProcess(b, dir, env, exe, "eval", "(+ 1 2)"); out != "3\n" {
			b.Fatalf("eval output %q", out)
		}
		eval += time.Since(start)
	}
	n := float64(b.N)
	b.ReportMetric(float64(run.Microseconds())/1000/n, "run-ms")
	b.ReportMetric(float64(eval.Microseconds())/1000/n, "eval-ms")
	b.ReportMetric(float64((run-eval).Microseconds())/1000/n, "extra-ms")
}

// slowModelServer is an OpenAI-compatible chat completions server on
// loopback that answers every request after delay, with usage.
func slowModelServer(delay time.Duration) *httptest.Server {
	return httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		time.Sleep(delay)
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, `{"id":"1","object":"chat.completion","choices":[{"index":0,"message":{"role":"assistant","content":"summary"},"finish_reason":"stop"}],"usage":{"prompt_tokens":12,"completion_tokens":1,"total_tokens":13}}`)
	}))
}

// parallelMap20 makes 20 task calls through parallel-map.
const parallelMap20 = `(length (parallel-map (lambda (i) (get-field (greet (name i)) "content")) (range 1 21)))`

// BenchmarkParallelMapOpenAIProcess measures a whole process making 20
// task calls through parallel-map at concurrency 8, through the OpenAI
// provider, against a loopback server answering each request in 100 ms:
// three waves of 100 ms, so 300 ms is the floor (target ≤ 360 ms).
func BenchmarkParallelMapOpenAIProcess(b *testing.B) {
	exe := buildEvalrun(b)
	srv := slowModelServer(100 * time.Millisecond)
	defer srv.Close()
	dir, env := benchProject(b, "[limits]\nconcurrency = 8\n")
	env = append(env, "OPENAI_API_KEY=k", "OPENAI_BASE_URL="+srv.URL)
	base := baselineExe()
	var took, baseTook time.Duration
	run := func(exe string) time.Duration {
		start := time.Now()
		if out := runProcess(b, dir, env, exe, "eval", parallelMap20); out != "20\n" {
			b.Fatalf("output %q", out)
		}
		return time.Since(start)
	}
	b.ResetTimer()
	for b.Loop() {
		took += run(exe)
		if base != "" {
			baseTook += run(base)
		}
	}
	b.ReportMetric(float64(took.Microseconds())/1000/float64(b.N), "ms/op")
	if base != "" {
		b.ReportMetric(float64(baseTook.Microseconds())/1000/float64(b.N), "base-ms/op")
	}
}

// BenchmarkJournalCost measures what the journal costs per task call: one
// process (this one) evaluates 2,000 echo task calls with the journal and
// without, alternately, and reports the difference per call in wall time
// (journal-µs) and in CPU time (journal-cpu-µs, user and system).
func BenchmarkJournalCost(b *testing.B) {
	dir, _ := benchProject(b, "")
	b.Chdir(dir)
	home := b.TempDir()
	env := map[string]string{"HOME": home, "EVALRUN_HOME": filepath.Join(home, ".evalrun")}
	const calls = 2000
	text := fmt.Sprintf(`(length (map (lambda (i) (greet (name i))) (range 0 %d)))`, calls)
	run := func(journaled bool) (wall, cpu time.Duration) {
		var stdout, stderr bytes.Buffer
		a := &app{stdin: strings.NewReader(""), stdout: &stdout, stderr: &stderr, getenv: withCeiling(func(k string) string { return env[k] })}
		jn := journalInfo("<eval>", text)
		if !journaled {
			jn = nil
		}
		start, startCPU := time.Now(), processCPU()
		code := a.evaluate([]*sexp.Source{sexp.NewSource("<eval>", text)}, nil, evalFlags{Provider: "echo"}, jn, nil)
		wall, cpu = time.Since(start), processCPU()-startCPU
		if code != exitOK || stdout.String() != fmt.Sprintf("%d\n", calls) {
			b.Fatalf("exit %d, stdout %q, stderr %q", code, &stdout, &stderr)
		}
		return wall, cpu
	}
	var on, off, onCPU, offCPU time.Duration
	for b.Loop() {
		w, c := run(true)
		on, onCPU = on+w, onCPU+c
		w, c = run(false)
		off, offCPU = off+w, offCPU+c
	}
	if _, err := os.Stat(filepath.Join(dir, ".evalrun", "journal.db")); err != nil {
		b.Fatalf("no journal was written: %v", err)
	}
	per := func(d time.Duration) float64 { return float64(d.Nanoseconds()) / 1000 / float64(b.N) / calls }
	b.ReportMetric(per(on), "on-µs/call")
	b.ReportMetric(per(off), "off-µs/call")
	b.ReportMetric(per(on-off), "journal-µs/call")
	b.ReportMetric(per(onCPU-offCPU), "journal-cpu-µs/call")
}

// processCPU returns the user and system CPU time of this process so far:
// on a shared machine it measures work where wall time also measures the
// other processes.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// TestEvalWithoutCallLeavesNoJournal: a command that makes no task call
// creates no journal, not even the .evalrun directory.
func TestEvalWithoutCallLeavesNoJournal(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	home := t.TempDir()
	env := map[string]string{"HOME": home, "EVALRUN_HOME": filepath.Join(home, ".evalrun")}
	var stdout, stderr bytes.Buffer
	a := &app{stdin: strings.NewReader(""), stdout: &stdout, stderr: &stderr, getenv: withCeiling(func(k string) string { return env[k] })}
	if code := a.main([]string{"eval", "(+ 1 2)"}); code != exitOK || stdout.String() != "3\n" {
		t.Fatalf("exit %d, stdout %q, stderr %q", code, &stdout, &stderr)
	}
	if _, err := os.Stat(filepath.Join(dir, ".evalrun")); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf(".evalrun exists after an eval without calls (stat: %v)", err)
	}
}
