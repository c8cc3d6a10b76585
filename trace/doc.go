// Package trace is the one seam through which evalrun observes its calls:
// the run journal, the dry run's prompt files, the provenance lines, the
// live progress display and the viewer's live events all see the same
// spans, and replay for --resume is offered through it.
//
// Each layer opens a span where it makes a call and ends it with the
// result and usage: the evaluator for steps (and Wait for a call that
// waits for a concurrency slot), the task system for task calls, the
// handler for model requests and tool calls, the engine for memory
// lookups. The engine installs the sinks in the run's context
// (WithSinks); data flows one way, from the calls to the sinks. The only
// things a call takes back are a Gate's answer just before it runs
// (Span.Before: a replayed result, or a refusal) and the identifier a
// recording sink gives the span (Span.Ref, a task's notes.task_id).
//
// Without sinks in the context Start returns a nil *Span, whose methods do
// nothing: tracing costs a context lookup.
//
// A span goes through Waiting (only when made by Wait), Started, Running,
// any number of Progress events, and Ended. Its kind (Task, Tool, Step,
// Model, GetContext; Agent and PlanTask are reserved), name, parent,
// executor ("openai:gpt-4.1"), start time, result and usage are what a
// progress display shows.
//
//	ctx = trace.WithSinks(ctx, journalSink, progress)
//	...
//	ctx, sp := trace.Start(ctx, trace.Task, "review/git-diff", inputs, trace.Key(hash))
//	sp.Running()
//	if a, ok := sp.Before(); ok { /* replayed: a.Value */ }
//	sp.End(trace.ResultOf(result, false), trace.Usage{InputTokens: 120, OutputTokens: 40, Turns: 1})
package trace
