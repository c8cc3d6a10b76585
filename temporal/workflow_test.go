package temporal_test

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"testing"
	"time"

	"github.com/evalrun/evalrun/evaluator"
	"github.com/evalrun/evalrun/temporal"
	"github.com/evalrun/evalrun/value"
	"go.temporal.io/sdk/log"
	sdktemporal "go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/testsuite"
)

// runLocal evaluates src in this process, as `evalrun run` does.
func runLocal(t *testing.T, f *fakeTasks, src string) string {
	t.Helper()
	in := evaluator.New(evaluator.Options{Tasks: f})
	v, err := in.EvalString(context.Background(), "wf.sexp", src)
	if err != nil {
		t.Fatalf("local run: %v", err)
	}
	return v.String()
}

// newEnv returns a test workflow environment with the workflow and the
// activities registered over f.
func newEnv(t testing.TB, f *fakeTasks) *testsuite.TestWorkflowEnvironment {
	t.Helper()
	var s testsuite.WorkflowTestSuite
	s.SetLogger(quietLogger())
	env := s.NewTestWorkflowEnvironment()
	env.SetTestTimeout(30 * time.Second)
	// A fixed start time: it travels with every call, so sizes are stable.
	env.SetStartTime(time.Date(2025, 1, 6, 14, 3, 0, 0, time.UTC))
	temporal.Register(env, f)
	return env
}

// runWorkflow evaluates src as the evalrun.Run workflow and returns its
// printed value or its error.
func runWorkflow(t *testing.T, env *testsuite.TestWorkflowEnvironment, in temporal.RunInput) (string, error) {
	t.Helper()
	env.ExecuteWorkflow(temporal.WorkflowName, in)
	if !env.IsWorkflowCompleted() {
		t.Fatal("workflow did not complete")
	}
	if err := env.GetWorkflowError(); err != nil {
		return "", err
	}
	var out temporal.RunOutput
	if err := env.GetWorkflowResult(&out); err != nil {
		t.Fatal(err)
	}
	v, err := temporal.Decode(out.Value)
	if err != nil {
		t.Fatal(err)
	}
	return v.String(), nil
}

// quietLogger discards the SDK's log lines.
func quietLogger() log.Logger {
	return log.NewStructuredLogger(slog.New(slog.NewTextHandler(io.Discard, nil)))
}

func source(text string) []temporal.Source {
	return []temporal.Source{{Name: "wf.sexp", Text: text}}
}

// TestSameValueAsLocal runs sequential, nested and parallel task calls,
// tool calls and get-context both locally and as a workflow.
func TestSameValueAsLocal(t *testing.T) {
	cases := []struct{ name, src, want string }{
		{"sequential", `(list (get-field (greet (name "a")) "content") (get-field (greet (name "b")) "content"))`,
			`("Hello a" "Hello b")`},
		{"nested", `(get-field (greet (name (get-field (greet (name "x")) "content"))) "content")`,
			`"Hello Hello x"`},
		{"parallel-map", `(parallel-map (lambda (n) (get-field (greet (name n)) "content")) (list "a" "b" "c" "d"))`,
			`("Hello a" "Hello b" "Hello c" "Hello d")`},
		{"parallel", `(parallel (get-field (greet (name "p")) "content") (+ 1 2) (get-field (upper (text "q")) "content"))`,
			`("Hello p" 3 "Q")`},
		{"task result value", `(greet (name "r"))`, `#<TaskResult COMPLETE "Hello r">`},
		{"failed result", `(let ((r (fail))) (list (get-field r "status") (get-field (get-field (get-field r "notes") "error") "reason")))`,
			`("FAILED" "llm_error")`},
		{"get-context", `(get-field (get-context "auth") "summary")`, `"found for auth"`},
		{"positional", `(map (lambda (r) (get-field r "content")) (map greet (list "m" "n")))`, `("Hello m" "Hello n")`},
		{"values", `(list 1 1.5 'sym "s" (dict "b" 1 "a" (list true null)))`, `(1 1.5 sym "s" (dict "b" 1 "a" (true null)))`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			local := runLocal(t, newFake(), c.src)
			if local != c.want {
				t.Fatalf("local run = %s, want %s", local, c.want)
			}
			f := newFake()
			got, err := runWorkflow(t, newEnv(t, f), temporal.RunInput{Sources: source(c.src)})
			if err != nil {
				t.Fatal(err)
			}
			if got != local {
				t.Fatalf("workflow = %s, local = %s", got, local)
			}
		})
	}
}

