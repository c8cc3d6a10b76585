package memory

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/evalrun/evalrun/value"
)

// The matching strategies of SPEC §8.7.
const (
	StrategyContent     = "content"
	StrategyMetadata    = "metadata"
	StrategyLLM         = "llm"
	StrategyLLMMetadata = "llm-metadata"
)

// Limits of top_k (SPEC §8.7), and the defaults of the [context] section
// (SPEC §13.4, §18): this is their one home; the configuration and the
// task system read them from here.
const (
	DefaultTopK = 10
	MaxTopK     = 100
	// DefaultFreshTopK is how many matches a task's fresh lookup asks for
	// (context.fresh_top_k).
	DefaultFreshTopK = 5
	// DefaultSubsetK is how many ambient items inherit_context subset
	// keeps, ranked by BM25 against the instructions (context.subset_k).
	DefaultSubsetK = 5
)

// Summaries and errors of SPEC §15.4.
const (
	// NoQueryMessage is the error (and summary) of a lookup with neither a
	// query nor a template description.
	NoQueryMessage = "No query provided."
	// NoFilesSummary is the summary of a lookup on an empty index.
	NoFilesSummary = "No files indexed."
)

// ParseStrategy returns the canonical name of a matching strategy: content
// (also the empty string and content-only), metadata (also metadata-only),
// llm or llm-metadata. Any other name is the error
// `Invalid context strategy: x. Must be content, metadata, llm or llm-metadata.`
func ParseStrategy(name string) (string, error) {
	switch name {
	case "", StrategyContent, "content-only":
		return StrategyContent, nil
	case StrategyMetadata, "metadata-only":
		return StrategyMetadata, nil
	case StrategyLLM, StrategyLLMMetadata:
		return name, nil
	}
	return "", fmt.Errorf("Invalid context strategy: %s. Must be content, metadata, llm or llm-metadata.", name)
}

// CheckTopK returns an error unless 1 <= k <= 100.
func CheckTopK(k int64) error {
	if k < 1 || k > MaxTopK {
		return fmt.Errorf("top_k must be an integer from 1 to %d, got %d", MaxTopK, k)
	}
	return nil
}

// Query is one memory lookup: the input of get_relevant_context_for (SPEC
// §15.4).
type Query struct {
	// Query is the text to match; when blank, TemplateDescription is used.
	Query string
	// TemplateDescription is the query of a lookup without one.
	TemplateDescription string
	// Inputs are appended to the query, one "name: value" line each, the
	// value rendered as prompt text (SPEC §5.7, §13.4). May be nil.
	Inputs *value.Dict
	// Strategy is a name ParseStrategy accepts; "" means content.
	Strategy string
	// TopK is how many matches to return; 0 means DefaultTopK.
	TopK int
	// SkipContent leaves the file text out of the content strategy's
	// matches (Content ""), so that no file is read: for a caller that
	// shows only ids and scores.
	SkipContent bool
}

// Text returns the text a lookup ranks against: the query (or the template
// description when the query is blank) followed by one "name: value" line
// per input. It is blank when there is neither a query nor a description.
func (q Query) Text() string {
	base := q.Query
	if strings.TrimSpace(base) == "" {
		base = q.TemplateDescription
	}
	if strings.TrimSpace(base) == "" {
		return ""
	}
	var b strings.Builder
	b.WriteString(base)
	for k, v := range q.Inputs.All() {
		b.WriteByte('\n')
		b.WriteString(k)
		b.WriteString(": ")
		value.WriteText(&b, v)
	}
	return b.String()
}

// Match is one matching file (SPEC §15.2); the task system uses it as it
// is.
type Match struct {
	// ID is the file's path relative to the project root, '/'-separated.
	ID string
	// Content is the file text (at most 100 KiB) for file_content, the
	// metadata lines for file_metadata.
	Content string
	// RelevanceScore is in 0–1; BM25F scores are divided by the best one.
	RelevanceScore float64
	// ContentType is "file_content" or "file_metadata".
	ContentType string
	// SourcePath is the same path as ID.
	SourcePath string
}

// The content types of a Match.
const (
	ContentTypeFile     = "file_content"
	ContentTypeMetadata = "file_metadata"
)

// Value returns the match as the dict get-context returns:
// {"id", "content", "relevance_score", "content_type", "source_path"}.
func (m Match) Value() *value.Dict {
	return value.DictOf(
		"id", value.String(m.ID),
		"content", value.String(m.Content),
		"relevance_score", value.Float(m.RelevanceScore),
		"content_type", value.String(m.ContentType),
		"source_path", value.String(m.SourcePath),
	)
}

