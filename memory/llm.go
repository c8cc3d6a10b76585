package memory

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/evalrun/evalrun/value"
)

// The built-in templates the llm strategies run (SPEC §10.6).
const (
	TemplateMatchContent  = "internal:associative_matching_content"
	TemplateMatchMetadata = "internal:associative_matching_metadata"
)

// Sharding limits of SPEC §15.3.
const (
	llmCandidates  = 40      // BM25 candidates sent to the model
	shardTokens    = 6000    // at most this many tokens per shard
	maxShards      = 8       // candidates that do not fit are left out
	candidateBytes = 4 << 10 // text each llm candidate shows
)

// estimateTokens is the default token count: bytes/4, rounded up.
func estimateTokens(s string) int { return (len(s) + 3) / 4 }

// shard is one template call's share of the candidates.
type shard struct {
	blocks []string
	tokens int
}

// shardOutcome is what one shard's call returned.
type shardOutcome struct {
	matches []rawMatch
	err     error
}

// rawMatch is one entry of a model's answer.
type rawMatch struct {
	id    string
	score float64
}

// llmLookup runs the llm or llm-metadata strategy (SPEC §15.3).
func (m *Memory) llmLookup(ctx context.Context, s *Store, strategy, text string, k int) (Result, error) {
	if m.runner == nil {
		return Result{Error: "the " + strategy + " strategy needs a template runner"}, nil
	}
	files, err := s.FileCount(ctx)
	if err != nil {
		return Result{}, fmt.Errorf("memory index %s: %w", s.DBPath(), err)
	}
	cands, err := s.candidates(ctx, text)
	if err != nil {
		return Result{}, fmt.Errorf("memory index %s: %w", s.DBPath(), err)
	}
	withText := strategy == StrategyLLM
	count := m.o.tokenCount
	if count == nil {
		count = estimateTokens
	}
	var shards []shard
	for _, c := range cands {
		block := s.candidateBlock(c.info, withText)
		t := count(block)
		if n := len(shards); n > 0 && shards[n-1].tokens+t <= shardTokens {
			shards[n-1].blocks = append(shards[n-1].blocks, block)
			shards[n-1].tokens += t
			continue
		}
		if len(shards) == maxShards {
			break
		}
		shards = append(shards, shard{blocks: []string{block}, tokens: t})
	}

	template, key := TemplateMatchContent, "file_contents"
	if !withText {
		template, key = TemplateMatchMetadata, "metadata_snippet"
	}
	outcomes := make([]shardOutcome, len(shards))
	sem := make(chan struct{}, m.pool)
	var wg sync.WaitGroup
	for i, sh := range shards {
		wg.Add(1)
		go func() {
			defer wg.Done()
			select {
			case sem <- struct{}{}:
			case <-ctx.Done():
				outcomes[i].err = ctx.Err()
				return
			}
			defer func() { <-sem }()
			inputs := value.DictOf(
				"context_input", value.DictOf("query", value.String(text)),
				key, value.String(strings.Join(sh.blocks, "")),
			)
			outcomes[i] = runShard(ctx, m.runner, template, inputs)
		}()
	}
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return Result{}, err
	}

	best := make(map[string]float64)
	unknown := make(map[string]bool)
	failed := 0
	var firstErr error
	for _, o := range outcomes {
		if o.err != nil {
			failed++
			if firstErr == nil {
				firstErr = o.err
			}
			continue
		}
		for _, rm := range o.matches {
			p, ok := normalizeID(rm.id, s.root)
			if ok {
				_, ok, err = s.File(ctx, p)
				if err != nil {
					return Result{}, fmt.Errorf("memory index %s: %w", s.DBPath(), err)
				}
			}
			if !ok {
				unknown[p] = true
				continue
			}
			if old, seen := best[p]; !seen || rm.score > old {
				best[p] = rm.score
			}
		}
	}
	var res Result
	if failed > 0 {
		res.Error = fmt.Sprintf("%d of %d shards failed: %v", failed, len(shards), firstErr)
	}
	paths := make([]string, 0, len(best))
	for p := range best {
		paths = append(paths, p)
	}
	slices.SortFunc(paths, func(a, b string) int {
		if c := cmp.Compare(best[b], best[a]); c != 0 {
			return c
		}
		return cmp.Compare(a, b)
	})
	if len(paths) > k {
		paths = paths[:k]
	}
	for _, p := range paths {
		mt := Match{ID: p, SourcePath: p, RelevanceScore: best[p]}
		if withText {
			mt.Content, _ = s.ReadText(p, maxMatchText)
			mt.ContentType = ContentTypeFile
		} else {
			info, _, err := s.File(ctx, p)
			if err != nil {
				return Result{}, fmt.Errorf("memory index %s: %w", s.DBPath(), err)
			}
			mt.Content, mt.ContentType = info.MetadataText(), ContentTypeMetadata
		}
		res.Matches = append(res.Matches, mt)
	}
	res.ContextSummary = summary(len(res.Matches), text, strategy, files, len(unknown))
	return res, nil
}

// candidates returns the files an llm strategy shows the model: the 40 best
// by BM25 on content, then, when fewer than 40 score above zero, other files
// in path order, so that a small project is shown whole.
func (s *Store) candidates(ctx context.Context, text string) ([]hit, error) {
	hits, _, err := s.rank(ctx, fieldContent, text, llmCandidates)
	if err != nil || len(hits) == llmCandidates {
		return hits, err
	}
	skip := make(map[int64]bool, len(hits))
	for _, h := range hits {
		skip[h.id] = true
	}
	more, err := s.pathOrder(ctx, llmCandidates-len(hits), skip)
	return append(hits, more...), err
}

