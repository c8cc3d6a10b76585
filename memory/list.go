package memory

import (
	"bytes"
	"context"
	"errors"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// listedFile is one file the listing found, before any content is read.
type listedFile struct {
	path    string // relative to the root, '/'-separated
	regular bool   // a regular file (not a symlink, directory or device)
	size    int64
	mtime   int64 // nanoseconds since the epoch
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
func listFiles(ctx context.Context, root string, exclude func(string) bool) ([]listedFile, error) {
	paths, ok, err := gitFiles(ctx, root)
	if err != nil {
		return nil, err
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
	return files, nil
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
// hidden directories and symbolic links to directories.
func walkFiles(ctx context.Context, root string, exclude func(string) bool) ([]listedFile, error) {
	var files []listedFile
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if p == root {
				return err
			}
			if d != nil && d.IsDir() {
				return fs.SkipDir // an unreadable directory
			}
			return nil
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		if p == root {
			return nil
		}
		name := d.Name()
		if d.IsDir() {
			if skipDirs[name] || strings.HasPrefix(name, ".") {
				return fs.SkipDir
			}
			return nil
		}
		rel, err := filepath.Rel(root, p)
		if err != nil {
			return nil
		}
		rel = filepath.ToSlash(rel)
		if exclude(rel) {
			return nil
		}
		info, err := d.Info()
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return nil
			}
			return err
		}
		files = append(files, fileOf(rel, info))
		return nil
	})
	return files, err
}
