// Package temporal runs evalrun workflows on Temporal (go.temporal.io/sdk):
// the evalrun.Run workflow evaluates a program inside workflow code, and
// every call with an effect — a task call, a tool call, a get-context
// lookup — is an activity that a worker executes through the engine's
// usual execution paths.
//
// The evaluator itself does not know where it runs: its concurrency and
// clock go through evaluator.Runtime, which this package implements with
// workflow coroutines (workflow.Go), workflow semaphores and wait groups,
// workflow timers and workflow.Now, so that evaluation is deterministic
// under replay. The run-wide concurrency semaphore lives in the workflow,
// so limits.concurrency holds across all workers.
//
// Decisions:
//   - Values travel as Value, a tagged tree that keeps int and float,
//     string and symbol, dict key order and TaskResult apart.
//   - An encoded activity input or result larger than PayloadLimit (2 MiB,
//     the server's default blob limit) is never sent: the call's result is
//     FAILED with reason unexpected_error and a message naming the size and
//     the limit (a get-context result gets an "error" field instead). A
//     run value over the limit fails the workflow with a limit error.
//   - A FAILED TaskResult is a value: the activity completes. Model
//     requests are retried inside the activity by the handler (SPEC §14.7);
//     the activity's own retry policy (CallOptions.RetryPolicy: 1 s,
//     doubling, at most 30 s, limits.llm_attempts attempts) covers a lost
//     or crashed worker. An activity that still fails becomes a FAILED
//     result: execution_timeout for a timeout, execution_halted for a
//     cancellation, unexpected_error otherwise.
//   - An evaluation error fails the workflow with a non-retryable
//     ApplicationError of type EvaluationErrorType whose details are an
//     EvaluationError (kind, message, display with source line and caret).
//   - Calls heartbeat while they run; cancelling the workflow cancels the
//     evaluation as SIGINT does locally, and the activities' contexts, which
//     kills an agent's process group.
//   - Templates are resolved by name on each worker (Workflow.Registry and
//     Activities.Tasks), so all workers must load the same templates. A
//     template made by defatom lives in the run: its form travels with
//     each call and the worker rebuilds it (DefatomSource).
//   - A call interrupted by its context (the workflow cancelled, the
//     worker stopping) returns an error, never the FAILED result of the
//     interruption, so that a stopping worker's calls run again elsewhere.
//   - With Activities.ForRun a worker keeps one task system per run, so
//     that call numbers, accumulated outputs and {{date}} belong to the run.
//   - Plans (plan.go): plan-load is an activity; plan-run prepares its
//     plan.Schedule in an activity, schedules the tasks in workflow code
//     with it and runs each task as one plan step activity through the
//     worker's PlanWorker (package engine). The plan directory must be
//     shared by the workers that run plan activities.
//   - Agents' max_parallel (agentslots.go): with an AgentPolicy registry
//     the workflow holds a slot of a per-agent semaphore around each task
//     call and plan step that runs the agent, so the limit holds per run
//     across workers.
//   - The evaluator's trace events inside the workflow feed a
//     progress.Sink, the live display's, whose events the workflow keeps
//     (stamped with workflow.Now, so a replay makes the same) and answers
//     with the ProgressQuery handler, a bounded page at a time with the
//     run's usage. A query, unlike a signal, an update or a memo, adds no
//     history event, so following a run does not grow its history.
//   - A call activity returns a CallResult: its value and what it used,
//     counted from the task spans its call made on the worker (a
//     TraceSinker's sinks observe them too). The workflow sums the usage:
//     (run-usage), the run's result and the usage line report it. A plan
//     step activity returns its usage the same way (PlanStepOutput.Usage),
//     and each step is a plan-task span in the workflow, below the
//     (plan-run)'s step span, under which the plan's tasks are announced
//     to the display (PreparedPlan, progress.Sink.Plan) as locally.
//   - Budgets (budget.go): RunInput.Budget, the client's, is kept in the
//     workflow from what the calls returned they used; a task call or plan
//     step that would start once it is spent is refused without an
//     activity (tasksystem.BudgetError, as locally), and RunOutput.Budget
//     carries the first refusal to the client.
//
// A worker registers both halves:
//
//	w := worker.New(c, temporal.DefaultTaskQueue, worker.Options{})
//	temporal.Register(w, tasks) // tasks: the engine's evaluator.Tasks
//	err := w.Run(worker.InterruptCh())
//
// and a client starts and follows a run:
//
//	conn := temporal.Connection{HostPort: "localhost:7233"}
//	id, err := temporal.Start(ctx, conn, "", temporal.RunInput{Sources: srcs})
//	v, err := temporal.Await(ctx, conn, id) // err: a *RunError for an evaluation error
//	// or, with the display's events and the usage:
//	v, usage, err := temporal.Follow(ctx, conn, id, func(evs []temporal.ProgressEvent) { ... })
package temporal
