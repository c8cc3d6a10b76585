package e2e

import (
	"testing"
	"time"
)

// benchFlow makes 100 task calls through parallel-map; the project's
// limits.concurrency (20) bounds how many run at once.
const benchFlow = `(length (parallel-map (lambda (i) (get-field (greet (name i)) "content")) (range 0 100)))
`

// BenchmarkTemporalOverhead times the same workflow of 100 task calls
// against a provider answering in 200 ms, 20 at a time, as whole
// "evalrun run" processes: locally, on Temporal with one worker process,
// and on Temporal with two (the server runs in this process). It reports
// the wall time of each (local-s, temporal1-s, temporal2-s) and the
// overhead of Temporal per call, (T_temporal − T_local) / 100
// (overhead1-ms/call, overhead2-ms/call). Five waves of 200 ms make 1 s
// the floor of every run.
func BenchmarkTemporalOverhead(b *testing.B) {
	exe := evalrunBinary(b)
	s := startServer(b)
	fp := newFakeProvider(b, 200*time.Millisecond)
	const config = "[limits]\nconcurrency = 20\n"
	runner := project(b, config)
	flow := writeFile(b, runner, "bench.sexp", benchFlow)
	startWorker(b, s, project(b, config), providerEnv(b, fp, "one"), exe, "bench-one")
	startWorker(b, s, project(b, config), providerEnv(b, fp, "twoA"), exe, "bench-two")
	startWorker(b, s, project(b, config), providerEnv(b, fp, "twoB"), exe, "bench-two")
	localEnv, runEnv := providerEnv(b, fp, "local"), processEnv(b)

	timed := func(env []string, args ...string) time.Duration {
		start := time.Now()
		out, stderr, code := run(b, runner, env, exe, args...)
		if code != 0 || out != "100\n" {
			b.Fatalf("evalrun %v: exit %d, stdout %q\nstderr:\n%s", args, code, out, stderr)
		}
		return time.Since(start)
	}
	var local, one, two time.Duration
	b.ResetTimer()
	for b.Loop() {
		local += timed(localEnv, "run", flow)
		one += timed(runEnv, "run", "--temporal", s.hostPort, "--namespace", s.namespace, "--task-queue", "bench-one", flow)
		two += timed(runEnv, "run", "--temporal", s.hostPort, "--namespace", s.namespace, "--task-queue", "bench-two", flow)
	}
	n := float64(b.N)
	b.ReportMetric(local.Seconds()/n, "local-s")
	b.ReportMetric(one.Seconds()/n, "temporal1-s")
	b.ReportMetric(two.Seconds()/n, "temporal2-s")
	b.ReportMetric(float64((one-local).Microseconds())/1000/n/100, "overhead1-ms/call")
	b.ReportMetric(float64((two-local).Microseconds())/1000/n/100, "overhead2-ms/call")
	// Every call of every run reached the provider once.
	perWho := map[string]int{}
	for _, r := range fp.snapshot() {
		perWho[r.who]++
	}
	if perWho["local"] != 100*b.N || perWho["one"] != 100*b.N || perWho["twoA"]+perWho["twoB"] != 100*b.N {
		b.Fatalf("requests per client %v, want 100 per run", perWho)
	}
}
