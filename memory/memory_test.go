package memory

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/evalrun/evalrun/value"
)

func TestLookupEmptyIndex(t *testing.T) {
	root := t.TempDir()
	m := New(root, nil, 0)
	defer m.Close()
	res := m.GetRelevantContextFor(context.Background(), Query{Query: "anything"})
	if diff := cmp.Diff(Result{ContextSummary: "No files indexed."}, res); diff != "" {
		t.Errorf("empty index (-want +got):\n%s", diff)
	}
	if got := value.JSON(res.Value()); got != `{"summary":"No files indexed.","matches":[]}` {
		t.Errorf("get-context dict %s", got)
	}
	// The lookup built the index where it belongs.
	if _, err := os.Stat(filepath.Join(root, ".evalrun", "index.db")); err != nil {
		t.Errorf("no index built: %v", err)
	}
	// The llm strategies need no model on an empty index.
	res = m.GetRelevantContextFor(context.Background(), Query{Query: "anything", Strategy: "llm"})
	if res.ContextSummary != "No files indexed." || res.Error != "" {
		t.Errorf("llm on an empty index: %+v", res)
	}
}

func TestLookupArguments(t *testing.T) {
	root := t.TempDir()
	writeFile(t, root, "retry.go", "package x\n// retry policy\n")
	writeFile(t, root, "other.go", "package x\n")
	m := New(root, nil, 2)
	defer m.Close()
	ctx := context.Background()
	tests := []struct {
		name string
		q    Query
		want Result
	}{
		{"no query", Query{Inputs: value.DictOf("a", value.String("b"))},
			Result{ContextSummary: "No query provided.", Error: "No query provided."}},
		{"blank query", Query{Query: "  \n", Strategy: "content"},
			Result{ContextSummary: "No query provided.", Error: "No query provided."}},
		{"bad strategy", Query{Query: "x", Strategy: "fuzzy"},
			Result{Error: "Invalid context strategy: fuzzy. Must be content, metadata, llm or llm-metadata."}},
		{"top_k 0 is the default", Query{Query: "zzz", TopK: 0},
			Result{ContextSummary: `0 matches for "zzz" (content strategy, 2 files indexed)`, Matches: []Match{}}},
		{"top_k too big", Query{Query: "x", TopK: 101}, Result{Error: "top_k must be an integer from 1 to 100, got 101"}},
		{"top_k negative", Query{Query: "x", TopK: -1}, Result{Error: "top_k must be an integer from 1 to 100, got -1"}},
		{"llm without a runner", Query{Query: "x", Strategy: "llm"}, Result{Error: "the llm strategy needs a template runner"}},
	}
	for _, tt := range tests {
		if diff := cmp.Diff(tt.want, m.GetRelevantContextFor(ctx, tt.q)); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tt.name, diff)
		}
	}
	// The template description stands in for a missing query, and inputs
	// are appended as "name: value" lines.
	res := m.GetRelevantContextFor(ctx, Query{TemplateDescription: "Explain the", Inputs: value.DictOf("topic", value.String("retry policy")), TopK: 1})
	if got := res.IDs(); !cmp.Equal(got, []string{"retry.go"}) || res.ContextSummary != `1 matches for "Explain the topic: retry policy" (content strategy, 2 files indexed)` {
		t.Errorf("description + inputs: %v, %q", got, res.ContextSummary)
	}
	// SkipContent leaves the text out of content matches; by default it
	// is there.
	want := Match{ID: "retry.go", Content: "package x\n// retry policy\n", RelevanceScore: 1, ContentType: ContentTypeFile, SourcePath: "retry.go"}
	if got := m.GetRelevantContextFor(ctx, Query{Query: "retry policy", TopK: 1}).Matches; !cmp.Equal(got, []Match{want}) {
		t.Errorf("content match %+v, want %+v", got, want)
	}
	want.Content = ""
	if got := m.GetRelevantContextFor(ctx, Query{Query: "retry policy", TopK: 1, SkipContent: true}).Matches; !cmp.Equal(got, []Match{want}) {
		t.Errorf("content match without its text %+v, want %+v", got, want)
	}
}

func TestQueryText(t *testing.T) {
	q := Query{Query: "find code", TemplateDescription: "ignored", Inputs: value.DictOf(
		"file", value.String("a.go"), "n", value.Int(3), "tags", value.List{value.String("x")})}
	if got, want := q.Text(), "find code\nfile: a.go\nn: 3\ntags: [\"x\"]"; got != want {
		t.Errorf("Text() = %q, want %q", got, want)
	}
	if got := (Query{TemplateDescription: "desc"}).Text(); got != "desc" {
		t.Errorf("description: %q", got)
	}
	if got := (Query{Inputs: value.DictOf("a", value.String("b"))}).Text(); got != "" {
		t.Errorf("inputs alone: %q", got)
	}
}

