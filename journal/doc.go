// Package journal is evalrun's run store (SPEC §16): the SQLite database
// .evalrun/journal.db holding every run and the tree of its calls — tasks,
// tools and steps — with their status, inputs, results, tokens, cost
// (calls.cost_usd, REAL, NULL when unknown; schema version 2, to which a
// version 1 journal is migrated when opened) and attempts. It renders `evalrun status` (plain and --markdown), `evalrun
// runs`, computes the current position, and hands out the results of
// earlier runs for `--resume`.
//
// The package does not evaluate anything and imports neither the evaluator
// nor the task system: values are stored as JSON through value.JSON and read
// back through value.ParseJSON, TaskResults as
// {"status","content","parsedContent","notes"} (read back as
// *value.TaskResult for task and tool calls).
//
// # Recording
//
// Open the store, StartRun, create the statically known steps with
// AddPendingSteps, then Begin and End every call. Begin assigns seq numbers
// from 1 in call order; Call.TaskID is RUN-ID/SEQ. Tasks and tools begin
// pending (waiting for a concurrency slot) and become running with
// Call.Running; a step begins running and first claims the first unclaimed
// pending step of its name under the same parent. Every method is safe for
// concurrent use; writes are serialised.
//
// Seq order is call order, so the pending steps created at the start come
// before any call made outside a step in the tree. A call begun before its
// input hash and inputs were known (while it waited for its slot) gets
// them with Call.SetInput. A task or tool call also records a short label
// (CallLabel of its inputs, or of the arguments it was made with while it
// waits: calls.label), and a task what executes it and its template's
// provenance from its start (Call.SetExecutor: calls.executor,
// calls.template_source), which its result's notes hold only once it has
// ended. These columns are added to an older journal when it is opened.
//
// # Storage
//
// Writes are batched: they are queued and committed together, one
// transaction per batch, by prepared statements on a connection reserved
// for writing, in WAL mode with synchronous=NORMAL. Run.Finish returns
// once committed. Call.End returns once the call's row is appended to the
// process's call log (journal.db-calls-RANDOM, locked while the process
// lives, emptied after each commit, removed by Close): one write instead of
// one commit per call, and as durable. The next process to open the
// journal writes the rows of a dead process's log into the database.
// Everything else is committed within 25 ms or with the next synchronous
// write; reads commit the queue first. Without file locks (non-Unix
// systems) End commits.
//
// OpenLazy opens the database only when it must: the engine uses it so
// that starting a run costs no database work. A run on such a store is
// written at its first call, or at Finish when it made none (in one
// commit); a run started with RunInfo.OmitWithoutCalls that completes
// without a call is not recorded and creates no file.
//
// # Reading
//
// Store.Runs lists runs newest first, Store.Resolve accepts a full id, a
// unique prefix or "last", Store.Tree returns a run's nodes and
// CurrentPosition finds where the run stopped. RenderStatus, RenderMarkdown
// and RenderRuns write the command outputs.
//
// # Resume
//
// Store.NewReplayer loads the completed task calls and workflow-level tool
// calls of a run and of the runs it resumed from; Replayer.Next (keyed by
// template and request hash) and Replayer.NextTool (keyed by ToolHash) give
// the n-th request the n-th matching completed result.
//
// # The trace sink
//
// A run records itself through Sink, a trace.Sink (package trace) that
// the engine installs: the task, tool and step spans become nodes (a span
// made by trace.Wait is a pending node until its call starts), a span's
// node is its trace ref (RUN-ID/SEQ), and spans of other kinds are passed
// through to their parents. As a trace.Gate it answers the task calls and
// workflow-level tool calls of a resumed run from its Replayer.
//
// # Example
//
//	s, err := journal.Open(journal.DefaultPath)
//	if err != nil { … }
//	defer s.Close()
//	run, _ := s.StartRun(journal.RunInfo{WorkflowPath: "release.sexp", WorkflowSHA256: journal.HashWorkflow(src)})
//	run.AddPendingSteps([]string{"plan", "lint"})
//	step, _ := run.Begin(nil, journal.KindStep, "plan", "", nil) // claims the pending "plan"
//	task, _ := run.Begin(step, journal.KindTask, "plan/generate", requestHash, inputs)
//	task.Running()
//	task.End(journal.StatusCompleted, result, "", journal.Usage{InputTokens: 900, OutputTokens: 120, Turns: 1}, 0, false)
//	step.End(journal.StatusCompleted, value, "", journal.Usage{}, 1, false)
//	run.Finish(journal.StatusCompleted, final, nil)
//
//	rec, _ := s.Resolve("last")
//	tree, _ := s.Tree(rec.ID)
//	journal.RenderMarkdown(os.Stdout, tree)
package journal
