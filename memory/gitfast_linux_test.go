package memory

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"syscall"
	"testing"
	"time"
)

// gitTree makes a git work tree with a committed file, an ignored
// directory, an ignored file and an untracked file, with HOME and
// XDG_CONFIG_HOME in temporary directories, and returns its root.
func gitTree(t *testing.T) string {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(home, ".config"))
	t.Setenv("GIT_CONFIG_NOSYSTEM", "1")
	t.Setenv("EVALRUN_HOME", filepath.Join(home, "evalrun"))
	root := t.TempDir()
	git(t, root, "init", "-q")
	writeFile(t, root, ".gitignore", "*.log\nbuild/\n")
	writeFile(t, root, "a.txt", "alpha\n")
	writeFile(t, root, "sub/b.go", "package sub\n")
	writeFile(t, root, "build/out.txt", "ignored output\n")
	writeFile(t, root, "logs/x.log", "ignored log\n")
	git(t, root, "add", ".")
	git(t, root, "commit", "-q", "-m", "init")
	writeFile(t, root, "untracked.md", "# untracked\n")
	if err := os.Mkdir(filepath.Join(root, "empty"), 0o755); err != nil {
		t.Fatal(err)
	}
	time.Sleep(10 * time.Millisecond) // the listing starts after the last change
	return root
}

// TestRefreshTrustsGitManifest checks the fast path in a git work tree: an
// unchanged tree is verified without running git, and every change that
// alters what `git ls-files` lists, or a listed file, is seen by the next
// refresh.
func TestRefreshTrustsGitManifest(t *testing.T) {
	trustNow(t)
	root := gitTree(t)
	s := mustOpen(t, root, WithDBPath(filepath.Join(t.TempDir(), "index.db")))
	mustUpdate(t, s)
	want := []string{".gitignore", "a.txt", "sub/b.go", "untracked.md"}
	if got := indexedPaths(t, s); !slices.Equal(got, want) {
		t.Fatalf("cold index %v, want %v", got, want)
	}
	time.Sleep(10 * time.Millisecond)
	mustUpdate(t, s)
	if s.lastRefresh != refreshVerified {
		t.Fatalf("unchanged tree: refresh kind %d, want %d (verified)", s.lastRefresh, refreshVerified)
	}

	steps := []struct {
		name   string
		change func()
		add    []string
		remove []string
	}{
		{"new untracked file in an existing directory", func() { writeFile(t, root, "sub/new.go", "package sub\n") },
			[]string{"sub/new.go"}, nil},
		{"new untracked file in a new directory", func() { writeFile(t, root, "fresh/deep/n.txt", "new\n") },
			[]string{"fresh/deep/n.txt"}, nil},
		{"new untracked file in an empty directory", func() { writeFile(t, root, "empty/e.txt", "e\n") },
			[]string{"empty/e.txt"}, nil},
		{"new file in a directory of ignored files only", func() { writeFile(t, root, "logs/seen.txt", "seen\n") },
			[]string{"logs/seen.txt"}, nil},
		{"deleted tracked file", func() {
			if err := os.Remove(filepath.Join(root, "sub", "b.go")); err != nil {
				t.Fatal(err)
			}
		}, nil, []string{"sub/b.go"}},
		{"git add -f of an ignored file", func() { git(t, root, "add", "-f", "logs/x.log") },
			[]string{"logs/x.log"}, nil},
		{"git rm --cached of an ignored file", func() { git(t, root, "rm", "-q", "--cached", "logs/x.log") },
			nil, []string{"logs/x.log"}},
		{"new .gitignore line", func() { appendFile(t, filepath.Join(root, ".gitignore"), "untracked.md\n") },
			nil, []string{"untracked.md"}},
		{"new .gitignore in a subdirectory", func() { writeFile(t, root, "fresh/.gitignore", "deep/\n") },
			[]string{"fresh/.gitignore"}, []string{"fresh/deep/n.txt"}},
		{"changed .git/info/exclude", func() { appendFile(t, filepath.Join(root, ".git", "info", "exclude"), "empty/\n") },
			nil, []string{"empty/e.txt"}},
		{"changed global excludes file", func() {
			writeFile(t, os.Getenv("XDG_CONFIG_HOME"), "git/ignore", "seen.txt\n")
		}, nil, []string{"logs/seen.txt"}},
		{"changed core.excludesFile", func() {
			writeFile(t, os.Getenv("HOME"), "other-ignore", "new.go\n")
			writeFile(t, os.Getenv("HOME"), ".gitconfig", "[core]\n\texcludesFile = ~/other-ignore\n")
		}, []string{"logs/seen.txt"}, []string{"sub/new.go"}},
		{"include of a missing configuration file", func() {
			writeFile(t, os.Getenv("HOME"), ".gitconfig", "[core]\n\texcludesFile = ~/other-ignore\n[include]\n\tpath = .gitconfig.local\n")
		}, nil, nil},
		{"included configuration file created", func() {
			writeFile(t, os.Getenv("HOME"), "third-ignore", "fresh/.gitignore\n")
			writeFile(t, os.Getenv("HOME"), ".gitconfig.local", "[core]\n\texcludesFile = ~/third-ignore\n")
		}, []string{"sub/new.go"}, []string{"fresh/.gitignore"}},
		{"file in an ignored directory now re-included", func() {
			writeFile(t, root, ".gitignore", "*.log\n")
		}, []string{"build/out.txt", "untracked.md"}, nil},
	}
	cur := slices.Clone(want)
	for _, st := range steps {
		time.Sleep(10 * time.Millisecond)
		st.change()
		mustUpdate(t, s)
		cur = slices.DeleteFunc(cur, func(p string) bool { return slices.Contains(st.remove, p) })
		cur = append(cur, st.add...)
		slices.Sort(cur)
		if got := indexedPaths(t, s); !slices.Equal(got, cur) {
			t.Fatalf("%s: index %v, want %v", st.name, got, cur)
		}
		if s.lastRefresh == refreshVerified {
			t.Fatalf("%s: the change was not seen", st.name)
		}
		time.Sleep(10 * time.Millisecond)
		mustUpdate(t, s)
		if s.lastRefresh != refreshVerified {
			t.Errorf("%s: unchanged after it, refresh kind %d, want %d (verified)", st.name, s.lastRefresh, refreshVerified)
		}
	}

	// An edited file is read again.
	time.Sleep(10 * time.Millisecond)
	appendFile(t, filepath.Join(root, "untracked.md"), "zeta\n")
	if got := counts(mustUpdate(t, s)); got[2] != 1 || s.lastRefresh != refreshWritten {
		t.Errorf("edited file: counts %v, kind %d", got, s.lastRefresh)
	}
	if res, _ := s.Search(context.Background(), "zeta", StrategyContent, 5); !slices.Equal(res.IDs(), []string{"untracked.md"}) {
		t.Errorf("the edit is not searchable: %v", res.IDs())
	}
}