// Result is the answer of get_relevant_context_for (SPEC §15.4):
// {context_summary, matches, error?}.
type Result struct {
	// ContextSummary is such as
	// `2 matches for "retry policy" (content strategy, 412 files indexed)`.
	ContextSummary string
	// Matches are best first.
	Matches []Match
	// Error is set when the lookup failed wholly or in part.
	Error string
}

// MatchesValue returns the matches as a list of match dicts.
func (r Result) MatchesValue() value.List {
	l := make(value.List, 0, len(r.Matches))
	for _, m := range r.Matches {
		l = append(l, m.Value())
	}
	return l
}

// Value returns the dict get-context returns (SPEC §8.7):
// {"summary", "matches"} plus "error" only when the lookup failed.
func (r Result) Value() *value.Dict {
	d := value.DictOf("summary", value.String(r.ContextSummary), "matches", r.MatchesValue())
	if r.Error != "" {
		d.Set("error", value.String(r.Error))
	}
	return d
}

// IDs returns the ids of the matches, best first.
func (r Result) IDs() []string {
	ids := make([]string, len(r.Matches))
	for i, m := range r.Matches {
		ids[i] = m.ID
	}
	return ids
}

// ToolResult returns the result of the system_get_context tool (SPEC
// §14.4): content the JSON array of the ids, notes context_summary and
// matches. A lookup that failed with no matches is FAILED with reason
// context_retrieval_failure; a partial failure's error is a warning.
func (r Result) ToolResult() *value.TaskResult {
	ids := make(value.List, len(r.Matches))
	for i, m := range r.Matches {
		ids[i] = value.String(m.ID)
	}
	notes := value.DictOf("context_summary", value.String(r.ContextSummary), "matches", r.MatchesValue())
	if r.Error != "" {
		if len(r.Matches) == 0 {
			return value.Failed("context_retrieval_failure", r.Error, notes)
		}
		notes.Set("warnings", value.List{value.String(r.Error)})
	}
	return &value.TaskResult{Status: value.StatusComplete, Content: value.JSON(ids), Notes: notes}
}

// TemplateRunner runs a template by name with named inputs and returns its
// result; the llm strategies call the built-in associative-matching
// templates through it (SPEC §10.6). It must be safe for concurrent use and
// must not take a slot of the run-wide task semaphore (SPEC §6.8).
type TemplateRunner interface {
	Run(ctx context.Context, name string, inputs *value.Dict) *value.TaskResult
}

// RunnerFunc adapts a function to TemplateRunner.
type RunnerFunc func(ctx context.Context, name string, inputs *value.Dict) *value.TaskResult

// Run implements TemplateRunner.
func (f RunnerFunc) Run(ctx context.Context, name string, inputs *value.Dict) *value.TaskResult {
	return f(ctx, name, inputs)
}

// DefaultPoolSize is the model-call pool of a Memory built with size 0: the
// default of limits.concurrency.
const DefaultPoolSize = 8

// Memory is the memory system of one run: the project's index, refreshed by
// the first lookup, and the lookups of get-context, fresh context,
// template description sources and system_get_context. It is safe for
// concurrent use.
type Memory struct {
	root   string
	runner TemplateRunner
	pool   int
	opts   []Option
	o      options

	mu     sync.Mutex // guards the fields below and serialises the refresh
	store  *Store
	done   bool
	stats  Stats
	err    error
	closed bool
}

// New returns the memory system of the project at root. runner runs the
// associative-matching templates of the llm strategies (nil: those
// strategies fail); poolSize is limits.concurrency, the number of model calls
// one lookup may make at once (0 means 8). Nothing is read until the first
// lookup or Refresh.
func New(root string, runner TemplateRunner, poolSize int, opts ...Option) *Memory {
	if poolSize <= 0 {
		poolSize = DefaultPoolSize
	}
	return &Memory{root: root, runner: runner, pool: poolSize, opts: opts, o: buildOptions(opts)}
}

// Refresh opens the index and brings it up to date, once per Memory: later
// calls return the first call's figures (or error) without scanning again.
// A refresh cut short by a cancelled context is tried again by the next
// call. Lookups refresh implicitly.
func (m *Memory) Refresh(ctx context.Context) (Stats, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.closed {
		return Stats{}, errors.New("memory: closed")
	}
	if m.done {
		return m.stats, m.err
	}
	if m.store == nil {
		s, err := OpenStore(m.root, m.opts...)
		if err != nil {
			if ctx.Err() == nil {
				m.done, m.err = true, err
			}
			return Stats{}, err
		}
		m.store = s
	}
	st, err := m.store.Update(ctx)
	if err != nil && ctx.Err() != nil {
		return st, err // cancelled: try again next time
	}
	m.done, m.stats, m.err = true, st, err
	return st, err
}

