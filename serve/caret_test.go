package serve

import (
	"os"
	"path/filepath"
	"testing"
)

func TestErrorDisplayShowsTheLineAndCaretOfFilesInsideTheRoot(t *testing.T) {
	root := t.TempDir()
	outside := t.TempDir()
	write := func(dir, name, text string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(filepath.Join(dir, name)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(root, "flows/w.sexp", "(define x 1)\n\t(frob  \"é\" x)\n")
	write(outside, "secret.sexp", "top secret\n")
	if err := os.Symlink(filepath.Join(outside, "secret.sexp"), filepath.Join(root, "link.sexp")); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		workDir, msg, want string
	}{
		// A tab in the line is a tab in the caret line (SPEC §4.7); columns count code points.
		{root, "flows/w.sexp:2:9: unbound symbol: x", "flows/w.sexp:2:9: unbound symbol: x\n\t(frob  \"é\" x)\n\t       ^\n"},
		{root, "flows/w.sexp:2:13: unbound symbol: x\nmore lines", "flows/w.sexp:2:13: unbound symbol: x\n\t(frob  \"é\" x)\n\t           ^\n"},
		// Relative to the working directory, else to the root.
		{filepath.Join(root, "flows"), "w.sexp:1:2: bad", "w.sexp:1:2: bad\n(define x 1)\n ^\n"},
		{filepath.Join(root, "elsewhere"), "flows/w.sexp:1:1: bad", "flows/w.sexp:1:1: bad\n(define x 1)\n^\n"},
		// Nothing outside the root is read, through .. or a link.
		{root, "../" + filepath.Base(outside) + "/secret.sexp:1:1: x", ""},
		{root, filepath.Join(outside, "secret.sexp") + ":1:1: x", ""},
		{root, "link.sexp:1:1: x", ""},
		// No position, a position past the file, a position-like name of no file.
		{root, "budget spent: $2.01 of $2.00", ""},
		{root, "flows/w.sexp:9:1: x", ""},
		{root, "flows/w.sexp:1:99: x", ""},
		{root, "<eval>:1:1: x", ""},
	} {
		d := errorDisplay(root, c.workDir, c.msg)
		got := ""
		if d != nil {
			got = d.Text
		}
		if got != c.want {
			t.Errorf("errorDisplay(%q) = %q, want %q", c.msg, got, c.want)
		}
	}
}