// TestGitManifestFallsBack checks that a git manifest is not trusted for a
// linked work tree (a .git file) or under another git environment.
func TestGitManifestFallsBack(t *testing.T) {
	trustNow(t)
	root := gitTree(t)
	wt := filepath.Join(t.TempDir(), "linked")
	git(t, root, "worktree", "add", "-q", wt)
	time.Sleep(10 * time.Millisecond)
	s := mustOpen(t, wt, WithDBPath(filepath.Join(t.TempDir(), "index.db")))
	for i := range 2 {
		mustUpdate(t, s)
		if s.lastRefresh == refreshVerified {
			t.Fatalf("linked work tree, refresh %d: verified without git", i+1)
		}
		time.Sleep(10 * time.Millisecond)
	}
	if got := indexedPaths(t, s); !slices.Equal(got, []string{".gitignore", "a.txt", "sub/b.go"}) {
		t.Errorf("linked work tree index %v", got)
	}

	s2 := mustOpen(t, root, WithDBPath(filepath.Join(t.TempDir(), "index.db")))
	mustUpdate(t, s2)
	time.Sleep(10 * time.Millisecond)
	t.Setenv("GIT_CONFIG_GLOBAL", filepath.Join(t.TempDir(), "cfg"))
	mustUpdate(t, s2)
	if s2.lastRefresh == refreshVerified {
		t.Error("another git environment: verified without git")
	}
}

// gitCopyFiles is how many files of GOROOT/src BenchmarkIndexGitUnchanged
// copies into a new git repository.
const gitCopyFiles = 3000

// BenchmarkIndexGitUnchanged refreshes the index of a git work tree (the
// first gitCopyFiles files of GOROOT/src, committed, plus an untracked
// file) when nothing changed. cpu-s/op counts the git processes too.
func BenchmarkIndexGitUnchanged(b *testing.B) {
	root := gitCopy(b)
	s := mustOpen(b, root, WithDBPath(filepath.Join(b.TempDir(), "index.db")))
	st := mustUpdate(b, s)
	// The first refresh after racyMargin stores a manifest it can trust.
	time.Sleep(racyMargin + 100*time.Millisecond)
	mustUpdate(b, s)
	cpu := cpuTimeWithChildren()
	b.ResetTimer()
	for b.Loop() {
		st, err := s.Update(context.Background())
		if err != nil {
			b.Fatal(err)
		}
		if st.Added+st.Updated+st.Removed != 0 {
			b.Fatalf("unchanged tree: %s", st)
		}
	}
	b.ReportMetric((cpuTimeWithChildren()-cpu).Seconds()/float64(b.N), "cpu-s/op")
	b.ReportMetric(float64(st.Files), "files")
	verified := 0.0
	if s.lastRefresh == refreshVerified {
		verified = 1
	}
	b.ReportMetric(verified, "verified")
}

