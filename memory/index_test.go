package memory

import (
	"context"
	"database/sql"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// writeFile creates path under root with its directories.
func writeFile(t *testing.T, root, path, content string) {
	t.Helper()
	p := filepath.Join(root, filepath.FromSlash(path))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// indexedPaths returns the paths in the store, sorted.
func indexedPaths(t *testing.T, s *Store) []string {
	t.Helper()
	rows, err := s.db.Query("SELECT path FROM files ORDER BY path")
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var p string
		rows.Scan(&p)
		out = append(out, p)
	}
	return out
}

func mustOpen(t testing.TB, root string, opts ...Option) *Store {
	t.Helper()
	s, err := OpenStore(root, opts...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func mustUpdate(t testing.TB, s *Store) Stats {
	t.Helper()
	st, err := s.Update(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return st
}

// counts is the part of Stats the tests compare.
func counts(st Stats) [5]int { return [5]int{st.Files, st.Added, st.Updated, st.Removed, st.Skipped} }

// notInGitRepo skips the test when dir lies inside a git work tree, where
// the walk cannot be tested.
func notInGitRepo(t *testing.T, dir string) {
	cmd := exec.Command("git", "rev-parse", "--is-inside-work-tree")
	cmd.Dir = dir
	if out, err := cmd.Output(); err == nil && strings.TrimSpace(string(out)) == "true" {
		t.Skip("the temporary directory is inside a git work tree")
	}
}

// makeWalkTree builds a tree outside git with every kind of file the walk
// must index or skip; it returns the paths that must be indexed.
func makeWalkTree(t *testing.T, root string) []string {
	for _, p := range []string{
		".hidden/secret.txt", ".git/config", "node_modules/x/index.js", "vendor/v.go", "build/out.txt",
		"target/t.txt", "dist/d.txt", "__pycache__/c.txt", ".venv/lib.py", "venv/lib.py", ".svn/x", ".hg/x",
		".evalrun/templates/t.xml", "sub/build/deep.txt",
	} {
		writeFile(t, root, p, "skipped directory\n")
	}
	writeFile(t, root, "src/main.go", "package main\n\nfunc main() { ParseURL() }\n")
	writeFile(t, root, "README.md", "\n\n# Project title\n\nSome words.\n")
	writeFile(t, root, ".env", "KEY=value\n")
	writeFile(t, root, "sub/notes.txt", "notes\n")
	writeFile(t, root, "bin.dat", "abc\x00def")
	writeFile(t, root, "latin1.txt", "caf\xe9\n")
	writeFile(t, root, "big.txt", strings.Repeat("x", maxFileSize+1))
	writeFile(t, root, "exact.txt", strings.Repeat("y", maxFileSize-1)+"\n")
	writeFile(t, root, "boundary.txt", strings.Repeat("b", sniffSize-1)+"é tail\n")
	if err := os.Symlink("src/main.go", filepath.Join(root, "link.go")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("src", filepath.Join(root, "linkdir")); err != nil {
		t.Fatal(err)
	}
	return []string{".env", "README.md", "boundary.txt", "exact.txt", "src/main.go", "sub/notes.txt"}
}

func TestIndexWalk(t *testing.T) {
	root := t.TempDir()
	notInGitRepo(t, root)
	want := makeWalkTree(t, root)
	s := mustOpen(t, root)
	st := mustUpdate(t, s)
	// Skipped: bin.dat, latin1.txt, big.txt, link.go, linkdir.
	if got := counts(st); got != [5]int{6, 6, 0, 0, 5} {
		t.Errorf("first update counts %v, want [6 6 0 0 5]: %s", got, st)
	}
	if diff := cmp.Diff(want, indexedPaths(t, s)); diff != "" {
		t.Errorf("indexed paths (-want +got):\n%s", diff)
	}
	wantLine := fmt.Sprintf("indexed 6 files (6 added, 0 updated, 0 removed, 5 skipped) in %s", filepath.Join(root, ".evalrun", "index.db"))
	if st.String() != wantLine {
		t.Errorf("Stats.String() = %q, want %q", st.String(), wantLine)
	}
	if _, err := os.Stat(filepath.Join(root, ".evalrun", "index.db")); err != nil {
		t.Errorf("the index is not at .evalrun/index.db: %v", err)
	}
	var mode string
	s.db.QueryRow("PRAGMA journal_mode").Scan(&mode)
	if mode != "wal" {
		t.Errorf("journal_mode = %s, want wal", mode)
	}

	info, ok, err := s.File(context.Background(), "src/main.go")
	if err != nil || !ok {
		t.Fatalf("File(src/main.go) = %v, %v", ok, err)
	}
	wantInfo := FileInfo{Path: "src/main.go", Name: "main.go", Ext: ".go", Size: 41, Summary: "package main", Identifiers: []string{"ParseURL"}}
	if diff := cmp.Diff(wantInfo, info); diff != "" {
		t.Errorf("File(src/main.go) (-want +got):\n%s", diff)
	}
	if info, _, _ := s.File(context.Background(), "README.md"); info.Summary != "# Project title" {
		t.Errorf("README.md summary = %q", info.Summary)
	}
	var sha []byte
	s.db.QueryRow("SELECT sha256 FROM files WHERE path = 'sub/notes.txt'").Scan(&sha)
	if fmt.Sprintf("%x", sha) != "444e0fffbd825e9610ff5b199485707a0c895339ae80c15cc8a8aee41b106fda" {
		t.Errorf("sha256 of sub/notes.txt = %x", sha)
	}

	// Nothing changed: nothing is read or written.
	if got := counts(mustUpdate(t, s)); got != [5]int{6, 0, 0, 0, 5} {
		t.Errorf("second update counts %v, want [6 0 0 0 5]", got)
	}

	// A root that is itself a symbolic link is walked.
	link := filepath.Join(t.TempDir(), "project")
	if err := os.Symlink(root, link); err != nil {
		t.Fatal(err)
	}
	ls := mustOpen(t, link, WithDBPath(filepath.Join(t.TempDir(), "link.db")))
	if got := counts(mustUpdate(t, ls)); got != [5]int{6, 6, 0, 0, 5} {
		t.Errorf("linked root: counts %v, want [6 6 0 0 5]", got)
	}
}

func TestIndexIncremental(t *testing.T) {
	root := t.TempDir()
	notInGitRepo(t, root)
	writeFile(t, root, "a.txt", "alpha words here\n")
	writeFile(t, root, "b.txt", "bravo words\n")
	writeFile(t, root, "c.txt", "charlie\n")
	s := mustOpen(t, root)
	if got := counts(mustUpdate(t, s)); got != [5]int{3, 3, 0, 0, 0} {
		t.Fatalf("cold counts %v", got)
	}
	ctx := context.Background()

	// Same size and time: not read again, so new content goes unnoticed.
	p := filepath.Join(root, "a.txt")
	fi, _ := os.Stat(p)
	writeFile(t, root, "a.txt", "zebra words here\n")
	os.Chtimes(p, fi.ModTime(), fi.ModTime())
	if got := counts(mustUpdate(t, s)); got != [5]int{3, 0, 0, 0, 0} {
		t.Errorf("same size and time: counts %v, want nothing done", got)
	}
	if res, _ := s.Search(ctx, "zebra", StrategyContent, 5); len(res.Matches) != 0 {
		t.Errorf("a file with unchanged size and time was read again: %v", res.IDs())
	}

	// A new time with the same content is not an update.
	later := fi.ModTime().Add(time.Hour)
	writeFile(t, root, "b.txt", "bravo words\n")
	os.Chtimes(filepath.Join(root, "b.txt"), later, later)
	if got := counts(mustUpdate(t, s)); got != [5]int{3, 0, 0, 0, 0} {
		t.Errorf("touched file: counts %v, want nothing updated", got)
	}

	// A changed file is updated, a deleted one removed, a new one added,
	// one that became binary removed and skipped.
	os.Chtimes(p, later, later) // a.txt's new content is now seen
	os.Remove(filepath.Join(root, "c.txt"))
	writeFile(t, root, "d.txt", "delta\n")
	st := mustUpdate(t, s)
	if got := counts(st); got != [5]int{3, 1, 1, 1, 0} {
		t.Errorf("counts %v, want [3 1 1 1 0]: %s", got, st)
	}
	if res, _ := s.Search(ctx, "zebra", StrategyContent, 5); !slices.Equal(res.IDs(), []string{"a.txt"}) {
		t.Errorf("zebra finds %v after the update", res.IDs())
	}
	for _, q := range []string{"alpha", "charlie"} {
		if res, _ := s.Search(ctx, q, StrategyContent, 5); len(res.Matches) != 0 {
			t.Errorf("%s still finds %v", q, res.IDs())
		}
	}
	writeFile(t, root, "d.txt", "del\x00ta\n")
	if got := counts(mustUpdate(t, s)); got != [5]int{2, 0, 0, 1, 1} {
		t.Errorf("file turned binary: counts %v, want [2 0 0 1 1]", got)
	}
	if got := counts(mustUpdate(t, s)); got != [5]int{2, 0, 0, 0, 1} {
		t.Errorf("again: counts %v, want [2 0 0 0 1]", got)
	}
	// No term is left without postings.
	var orphans int
	s.db.QueryRow("SELECT count(*) FROM terms WHERE cdata IS NULL AND mdata IS NULL").Scan(&orphans)
	var charlie int
	s.db.QueryRow("SELECT count(*) FROM terms WHERE term IN ('charlie', 'alpha', 'delta')").Scan(&charlie)
	if orphans != 0 || charlie != 0 {
		t.Errorf("%d empty terms and %d terms of removed files remain", orphans, charlie)
	}
}

// TestIncrementalMatchesRebuild applies random changes to a tree and checks
// after each update that the incremental index ranks exactly as an index
// built from scratch.
func TestIncrementalMatchesRebuild(t *testing.T) {
	root := t.TempDir()
	notInGitRepo(t, root)
	rng := rand.New(rand.NewPCG(1, 2))
	words := strings.Fields("alpha bravo charlie delta echo foxtrot golf hotel india juliet kilo lima mike november oscar papa quebec romeo sierra tango ParseURL read_file HTTPServer")
	text := func() string {
		var b strings.Builder
		for range 5 + rng.IntN(40) {
			b.WriteString(words[rng.IntN(len(words))])
			b.WriteByte(' ')
		}
		return b.String()
	}
	for i := range 30 {
		writeFile(t, root, fmt.Sprintf("d%d/f%d.txt", i%4, i), text())
	}
	s := mustOpen(t, root, WithDBPath(filepath.Join(t.TempDir(), "inc.db")))
	mustUpdate(t, s)
	next := 30
	for round := range 6 {
		for range 8 {
			paths := indexedPaths(t, s)
			switch rng.IntN(3) {
			case 0: // change
				writeFile(t, root, paths[rng.IntN(len(paths))], text()+" changed")
			case 1: // delete
				if len(paths) > 5 {
					os.Remove(filepath.Join(root, filepath.FromSlash(paths[rng.IntN(len(paths))])))
				}
			case 2: // add
				writeFile(t, root, fmt.Sprintf("d%d/f%d.txt", next%4, next), text())
				next++
			}
		}
		// Make sure changed files show a new time even on coarse clocks.
		future := time.Now().Add(time.Duration(round+1) * time.Minute)
		filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
			if err == nil && !d.IsDir() {
				os.Chtimes(p, future, future)
			}
			return nil
		})
		mustUpdate(t, s)
		fresh := mustOpen(t, root, WithDBPath(filepath.Join(t.TempDir(), "fresh.db")))
		mustUpdate(t, fresh)
		for _, q := range []string{"alpha", "bravo charlie", "parse url", "read file", "httpserver changed", "d1 txt", "lima mike november"} {
			for _, strategy := range []string{StrategyContent, StrategyMetadata} {
				a, err := s.Search(context.Background(), q, strategy, 100)
				if err != nil {
					t.Fatal(err)
				}
				b, err := fresh.Search(context.Background(), q, strategy, 100)
				if err != nil {
					t.Fatal(err)
				}
				if diff := cmp.Diff(b, a); diff != "" {
					t.Fatalf("round %d, %s %q: incremental differs from rebuilt (-rebuilt +incremental):\n%s", round, strategy, q, diff)
				}
			}
		}
	}
}

// git runs git in dir.
func git(t testing.TB, dir string, args ...string) {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(gitEnv(), "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.com", "GIT_COMMITTER_NAME=t",
		"GIT_COMMITTER_EMAIL=t@example.com", "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
}

func TestIndexGitRepository(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	root := t.TempDir()
	git(t, root, "init", "-q")
	writeFile(t, root, ".gitignore", "ignored.txt\nlogs/\n")
	writeFile(t, root, "tracked.go", "package tracked\n")
	writeFile(t, root, ".github/ci.yml", "name: ci\n")       // hidden, but tracked
	writeFile(t, root, "vendor/dep/dep.go", "package dep\n") // vendor, but tracked
	writeFile(t, root, "binary.bin", "\x00\x01\x02")
	writeFile(t, root, "gone.txt", "deleted from the work tree\n")
	if err := os.Symlink("tracked.go", filepath.Join(root, "link.go")); err != nil {
		t.Fatal(err)
	}
	git(t, root, "add", ".")
	git(t, root, "commit", "-q", "-m", "init")
	os.Remove(filepath.Join(root, "gone.txt"))
	writeFile(t, root, "untracked.txt", "not added yet\n")
	writeFile(t, root, "node_modules/pkg/index.js", "// untracked and not ignored\n")
	writeFile(t, root, "ignored.txt", "ignored\n")
	writeFile(t, root, "logs/run.log", "ignored too\n")
	writeFile(t, root, "big.txt", strings.Repeat("z", maxFileSize+10))

	s := mustOpen(t, root)
	st := mustUpdate(t, s)
	want := []string{".github/ci.yml", ".gitignore", "node_modules/pkg/index.js", "tracked.go", "untracked.txt", "vendor/dep/dep.go"}
	if diff := cmp.Diff(want, indexedPaths(t, s)); diff != "" {
		t.Errorf("indexed paths (-want +got):\n%s", diff)
	}
	// Skipped: binary.bin, link.go (a symlink), big.txt.
	if got := counts(st); got != [5]int{6, 6, 0, 0, 3} {
		t.Errorf("counts %v, want [6 6 0 0 3]: %s", got, st)
	}
	// The index itself (.evalrun/, untracked) never indexes itself.
	if got := counts(mustUpdate(t, s)); got != [5]int{6, 0, 0, 0, 3} {
		t.Errorf("second update counts %v, want [6 0 0 0 3]", got)
	}
	// An ignored file that gets tracked is indexed; a deleted tracked file
	// is removed.
	git(t, root, "add", "-f", "ignored.txt")
	os.Remove(filepath.Join(root, "untracked.txt"))
	if got := counts(mustUpdate(t, s)); got != [5]int{6, 1, 0, 1, 3} {
		t.Errorf("after git add -f and a deletion: counts %v, want [6 1 0 1 3]", got)
	}

	// A subdirectory of the work tree lists paths relative to itself.
	sub := mustOpen(t, filepath.Join(root, "vendor"), WithDBPath(filepath.Join(t.TempDir(), "sub.db")))
	mustUpdate(t, sub)
	if got := indexedPaths(t, sub); !slices.Equal(got, []string{"dep/dep.go"}) {
		t.Errorf("subdirectory index: %v", got)
	}
}

func TestIndexFunction(t *testing.T) {
	root := t.TempDir()
	writeFile(t, root, "x.txt", "x\n")
	db := filepath.Join(t.TempDir(), "custom", "x.db")
	st, err := Index(context.Background(), root, WithDBPath(db), WithWorkers(1))
	if err != nil {
		t.Fatal(err)
	}
	if st.Files != 1 || st.DBPath != db {
		t.Errorf("Index = %s", st)
	}
	if _, err := os.Stat(filepath.Join(root, ".evalrun")); !os.IsNotExist(err) {
		t.Errorf("WithDBPath still created .evalrun under the root")
	}
	// The schema version guards the layout.
	raw, _ := sql.Open("sqlite", db)
	raw.Exec("PRAGMA user_version = 999")
	raw.Close()
	st, err = Index(context.Background(), root, WithDBPath(db))
	if err != nil || st.Added != 1 {
		t.Errorf("an index of another version is not rebuilt: %s, %v", st, err)
	}
	if _, err := Index(context.Background(), filepath.Join(root, "x.txt")); err == nil {
		t.Error("indexing a file instead of a directory succeeds")
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	writeFile(t, root, "y.txt", "y\n")
	if _, err := Index(ctx, root, WithDBPath(db)); err == nil {
		t.Error("a cancelled index succeeds")
	}
}

// TestUnchangedRefreshTakesNoLock checks that an update finding the tree as
// the last update listed it neither writes nor waits for the write lock,
// and that it reports the stored counts, skipped files included.
func TestUnchangedRefreshTakesNoLock(t *testing.T) {
	root := t.TempDir()
	notInGitRepo(t, root)
	writeFile(t, root, "a.txt", "alpha\n")
	writeFile(t, root, "b.bin", "GIF89a\x00\x01")
	db := filepath.Join(t.TempDir(), "index.db")
	s := mustOpen(t, root, WithDBPath(db))
	if got := counts(mustUpdate(t, s)); got != [5]int{1, 1, 0, 0, 1} {
		t.Fatalf("cold counts %v", got)
	}
	// Another connection holds the write lock.
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
	st, err := s.Update(ctx)
	if err != nil {
		t.Fatalf("unchanged update while another connection writes: %v", err)
	}
	if got := counts(st); got != [5]int{1, 0, 0, 0, 1} {
		t.Errorf("unchanged counts %v, want [1 0 0 0 1]", got)
	}
	conn.ExecContext(context.Background(), "ROLLBACK")
	conn.Close()

	// A changed file is noticed, and the next update is quiet again.
	writeFile(t, root, "a.txt", "alpha beta\n")
	if got := counts(mustUpdate(t, s)); got != [5]int{1, 0, 1, 0, 1} {
		t.Errorf("after an edit: counts %v, want one updated", got)
	}
	if res, _ := s.Search(context.Background(), "beta", StrategyContent, 5); !slices.Equal(res.IDs(), []string{"a.txt"}) {
		t.Errorf("the edit is not searchable: %v", res.IDs())
	}
	if got := counts(mustUpdate(t, s)); got != [5]int{1, 0, 0, 0, 1} {
		t.Errorf("second unchanged update: counts %v", got)
	}
}
