package e2e

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/evalrun/evalrun/temporal/e2e/devserver"
)

// killedWorkerFlow makes 20 task calls through parallel-map and prints
// their answers, joined with " | " (printed as a string, in quotes).
const killedWorkerFlow = `(define answers
  (parallel-map (lambda (i) (get-field (greet (name i)) "content")) (range 1 21)))
(string-join answers " | ")
`

// TestWorkerKilledMidRun runs 20 calls on two worker processes, kills one
// with SIGKILL while it has calls in flight and has completed others, and
// checks that the run finishes on the other worker with the value of a
// local run, that every prompt was answered, that no call the killed
// worker had completed ran again, and that the calls it had in flight ran
// again exactly once, on the other worker.
func TestWorkerKilledMidRun(t *testing.T) {
	exe := evalrunBinary(t)
	s := startServer(t)
	// Each answer takes 1.5 s and 4 calls run at once: the run lasts long
	// enough to catch the first worker with calls completed and in flight.
	fp := newFakeProvider(t, 1500*time.Millisecond)
	const config = "[limits]\nconcurrency = 4\n"
	prompts := make([]string, 20)
	for i := range prompts {
		prompts[i] = fmt.Sprintf("Hello %d!", i+1)
	}

	runner := project(t, config)
	flow := writeFile(t, runner, "flow.sexp", killedWorkerFlow)

	// The local run: the value every run of flow.sexp must print.
	local, stderr, code := run(t, runner, providerEnv(t, fp, "local"), exe, "run", flow)
	answers := make([]string, len(prompts))
	for i, p := range prompts {
		answers[i] = answer(p)
	}
	want := `"` + strings.Join(answers, " | ") + `"` + "\n"
	if code != 0 || local != want {
		t.Fatalf("local run: exit %d, stdout %q, want %q\nstderr:\n%s", code, local, want, stderr)
	}

	// w1 starts alone, so that the first calls are its own; w2 joins once
	// w1 has completed two calls, and w1 is killed while w2 polls.
	const queue = "e2e-kill"
	w1 := startWorker(t, s, project(t, config), providerEnv(t, fp, "w1"), exe, queue)
	rp := start(t, runner, processEnv(t), exe, "run", "--temporal", s.hostPort, "--namespace", s.namespace,
		"--task-queue", queue, "--heartbeat-timeout", "5s", flow)
	id := workflowID(t, rp)

	// ready says whether the server has recorded at least two calls as
	// completed by w1 and the provider holds a request of w1 that came in
	// less than 700 ms ago (so it is still open when w1 is killed).
	var before []completion
	ready := func() bool {
		select {
		case <-rp.done:
			t.Fatalf("the run ended before w1 could be killed\nstdout:\n%s\nstderr:\n%s", rp.stdout, rp.stderr)
		default:
		}
		inFlight := 0
		for _, r := range fp.snapshot() {
			if r.who == "w1" && r.end.IsZero() && time.Since(r.start) < 700*time.Millisecond {
				inFlight++
			}
		}
		if inFlight == 0 {
			return false
		}
		before = s.completions(t, id)
		return len(completedBy(before, prompts, w1.identityPrefix())) >= 2
	}
	waitFor(t, 2*time.Minute, "w1 with 2 calls completed", func() bool {
		return len(completedBy(s.completions(t, id), prompts, w1.identityPrefix())) >= 2
	})
	w2 := startWorker(t, s, project(t, config), providerEnv(t, fp, "w2"), exe, queue)
	waitFor(t, 2*time.Minute, "w1 with 2 calls completed and a call just started", ready)
	if err := w1.cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	<-w1.done
	killedAt := time.Now()

	code = rp.wait(t, 3*time.Minute)
	got, runErr := rp.stdout.String(), rp.stderr.String()
	if code != 0 || got != local {
		t.Fatalf("run on Temporal: exit %d, stdout %q, want the local run's %q\nstderr:\n%s\nsurviving worker's stderr:\n%s", code, got, local, runErr, w2.stderr)
	}

	// What the server recorded: who completed each call.
	after := s.completions(t, id)
	byW1 := completedBy(after, prompts, w1.identityPrefix())
	byW2 := completedBy(after, prompts, w2.identityPrefix())
	if len(byW1)+len(byW2) != len(prompts) {
		t.Fatalf("%d calls completed by w1 and %d by w2, want %d in all", len(byW1), len(byW2), len(prompts))
	}
	if b := completedBy(before, prompts, w1.identityPrefix()); len(b) < 2 || len(b) > len(byW1) {
		t.Fatalf("w1 had completed %d calls before the kill and %d in all", len(b), len(byW1))
	}

	// What the provider saw: requests per prompt and worker.
	count := map[string]map[string]int{}
	answered := map[string]bool{}
	inFlightAtKill := map[string]bool{}
	for _, r := range fp.snapshot() {
		if r.who == "local" {
			continue
		}
		if count[r.prompt] == nil {
			count[r.prompt] = map[string]int{}
		}
		count[r.prompt][r.who]++
		if r.answered && r.who == "w2" {
			answered[r.prompt] = true
		}
		if r.answered && r.who == "w1" && byW1[r.prompt] {
			answered[r.prompt] = true
		}
		if r.who == "w1" && r.start.Before(killedAt) && !byW1[r.prompt] {
			inFlightAtKill[r.prompt] = true
		}
	}
	if len(count) != len(prompts) {
		t.Errorf("the provider saw %d distinct prompts, want %d: %v", len(count), len(prompts), count)
	}
	for _, p := range prompts {
		c := count[p]
		switch {
		case !answered[p]:
			t.Errorf("%q: no worker's request was answered and completed (requests %v)", p, c)
		case byW1[p]:
			// Completed by the killed worker: executed once, never again.
			if c["w1"] != 1 || c["w2"] != 0 {
				t.Errorf("%q was completed by the killed worker, then executed again: requests %v, want w1:1", p, c)
			}
		case inFlightAtKill[p]:
			// In flight on the killed worker: it may run once more, on w2.
			if c["w1"] != 1 || c["w2"] != 1 {
				t.Errorf("%q was in flight on the killed worker: requests %v, want w1:1 w2:1", p, c)
			}
		default:
			if c["w1"] != 0 || c["w2"] != 1 {
				t.Errorf("%q ran on the surviving worker only: requests %v, want w2:1", p, c)
			}
		}
	}
	if len(inFlightAtKill) == 0 {
		t.Errorf("no call was in flight on w1 when it was killed")
	}
	if !strings.Contains(runErr, "evalrun: following workflow "+id) {
		t.Errorf("stderr of the run %q does not name workflow %s", runErr, id)
	}
	t.Logf("w1 completed %d calls, had %d in flight at the kill; w2 completed %d", len(byW1), len(inFlightAtKill), len(byW2))
	w2.stop(t)
}

