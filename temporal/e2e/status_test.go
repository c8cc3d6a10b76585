package e2e

import (
	"regexp"
	"sort"
	"strings"
	"testing"
)

// statusFlow has a step around a parallel-map of task calls, a tool call
// that fails, a later task call, and a step whose task call is an
// evaluation error, which ends the run.
const statusFlow = `(defatom summarize
  (params (topic string))
  (instructions "Summarise {{topic}} in one sentence."))
(step "fan" (parallel-map (lambda (t) (summarize (topic t))) (list "retries" "backoff")))
(step "look" (task-ok? (system_list_directory (directory_path "no-such-dir"))))
(step "last" (get-field (summarize (topic "jitter")) "content"))
(step "check" (summarize (topic 42)))
`

// TestStatusOnServer runs a program locally and on the server: "evalrun
// status --temporal" of the finished workflow prints the tree (and the
// --markdown checklist) that "evalrun status" prints of the local run, but
// for the run's id, start and duration and the order of the two parallel
// calls, also when a fresh worker must replay the closed workflow to
// answer; "evalrun runs --temporal" lists the workflow; without a worker,
// status shows the calls of the history.
func TestStatusOnServer(t *testing.T) {
	exe := evalrunBinary(t)
	s := startServer(t)
	const queue = "e2e-status"
	dir := project(t, "")
	w := startWorker(t, s, dir, processEnv(t), exe, queue, "--provider", "echo")
	file := writeFile(t, dir, "status.sexp", statusFlow)
	if _, stderr, code := run(t, dir, processEnv(t), exe, "run", "--provider", "echo", file); code != 1 {
		t.Fatalf("local run: exit %d, want 1\n%s", code, stderr)
	}
	server := []string{"--temporal", s.hostPort, "--namespace", s.namespace, "--task-queue", queue}
	_, stderr, code := run(t, dir, processEnv(t), exe, append(append([]string{"run"}, server...), file)...)
	m := regexp.MustCompile(`following workflow (\S+)`).FindStringSubmatch(stderr)
	if code != 1 || m == nil {
		t.Fatalf("run on Temporal: exit %d, want 1 and a workflow id\n%s", code, stderr)
	}
	id := m[1]
	// A fresh worker answers the query of the closed workflow: it replays
	// the history.
	w.stop(t)
	w = startWorker(t, s, dir, processEnv(t), exe, queue, "--provider", "echo")
	header := regexp.MustCompile(`(?m)^run \S+  (\S+)  (\S+)  started [-0-9]+ [:0-9]+  \S+`)
	norm := func(s string) string {
		l := strings.Split(header.ReplaceAllString(s, "run ID  $1  $2  started T  D"), "\n")
		sort.Strings(l)
		return strings.Join(l, "\n")
	}
	for _, format := range [][]string{nil, {"--markdown"}} {
		local, lerr, lcode := run(t, dir, processEnv(t), exe, append([]string{"status"}, format...)...)
		remote, rerr, rcode := run(t, dir, processEnv(t), exe, append(append(append([]string{"status"}, server...), id), format...)...)
		if lcode != 0 || rcode != 0 || norm(local) != norm(remote) || !strings.Contains(local, "summarize") {
			t.Errorf("status %v on Temporal: exit %d\n%s\nstderr: %s\nlocally: exit %d\n%s\nstderr: %s", format, rcode, remote, rerr, lcode, local, lerr)
		}
		if want := "workflow " + id + " failed, "; !strings.Contains(rerr, want) || strings.Contains(rerr, "no worker answered") {
			t.Errorf("status %v on Temporal: stderr %q, want %q and an answered query", format, rerr, want)
		}
	}
	out, stderr, code := run(t, dir, processEnv(t), exe, append([]string{"runs"}, server...)...)
	if code != 0 || !regexp.MustCompile(`(?m)^ID +STATUS +STARTED +DURATION +CALLS +COST +WORKFLOW\n`+regexp.QuoteMeta(id)+` +failed +.*status\.sexp$`).MatchString(out) {
		t.Errorf("runs on Temporal: exit %d\n%s\nstderr: %s", code, out, stderr)
	}
	w.stop(t)
	// Without a worker, the calls of the history, without their steps.
	out, stderr, code = run(t, dir, processEnv(t), exe, append(append([]string{"status"}, server...), id)...)
	if code != 0 || !strings.Contains(stderr, "no worker answered the query of workflow "+id) || regexp.MustCompile(`(?m)^ +\[\w+\] +step `).MatchString(out) ||
		!strings.Contains(out, "  [failed]    tool system_list_directory  tool_execution_error: cannot list directory no-such-dir") ||
		strings.Count(out, "task summarize") != 4 {
		t.Errorf("status without a worker: exit %d\n%s\nstderr: %s", code, out, stderr)
	}
}
