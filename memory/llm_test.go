package memory

import (
	"context"
	"fmt"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/evalrun/evalrun/value"
)

// scriptedRunner answers template calls from a script and records them,
// with the highest number of calls in flight at once.
type scriptedRunner struct {
	delay  time.Duration
	answer func(call int, name string, inputs *value.Dict) *value.TaskResult

	mu        sync.Mutex
	calls     []runnerCall
	active    int
	maxActive int
}

type runnerCall struct {
	name   string
	inputs *value.Dict
}

func (r *scriptedRunner) Run(ctx context.Context, name string, inputs *value.Dict) *value.TaskResult {
	r.mu.Lock()
	n := len(r.calls)
	r.calls = append(r.calls, runnerCall{name, inputs})
	r.active++
	r.maxActive = max(r.maxActive, r.active)
	r.mu.Unlock()
	defer func() {
		r.mu.Lock()
		r.active--
		r.mu.Unlock()
	}()
	select {
	case <-time.After(r.delay):
	case <-ctx.Done():
		return value.Failed("execution_halted", "cancelled", nil)
	}
	return r.answer(n, name, inputs)
}

// answerJSON is a COMPLETE result whose content is the JSON text (no parsed
// content), as a model's answer arrives before schema parsing.
func answerJSON(text string) *value.TaskResult {
	return &value.TaskResult{Status: value.StatusComplete, Content: text}
}

// inputString returns a string input of a recorded call.
func inputString(t *testing.T, d *value.Dict, key string) string {
	t.Helper()
	v, ok := d.Get(key)
	if !ok {
		t.Fatalf("input %s missing from %v", key, d.Keys())
	}
	s, ok := v.(value.String)
	if !ok {
		t.Fatalf("input %s is a %s", key, v.Type())
	}
	return string(s)
}

var filePathRE = regexp.MustCompile(`<file path="([^"]*)">`)

func TestLLMStrategyNormalisesIDs(t *testing.T) {
	root := t.TempDir()
	writeFile(t, root, "src/app.go", "package src\n\n// App runs the retry loop.\nfunc App() {}\n")
	writeFile(t, root, "src/util.go", "package src\n\nfunc retryHelper() {}\n")
	writeFile(t, root, "docs/guide.md", "# Guide\n\nHow retries work.\n")
	writeFile(t, root, "other.txt", "unrelated\n")
	absRoot, _ := filepath.Abs(root)
	answer := fmt.Sprintf(`{"context_summary": "found", "matches": [
		{"id": "./src/app.go", "relevance_score": 0.9},
		{"id": "src\\util.go", "relevance_score": 0.7},
		{"id": %q, "relevance_score": 1.3},
		{"id": "app.go", "relevance_score": 0.95},
		{"id": "missing.go", "relevance_score": 0.8},
		{"id": "/etc/passwd", "relevance_score": 0.99},
		{"id": "src/app.go", "relevance_score": 0.5},
		{"id": "other.txt", "relevance_score": -0.2}
	]}`, filepath.ToSlash(filepath.Join(absRoot, "docs", "guide.md")))
	runner := &scriptedRunner{answer: func(int, string, *value.Dict) *value.TaskResult { return answerJSON(answer) }}
	m := New(root, runner, 4)
	defer m.Close()

	res := m.GetRelevantContextFor(context.Background(), Query{Query: "retry loop", Strategy: "llm", TopK: 10})
	if res.Error != "" {
		t.Fatalf("error %q", res.Error)
	}
	want := []scoredID{{"docs/guide.md", 1}, {"src/app.go", 0.9}, {"src/util.go", 0.7}, {"other.txt", 0}}
	if diff := cmp.Diff(want, scoredIDs(res)); diff != "" {
		t.Errorf("matches (-want +got):\n%s", diff)
	}
	if want := `4 matches for "retry loop" (llm strategy, 4 files indexed, 3 unknown ids dropped)`; res.ContextSummary != want {
		t.Errorf("summary %q, want %q", res.ContextSummary, want)
	}
	if m := res.Matches[1]; m.Content != "package src\n\n// App runs the retry loop.\nfunc App() {}\n" || m.ContentType != "file_content" || m.SourcePath != "src/app.go" {
		t.Errorf("match content from the index: %+v", m)
	}

	// One shard: the template, its inputs, every file as a block with
	// metadata and text (a small project is shown whole).
	if len(runner.calls) != 1 {
		t.Fatalf("%d template calls, want 1", len(runner.calls))
	}
	c := runner.calls[0]
	if c.name != "internal:associative_matching_content" {
		t.Errorf("template %s", c.name)
	}
	ci, _ := c.inputs.Get("context_input")
	if got := value.JSON(ci); got != `{"query":"retry loop"}` {
		t.Errorf("context_input %s", got)
	}
	fc := inputString(t, c.inputs, "file_contents")
	var shown []string
	for _, m := range filePathRE.FindAllStringSubmatch(fc, -1) {
		shown = append(shown, m[1])
	}
	// BM25 order (app.go has retry and loop, util.go retryHelper) first,
	// then the rest by path.
	if want := []string{"src/app.go", "src/util.go", "docs/guide.md", "other.txt"}; !slices.Equal(shown, want) {
		t.Errorf("candidates shown %v, want %v", shown, want)
	}
	if !strings.Contains(fc, "<file path=\"src/app.go\">\npath: src/app.go\nname: app.go\n") || !strings.Contains(fc, "func App() {}\n</file>\n") {
		t.Errorf("block layout:\n%s", fc)
	}

	// llm-metadata: the other template, metadata only, metadata content.
	runner.calls = nil
	res = m.GetRelevantContextFor(context.Background(), Query{Query: "retry loop", Strategy: "llm-metadata", TopK: 2})
	if got := scoredIDs(res); !cmp.Equal(got, []scoredID{{"docs/guide.md", 1}, {"src/app.go", 0.9}}) {
		t.Errorf("llm-metadata top 2: %v", got)
	}
	if res.Matches[0].ContentType != "file_metadata" || !strings.HasPrefix(res.Matches[0].Content, "path: docs/guide.md\n") {
		t.Errorf("llm-metadata match %+v", res.Matches[0])
	}
	c = runner.calls[0]
	if c.name != "internal:associative_matching_metadata" {
		t.Errorf("template %s", c.name)
	}
	snippet := inputString(t, c.inputs, "metadata_snippet")
	if strings.Contains(snippet, "func App() {}") || !strings.Contains(snippet, "summary: package src") {
		t.Errorf("metadata snippet:\n%s", snippet)
	}
}