func TestInputsAndSeveralSources(t *testing.T) {
	x, err := temporal.Encode(value.String("Ada"))
	if err != nil {
		t.Fatal(err)
	}
	in := temporal.RunInput{
		Sources: []temporal.Source{{Name: "a.sexp", Text: `(define (hi n) (get-field (greet (name n)) "content"))`}, {Name: "b.sexp", Text: `(hi who)`}},
		Inputs:  []temporal.NamedInput{{Name: "who", Value: x}},
	}
	got, err := runWorkflow(t, newEnv(t, newFake()), in)
	if err != nil {
		t.Fatal(err)
	}
	if got != `"Hello Ada"` {
		t.Fatalf("got %s", got)
	}
}

// TestConcurrencyLimit: limits.concurrency bounds the calls running at once
// across the workflow, as the local semaphore does.
func TestConcurrencyLimit(t *testing.T) {
	f := newFake()
	f.delay = 100 * time.Millisecond
	src := `(length (parallel-map (lambda (n) (slow (n n))) (range 6)))`
	got, err := runWorkflow(t, newEnv(t, f), temporal.RunInput{Sources: source(src), Limits: evaluator.Limits{Concurrency: 2}})
	if err != nil {
		t.Fatal(err)
	}
	if got != "6" {
		t.Fatalf("got %s", got)
	}
	if m := f.maxActive.Load(); m != 2 {
		t.Fatalf("at most %d calls ran at once, want 2", m)
	}
}

// TestEvaluationError: an evaluation error fails the workflow with its kind,
// message and display (position, source line, caret).
func TestEvaluationError(t *testing.T) {
	_, err := runWorkflow(t, newEnv(t, newFake()), temporal.RunInput{Sources: source("(greet (name \"a\"))\n(+ 1 \"x\")")})
	ee := evaluationError(t, err)
	if ee.Kind != "type" || ee.Message != "wf.sexp:2:6: '+' argument 2 must be a number, got string." {
		t.Fatalf("got %+v", ee)
	}
	local, lerr := evaluator.New(evaluator.Options{Tasks: newFake()}).EvalString(context.Background(), "wf.sexp", "(greet (name \"a\"))\n(+ 1 \"x\")")
	var le *evaluator.Error
	if local != nil || !errors.As(lerr, &le) || le.Display() != ee.Display {
		t.Fatalf("display %q, local %q", ee.Display, le.Display())
	}
}

// TestNoPlansOnWorker: plan-load and plan-run are activities; on a
// worker whose task system runs no plans (no PlanWorker) they are an
// evaluation error at the form; a run whose calls report no usage (these
// fakes trace nothing) has used nothing (TestProgressSequential has calls
// that do). Plans that run are tested with the engine
// (engine/temporal_plan_test.go).
func TestNoPlansOnWorker(t *testing.T) {
	env := newEnv(t, newFake())
	temporal.RegisterActivities(env, &temporal.Activities{Tasks: noPlans{newFake()}})
	_, err := runWorkflow(t, env, temporal.RunInput{Sources: source("(plan-run \"plans/a\")")})
	ee := evaluationError(t, err)
	if ee.Kind != "value" || ee.Message != "wf.sexp:1:1: 'plan-run': no plans can be run on this worker" {
		t.Fatalf("got %+v", ee)
	}
	got, err := runWorkflow(t, newEnv(t, newFake()), temporal.RunInput{Sources: source("(get-field (run-usage) \"calls\")")})
	if err != nil || got != "0" {
		t.Fatalf("run-usage calls: %q, %v", got, err)
	}
}