// TestExamplesOnServer runs examples of the repository on the echo
// provider through "evalrun run --temporal" and locally: the values and
// exit codes are the same.
func TestExamplesOnServer(t *testing.T) {
	exe := evalrunBinary(t)
	root := repoRoot(t)
	s := startServer(t)
	const queue = "e2e-examples"
	w := startWorker(t, s, project(t, ""), processEnv(t), exe, queue, "--provider", "echo")
	dir := project(t, "")
	for _, name := range []string{"greet.sexp", "fanout.sexp"} {
		file := filepath.Join(root, "examples", name)
		local, lerr, lcode := run(t, dir, processEnv(t), exe, "run", "--provider", "echo", file)
		if lcode != 0 || local == "" {
			t.Fatalf("%s locally: exit %d, stdout %q\nstderr:\n%s", name, lcode, local, lerr)
		}
		remote, rerr, rcode := run(t, dir, processEnv(t), exe, "run", "--temporal", s.hostPort, "--namespace", s.namespace, "--task-queue", queue, file)
		if rcode != lcode || remote != local {
			t.Errorf("%s on Temporal: exit %d, stdout %q; locally: exit %d, stdout %q\nstderr:\n%s", name, rcode, remote, lcode, local, rerr)
		}
	}
	// The value greet.sexp prints under the echo provider is its rendered
	// prompt: the workers rendered the template made by defatom.
	out, _, _ := run(t, dir, processEnv(t), exe, "run", "--temporal", s.hostPort, "--namespace", s.namespace, "--task-queue", queue, filepath.Join(root, "examples", "greet.sexp"))
	if want := `"model said: Write a one-line friendly greeting for Ada."` + "\n"; out != want {
		t.Errorf("greet.sexp on Temporal printed %q, want %q", out, want)
	}
	w.stop(t)
}

// TestDevServer starts the development server of cmd/devserver on a free
// port, runs examples/greet.sexp on it through a worker that names no
// namespace (the server registers "default"), and stops it.
func TestDevServer(t *testing.T) {
	exe := evalrunBinary(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	ds, err := devserver.Start(ctx, devserver.Options{Addr: "127.0.0.1:0"})
	if err != nil {
		t.Fatal(err)
	}
	defer ds.Stop()
	if ds.Namespace() != "default" {
		t.Errorf("namespace %q, want default", ds.Namespace())
	}
	if _, err := devserver.Start(ctx, devserver.Options{Addr: ds.Addr()}); err == nil || !strings.Contains(err.Error(), "listen on "+ds.Addr()+": ") {
		t.Errorf("a second server on %s: error %v, want listen on %s: …", ds.Addr(), err, ds.Addr())
	}
	w := start(t, project(t, ""), processEnv(t), exe, "worker", "--temporal", ds.Addr(), "--provider", "echo")
	greet := filepath.Join(repoRoot(t), "examples", "greet.sexp")
	out, stderr, code := run(t, project(t, ""), processEnv(t), exe, "run", "--temporal", ds.Addr(), greet)
	if want := `"model said: Write a one-line friendly greeting for Ada."` + "\n"; code != 0 || out != want {
		t.Fatalf("greet.sexp on the development server: exit %d, stdout %q, want %q\nstderr:\n%s\nworker's stderr:\n%s", code, out, want, stderr, w.stderr)
	}
	w.stop(t)
	ds.Stop()
	_, stderr, code = run(t, project(t, ""), processEnv(t), exe, "status", "--temporal", ds.Addr(), "evalrun-x")
	if code != 1 || !strings.Contains(stderr, "cannot connect to Temporal at "+ds.Addr()) {
		t.Errorf("status after Stop: exit %d, stderr %q, want exit 1 and cannot connect", code, stderr)
	}
}
