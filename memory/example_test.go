package memory_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/evalrun/evalrun/memory"
)

func Example() {
	root, _ := os.MkdirTemp("", "memory-example-")
	defer os.RemoveAll(root)
	os.WriteFile(filepath.Join(root, "retry.go"), []byte("package http\n\n// RetryPolicy says how often to retry.\ntype RetryPolicy struct{}\n"), 0o644)
	os.WriteFile(filepath.Join(root, "server.go"), []byte("package http\n\ntype Server struct{}\n"), 0o644)

	st, err := memory.Index(context.Background(), root, memory.WithDBPath(filepath.Join(root, ".evalrun", "index.db")))
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(st.Files, "files,", st.Added, "added")

	mem := memory.New(root, nil, 8)
	defer mem.Close()
	res := mem.GetRelevantContextFor(context.Background(), memory.Query{Query: "retry policy", TopK: 5})
	fmt.Println(res.ContextSummary)
	for _, m := range res.Matches {
		fmt.Println(m.ID, m.RelevanceScore, m.ContentType)
	}
	// Output:
	// 2 files, 2 added
	// 1 matches for "retry policy" (content strategy, 2 files indexed)
	// retry.go 1 file_content
}
