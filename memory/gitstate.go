package memory

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
)

// gitStamp is the state a git listing depends on besides the tree's
// directories and files: the environment that selects git's
// configuration, and the stats of the index, the exclude files and every
// configuration file (see manifest.go).
type gitStamp struct {
	env     string      // gitEnvKey when the listing was made
	files   []stampFile // sorted by path
	ignored []string    // the directories of ignoredDirs, sorted
}

// stampFile is the stat of one file a git listing depends on; a file that
// did not exist has size -1 and zero times.
type stampFile struct {
	path         string // absolute, or relative to the root
	size         int64
	mtime, ctime int64
}

// gitEnvKey returns the environment variables that choose which
// configuration and exclude files git reads: a refresh under another
// environment lists again.
func gitEnvKey() string {
	var keep []string
	for _, kv := range gitEnv() {
		if strings.HasPrefix(kv, "GIT_") || strings.HasPrefix(kv, "HOME=") ||
			strings.HasPrefix(kv, "XDG_CONFIG_HOME=") {
			keep = append(keep, kv)
		}
	}
	slices.Sort(keep)
	return strings.Join(keep, "\x00")
}

// statStamp reads the stat of path (relative paths are under root).
func statStamp(root, path string) stampFile {
	p := path
	if !filepath.IsAbs(p) {
		p = filepath.Join(root, filepath.FromSlash(p))
	}
	// A symbolic link (a dotfile kept elsewhere) is followed: what git
	// reads is the target.
	size, mtime, ctime, ok := statFollow(p)
	if !ok {
		return stampFile{path: path, size: -1}
	}
	return stampFile{path: path, size: size, mtime: mtime, ctime: ctime}
}

// gitStateFiles returns the files besides the tree's .gitignore files
// whose contents can change what `git ls-files --exclude-standard` lists
// in root, whose .git is a directory: the index, info/exclude, the
// repository's configuration, the global and system configuration files
// wherever git would look for them, every file git read a setting from
// and every included file, existing or not, and the global excludes file. ok is false when git
// cannot report its configuration.
func gitStateFiles(ctx context.Context, root string) (paths []string, ok bool) {
	if os.Getenv("GIT_COMMON_DIR") != "" {
		return nil, false // the state is not in root's .git
	}
	out, ok := runGit(ctx, root, nil, 0, "config", "-z", "--list", "--show-origin")
	if !ok {
		return nil, false
	}
	home, _ := os.UserHomeDir()
	xdg := os.Getenv("XDG_CONFIG_HOME")
	if xdg == "" && home != "" {
		xdg = filepath.Join(home, ".config")
	}
	// HEAD: a configuration may include a file only on some branch.
	paths = []string{".git/index", ".git/info/exclude", ".git/config", ".git/config.worktree", ".git/HEAD"}
	if g := os.Getenv("GIT_CONFIG_GLOBAL"); g != "" {
		paths = append(paths, g)
	} else if home != "" {
		paths = append(paths, filepath.Join(home, ".gitconfig"))
	}
	if xdg != "" {
		paths = append(paths, filepath.Join(xdg, "git", "config"))
	}
	if s := os.Getenv("GIT_CONFIG_SYSTEM"); s != "" {
		paths = append(paths, s)
	} else {
		// The system file is PREFIX/etc/gitconfig, /etc/gitconfig for a
		// git installed under /usr.
		paths = append(paths, "/etc/gitconfig")
		if bin, err := exec.LookPath("git"); err == nil {
			if bin, err = filepath.EvalSymlinks(bin); err == nil {
				paths = append(paths, filepath.Join(filepath.Dir(filepath.Dir(bin)), "etc", "gitconfig"))
			}
		}
	}
	if xdg != "" {
		paths = append(paths, filepath.Join(xdg, "git", "ignore"))
	}
	// expand resolves a path value of a setting as git does; ok is false
	// for a form git would resolve elsewhere.
	expand := func(value, relTo string) (string, bool) {
		if rest, ok := strings.CutPrefix(value, "~/"); ok && home != "" {
			return filepath.Join(home, rest), true
		}
		if strings.HasPrefix(value, "~") || strings.HasPrefix(value, "%(") {
			return "", false // another user's home, or git's prefix
		}
		if !filepath.IsAbs(value) {
			value = filepath.Join(relTo, value)
		}
		return value, true
	}
	excludes := ""
	// Each record is "file:PATH" NUL "key" LF "value" NUL.
	fields := strings.Split(out, "\x00")
	for i := 0; i+1 < len(fields); i += 2 {
		origin, kv := fields[i], fields[i+1]
		file := ""
		if p, isFile := strings.CutPrefix(origin, "file:"); isFile {
			if !filepath.IsAbs(p) {
				p = filepath.Join(root, p)
			}
			paths = append(paths, p)
			file = p
		} else if origin != "command line:" {
			return nil, false // a blob or standard input: no file to stat
		}
		key, value, _ := strings.Cut(kv, "\n")
		switch {
		case key == "core.excludesfile":
			// Relative to the work tree, where git runs.
			if excludes, ok = expand(value, root); !ok {
				return nil, false
			}
		case key == "include.path" || strings.HasPrefix(key, "includeif.") && strings.HasSuffix(key, ".path"):
			// An included file that does not exist yet is read once it
			// does; a relative one is relative to the including file.
			if file == "" {
				return nil, false
			}
			p, ok := expand(value, filepath.Dir(file))
			if !ok {
				return nil, false
			}
			paths = append(paths, p)
		}
	}
	if excludes != "" {
		paths = append(paths, excludes)
	}
	slices.Sort(paths)
	return slices.Compact(paths), true
}

