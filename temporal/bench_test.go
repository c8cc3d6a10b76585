package temporal_test

import (
	"context"
	"testing"

	"github.com/evalrun/evalrun/evaluator"
	"github.com/evalrun/evalrun/temporal"
)

// benchCalls is the number of task calls of the benchmarks' program.
const benchCalls = 20

const benchSrc = `(length (map (lambda (n) (greet (name "x"))) (range 20)))`

// BenchmarkCallOverheadWorkflow measures a task call made through the
// workflow in the SDK's test environment: encoding, activity scheduling and
// decoding, without a server's round trips. ns/call is per task call.
func BenchmarkCallOverheadWorkflow(b *testing.B) {
	in := temporal.RunInput{Sources: source(benchSrc)}
	for b.Loop() {
		env := newEnv(b, newFake())
		env.ExecuteWorkflow(temporal.WorkflowName, in)
		if err := env.GetWorkflowError(); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*benchCalls), "ns/call")
}

// BenchmarkCallOverheadLocal is the same program evaluated in this process.
func BenchmarkCallOverheadLocal(b *testing.B) {
	for b.Loop() {
		in := evaluator.New(evaluator.Options{Tasks: newFake()})
		if _, err := in.EvalString(context.Background(), "wf.sexp", benchSrc); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*benchCalls), "ns/call")
}
