package memory

import (
	"context"
	"database/sql"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"
)

// trustNow lets a manifest made right after its tree was written be
// trusted (racyMargin 0), for the duration of the test.
func trustNow(t *testing.T) {
	old := racyMargin
	racyMargin = 0
	t.Cleanup(func() { racyMargin = old })
}

// manifestTree writes a small tree outside git and returns its root.
func manifestTree(t *testing.T) string {
	root := t.TempDir()
	notInGitRepo(t, root)
	writeFile(t, root, "a.txt", "alpha\n")
	writeFile(t, root, "sub/b.go", "package sub\n")
	writeFile(t, root, "sub/deep/c.md", "# Title\n")
	if err := os.Mkdir(filepath.Join(root, "empty"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("a.txt", filepath.Join(root, "link")); err != nil {
		t.Fatal(err)
	}
	time.Sleep(10 * time.Millisecond) // the walk starts after the last change
	return root
}

// walkManifest walks root and returns its manifest as stored and read back.
func walkManifest(t *testing.T, root string) *manifest {
	l, err := walkFiles(context.Background(), root, func(string) bool { return false })
	if err != nil {
		t.Fatal(err)
	}
	m, err := decodeManifest(encodeManifest(l, ""))
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// TestManifestVerify checks that the check of a stored manifest against the
// tree fails after every kind of change a walk would see, and holds when
// nothing changed, and for the one change it cannot see: new content of
// the same size with the old modification time put back.
func TestManifestVerify(t *testing.T) {
	trustNow(t)
	changes := []struct {
		name   string
		change func(t *testing.T, root string)
		holds  bool
	}{
		{"nothing", func(*testing.T, string) {}, true},
		{"edit in place", func(t *testing.T, root string) {
			appendFile(t, filepath.Join(root, "sub", "deep", "c.md"), "more\n")
		}, false},
		{"same size, new time", func(t *testing.T, root string) {
			p := filepath.Join(root, "a.txt")
			if err := os.Chtimes(p, time.Time{}, time.Now().Add(time.Hour)); err != nil {
				t.Fatal(err)
			}
		}, false},
		{"file added", func(t *testing.T, root string) { writeFile(t, root, "sub/deep/new.go", "package deep\n") }, false},
		{"file added to an empty directory", func(t *testing.T, root string) { writeFile(t, root, "empty/x.txt", "x\n") }, false},
		{"directory added", func(t *testing.T, root string) {
			if err := os.Mkdir(filepath.Join(root, "sub", "newdir"), 0o755); err != nil {
				t.Fatal(err)
			}
		}, false},
		{"file removed", func(t *testing.T, root string) {
			if err := os.Remove(filepath.Join(root, "sub", "b.go")); err != nil {
				t.Fatal(err)
			}
		}, false},
		{"file renamed", func(t *testing.T, root string) {
			if err := os.Rename(filepath.Join(root, "sub", "b.go"), filepath.Join(root, "sub", "c.go")); err != nil {
				t.Fatal(err)
			}
		}, false},
		{"file replaced by a link", func(t *testing.T, root string) {
			p := filepath.Join(root, "sub", "b.go")
			if err := os.Remove(p); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink("../a.txt", p); err != nil {
				t.Fatal(err)
			}
		}, false},
		{"same size and time (the one change not seen)", func(t *testing.T, root string) {
			p := filepath.Join(root, "a.txt")
			info, err := os.Stat(p)
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(p, []byte("omega\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			if err := os.Chtimes(p, time.Time{}, info.ModTime()); err != nil {
				t.Fatal(err)
			}
		}, true},
	}
	for _, c := range changes {
		t.Run(c.name, func(t *testing.T) {
			root := manifestTree(t)
			m := walkManifest(t, root)
			if !m.trusted("") {
				t.Fatal("a manifest of an old enough tree is not trusted")
			}
			if got := len(m.dirs); got != 4 {
				t.Fatalf("manifest has %d directories, want 4 (root, empty, sub, sub/deep)", got)
			}
			c.change(t, root)
			if got := verifyManifest(context.Background(), root, m); got != c.holds {
				t.Errorf("verifyManifest = %v, want %v", got, c.holds)
			}
		})
	}
}

// TestManifestRacy checks that a manifest is not trusted when a directory
// changed less than racyMargin before the walk, nor when it was made by
// git or for another database path.
func TestManifestRacy(t *testing.T) {
	root := manifestTree(t)
	old := racyMargin
	racyMargin = time.Hour
	m := walkManifest(t, root)
	racyMargin = old
	if m.trusted("") {
		t.Error("a manifest of directories changed within racyMargin is trusted")
	}
	trustNow(t)
	m = walkManifest(t, root)
	if !m.trusted("") || m.trusted(".evalrun/index.db") {
		t.Error("trust must depend on the database path")
	}
	l, err := walkFiles(context.Background(), root, func(string) bool { return false })
	if err != nil {
		t.Fatal(err)
	}
	l.walked, l.dirs = false, nil
	g, err := decodeManifest(encodeManifest(l, ""))
	if err != nil {
		t.Fatal(err)
	}
	if g.trusted("") || len(g.dirs) != 3 {
		t.Errorf("git manifest: trusted %v, %d directories (want 3: those with files)", g.trusted(""), len(g.dirs))
	}
}

// TestRefreshTrustsManifest checks the whole refresh: once the manifest can
// be trusted, an unchanged tree is verified without a walk, and every
// change is still seen by the next update, after which the tree is
// verified again.
func TestRefreshTrustsManifest(t *testing.T) {
	trustNow(t)
	root := manifestTree(t)
	s := mustOpen(t, root, WithDBPath(filepath.Join(t.TempDir(), "index.db")))
	if got := counts(mustUpdate(t, s)); got != [5]int{3, 3, 0, 0, 1} {
		t.Fatalf("cold counts %v", got)
	}
	step := func(what string, want [5]int, kind refreshKind) {
		t.Helper()
		if got := counts(mustUpdate(t, s)); got != want {
			t.Errorf("%s: counts %v, want %v", what, got, want)
		}
		if s.lastRefresh != kind {
			t.Errorf("%s: refresh kind %d, want %d", what, s.lastRefresh, kind)
		}
	}
	step("unchanged", [5]int{3, 0, 0, 0, 1}, refreshVerified)
	appendFile(t, filepath.Join(root, "a.txt"), "beta\n")
	step("edited", [5]int{3, 0, 1, 0, 1}, refreshWritten)
	if res, _ := s.Search(context.Background(), "beta", StrategyContent, 5); !slices.Equal(res.IDs(), []string{"a.txt"}) {
		t.Errorf("the edit is not searchable: %v", res.IDs())
	}
	time.Sleep(10 * time.Millisecond)
	step("unchanged after the edit", [5]int{3, 0, 0, 0, 1}, refreshVerified)
	writeFile(t, root, "empty/gamma.txt", "gamma\n")
	step("added", [5]int{4, 1, 0, 0, 1}, refreshWritten)
	if err := os.Remove(filepath.Join(root, "sub", "b.go")); err != nil {
		t.Fatal(err)
	}
	step("removed", [5]int{3, 0, 0, 1, 1}, refreshWritten)
	time.Sleep(10 * time.Millisecond)
	step("unchanged at last", [5]int{3, 0, 0, 0, 1}, refreshVerified)

	// A manifest of an older format is replaced by a listing that finds
	// nothing changed, and trusted from then on.
	if _, err := s.db.Exec("UPDATE stats SET listing = x'00'"); err != nil {
		t.Fatal(err)
	}
	step("old manifest", [5]int{3, 0, 0, 0, 1}, refreshWritten)
	time.Sleep(10 * time.Millisecond)
	step("after the old manifest", [5]int{3, 0, 0, 0, 1}, refreshVerified)
}

// TestManifestSaveDoesNotWait checks that a refresh which finds the files
// of a stale manifest unchanged (a directory's ctime moved, as chmod or
// utimes move it) stores the new manifest without waiting for another
// connection's write lock (and leaves it for a later refresh), and stores
// it once the lock is free.
func TestManifestSaveDoesNotWait(t *testing.T) {
	trustNow(t)
	root := manifestTree(t)
	db := filepath.Join(t.TempDir(), "index.db")
	s := mustOpen(t, root, WithDBPath(db))
	mustUpdate(t, s)
	if err := os.Chtimes(filepath.Join(root, "sub"), time.Time{}, time.Now()); err != nil {
		t.Fatal(err)
	}
	time.Sleep(10 * time.Millisecond)

	other, err := sql.Open("sqlite", "file:"+db+"?_pragma=busy_timeout(0)")
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	conn, err := other.Conn(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := conn.ExecContext(context.Background(), "BEGIN IMMEDIATE"); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	start := time.Now()
	st, err := s.Update(ctx)
	if err != nil || counts(st) != [5]int{3, 0, 0, 0, 1} || s.lastRefresh != refreshListed {
		t.Fatalf("refresh while locked: %v, counts %v, kind %d", err, counts(st), s.lastRefresh)
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("the refresh waited %v for the lock", d)
	}
	conn.ExecContext(context.Background(), "ROLLBACK")
	conn.Close()

	// The manifest was not stored: the next refresh lists again and
	// stores it, and the one after trusts it.
	for i, want := range []refreshKind{refreshListed, refreshVerified} {
		if got := counts(mustUpdate(t, s)); got != [5]int{3, 0, 0, 0, 1} || s.lastRefresh != want {
			t.Errorf("refresh %d after the lock: counts %v, kind %d, want %d", i+1, got, s.lastRefresh, want)
		}
	}
}

// appendFile appends text to the file at p.
func appendFile(t *testing.T, p, text string) {
	t.Helper()
	f, err := os.OpenFile(p, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteString(text); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
}
