package main

import (
	"fmt"
	"os"
	"testing"
)

func main() {
	fmt.Printf("%-12s %14s %14s %8s\n", "workload", "evalrun ns/op", "starlark ns/op", "ratio")
	for _, w := range workloads {
		e := testing.Benchmark(func(b *testing.B) { benchmarkWorkload(b, w, evalrunRunner) })
		s := testing.Benchmark(func(b *testing.B) { benchmarkWorkload(b, w, starlarkRunner) })
		if e.N == 0 || s.N == 0 {
			fmt.Fprintf(os.Stderr, "%s: a benchmark failed; run go test for the error\n", w.name)
			os.Exit(1)
		}
		fmt.Printf("%-12s %14d %14d %7.2fx\n", w.name, e.NsPerOp(), s.NsPerOp(), float64(e.NsPerOp())/float64(s.NsPerOp()))
	}
}

// benchmarkWorkload times runs of w made by newRunner, checking the value.
func benchmarkWorkload(b *testing.B, w workload, newRunner func(workload) (func() (string, error), error)) {
	run, err := newRunner(w)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		got, err := run()
		if err != nil {
			b.Fatal(err)
		}
		if got != w.want {
			b.Fatalf("%s = %s, want %s", w.name, got, w.want)
		}
	}
}