func TestNormalizeID(t *testing.T) {
	root := "/work/proj"
	tests := []struct {
		in   string
		want string
		ok   bool
	}{
		{"./src/a.go", "src/a.go", true},
		{"././src/a.go", "src/a.go", true},
		{`src\a.go`, "src/a.go", true},
		{`.\src\a.go`, "src/a.go", true},
		{"/work/proj/src/a.go", "src/a.go", true},
		{"/work/project/a.go", "/work/project/a.go", false},
		{"/etc/passwd", "/etc/passwd", false},
		{"  a.go ", "a.go", true},
		{"", "", false},
	}
	for _, tt := range tests {
		got, ok := normalizeID(tt.in, root)
		if got != tt.want || ok != tt.ok {
			t.Errorf("normalizeID(%q) = %q, %v; want %q, %v", tt.in, got, ok, tt.want, tt.ok)
		}
	}
}

// manyFiles writes n files of about size bytes, each mentioning "needle".
func manyFiles(t *testing.T, n, size int) string {
	root := t.TempDir()
	for i := range n {
		body := fmt.Sprintf("needle file %d\n", i) + strings.Repeat("filler text line\n", size/17)
		writeFile(t, root, fmt.Sprintf("f%02d.txt", i), body)
	}
	return root
}

func TestLLMShardsRunConcurrently(t *testing.T) {
	root := manyFiles(t, 50, 3000)
	runner := &scriptedRunner{delay: 50 * time.Millisecond, answer: func(call int, _ string, in *value.Dict) *value.TaskResult {
		return answerJSON(`{"matches": []}`)
	}}
	m := New(root, runner, 3)
	defer m.Close()
	res := m.GetRelevantContextFor(context.Background(), Query{Query: "needle", Strategy: "llm"})
	if res.Error != "" {
		t.Fatal(res.Error)
	}
	// 40 candidates of about 3.2 KB (~830 tokens) each: 7 per 6,000-token
	// shard, so 6 shards.
	if len(runner.calls) != 6 {
		t.Errorf("%d shards, want 6", len(runner.calls))
	}
	seen := map[string]bool{}
	for _, c := range runner.calls {
		fc := inputString(t, c.inputs, "file_contents")
		if tok := estimateTokens(fc); tok > 6000 {
			t.Errorf("a shard of %d tokens", tok)
		}
		for _, m := range filePathRE.FindAllStringSubmatch(fc, -1) {
			if seen[m[1]] {
				t.Errorf("%s in two shards", m[1])
			}
			seen[m[1]] = true
		}
	}
	if len(seen) != 40 {
		t.Errorf("%d candidates sent, want 40", len(seen))
	}
	if runner.maxActive != 3 {
		t.Errorf("at most %d shards ran at once, want the pool size 3", runner.maxActive)
	}
	if want := `0 matches for "needle" (llm strategy, 50 files indexed)`; res.ContextSummary != want {
		t.Errorf("summary %q", res.ContextSummary)
	}

	// A token counter that makes every candidate fill a shard: 8 shards,
	// one candidate each.
	runner.calls, runner.maxActive = nil, 0
	m2 := New(root, runner, 8, WithTokenCounter(func(string) int { return 5000 }))
	defer m2.Close()
	m2.GetRelevantContextFor(context.Background(), Query{Query: "needle", Strategy: "llm"})
	if len(runner.calls) != 8 {
		t.Errorf("%d shards with a 5,000-token count per candidate, want 8", len(runner.calls))
	}
	if runner.maxActive < 4 {
		t.Errorf("with a pool of 8, at most %d shards ran at once", runner.maxActive)
	}
}