func evaluationError(t *testing.T, err error) temporal.EvaluationError {
	t.Helper()
	var app *sdktemporal.ApplicationError
	if !errors.As(err, &app) || app.Type() != temporal.EvaluationErrorType {
		t.Fatalf("want an %s, got %v", temporal.EvaluationErrorType, err)
	}
	var ee temporal.EvaluationError
	if err := app.Details(&ee); err != nil {
		t.Fatal(err)
	}
	return ee
}

// TestDefatom: a template made by defatom in the run reaches the worker
// with its definition, as the local run has it.
func TestDefatom(t *testing.T) {
	src := "(define x 1)\n  (defatom hi (params (name string)) (instructions \"Hi {{name}}\"))\n(list (get-field (hi (name \"z\")) \"content\") (map (lambda (n) (get-field (hi (name n)) \"status\")) (list \"a\" \"b\")))"
	local := runLocal(t, newFake(), src)
	want := `("hi@wf.sexp:2:3 Hi {{name}} name=z" ("COMPLETE" "COMPLETE"))`
	if local != want {
		t.Fatalf("local = %s\nwant    %s", local, want)
	}
	got, err := runWorkflow(t, newEnv(t, newFake()), temporal.RunInput{Sources: source(src)})
	if err != nil {
		t.Fatal(err)
	}
	if got != local {
		t.Fatalf("workflow = %s\nlocal    = %s", got, local)
	}
}

// TestActivityRetries: a call whose worker fails is started again, up to
// the attempts of the retry policy; then it is a FAILED result.
func TestActivityRetries(t *testing.T) {
	for _, c := range []struct {
		attempts int
		want     string
	}{
		{3, `("COMPLETE" "Hello a")`},
		{2, `("FAILED" "worker lost")`},
	} {
		f := newFake()
		f.crashes.Store(2)
		src := `(let ((r (greet (name "a")))) (list (get-field r "status") (get-field r "content")))`
		got, err := runWorkflow(t, newEnv(t, f), temporal.RunInput{Sources: source(src), Calls: temporal.CallOptions{Attempts: c.attempts}})
		if err != nil {
			t.Fatal(err)
		}
		if tries := 2 - f.crashes.Load(); got != c.want || tries != int64(c.attempts) {
			t.Fatalf("attempts %d: got %s after %d tries", c.attempts, got, tries)
		}
	}
}

// TestCompletedCallsRunOnce: when one call of a parallel-map fails on its
// worker and is retried, the calls that completed are not executed again.
func TestCompletedCallsRunOnce(t *testing.T) {
	f := newFake()
	f.crashOn = "b"
	src := `(parallel-map (lambda (n) (get-field (greet (name n)) "content")) (list "a" "b" "c"))`
	got, err := runWorkflow(t, newEnv(t, f), temporal.RunInput{Sources: source(src)})
	if err != nil {
		t.Fatal(err)
	}
	if got != `("Hello a" "Hello b" "Hello c")` || !f.crashed.Load() {
		t.Fatalf("got %s (crashed %v)", got, f.crashed.Load())
	}
	for _, n := range []string{"a", "b", "c"} {
		if k := f.executions(`greet:"` + n + `"<nil>`); k != 1 {
			t.Fatalf("greet %s completed %d times", n, k)
		}
	}
}

func TestRetryPolicy(t *testing.T) {
	p := temporal.CallOptions{Attempts: 5}.RetryPolicy()
	if p.InitialInterval != time.Second || p.BackoffCoefficient != 2 || p.MaximumInterval != 30*time.Second || p.MaximumAttempts != 5 {
		t.Fatalf("policy %+v", p)
	}
	if d := (temporal.CallOptions{}).RetryPolicy().MaximumAttempts; d != 3 {
		t.Fatalf("default attempts %d", d)
	}
}

