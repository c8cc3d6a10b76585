package engine

import (
	"context"

	"github.com/evalrun/evalrun/evaluator"
	"github.com/evalrun/evalrun/handler/tokens"
	"github.com/evalrun/evalrun/memory"
	"github.com/evalrun/evalrun/trace"
	"github.com/evalrun/evalrun/value"
)

// memoryLink connects the run's memory system (SPEC §15) to its three
// users: get-context in workflows (evaluator.TaskSystem.Context), the
// executor's fresh context and description sources (tasksystem.Memory) and
// the system_get_context tool (handler.ContextRetriever). The index is
// opened, and refreshed, by the first lookup only.
type memoryLink struct {
	mem *memory.Memory
}

// newMemoryLink returns the memory of the project at root. The llm
// strategies run the built-in associative-matching templates through run,
// which must not take a slot of the run's concurrency semaphore; with run
// nil they fail (a memory for the content and metadata strategies only).
func newMemoryLink(root string, poolSize int, run func(ctx context.Context, name string, inputs *value.Dict) *value.TaskResult) *memoryLink {
	var runner memory.TemplateRunner
	if run != nil {
		runner = memory.RunnerFunc(run)
	}
	// Shards are sized in o200k tokens (SPEC §15.3); the vocabulary loads
	// only when an llm lookup builds its shards.
	count := memory.WithTokenCounter(tokens.O200k().Count)
	return &memoryLink{mem: memory.New(root, runner, poolSize, count)}
}

// getContext implements evaluator.ContextFunc.
func (m *memoryLink) getContext(ctx context.Context, q evaluator.ContextQuery) *value.Dict {
	return m.lookup(ctx, q).Value()
}

// lookup is get_relevant_context_for (SPEC §15.4), for get-context and
// Engine.Context: a get-context span (trace.GetContext) named by the
// query, in which the llm strategies' task calls are made.
func (m *memoryLink) lookup(ctx context.Context, q memory.Query) memory.Result {
	ctx, span := startLookup(ctx, q)
	r := m.mem.GetRelevantContextFor(ctx, q)
	endLookup(span, r.Error, nil)
	return r
}

// startLookup opens the get-context span of a memory lookup.
func startLookup(ctx context.Context, q memory.Query) (context.Context, *trace.Span) {
	if !trace.Enabled(ctx) {
		return ctx, nil
	}
	in := value.DictOf("strategy", value.String(q.Strategy), "top_k", value.Int(q.TopK))
	return trace.Start(ctx, trace.GetContext, q.Query, in)
}

// endLookup ends the get-context span of a memory lookup with its error
// message ("" when it succeeded) or Go error.
func endLookup(span *trace.Span, msg string, err error) {
	if err != nil {
		msg = err.Error()
	}
	if msg != "" {
		span.End(trace.Result{Status: trace.Failed, Error: msg}, trace.Usage{})
		return
	}
	span.End(trace.Result{Status: trace.Completed}, trace.Usage{})
}

// Lookup implements tasksystem.Memory: the executor's fresh lookups, each
// a get-context span.
func (m *memoryLink) Lookup(ctx context.Context, q memory.Query) (memory.Result, error) {
	ctx, span := startLookup(ctx, q)
	r, err := m.mem.Lookup(ctx, q)
	endLookup(span, r.Error, err)
	return r, err
}

// retriever is the memory as system_get_context sees it.
type retriever struct{ m *memoryLink }

// ContextTool implements handler.ContextRetriever.
func (r retriever) ContextTool(ctx context.Context, query string, topK int) *value.TaskResult {
	return r.m.mem.GetRelevantContextFor(ctx, memory.Query{Query: query, TopK: topK}).ToolResult()
}

// close releases the index.
func (m *memoryLink) close() { m.mem.Close() }