// Close closes the index database. Lookups after Close fail.
func (m *Memory) Close() error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.closed = true
	if m.store == nil {
		return nil
	}
	err := m.store.Close()
	m.store = nil
	return err
}

func (m *Memory) openStore(ctx context.Context) (*Store, error) {
	if _, err := m.Refresh(ctx); err != nil {
		return nil, err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.store == nil {
		return nil, errors.New("memory: closed")
	}
	return m.store, nil
}

// GetRelevantContextFor is get_relevant_context_for (SPEC §15.4): it
// refreshes the index on the first lookup of the Memory, ranks the indexed
// files against q and returns the matches. Every failure, including a
// cancelled context, is reported in Result.Error with no matches.
func (m *Memory) GetRelevantContextFor(ctx context.Context, q Query) Result {
	r, err := m.Lookup(ctx, q)
	if err != nil {
		return Result{ContextSummary: r.ContextSummary, Error: err.Error()}
	}
	return r
}

// Lookup is GetRelevantContextFor with the failures of the index itself
// (it cannot be opened, scanned or read) and cancellation returned as an
// error; invalid arguments, a missing query and failing llm shards are
// reported in Result.Error.
func (m *Memory) Lookup(ctx context.Context, q Query) (Result, error) {
	strategy, err := ParseStrategy(q.Strategy)
	if err != nil {
		return Result{Error: err.Error()}, nil
	}
	k := q.TopK
	if k == 0 {
		k = DefaultTopK
	}
	if err := CheckTopK(int64(k)); err != nil {
		return Result{Error: err.Error()}, nil
	}
	text := q.Text()
	if text == "" {
		return Result{ContextSummary: NoQueryMessage, Error: NoQueryMessage}, nil
	}
	s, err := m.openStore(ctx)
	if err != nil {
		return Result{}, err
	}
	n, err := s.FileCount(ctx)
	if err != nil {
		return Result{}, fmt.Errorf("memory index %s: %w", s.DBPath(), err)
	}
	if n == 0 {
		return Result{ContextSummary: NoFilesSummary}, nil
	}
	switch strategy {
	case StrategyLLM, StrategyLLMMetadata:
		return m.llmLookup(ctx, s, strategy, text, k)
	}
	return s.search(ctx, text, strategy, k, !q.SkipContent)
}

// Search ranks the indexed files against text with BM25F (the content or
// metadata strategy, SPEC §15.2) and returns the k best matches. It does
// not refresh the index.
func (s *Store) Search(ctx context.Context, text, strategy string, k int) (Result, error) {
	return s.search(ctx, text, strategy, k, true)
}

// search is Search; withText false leaves the file text out of content
// matches.
func (s *Store) search(ctx context.Context, text, strategy string, k int, withText bool) (Result, error) {
	strategy, err := ParseStrategy(strategy)
	if err != nil {
		return Result{Error: err.Error()}, nil
	}
	f := fieldContent
	switch strategy {
	case StrategyContent:
	case StrategyMetadata:
		f = fieldMetadata
	default:
		return Result{Error: "Search ranks with BM25 only: use Memory for the " + strategy + " strategy"}, nil
	}
	hits, st, err := s.rank(ctx, f, text, k)
	if err != nil {
		return Result{}, fmt.Errorf("memory index %s: %w", s.DBPath(), err)
	}
	if st.files == 0 {
		return Result{ContextSummary: NoFilesSummary}, nil
	}
	matches := make([]Match, 0, len(hits))
	for _, h := range hits {
		m := Match{ID: h.info.Path, SourcePath: h.info.Path, RelevanceScore: h.score / hits[0].score}
		if f == fieldMetadata {
			m.Content, m.ContentType = h.info.MetadataText(), ContentTypeMetadata
		} else {
			if withText {
				m.Content, _ = s.ReadText(h.info.Path, maxMatchText)
			}
			m.ContentType = ContentTypeFile
		}
		matches = append(matches, m)
	}
	return Result{ContextSummary: summary(len(matches), text, strategy, st.files, 0), Matches: matches}, nil
}

// summary is `N matches for "QUERY" (STRATEGY strategy, M files indexed)`,
// with `, K unknown ids dropped` inside the parentheses when an llm strategy
// dropped ids. White space in the query is collapsed to single spaces.
func summary(n int, query, strategy string, files, unknown int) string {
	q := strings.Join(strings.Fields(query), " ")
	s := fmt.Sprintf("%d matches for \"%s\" (%s strategy, %d files indexed", n, q, strategy, files)
	switch {
	case unknown == 1:
		s += ", 1 unknown id dropped"
	case unknown > 1:
		s += fmt.Sprintf(", %d unknown ids dropped", unknown)
	}
	return s + ")"
}