// TestCallTimeout: a call that outlives its start-to-close timeout is a
// FAILED result with reason execution_timeout.
func TestCallTimeout(t *testing.T) {
	f := newFake()
	f.delay = 10 * time.Second
	src := `(let ((r (slow (n 1)))) (list (get-field r "status") (get-field (get-field (get-field r "notes") "error") "reason")))`
	got, err := runWorkflow(t, newEnv(t, f), temporal.RunInput{Sources: source(src),
		Calls: temporal.CallOptions{Attempts: 1, Timeout: 200 * time.Millisecond}})
	if err != nil {
		t.Fatal(err)
	}
	if got != `("FAILED" "execution_timeout")` {
		t.Fatalf("got %s", got)
	}
}

// TestCancellation: cancelling the workflow cancels the running calls and
// ends the evaluation with a cancelled error.
func TestCancellation(t *testing.T) {
	f := newFake()
	f.delay = 20 * time.Second
	env := newEnv(t, f)
	env.RegisterDelayedCallback(env.CancelWorkflow, time.Second)
	src := `(parallel-map (lambda (n) (slow (n n))) (list 1 2))`
	_, err := runWorkflow(t, env, temporal.RunInput{Sources: source(src), Calls: temporal.CallOptions{Heartbeat: 2 * time.Second}})
	ee := evaluationError(t, err)
	if ee.Kind != "cancelled" || ee.Message != "wf.sexp:1:27: interrupted" {
		t.Fatalf("got %+v", ee)
	}
	// The test environment answers the cancelled activities at once; the
	// calls' contexts are cancelled by their next heartbeat, as on a server.
	deadline := time.Now().Add(10 * time.Second)
	for f.cancelled.Load() < 2 && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	if n := f.cancelled.Load(); n != 2 {
		t.Fatalf("%d calls saw the cancellation, want 2", n)
	}
}

// TestPayloadLimit: a result over the limit becomes a FAILED result that
// names the limit.
func TestPayloadLimit(t *testing.T) {
	src := `(let ((r (big))) (list (get-field r "status") (get-field r "content")))`
	got, err := runWorkflow(t, newEnv(t, newFake()), temporal.RunInput{Sources: source(src)})
	if err != nil {
		t.Fatal(err)
	}
	want := `("FAILED" "result of task 'big' is 3145827 bytes encoded, over Temporal's payload limit of 2097152 bytes")`
	if got != want {
		t.Fatalf("got  %s\nwant %s", got, want)
	}
	big := `(get-field (greet (name (let ((s "ab")) (loop 20 (set! s (string-append s s))) s))) "content")`
	got, err = runWorkflow(t, newEnv(t, newFake()), temporal.RunInput{Sources: source(big)})
	if err != nil {
		t.Fatal(err)
	}
	if want := `"input of task 'greet' is 2097556 bytes encoded, over Temporal's payload limit of 2097152 bytes"`; got != want {
		t.Fatalf("got  %s\nwant %s", got, want)
	}
}

func TestCodecRoundTrip(t *testing.T) {
	d := value.NewDict(2)
	d.Set("z", value.Int(-3))
	d.Set("a", value.Float(2))
	r := &value.TaskResult{Status: "COMPLETE", Content: "c", Parsed: d, Notes: value.NewDict(0)}
	for _, v := range []value.Value{value.Null{}, value.Bool(false), value.Int(1 << 60), value.Float(0.1), value.String("é\n"), value.Symbol(":k"), value.List(nil), value.List{d, r}} {
		x, err := temporal.Encode(v)
		if err != nil {
			t.Fatal(err)
		}
		back, err := temporal.Decode(x)
		if err != nil {
			t.Fatal(err)
		}
		if back.String() != v.String() || back.Type() != v.Type() {
			t.Fatalf("%s came back as %s (%s)", v, back, back.Type())
		}
	}
}

