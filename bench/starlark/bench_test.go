package main

import "testing"

// TestWorkloads: both interpreters compute the expected value of every
// workload.
func TestWorkloads(t *testing.T) {
	for _, w := range workloads {
		for name, newRunner := range map[string]func(workload) (func() (string, error), error){"evalrun": evalrunRunner, "starlark": starlarkRunner} {
			run, err := newRunner(w)
			if err != nil {
				t.Fatalf("%s %s: %v", name, w.name, err)
			}
			got, err := run()
			if err != nil || got != w.want {
				t.Errorf("%s %s = %s, %v; want %s", name, w.name, got, err, w.want)
			}
		}
	}
}

func BenchmarkEvalrun(b *testing.B) {
	for _, w := range workloads {
		b.Run(w.name, func(b *testing.B) { benchmarkWorkload(b, w, evalrunRunner) })
	}
}

func BenchmarkStarlark(b *testing.B) {
	for _, w := range workloads {
		b.Run(w.name, func(b *testing.B) { benchmarkWorkload(b, w, starlarkRunner) })
	}
}
