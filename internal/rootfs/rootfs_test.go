package rootfs

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

func TestOpen(t *testing.T) {
	base, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	root := filepath.Join(base, "root")
	outside := filepath.Join(base, "secret.txt")
	for _, d := range []string{root, filepath.Join(root, "sub"), filepath.Join(base, "outdir")} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	write := func(p, s string) {
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(outside, "secret")
	write(filepath.Join(base, "outdir", "x.txt"), "secret")
	write(filepath.Join(root, "sub", "a.txt"), "inside")
	if err := os.Symlink(filepath.Join("sub", "a.txt"), filepath.Join(root, "in-link")); err != nil {
		t.Fatal(err)
	}

	if data, err := ReadFile(root, filepath.Join(root, "sub", "a.txt")); err != nil || string(data) != "inside" {
		t.Errorf("inside: %q %v", data, err)
	}
	if data, err := ReadFile(root, filepath.Join(root, "in-link")); err != nil || string(data) != "inside" {
		t.Errorf("link inside: %q %v", data, err)
	}
	if _, err := ReadFile(root, outside); !errors.Is(err, ErrOutside) {
		t.Errorf("outside: %v", err)
	}
	// A path checked while it was a plain directory, then swapped for a
	// link out of the root: the open refuses it.
	swapped := filepath.Join(root, "sub")
	if err := os.RemoveAll(swapped); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(base, "outdir"), swapped); err != nil {
		t.Fatal(err)
	}
	if data, err := ReadFile(root, filepath.Join(swapped, "x.txt")); err == nil {
		t.Errorf("read through a swapped link: %q", data)
	}
	if err := os.Symlink(outside, filepath.Join(root, "out-link")); err != nil {
		t.Fatal(err)
	}
	if data, err := ReadFile(root, filepath.Join(root, "out-link")); err == nil {
		t.Errorf("read through a link out: %q", data)
	}
}
