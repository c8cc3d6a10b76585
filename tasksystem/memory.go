package tasksystem

import (
	"context"

	"github.com/evalrun/evalrun/value"
)

// Memory is the memory index as the executor uses it (SPEC §15): the
// fresh-context lookup of SPEC §13.4 (c) and the description and
// context_description sources of a template's <file_paths>. An
// implementation must be safe for concurrent use.
type Memory interface {
	// Lookup ranks indexed files against q (SPEC §15.4). A returned error
	// fails the task with context_retrieval_failure; so does a result with
	// an Error and no matches. A result with an Error and some matches is
	// used, and its Error becomes a warning.
	Lookup(ctx context.Context, q MemoryQuery) (MemoryResult, error)
}

// MemoryQuery is one lookup: the library entry point's query,
// matching_strategy and top_k (SPEC §15.4). The executor always builds the
// complete query text itself.
type MemoryQuery struct {
	// Query is the text to rank against.
	Query string
	// Strategy is content, metadata, llm or llm-metadata; the executor
	// always asks for StrategyContent.
	Strategy string
	// TopK is the number of matches wanted (>= 1).
	TopK int
}

// StrategyContent is the default matching strategy (SPEC §8.7).
const StrategyContent = "content"

// MemoryResult is the answer to a MemoryQuery: {context_summary, matches,
// error?} of SPEC §15.4.
type MemoryResult struct {
	// Summary is the context_summary, such as
	// `2 matches for "retry policy" (content strategy, 412 files indexed)`.
	Summary string
	// Matches are best first.
	Matches []MemoryMatch
	// Error is the error text of a partly or wholly failed lookup, "" when
	// there was none.
	Error string
}

// MemoryMatch is one match of SPEC §15.2. ID and SourcePath are paths
// relative to the project root.
type MemoryMatch struct {
	ID             string
	Content        string
	RelevanceScore float64
	ContentType    string // file_content or file_metadata
	SourcePath     string
}

// Value returns the match as the dict get-context returns:
// {"id", "content", "relevance_score", "content_type", "source_path"}.
func (m MemoryMatch) Value() *value.Dict {
	return value.DictOf(
		"id", value.String(m.ID),
		"content", value.String(m.Content),
		"relevance_score", value.Float(m.RelevanceScore),
		"content_type", value.String(m.ContentType),
		"source_path", value.String(m.SourcePath),
	)
}

// path returns the file a match names: its source path, else its id.
func (m MemoryMatch) path() string {
	if m.SourcePath != "" {
		return m.SourcePath
	}
	return m.ID
}

// WarnNoMemory is the warning of a fresh or description lookup in a run
// without a memory index.
const WarnNoMemory = "no memory index is available"
