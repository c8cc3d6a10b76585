//go:build unix

package tools

import (
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// TestReadFilesFIFO: a FIFO inside the root is skipped at once; reading it
// would block until some process wrote to it.
func TestReadFilesFIFO(t *testing.T) {
	root, _ := project(t)
	if err := syscall.Mkfifo(filepath.Join(root, "pipe"), 0o644); err != nil {
		t.Skip(err)
	}
	tools := NewTools(ToolsConfig{Root: root, WorkDir: root})
	done := make(chan struct{})
	go func() {
		defer close(done)
		r := call(t, tools, ToolReadFiles, "file_paths", strs("pipe", "a.txt"))
		wantResult(t, r, "COMPLETE", "--- File: a.txt ---\nalpha\n\n--- End of Files ---")
		skipped, _ := r.NotesOrEmpty().Get("skipped_files")
		if diff := cmp.Diff(strs("pipe"), skipped); diff != "" {
			t.Errorf("skipped (-want +got):\n%s", diff)
		}
	}()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("system_read_files blocked on a FIFO")
	}
}

// TestReadFilesOddPaths: paths with a NUL, a newline or Windows
// separators are read or refused, never outside the root.
func TestReadFilesOddPaths(t *testing.T) {
	root, _ := project(t)
	tools := NewTools(ToolsConfig{Root: root, WorkDir: filepath.Join(root, "sub")})
	for _, p := range []string{"../a.txt\x00.go", "..\\..\\outside\\secret.txt", "../a.txt\n", "~/../../outside/secret.txt", "${HOME}/x", "/etc/passwd", "/proc/self/root/etc/passwd"} {
		r := call(t, tools, ToolReadFiles, "file_paths", strs(p))
		if r.Status == "COMPLETE" && r.Content != "--- End of Files ---" {
			t.Errorf("%q read: %q", p, r.Content)
		}
	}
}