// TestRunTimeout: limits.timeout runs on the workflow clock and cancels the
// running calls; the error is the local one.
func TestRunTimeout(t *testing.T) {
	f := newFake()
	f.delay = time.Minute
	src := `(progn (greet (name "a")) (slow (n 1)))`
	_, err := runWorkflow(t, newEnv(t, f), temporal.RunInput{Sources: source(src), Limits: evaluator.Limits{Timeout: time.Second}})
	ee := evaluationError(t, err)
	if ee.Kind != "limit" || ee.Message != "wf.sexp:1:27: timeout exceeded (1s)" {
		t.Fatalf("got %+v", ee)
	}
	if n := f.executions(`greet:"a"<nil>`); n != 1 {
		t.Fatalf("greet ran %d times", n)
	}
}

// TestFirstErrorCancelsBranches: an error in one parallel-map branch
// cancels the others, as locally, and is the error of the form.
func TestFirstErrorCancelsBranches(t *testing.T) {
	src := `(parallel-map (lambda (n) (if (= n 2) (error "boom") (slow (n n)))) (list 1 2 3))`
	local := newFake()
	local.delay = time.Minute
	_, lerr := evaluator.New(evaluator.Options{Tasks: local, Limits: evaluator.Limits{Concurrency: 1}}).EvalString(context.Background(), "wf.sexp", src)
	var le *evaluator.Error
	if !errors.As(lerr, &le) {
		t.Fatalf("local: %v", lerr)
	}
	f := newFake()
	f.delay = time.Minute
	_, err := runWorkflow(t, newEnv(t, f), temporal.RunInput{Sources: source(src), Limits: evaluator.Limits{Concurrency: 1}})
	ee := evaluationError(t, err)
	if ee.Kind != string(le.Kind) || ee.Message != le.Error() || ee.Message != `wf.sexp:1:39: boom` {
		t.Fatalf("workflow %+v, local %v", ee, le)
	}
}

// TestTasksPerRun: with ForRun, the calls of one run share one task system,
// made once with the run's ids and start time.
func TestTasksPerRun(t *testing.T) {
	var s testsuite.WorkflowTestSuite
	s.SetLogger(quietLogger())
	env := s.NewTestWorkflowEnvironment()
	start := time.Date(2025, 1, 6, 14, 3, 0, 0, time.UTC)
	env.SetStartTime(start)
	var keys []temporal.RunKey
	runs := newFake()
	temporal.RegisterWorker(env, newFake(), func(k temporal.RunKey) evaluator.Tasks {
		keys = append(keys, k)
		return runs
	}, false)
	src := `(list (get-field (greet (name "a")) "content") (get-field (upper (text "b")) "content") (get-field (get-context "c") "summary"))`
	got, err := runWorkflow(t, env, temporal.RunInput{Sources: source(src)})
	if err != nil {
		t.Fatal(err)
	}
	if got != `("Hello a" "B" "found for c")` {
		t.Fatalf("got %s", got)
	}
	if len(keys) != 1 || keys[0].WorkflowID != "default-test-workflow-id" || keys[0].RunID == "" || !keys[0].Start.Equal(start) {
		t.Fatalf("ForRun calls: %+v", keys)
	}
	if runs.executions(`greet:"a"<nil>`) != 1 || runs.executions("tool:upper") != 1 || runs.executions("get-context:c") != 1 {
		t.Fatalf("the run's task system saw %v", runs.calls)
	}
}

// TestInterruptedCallIsNoResult: a call whose context ends while it runs
// (a worker shutting down) returns an error, to be retried elsewhere, not
// the FAILED result the interruption produced.
func TestInterruptedCallIsNoResult(t *testing.T) {
	f := newFake()
	f.delay = time.Minute
	a := &temporal.Activities{Tasks: f}
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		for f.active.Load() == 0 {
			time.Sleep(time.Millisecond)
		}
		cancel()
	}()
	x, err := a.Task(ctx, temporal.TaskInput{Template: "slow", Name: "slow"})
	if err == nil || err.Error() != "call interrupted: context canceled" || x.T != "" {
		t.Fatalf("got %+v, %v", x, err)
	}
	if f.cancelled.Load() != 1 {
		t.Fatal("the call did not see the cancellation")
	}
}