func TestLLMShardFailures(t *testing.T) {
	root := manyFiles(t, 40, 3000)
	// Shards are told apart by the first file they show.
	firstFile := func(in *value.Dict) string {
		v, _ := in.Get("file_contents")
		return filePathRE.FindStringSubmatch(string(v.(value.String)))[1]
	}
	var mu sync.Mutex
	var firsts []string
	runner := &scriptedRunner{answer: func(_ int, _ string, in *value.Dict) *value.TaskResult {
		f := firstFile(in)
		mu.Lock()
		firsts = append(firsts, f)
		mu.Unlock()
		return answerJSON(fmt.Sprintf(`{"matches": [{"id": %q, "relevance_score": 0.5}]}`, f))
	}}
	m := New(root, runner, 8)
	defer m.Close()
	m.GetRelevantContextFor(context.Background(), Query{Query: "needle", Strategy: "llm"})
	slices.Sort(firsts)
	if len(firsts) != 6 {
		t.Fatalf("%d shards, want 6", len(firsts))
	}
	failing := map[string]string{firsts[1]: "model overloaded", firsts[4]: "timeout"}

	runner.answer = func(_ int, _ string, in *value.Dict) *value.TaskResult {
		f := firstFile(in)
		if reason, ok := failing[f]; ok {
			return value.Failed("llm_error", reason, nil)
		}
		return answerJSON(fmt.Sprintf(`{"matches": [{"id": %q, "relevance_score": 0.5}]}`, f))
	}
	res := m.GetRelevantContextFor(context.Background(), Query{Query: "needle", Strategy: "llm"})
	if len(res.Matches) != 4 {
		t.Errorf("%d matches from 4 good shards, want 4", len(res.Matches))
	}
	// The reason is the first failing shard's, in shard order: the files
	// tie in BM25 and go by path, so the shards start f00, f07, f14, …
	if res.Error != "2 of 6 shards failed: model overloaded" {
		t.Errorf("error %q", res.Error)
	}
	if d := res.Value(); !d.Has("error") {
		t.Errorf("get-context dict without error: %v", d)
	}

	runner.answer = func(int, string, *value.Dict) *value.TaskResult { return value.Failed("llm_error", "boom", nil) }
	res = m.GetRelevantContextFor(context.Background(), Query{Query: "needle", Strategy: "llm"})
	if res.Error != "6 of 6 shards failed: boom" || len(res.Matches) != 0 {
		t.Errorf("all failed: %+v", res)
	}

	runner.answer = func(int, string, *value.Dict) *value.TaskResult { panic("runner bug") }
	res = m.GetRelevantContextFor(context.Background(), Query{Query: "needle", Strategy: "llm"})
	if res.Error != "6 of 6 shards failed: template runner panicked: runner bug" {
		t.Errorf("panicking runner: %q", res.Error)
	}
}

func TestParseAnswer(t *testing.T) {
	parsed := value.DictOf("matches", value.List{
		value.DictOf("id", value.String("a"), "relevance_score", value.Int(1)),
		value.DictOf("id", value.String("b"), "relevance_score", value.Float(0.25)),
		value.DictOf("id", value.String("c")),
		value.DictOf("source_path", value.String("d"), "relevance_score", value.Float(7)),
		value.DictOf("relevance_score", value.Float(0.5)),
	})
	tests := []struct {
		name    string
		res     *value.TaskResult
		want    []rawMatch
		wantErr string
	}{
		{"parsed", &value.TaskResult{Status: value.StatusComplete, Content: "ignored", Parsed: parsed},
			[]rawMatch{{"a", 1}, {"b", 0.25}, {"c", 0}, {"d", 1}}, ""},
		{"fenced", answerJSON("```json\n{\"matches\": [{\"id\": \"x\", \"relevance_score\": 0.5}]}\n```"), []rawMatch{{"x", 0.5}}, ""},
		{"bare list", answerJSON(`[{"id": "x", "relevance_score": 0.5}, "y"]`), []rawMatch{{"x", 0.5}, {"y", 0}}, ""},
		{"null matches", answerJSON(`{"matches": null}`), []rawMatch{}, ""},
		{"error only", answerJSON(`{"error": "no files match"}`), nil, "no files match"},
		{"not json", answerJSON("I think a.go"), nil, "invalid answer: invalid character 'I' looking for beginning of value"},
		{"no matches", answerJSON(`{"context_summary": "x"}`), nil, "invalid answer: no matches"},
		{"failed", value.Failed("llm_error", "rate limited", nil), nil, "rate limited"},
		{"nil", nil, nil, "no result"},
	}
	for _, tt := range tests {
		got, err := parseAnswer(tt.res)
		if tt.wantErr != "" {
			if err == nil || err.Error() != tt.wantErr {
				t.Errorf("%s: error %v, want %q", tt.name, err, tt.wantErr)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", tt.name, err)
			continue
		}
		if diff := cmp.Diff(tt.want, got, cmp.AllowUnexported(rawMatch{})); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tt.name, diff)
		}
	}
}