func TestParseStrategy(t *testing.T) {
	for in, want := range map[string]string{"": "content", "content": "content", "content-only": "content",
		"metadata": "metadata", "metadata-only": "metadata", "llm": "llm", "llm-metadata": "llm-metadata"} {
		if got, err := ParseStrategy(in); got != want || err != nil {
			t.Errorf("ParseStrategy(%q) = %q, %v", in, got, err)
		}
	}
	if _, err := ParseStrategy("LLM"); err == nil || err.Error() != "Invalid context strategy: LLM. Must be content, metadata, llm or llm-metadata." {
		t.Errorf("ParseStrategy(LLM) error %v", err)
	}
	if CheckTopK(1) != nil || CheckTopK(100) != nil || CheckTopK(0) == nil || CheckTopK(101) == nil {
		t.Error("CheckTopK accepts other than 1–100")
	}
}

func TestResultValues(t *testing.T) {
	r := Result{ContextSummary: "1 matches", Matches: []Match{{ID: "a.go", Content: "x", RelevanceScore: 1, ContentType: "file_content", SourcePath: "a.go"}}}
	want := `{"summary":"1 matches","matches":[{"id":"a.go","content":"x","relevance_score":1.0,"content_type":"file_content","source_path":"a.go"}]}`
	if got := value.JSON(r.Value()); got != want {
		t.Errorf("Value() = %s\nwant      %s", got, want)
	}
	tr := r.ToolResult()
	if tr.Status != "COMPLETE" || tr.Content != `["a.go"]` {
		t.Errorf("ToolResult = %v", tr)
	}
	if s, _ := tr.Notes.Get("context_summary"); s != value.String("1 matches") {
		t.Errorf("notes %v", tr.Notes)
	}
	r.Error = "1 of 2 shards failed: x"
	if got := value.JSON(r.Value()); got != want[:len(want)-1]+`,"error":"1 of 2 shards failed: x"}` {
		t.Errorf("Value() with error = %s", got)
	}
	if w, _ := r.ToolResult().Notes.Get("warnings"); value.JSON(w) != `["1 of 2 shards failed: x"]` {
		t.Errorf("partial failure warning %v", w)
	}
	failed := Result{Error: "No query provided."}.ToolResult()
	if failed.Status != "FAILED" || failed.Content != "No query provided." {
		t.Errorf("failed ToolResult %v", failed)
	}
}

func TestRefreshOncePerMemory(t *testing.T) {
	root := t.TempDir()
	writeFile(t, root, "a.txt", "apple\n")
	m := New(root, nil, 1)
	defer m.Close()
	ctx := context.Background()

	// A cancelled first lookup does not count as the refresh.
	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := m.Lookup(cancelled, Query{Query: "apple"}); err == nil {
		t.Error("a cancelled lookup succeeded")
	}
	if res := m.GetRelevantContextFor(ctx, Query{Query: "apple"}); len(res.Matches) != 1 {
		t.Fatalf("first lookup: %+v", res)
	}
	writeFile(t, root, "b.txt", "apple banana\n")
	if res := m.GetRelevantContextFor(ctx, Query{Query: "banana"}); len(res.Matches) != 0 {
		t.Errorf("the index was refreshed twice in one run: %v", res.IDs())
	}
	st, err := m.Refresh(ctx)
	if err != nil || st.Files != 1 || st.Added != 1 {
		t.Errorf("Refresh returns the first figures: %s, %v", st, err)
	}
	// The next run sees the new file.
	m2 := New(root, nil, 1)
	defer m2.Close()
	if res := m2.GetRelevantContextFor(ctx, Query{Query: "banana"}); len(res.Matches) != 1 {
		t.Errorf("a new Memory does not refresh: %+v", res)
	}
	m.Close()
	if _, err := m.Lookup(ctx, Query{Query: "apple"}); err == nil {
		t.Error("a lookup after Close succeeded")
	}
}

func TestLookupConcurrent(t *testing.T) {
	root := manyFiles(t, 30, 200)
	m := New(root, nil, 2)
	defer m.Close()
	done := make(chan Result)
	for range 8 {
		go func() { done <- m.GetRelevantContextFor(context.Background(), Query{Query: "needle file", TopK: 5}) }()
	}
	for range 8 {
		if res := <-done; len(res.Matches) != 5 || res.Error != "" {
			t.Errorf("concurrent lookup: %d matches, error %q", len(res.Matches), res.Error)
		}
	}
}