// candidateBlock is a candidate as the model sees it: a <file path="…">
// element holding the metadata lines and, for the llm strategy, the first
// 4 KiB of the text.
func (s *Store) candidateBlock(info FileInfo, withText bool) string {
	var b strings.Builder
	b.WriteString(`<file path="`)
	b.WriteString(strings.ReplaceAll(info.Path, `"`, "&quot;"))
	b.WriteString("\">\n")
	b.WriteString(info.MetadataText())
	b.WriteByte('\n')
	if withText {
		text, err := s.ReadText(info.Path, candidateBytes)
		if err == nil && text != "" {
			b.WriteString("---\n")
			b.WriteString(text)
			if !strings.HasSuffix(text, "\n") {
				b.WriteByte('\n')
			}
		}
	}
	b.WriteString("</file>\n")
	return b.String()
}

// runShard runs one shard's template call and reads the matches of its
// answer. A panicking runner fails the shard, not the run.
func runShard(ctx context.Context, runner TemplateRunner, template string, inputs *value.Dict) (out shardOutcome) {
	defer func() {
		if r := recover(); r != nil {
			out = shardOutcome{err: fmt.Errorf("template runner panicked: %v", r)}
		}
	}()
	res := runner.Run(ctx, template, inputs)
	matches, err := parseAnswer(res)
	return shardOutcome{matches: matches, err: err}
}

// parseAnswer reads an AssociativeMatchResult (SPEC §9.5) from a template's
// result: its parsed content, else its content as JSON (a ``` fence
// around it is allowed). A bare list of matches is accepted too.
func parseAnswer(res *value.TaskResult) ([]rawMatch, error) {
	if res == nil {
		return nil, fmt.Errorf("no result")
	}
	if !res.OK() {
		msg := strings.TrimSpace(res.Content)
		if msg == "" {
			msg = "status " + res.Status
		}
		return nil, fmt.Errorf("%s", msg)
	}
	v := res.Parsed
	if _, isNull := v.(value.Null); v == nil || isNull {
		parsed, err := value.ParseJSON(stripFence(res.Content))
		if err != nil {
			return nil, fmt.Errorf("invalid answer: %v", err)
		}
		v = parsed
	}
	var list value.List
	switch v := v.(type) {
	case value.List:
		list = v
	case *value.Dict:
		ms, ok := v.Get("matches")
		if !ok {
			if e, ok := v.Get("error"); ok && value.Text(e) != "" {
				return nil, fmt.Errorf("%s", value.Text(e))
			}
			return nil, fmt.Errorf("invalid answer: no matches")
		}
		switch ms := ms.(type) {
		case value.List:
			list = ms
		case value.Null:
		default:
			return nil, fmt.Errorf("invalid answer: matches is a %s", ms.Type())
		}
	default:
		return nil, fmt.Errorf("invalid answer: a %s", v.Type())
	}
	out := make([]rawMatch, 0, len(list))
	for _, e := range list {
		switch e := e.(type) {
		case *value.Dict:
			id, ok := e.Get("id")
			if !ok {
				id, ok = e.Get("source_path")
			}
			if !ok {
				continue
			}
			sc, _ := e.Get("relevance_score")
			out = append(out, rawMatch{id: value.Text(id), score: clampScore(sc)})
		case value.String:
			out = append(out, rawMatch{id: string(e), score: 0})
		}
	}
	return out, nil
}

// clampScore turns a model's relevance_score into a number in 0–1.
func clampScore(v value.Value) float64 {
	var f float64
	switch v := v.(type) {
	case value.Int:
		f = float64(v)
	case value.Float:
		f = float64(v)
	default:
		return 0
	}
	if math.IsNaN(f) || f < 0 {
		return 0
	}
	return min(f, 1)
}

// stripFence removes a Markdown code fence around text.
func stripFence(text string) string {
	t := strings.TrimSpace(text)
	if !strings.HasPrefix(t, "```") {
		return t
	}
	t = strings.TrimPrefix(t, "```")
	if i := strings.IndexByte(t, '\n'); i >= 0 {
		t = t[i+1:] // the info string, such as json
	} else {
		t = ""
	}
	return strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(t), "```"))
}

// normalizeID turns an id a model returned into a path relative to root
// (SPEC §15.3): white space trimmed, `\` → `/`, an absolute path inside the
// root made relative, leading `./` removed. ok is false for an absolute path
// outside the root; the caller must still check that the path is indexed.
func normalizeID(id, root string) (string, bool) {
	id = strings.ReplaceAll(strings.TrimSpace(id), `\`, "/")
	if path.IsAbs(id) || filepath.IsAbs(filepath.FromSlash(id)) {
		rel, ok := relativeTo(id, root)
		if !ok {
			return id, false
		}
		id = rel
	}
	for strings.HasPrefix(id, "./") {
		id = strings.TrimLeft(id[2:], "/")
	}
	return id, id != ""
}

// relativeTo makes the absolute '/'-separated path p relative to root (or
// to root with its symbolic links resolved).
func relativeTo(p, root string) (string, bool) {
	roots := []string{root}
	if r, err := filepath.EvalSymlinks(root); err == nil && r != root {
		roots = append(roots, r)
	}
	for _, r := range roots {
		prefix := strings.TrimSuffix(filepath.ToSlash(r), "/") + "/"
		if strings.HasPrefix(p, prefix) {
			return p[len(prefix):], true
		}
	}
	return p, false
}
