package engine

import (
	"context"
	"os"
	"path/filepath"
	"strings"

	"github.com/evalrun/evalrun/memory"
	"github.com/evalrun/evalrun/value"
)

// ContextQuery is a memory lookup (get_relevant_context_for, SPEC §15.4).
type ContextQuery struct {
	// Query is the text to match.
	Query string
	// Strategy is content (also ""), metadata, llm or llm-metadata.
	Strategy string
	// TopK is how many matches to return; 0 means the default, 5.
	TopK int
	// IDsOnly leaves the files' text out of the matches of Value (their
	// content is ""), for a caller that shows only ids and scores: the
	// content strategy then reads no file.
	IDsOnly bool
}

func (q ContextQuery) query() memory.Query {
	return memory.Query{Query: q.Query, Strategy: q.Strategy, TopK: q.TopK, SkipContent: q.IDsOnly}
}

// CheckContextQuery checks a lookup as `evalrun context` takes it — a
// known strategy, top_k from 1 to 100, a query that is not blank — and
// returns it with the strategy's canonical name. The errors are those of
// get-context (SPEC §8.7), as *Error of KindUsage.
func CheckContextQuery(q ContextQuery) (ContextQuery, error) {
	strategy, err := memory.ParseStrategy(q.Strategy)
	if err != nil {
		return q, &Error{Kind: KindUsage, Err: err}
	}
	if err := memory.CheckTopK(int64(q.TopK)); err != nil {
		return q, &Error{Kind: KindUsage, Err: err}
	}
	if strings.TrimSpace(q.Query) == "" {
		return q, errorf(KindUsage, "%s", memory.NoQueryMessage)
	}
	q.Strategy = strategy
	return q, nil
}

// NeedsModel reports whether the lookup's strategy asks a model (llm,
// llm-metadata): such a lookup needs an Engine, the others a Workspace.
func (q ContextQuery) NeedsModel() bool {
	s, _ := memory.ParseStrategy(q.Strategy)
	return s == memory.StrategyLLM || s == memory.StrategyLLMMetadata
}

// ContextMatch is one file a lookup found.
type ContextMatch struct {
	// ID is the file's path relative to the project root, '/'-separated.
	ID string
	// Score is the relevance, from 0 to 1.
	Score float64
}

// ContextResult is the answer of a memory lookup.
type ContextResult struct {
	Matches []ContextMatch
	// Summary is the lookup's summary line ("3 matches for …").
	Summary string
	// Error is set when the lookup failed wholly or in part.
	Error string
	// Value is the get-context result dict {"context_summary", "matches"[,
	// "error"]} (SPEC §8.7).
	Value *value.Dict
}

func contextResult(r memory.Result) ContextResult {
	out := ContextResult{Summary: r.ContextSummary, Error: r.Error, Value: r.Value()}
	for _, m := range r.Matches {
		out.Matches = append(out.Matches, ContextMatch{ID: m.ID, Score: m.RelevanceScore})
	}
	return out
}

// Index builds or updates the memory index (SPEC §15.1) of the project
// opts.WorkDir lies in, or of the directory path when it is not ""
// (relative to the working directory), and returns the summary line
// ("indexed N files (…) in PATH", the database shown as Workspace.Display
// shows paths). A path that is no directory is an *Error of KindUsage;
// an error of the index is returned as it is.
func Index(ctx context.Context, opts Options, path string) (string, error) {
	ws, err := locate(opts)
	if err != nil {
		return "", err
	}
	root := ws.Root
	if path != "" {
		root = absTo(ws.WorkDir, path)
		info, err := os.Stat(root)
		switch {
		case err != nil:
			return "", errorf(KindUsage, "cannot index %s: %v", path, reason(err))
		case !info.IsDir():
			return "", errorf(KindUsage, "cannot index %s: not a directory", path)
		}
	}
	st, err := memory.Index(ctx, root)
	if err != nil {
		return "", err
	}
	st.DBPath = ws.Display(filepath.Join(root, filepath.FromSlash(memory.DefaultDBPath)))
	return st.String(), nil
}
