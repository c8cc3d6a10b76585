package tools

import (
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/evalrun/evalrun/handler"
	"github.com/evalrun/evalrun/internal/rootfs"
	"github.com/evalrun/evalrun/value"
)

// MaxToolFileBytes is the part of a file system_read_files returns; the rest
// is replaced by a line "[truncated: N more bytes]" (SPEC §13.4, §14.4).
const MaxToolFileBytes = 100 << 10

// errOutsideRoot marks a path outside the project root.
var errOutsideRoot = errors.New("path outside the project root")

// resolve makes p absolute (relative to the working directory), resolves
// its symbolic links and checks that it lies inside the project root
// (SPEC §19). It returns the resolved path. A path that does not exist is
// checked through its deepest existing ancestor: outside the root it gives
// errOutsideRoot, inside it the resolution error (wrapping fs.ErrNotExist).
func (t *Tools) resolve(p string) (string, error) {
	abs := p
	if !filepath.IsAbs(abs) {
		abs = filepath.Join(t.workDir, abs)
	}
	abs = filepath.Clean(abs)
	real, err := filepath.EvalSymlinks(abs)
	if err != nil {
		if !t.inside(resolveExisting(abs)) {
			return "", errOutsideRoot
		}
		return "", err
	}
	if !t.inside(real) {
		return "", errOutsideRoot
	}
	return real, nil
}

// resolveExisting resolves the symbolic links of the deepest existing
// ancestor of abs and appends the rest of the path.
func resolveExisting(abs string) string {
	dir, rest := abs, ""
	for {
		if real, err := filepath.EvalSymlinks(dir); err == nil {
			return filepath.Join(real, rest)
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return abs
		}
		rest = filepath.Join(filepath.Base(dir), rest)
		dir = parent
	}
}

// inside reports whether the absolute path p is the root or below it.
func (t *Tools) inside(p string) bool {
	rel, err := filepath.Rel(t.root, p)
	if err != nil {
		return false
	}
	return rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel)
}

func outsideRoot(path string) *value.TaskResult {
	return value.Failed(handler.ReasonInputValidation, "path outside the project root: "+path, nil)
}

// readFiles implements system_read_files.
func (t *Tools) readFiles(ctx context.Context, params *value.Dict) *value.TaskResult {
	paths := paramStrings(params, "file_paths")
	var b strings.Builder
	var skipped value.List
	for _, p := range paths {
		if ctx.Err() != nil {
			return value.Failed(handler.ReasonExecutionHalted, "cancelled", nil)
		}
		real, err := t.resolve(p)
		if errors.Is(err, errOutsideRoot) {
			return outsideRoot(p)
		}
		var text string
		if err == nil {
			text, err = readText(t.root, real)
		}
		if err != nil {
			skipped = append(skipped, value.String(p))
			continue
		}
		rel, _ := filepath.Rel(t.root, real)
		b.WriteString("--- File: ")
		b.WriteString(filepath.ToSlash(rel))
		b.WriteString(" ---\n")
		b.WriteString(text)
		b.WriteByte('\n')
	}
	b.WriteString("--- End of Files ---")
	notes := value.NewDict(1)
	if len(skipped) > 0 {
		notes.Set("skipped_files", skipped)
	}
	return complete(b.String(), notes)
}

// errBinary marks a file that is not text.
var errBinary = errors.New("binary file")

// readText reads a text file, at most MaxToolFileBytes of it, followed by
// "\n[truncated: N more bytes]" when it is longer. Directories and binary
// files (a NUL byte or invalid UTF-8 in the first 8 KiB) are errors, and so
// is anything else that is not a regular file. The path, checked by
// resolve, is opened through rootfs inside root, so that a symbolic link
// swapped in since cannot lead outside it.
func readText(root, path string) (string, error) {
	f, err := rootfs.Open(root, path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return "", err
	}
	if info.IsDir() {
		return "", errors.New("is a directory")
	}
	if !info.Mode().IsRegular() {
		return "", errors.New("not a regular file")
	}
	buf := make([]byte, MaxToolFileBytes+1)
	n, err := io.ReadFull(f, buf)
	if err != nil && !errors.Is(err, io.ErrUnexpectedEOF) && !errors.Is(err, io.EOF) {
		return "", err
	}
	buf = buf[:n]
	if isBinary(buf) {
		return "", errBinary
	}
	if n <= MaxToolFileBytes {
		return string(buf), nil
	}
	cut := MaxToolFileBytes
	for cut > 0 && !utf8.RuneStart(buf[cut]) {
		cut--
	}
	rest := info.Size() - int64(cut)
	if rest <= 0 { // the file grew or shrank while reading
		rest = int64(n - cut)
	}
	return string(buf[:cut]) + "\n[truncated: " + strconv.FormatInt(rest, 10) + " more bytes]", nil
}

// isBinary reports whether data starts like a binary file: a NUL byte or
// invalid UTF-8 in the first 8 KiB (SPEC §15.1).
func isBinary(data []byte) bool {
	head := data[:min(len(data), 8<<10)]
	if slices.Contains(head, 0) {
		return true
	}
	for i := 0; i < len(head); {
		r, size := utf8.DecodeRune(head[i:])
		if r == utf8.RuneError && size == 1 {
			// A sequence cut by the 8 KiB window is not an error.
			return len(data) == len(head) || utf8.FullRune(head[i:])
		}
		i += size
	}
	return false
}

// listDirectory implements system_list_directory.
func (t *Tools) listDirectory(ctx context.Context, params *value.Dict) *value.TaskResult {
	p, _ := paramString(params, "directory_path")
	real, err := t.resolve(p)
	if errors.Is(err, errOutsideRoot) {
		return outsideRoot(p)
	}
	var entries []os.DirEntry
	if err == nil {
		entries, err = readDir(t.root, real)
	}
	if err != nil {
		return value.Failed(handler.ReasonToolExecution, "cannot list directory "+p+": "+handler.PathReason(err), nil)
	}
	names := make([]string, 0, len(entries))
	for _, e := range entries {
		names = append(names, e.Name())
	}
	slices.Sort(names)
	list := make(value.List, len(names))
	for i, name := range names {
		if isDir(filepath.Join(real, name)) {
			name += "/"
		}
		list[i] = value.String(name)
	}
	return complete(value.JSON(list), value.NewDict(0))
}

// readDir reads the directory dir, checked by resolve, through rootfs.
func readDir(root, dir string) ([]os.DirEntry, error) {
	f, err := rootfs.Open(root, dir)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return f.ReadDir(-1)
}

// isDir reports whether path is a directory, following a symbolic link.
func isDir(path string) bool {
	info, err := os.Stat(path)
	return err == nil && info.IsDir()
}
