package memory

import (
	"bytes"
	"context"
	"errors"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"time"
)

// listedFile is one file the listing found, before any content is read.
type listedFile struct {
	path    string // relative to the root, '/'-separated
	regular bool   // a regular file (not a symlink, directory or device)
	size    int64
	mtime   int64 // nanoseconds since the epoch
}

// listedDir is a directory a walk read, with the change time (ctime, in
// nanoseconds) it had just before its entries were read.
type listedDir struct {
	path  string // relative to the root, '/'-separated; "" is the root
	ctime int64  // 0 when unknown
}

// listing is what listFiles found: the files in manifest order (by
// directory, then by name) and, for a walk, every directory it read.
type listing struct {
	files  []listedFile
	dirs   []listedDir // sorted by path; nil unless walked
	walked bool        // listed by a walk, not by git
	start  int64       // when the walk began (nanoseconds since the epoch)
	// git is the state a git listing depended on, with dirs set to every
	// directory git may list a file from; nil when unknown.
	git *gitStamp
}

// skipDirs are the directories a walk outside a git work tree never enters
// (SPEC §15.1); hidden directories are skipped too.
var skipDirs = map[string]bool{
	".git": true, ".hg": true, ".svn": true, ".evalrun": true, "node_modules": true,
	"vendor": true, "__pycache__": true, ".venv": true, "venv": true, "dist": true,
	"build": true, "target": true,
}

// listFiles lists the files to index under root: with git in a work tree,
// tracked files plus untracked files that are not ignored; elsewhere a walk.
// Paths for which exclude reports true are left out. Symbolic links and other
// non-regular files are returned with regular false.
//
// prev is the git state of the last listing when it still holds and was
// recorded before any change to it (manifest.gitStateTrusted): what git
// reported of its configuration and of the directories it ignores is then
// the same, and only git ls-files runs again.
func listFiles(ctx context.Context, root string, exclude func(string) bool, walk bool, prev *gitStamp) (listing, error) {
	if walk || !inGitTree(root) {
		return walkFiles(ctx, root, exclude)
	}
	// For a manifest that the next refresh can trust (manifest.go), the
	// state git reads and the tree's directories are recorded on another
	// goroutine while git lists. Whatever changes after start has a later
	// ctime, and the manifest is then not trusted.
	start := time.Now().UnixNano()
	var (
		stamp *gitStamp
		dirs  []listedDir
		state = make(chan struct{})
	)
	go func() {
		defer close(state)
		if canVerify && gitDirAtRoot(root) {
			stamp, dirs = recordGitState(ctx, root, prev)
		}
	}()
	defer func() { <-state }()
	paths, ok, err := gitFiles(ctx, root)
	if err != nil {
		return listing{}, err
	}
	if !ok {
		return walkFiles(ctx, root, exclude)
	}
	files := make([]listedFile, 0, len(paths))
	for _, p := range paths {
		if exclude(p) || inEvalrunDir(p) {
			continue
		}
		info, err := os.Lstat(filepath.Join(root, filepath.FromSlash(p)))
		if err != nil {
			continue // listed by git but gone from the work tree
		}
		if info.IsDir() {
			continue // a submodule or a nested repository
		}
		files = append(files, fileOf(p, info))
	}
	slices.SortFunc(files, compareListed)
	l := listing{files: files}
	<-state
	if stamp != nil && coversFiles(dirs, files) {
		l.dirs, l.start, l.git = dirs, start, stamp
	}
	return l, nil
}