// cpuTimeWithChildren is cpuTime plus the CPU time of the child processes
// that have been waited for (git).
func cpuTimeWithChildren() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_CHILDREN, &ru) != nil {
		return cpuTime()
	}
	return cpuTime() + time.Duration(ru.Utime.Nano()+ru.Stime.Nano())
}

// BenchmarkIndexGitIndexTouched refreshes the same tree as
// BenchmarkIndexGitUnchanged after the git index got a new time (as a
// command that rewrites it gives it): git lists the tree, and the
// manifest with the git state is built again.
func BenchmarkIndexGitIndexTouched(b *testing.B) {
	root := gitCopy(b)
	s := mustOpen(b, root, WithDBPath(filepath.Join(b.TempDir(), "index.db")))
	mustUpdate(b, s)
	index := filepath.Join(root, ".git", "index")
	cpu := cpuTimeWithChildren()
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		if err := os.Chtimes(index, time.Time{}, time.Now().Add(-time.Hour-time.Duration(i)*time.Second)); err != nil {
			b.Fatal(err)
		}
		st, err := s.Update(context.Background())
		if err != nil {
			b.Fatal(err)
		}
		if st.Added+st.Updated+st.Removed != 0 || s.lastRefresh == refreshVerified {
			b.Fatalf("touched index: %s, refresh kind %d", st, s.lastRefresh)
		}
	}
	b.ReportMetric((cpuTimeWithChildren()-cpu).Seconds()/float64(b.N), "cpu-s/op")
}

// BenchmarkIndexGitFileTouched refreshes the same tree as
// BenchmarkIndexGitUnchanged after one tracked file got a new time, as an
// edit gives it: git lists the tree again (the git state of the manifest
// holds, so only git ls-files runs) and the file is read again.
func BenchmarkIndexGitFileTouched(b *testing.B) {
	root := gitCopy(b)
	s := mustOpen(b, root, WithDBPath(filepath.Join(b.TempDir(), "index.db")))
	mustUpdate(b, s)
	time.Sleep(racyMargin + 100*time.Millisecond)
	mustUpdate(b, s)
	file := filepath.Join(root, "untracked.go")
	cpu := cpuTimeWithChildren()
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		if err := os.Chtimes(file, time.Time{}, time.Now().Add(-time.Hour-time.Duration(i)*time.Second)); err != nil {
			b.Fatal(err)
		}
		st, err := s.Update(context.Background())
		if err != nil {
			b.Fatal(err)
		}
		if st.Added+st.Updated+st.Removed != 0 || s.lastRefresh != refreshWritten {
			b.Fatalf("touched file: %s, refresh kind %d", st, s.lastRefresh)
		}
	}
	b.ReportMetric((cpuTimeWithChildren()-cpu).Seconds()/float64(b.N), "cpu-s/op")
}

// gitCopy copies the first gitCopyFiles files of GOROOT/src into a new git
// repository, commits them, adds an untracked file and returns its root.
func gitCopy(b *testing.B) string {
	b.Helper()
	src := gorootSrc()
	if src == "" {
		b.Skip("GOROOT/src is missing")
	}
	if _, err := exec.LookPath("git"); err != nil {
		b.Skip("git is not installed")
	}
	root := b.TempDir()
	n := 0
	err := filepath.WalkDir(src, func(p string, d os.DirEntry, err error) error {
		if err != nil || n >= gitCopyFiles {
			return filepath.SkipDir
		}
		if d.IsDir() && d.Name() == "testdata" {
			return filepath.SkipDir
		}
		if !d.Type().IsRegular() {
			return nil
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		dst := filepath.Join(root, rel)
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			return err
		}
		n++
		return os.WriteFile(dst, data, 0o644)
	})
	if err != nil {
		b.Fatal(err)
	}
	git(b, root, "init", "-q")
	git(b, root, "add", ".")
	git(b, root, "commit", "-q", "-m", "copy")
	if err := os.WriteFile(filepath.Join(root, "untracked.go"), []byte("package main\n"), 0o644); err != nil {
		b.Fatal(err)
	}
	return root
}
