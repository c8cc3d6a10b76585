package tasksystem

import (
	"context"

	"github.com/evalrun/evalrun/memory"
)

// Memory is the memory index as the executor uses it (SPEC §15): the
// fresh-context lookup of SPEC §13.4 (c) and the description and
// context_description sources of a template's <file_paths>, in the
// memory package's own terms (memory.Query, memory.Result). The executor
// always builds the complete query text itself and asks for the content
// strategy. An implementation must be safe for concurrent use.
type Memory interface {
	// Lookup ranks indexed files against q (SPEC §15.4). A returned error
	// fails the task with context_retrieval_failure; so does a result with
	// an Error and no matches. A result with an Error and some matches is
	// used, and its Error becomes a warning.
	Lookup(ctx context.Context, q memory.Query) (memory.Result, error)
}

// matchPath returns the file a match names: its source path, else its id
// (both relative to the project root).
func matchPath(m memory.Match) string {
	if m.SourcePath != "" {
		return m.SourcePath
	}
	return m.ID
}

// WarnNoMemory is the warning of a fresh or description lookup in a run
// without a memory index.
const WarnNoMemory = "no memory index is available"