// recordGitState returns the git state of root (gitStamp) and every
// directory git may list a file from, with its ctime; stamp is nil when
// they cannot be known. prev is as for listFiles.
func recordGitState(ctx context.Context, root string, prev *gitStamp) (stamp *gitStamp, dirs []listedDir) {
	var ignored map[string]bool
	if prev != nil {
		stamp = &gitStamp{env: prev.env, ignored: prev.ignored}
		for _, f := range prev.files {
			stamp.files = append(stamp.files, statStamp(root, f.path))
		}
		ignored = make(map[string]bool, len(prev.ignored))
		for _, d := range prev.ignored {
			ignored[d] = true
		}
	} else {
		paths, ok := gitStateFiles(ctx, root)
		if !ok {
			return nil, nil
		}
		stamp = &gitStamp{env: gitEnvKey()}
		for _, p := range paths {
			stamp.files = append(stamp.files, statStamp(root, p))
		}
		if ignored, ok = ignoredDirs(ctx, root); !ok {
			return nil, nil
		}
		for d := range ignored {
			stamp.ignored = append(stamp.ignored, d)
		}
		slices.Sort(stamp.ignored)
	}
	dirs, gitignores, ok := gitTreeDirs(ctx, root, ignored)
	if !ok {
		return nil, nil
	}
	for _, p := range gitignores {
		stamp.files = append(stamp.files, statStamp(root, p))
	}
	// A .gitignore of prev is stat'ed twice: the first stat stays.
	slices.SortStableFunc(stamp.files, func(a, b stampFile) int { return strings.Compare(a.path, b.path) })
	stamp.files = slices.CompactFunc(stamp.files, func(a, b stampFile) bool { return a.path == b.path })
	return stamp, dirs
}

// coversFiles reports whether the directory of every file is one of dirs
// (sorted by path).
func coversFiles(dirs []listedDir, files []listedFile) bool {
	last := "\x00"
	for _, f := range files {
		d, _ := splitPath(f.path)
		if d == last {
			continue
		}
		if _, found := slices.BinarySearchFunc(dirs, d, func(a listedDir, p string) int { return strings.Compare(a.path, p) }); !found {
			return false
		}
		last = d
	}
	return true
}

// compareListed orders files by directory, then by name, so that the
// files of one directory are next to each other in a listing.
func compareListed(a, b listedFile) int {
	da, na := splitPath(a.path)
	db, nb := splitPath(b.path)
	if c := strings.Compare(da, db); c != 0 {
		return c
	}
	return strings.Compare(na, nb)
}

// splitPath splits a '/'-separated relative path into its directory ("" at
// the root) and its base name.
func splitPath(p string) (dir, name string) {
	i := strings.LastIndexByte(p, '/')
	if i < 0 {
		return "", p
	}
	return p[:i], p[i+1:]
}

func fileOf(p string, info fs.FileInfo) listedFile {
	return listedFile{path: p, regular: info.Mode().IsRegular(), size: info.Size(), mtime: info.ModTime().UnixNano()}
}

// inEvalrunDir reports whether a listed path lies in an .evalrun directory
// at any depth: a nested project's index, journal and dry-run prompts are
// never indexed, as the walk skips them too.
func inEvalrunDir(p string) bool {
	return strings.HasPrefix(p, ".evalrun/") || strings.Contains(p, "/.evalrun/")
}

// gitFiles runs `git ls-files -z --cached --others --exclude-standard` in
// root. ok is false when root is not in a git work tree or git cannot be run,
// and the caller walks the directory instead.
func gitFiles(ctx context.Context, root string) (paths []string, ok bool, err error) {
	cmd := exec.CommandContext(ctx, "git", "ls-files", "-z", "--cached", "--others", "--exclude-standard")
	cmd.Dir = root
	cmd.Env = gitEnv()
	var stdout bytes.Buffer
	cmd.Stdout = &stdout
	if err := cmd.Run(); err != nil {
		if ctx.Err() != nil {
			return nil, false, ctx.Err()
		}
		// Not a repository, no git, or a repository git refuses to read
		// (safe.directory): fall back to the walk.
		return nil, false, nil
	}
	seen := make(map[string]bool)
	for _, p := range strings.Split(stdout.String(), "\x00") {
		// Unmerged entries are listed once per stage; a nested repository
		// is listed as "dir/".
		if p == "" || seen[p] || strings.HasSuffix(p, "/") {
			continue
		}
		seen[p] = true
		paths = append(paths, p)
	}
	return paths, true, nil
}

// inGitTree reports whether root or one of its parents has a .git entry
// (a directory, or a file in a linked work tree or submodule): only then
// is git asked for the files, which saves starting a process on every
// refresh elsewhere.
func inGitTree(root string) bool {
	for dir := root; ; {
		if _, err := os.Lstat(filepath.Join(dir, ".git")); err == nil {
			return true
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return false
		}
		dir = parent
	}
}