// ignoredDirs returns the directories (relative, '/'-separated, without
// the trailing slash) that an ignore pattern matches as a whole in root:
// git does not look into them for untracked files, so a walk for the
// manifest skips them. (`git ls-files --directory` also names a directory
// whose files are all ignored, into which a new file may come that is not:
// `git check-ignore` keeps only those a pattern matches.) ok is false when
// git cannot be run.
func ignoredDirs(ctx context.Context, root string) (dirs map[string]bool, ok bool) {
	out, ok := runGit(ctx, root, nil, 0, "ls-files", "-z", "--others", "--ignored", "--exclude-standard", "--directory")
	if !ok {
		return nil, false
	}
	var candidates []byte
	for _, p := range strings.Split(out, "\x00") {
		if strings.HasSuffix(p, "/") && p != "/" {
			candidates = append(append(candidates, p...), 0)
		}
	}
	dirs = make(map[string]bool)
	if len(candidates) == 0 {
		return dirs, true
	}
	// check-ignore exits with 1 when it matched nothing.
	out, ok = runGit(ctx, root, candidates, 1, "check-ignore", "-z", "--stdin")
	if !ok {
		return nil, false
	}
	for _, p := range strings.Split(out, "\x00") {
		if d, isDir := strings.CutSuffix(p, "/"); isDir && d != "" {
			dirs[d] = true
		}
	}
	return dirs, true
}

// runGit runs git with args in root, with stdin as its input, and returns
// its output; an exit code other than 0 or okCode is a failure.
func runGit(ctx context.Context, root string, stdin []byte, okCode int, args ...string) (string, bool) {
	cmd := exec.CommandContext(ctx, "git", args...)
	cmd.Dir = root
	cmd.Env = gitEnv()
	if stdin != nil {
		cmd.Stdin = bytes.NewReader(stdin)
	}
	var stdout bytes.Buffer
	cmd.Stdout = &stdout
	if err := cmd.Run(); err != nil {
		var exit *exec.ExitError
		if okCode == 0 || !errors.As(err, &exit) || exit.ExitCode() != okCode {
			return "", false
		}
	}
	return stdout.String(), true
}

// stampOK reports whether every file of st still has its recorded stat and
// the environment is the same.
func (st *gitStamp) stampOK(root string) bool {
	if st.env != gitEnvKey() {
		return false
	}
	for _, f := range st.files {
		if statStamp(root, f.path) != f {
			return false
		}
	}
	return true
}

// gitDirAtRoot reports whether root holds its repository's .git directory:
// the only layout whose state gitStateFiles knows (a linked work tree, a
// submodule or a root below the top of the work tree always lists again).
func gitDirAtRoot(root string) bool {
	info, err := os.Lstat(filepath.Join(root, ".git"))
	return err == nil && info.IsDir()
}

// gitTreeDirs walks root for the manifest of a git listing: every
// directory git may list a file from, with the ctime it had before its
// entries were read, and the .gitignore files in them. It skips .git and
// .evalrun directories, the directories of ignored, and does not enter a
// directory holding a .git entry (a nested repository or submodule, whose
// files git does not list). ok is false when a directory's ctime cannot
// be read.
func gitTreeDirs(ctx context.Context, root string, ignored map[string]bool) (dirs []listedDir, gitignores []string, ok bool) {
	stack := []string{""}
	for len(stack) > 0 {
		if ctx.Err() != nil {
			return nil, nil, false
		}
		rel := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		dir := filepath.Join(root, filepath.FromSlash(rel))
		f, err := openDir(dir)
		if err != nil {
			return nil, nil, false
		}
		ctime := dirCtime(dirFD(f))
		entries, err := f.ReadDir(-1)
		f.Close()
		if err != nil || ctime == 0 {
			return nil, nil, false
		}
		dirs = append(dirs, listedDir{path: rel, ctime: ctime})
		var subdirs []string
		nested := false
		for _, d := range entries {
			name := d.Name()
			p := name
			if rel != "" {
				p = rel + "/" + name
			}
			switch {
			case name == ".git":
				nested = rel != ""
			case name == ".gitignore":
				gitignores = append(gitignores, p)
			case d.IsDir() && name != ".evalrun" && !ignored[p]:
				subdirs = append(subdirs, p)
			}
		}
		if !nested {
			stack = append(stack, subdirs...)
		}
	}
	slices.SortFunc(dirs, func(a, b listedDir) int { return strings.Compare(a.path, b.path) })
	return dirs, gitignores, true
}
