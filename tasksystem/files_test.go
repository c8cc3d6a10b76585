package tasksystem

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// project makes a project root with files and an outside directory beside
// it, and returns both. files maps slash paths to contents.
func project(t *testing.T, files map[string]string) (root, outside string) {
	t.Helper()
	base := t.TempDir()
	root = filepath.Join(base, "proj")
	outside = filepath.Join(base, "outside")
	for _, d := range []string{root, outside} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for p, text := range files {
		full := filepath.Join(root, filepath.FromSlash(p))
		if strings.HasPrefix(p, "/outside/") {
			full = filepath.Join(outside, filepath.FromSlash(strings.TrimPrefix(p, "/outside/")))
		}
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return root, outside
}

func symlink(t *testing.T, target, link string) {
	t.Helper()
	if err := os.Symlink(target, link); err != nil {
		t.Skip("symlinks not supported:", err)
	}
}

func TestResolve(t *testing.T) {
	root, outside := project(t, map[string]string{
		"a.txt": "a", "sub/b.txt": "b", "/outside/secret.txt": "s",
	})
	symlink(t, filepath.Join(outside, "secret.txt"), filepath.Join(root, "link-out"))
	symlink(t, outside, filepath.Join(root, "dir-out"))
	symlink(t, filepath.Join(root, "sub", "b.txt"), filepath.Join(root, "link-in"))
	symlink(t, filepath.Join(outside, "nope"), filepath.Join(root, "dangling-out"))
	r := newFileRoots(root, filepath.Join(root, "sub"))

	tests := []struct {
		given     string
		base      string
		outsideOK bool
		display   string
		err       error
	}{
		{"a.txt", root, false, "a.txt", nil},
		{"b.txt", r.workDir, false, "sub/b.txt", nil},
		{"../a.txt", r.workDir, false, "a.txt", nil},
		{"./sub/../a.txt", root, false, "a.txt", nil},
		{filepath.Join(root, "a.txt"), "/elsewhere", false, "a.txt", nil},
		{"link-in", root, false, "link-in", nil},
		{"missing.txt", root, false, "", errNotFound},
		{"a.txt/x", root, false, "", errNotFound},
		{"../outside/secret.txt", root, false, "", errOutside},
		{"../../proj/../outside/missing", root, false, "", errOutside},
		{"../" + filepath.Base(root) + "/a.txt", root, false, "a.txt", nil},
		{filepath.Join(outside, "secret.txt"), root, false, "", errOutside},
		{"link-out", root, false, "", errOutside},
		{"dir-out/secret.txt", root, false, "", errOutside},
		{"dangling-out", root, false, "", errNotFound},
		{"/etc/../" + strings.TrimPrefix(filepath.Join(root, "a.txt"), "/"), root, false, "a.txt", nil},
		// --files may lie outside the root.
		{filepath.Join(outside, "secret.txt"), root, true, filepath.Join(outside, "secret.txt"), nil},
		{"link-out", root, true, "link-out", nil},
		{"../outside/missing", root, true, "", errNotFound},
	}
	for _, tt := range tests {
		p, err := r.resolve(tt.given, tt.base, tt.outsideOK)
		if !errors.Is(err, tt.err) || (err == nil) != (tt.err == nil) {
			t.Errorf("resolve(%q): err = %v, want %v", tt.given, err, tt.err)
			continue
		}
		if err == nil && p.display != tt.display {
			t.Errorf("resolve(%q): display %q, want %q", tt.given, p.display, tt.display)
		}
		if err != nil && err.Error() != tt.err.Error()+": "+tt.given {
			t.Errorf("resolve(%q): message %q", tt.given, err)
		}
	}
}

// TestResolveSymlinkedRoot checks a project root reached through a symbolic
// link: paths through either name are inside.
func TestResolveSymlinkedRoot(t *testing.T) {
	root, _ := project(t, map[string]string{"a.txt": "a"})
	alias := filepath.Join(t.TempDir(), "alias")
	symlink(t, root, alias)
	r := newFileRoots(alias, alias)
	for _, given := range []string{"a.txt", filepath.Join(root, "a.txt"), filepath.Join(alias, "a.txt")} {
		p, err := r.resolve(given, alias, false)
		if err != nil || p.display != "a.txt" {
			t.Errorf("resolve(%q) = %q, %v", given, p.display, err)
		}
	}
}

func TestReadContextFile(t *testing.T) {
	big := strings.Repeat("x", MaxContextFileBytes-1) + "é" + "tail" // é straddles the cap
	root, _ := project(t, map[string]string{
		"text.txt":  "hello\n",
		"empty.txt": "",
		"big.txt":   big,
		"nul.bin":   "ab\x00cd",
		"latin.txt": "caf\xe9",
		// Invalid UTF-8 after the first 8 KiB is not looked at.
		"late.txt": strings.Repeat("a", binarySniffBytes) + "\xff",
		// A code point cut by the 8 KiB boundary is not invalid.
		"edge.txt": strings.Repeat("a", binarySniffBytes-1) + "é",
	})
	if err := os.Mkdir(filepath.Join(root, "dir"), 0o755); err != nil {
		t.Fatal(err)
	}
	r := newFileRoots(root, root)
	read := func(name string) (string, error) {
		p, err := r.resolve(name, root, false)
		if err != nil {
			t.Fatal(err)
		}
		return readContextFile(p)
	}
	for name, want := range map[string]string{
		"text.txt":  "hello\n",
		"empty.txt": "",
		"big.txt":   strings.Repeat("x", MaxContextFileBytes-1) + "\n[truncated: 6 more bytes]",
		"late.txt":  strings.Repeat("a", binarySniffBytes) + "\xff",
		"edge.txt":  strings.Repeat("a", binarySniffBytes-1) + "é",
	} {
		got, err := read(name)
		if err != nil || got != want {
			t.Errorf("%s: %q (len %d), %v", name, got[max(0, len(got)-40):], len(got), err)
		}
	}
	for name, wantErr := range map[string]error{"nul.bin": errBinary, "latin.txt": errBinary, "dir": errNotRegular} {
		if _, err := read(name); !errors.Is(err, wantErr) {
			t.Errorf("%s: err = %v, want %v", name, err, wantErr)
		}
	}
}

func TestReadTemplateFile(t *testing.T) {
	root, _ := project(t, map[string]string{
		"ok.txt":  strings.Repeat("a", MaxTemplateFileBytes),
		"big.txt": strings.Repeat("a", MaxTemplateFileBytes+1),
	})
	r := newFileRoots(root, root)
	p, _ := r.resolve("ok.txt", root, false)
	if text, err := readTemplateFile(p); err != nil || len(text) != MaxTemplateFileBytes {
		t.Errorf("ok.txt: len %d, %v", len(text), err)
	}
	p, _ = r.resolve("big.txt", root, false)
	if _, err := readTemplateFile(p); err == nil || err.Error() != "file too large: big.txt (1048577 bytes)" {
		t.Errorf("big.txt: err = %v", err)
	}
}

func TestCutAtRune(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{"abc", "abc"},
		{"ab\xc3", "ab"},          // first byte of é
		{"ab\xe2\x82", "ab"},      // two of three bytes of €
		{"ab\xe2\x82\xac", "ab€"}, // complete
		{"", ""},
	} {
		if got := cutAtRune([]byte(tt.in)); !bytes.Equal(got, []byte(tt.want)) {
			t.Errorf("cutAtRune(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}