// gitEnv is the environment for git without the variables that would point
// it at another repository than the one containing the root.
func gitEnv() []string {
	env := os.Environ()
	out := env[:0:0]
	for _, kv := range env {
		switch {
		case strings.HasPrefix(kv, "GIT_DIR="), strings.HasPrefix(kv, "GIT_WORK_TREE="),
			strings.HasPrefix(kv, "GIT_INDEX_FILE="):
			continue
		}
		out = append(out, kv)
	}
	return out
}

// walkFiles lists root by walking it, skipping the directories of skipDirs,
// hidden directories and symbolic links to directories. Directories are
// read on several goroutines, and each file's size and time are read
// relative to its open directory (statAt). Each directory's change time is
// read before its entries, for the manifest (manifest.go). The files are
// sorted by directory, then name; the directories by path.
func walkFiles(ctx context.Context, root string, exclude func(string) bool) (listing, error) {
	start := time.Now().UnixNano()
	rootDir, err := os.Open(root)
	if err != nil {
		return listing{}, err
	}
	if _, err := rootDir.ReadDir(1); err != nil && !errors.Is(err, io.EOF) {
		rootDir.Close()
		return listing{}, err
	}
	rootDir.Close()

	// A fixed pool of workers takes directories from a shared stack.
	var (
		mu      sync.Mutex
		cond    = sync.NewCond(&mu)
		stack   = []string{""}
		busy    int
		files   []listedFile
		dirs    []listedDir
		workers sync.WaitGroup
	)
	readDir := func(rel string) (local []listedFile, subdirs []string, ld listedDir, ok bool) {
		dir := filepath.Join(root, filepath.FromSlash(rel))
		f, err := openDir(dir)
		if err != nil {
			// An unreadable directory: it has no entries, and its own
			// change time tells when that may have changed.
			ld = listedDir{path: rel, ctime: pathCtime(dir)}
			return nil, nil, ld, ld.ctime != 0
		}
		defer f.Close()
		fd := dirFD(f)
		ld = listedDir{path: rel, ctime: dirCtime(fd)}
		entries, _ := f.ReadDir(-1)
		for _, d := range entries {
			name := d.Name()
			p := name
			if rel != "" {
				p = rel + "/" + name
			}
			if d.IsDir() {
				if !skipDirs[name] && !strings.HasPrefix(name, ".") {
					subdirs = append(subdirs, p)
				}
				continue
			}
			if exclude(p) {
				continue
			}
			lf, ok := statAt(fd, dir, name)
			if !ok {
				continue // gone since the directory was read
			}
			lf.path = p
			local = append(local, lf)
		}
		return local, subdirs, ld, true
	}
	for range walkWorkers {
		workers.Add(1)
		go func() {
			defer workers.Done()
			mu.Lock()
			defer mu.Unlock()
			for {
				for len(stack) == 0 && busy > 0 {
					cond.Wait()
				}
				if len(stack) == 0 || ctx.Err() != nil {
					cond.Broadcast()
					return
				}
				rel := stack[len(stack)-1]
				stack = stack[:len(stack)-1]
				busy++
				mu.Unlock()
				local, subdirs, ld, ok := readDir(rel)
				mu.Lock()
				busy--
				if ok {
					dirs = append(dirs, ld)
				}
				files = append(files, local...)
				stack = append(stack, subdirs...)
				cond.Broadcast()
			}
		}()
	}
	workers.Wait()
	if err := ctx.Err(); err != nil {
		return listing{}, err
	}
	slices.SortFunc(files, compareListed)
	slices.SortFunc(dirs, func(a, b listedDir) int { return strings.Compare(a.path, b.path) })
	return listing{files: files, dirs: dirs, walked: true, start: start}, nil
}

// walkWorkers is how many directories a walk reads at once.
var walkWorkers = min(4, runtime.NumCPU())

// statOther is statAt where no relative stat exists: Lstat of the path.
func statOther(dir, name string) (listedFile, bool) {
	info, err := os.Lstat(filepath.Join(dir, name))
	if err != nil {
		return listedFile{}, false
	}
	return fileOf("", info), true
}
