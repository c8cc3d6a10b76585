package tasksystem

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"unicode/utf8"

	"github.com/evalrun/evalrun/internal/rootfs"
)

// File size limits (SPEC §12.4, §13.4, §15.1).
const (
	// MaxContextFileBytes is the most of a context file delivered to the
	// model (100 KiB); the rest is replaced by a line
	// "[truncated: N more bytes]".
	MaxContextFileBytes = 100 << 10
	// MaxTemplateFileBytes is the largest <file> a template may read
	// (1 MiB).
	MaxTemplateFileBytes = 1 << 20
	// binarySniffBytes is how much of a file is checked for a NUL byte or
	// invalid UTF-8.
	binarySniffBytes = 8 << 10
)

// Path resolution failures. The messages of the task failures name the path
// as written.
var (
	errNotFound   = errors.New("file not found")
	errOutside    = errors.New("path outside the project root")
	errNotRegular = errors.New("not a regular file")
	errBinary     = errors.New("binary file")
)

// pathError is a failed resolution or read of one path.
type pathError struct {
	given string // the path as written
	err   error  // errNotFound, errOutside, errNotRegular, errBinary or an I/O error
}

func (e *pathError) Error() string {
	switch e.err {
	case errNotFound, errOutside, errNotRegular:
		return e.err.Error() + ": " + e.given
	}
	return "cannot read " + e.given + ": " + e.err.Error()
}

func (e *pathError) Unwrap() error { return e.err }

// fileRoots resolves the paths a task reads (SPEC §12.4, §19): relative
// paths against the working directory (or, for memory matches, the project
// root), and every path must lie inside the project root once symbolic links
// are resolved, unless the caller allows otherwise (--files).
type fileRoots struct {
	root     string // the project root, absolute and clean
	rootReal string // root with symbolic links resolved
	workDir  string // absolute and clean
}

// newFileRoots makes root and workDir absolute; "" means the current
// directory.
func newFileRoots(root, workDir string) fileRoots {
	abs := func(p string) string {
		if p == "" {
			p = "."
		}
		if a, err := filepath.Abs(p); err == nil {
			return a
		}
		return filepath.Clean(p)
	}
	r := fileRoots{root: abs(root), workDir: abs(workDir)}
	r.rootReal = r.root
	if real, err := filepath.EvalSymlinks(r.root); err == nil {
		r.rootReal = real
	}
	return r
}

// resolvedPath is a path checked by resolve.
type resolvedPath struct {
	given   string // as written
	abs     string // absolute, lexically cleaned, symbolic links kept
	real    string // symbolic links resolved
	display string // relative to the root with "/" when inside it, else abs
	root    string // the root (symbolic links resolved) real lies in, else ""
}

// within reports whether path p lies in or at dir; both are clean and
// absolute.
func within(p, dir string) bool {
	rel, err := filepath.Rel(dir, p)
	if err != nil {
		return false
	}
	return rel == "." || (rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)))
}

// resolve resolves the path given, relative to base when it is not absolute.
// A path that does not exist is errNotFound, unless it already lies outside
// the root lexically, which is errOutside; an existing path whose target
// lies outside the root is errOutside unless outsideOK.
func (r fileRoots) resolve(given, base string, outsideOK bool) (resolvedPath, error) {
	p := resolvedPath{given: given}
	if filepath.IsAbs(given) {
		p.abs = filepath.Clean(given)
	} else {
		p.abs = filepath.Join(base, given)
	}
	inside := within(p.abs, r.root) || within(p.abs, r.rootReal)
	real, err := filepath.EvalSymlinks(p.abs)
	if err != nil {
		if !outsideOK && !inside {
			return p, &pathError{given, errOutside}
		}
		if errors.Is(err, fs.ErrNotExist) || isNotDir(err) {
			return p, &pathError{given, errNotFound}
		}
		return p, &pathError{given, err}
	}
	p.real = real
	if within(real, r.rootReal) {
		p.root = r.rootReal
	} else if !outsideOK {
		return p, &pathError{given, errOutside}
	}
	p.display = r.display(p)
	return p, nil
}

// isNotDir reports whether err says that a path component is not a
// directory (ENOTDIR), which means the path does not exist.
func isNotDir(err error) bool { return errors.Is(err, syscall.ENOTDIR) }

// display returns the path shown to the model: relative to the project root
// with "/" separators when the path lies inside it, else absolute.
func (r fileRoots) display(p resolvedPath) string {
	for _, c := range [][2]string{{p.abs, r.root}, {p.abs, r.rootReal}, {p.real, r.rootReal}} {
		if c[0] != "" && within(c[0], c[1]) {
			if rel, err := filepath.Rel(c[1], c[0]); err == nil {
				return filepath.ToSlash(rel)
			}
		}
	}
	return p.abs
}

// readContextFile reads a resolved context file for delivery (SPEC §13.4):
// at most MaxContextFileBytes, the rest replaced by a line
// "[truncated: N more bytes]". A binary file (a NUL byte or invalid UTF-8 in
// its first 8 KiB) is errBinary; anything but a regular file is
// errNotRegular.
func readContextFile(p resolvedPath) (string, error) {
	data, size, err := readCapped(p, MaxContextFileBytes)
	if err != nil {
		return "", err
	}
	if isBinary(data) {
		return "", &pathError{p.given, errBinary}
	}
	if int64(len(data)) >= size {
		return string(data), nil
	}
	kept := cutAtRune(data)
	return withFinalLine(string(kept), fmt.Sprintf("[truncated: %d more bytes]", size-int64(len(kept)))), nil
}

// readTemplateFile reads a template's <file> whole (SPEC §12.4); a file over
// MaxTemplateFileBytes fails with "file too large: PATH (N bytes)".
func readTemplateFile(p resolvedPath) (string, error) {
	data, size, err := readCapped(p, MaxTemplateFileBytes)
	if err != nil {
		return "", err
	}
	if size > MaxTemplateFileBytes || int64(len(data)) < size {
		return "", fmt.Errorf("file too large: %s (%d bytes)", p.given, max(size, int64(len(data))))
	}
	return string(data), nil
}

// readCapped reads up to limit bytes of a regular file plus one byte to
// detect a file that grew, and returns them with the file's size.
// A file inside the root is opened through rootfs, so that a symbolic link
// swapped into its path after resolve cannot lead outside the root; a FIFO
// is opened without blocking and refused.
func readCapped(p resolvedPath, limit int64) ([]byte, int64, error) {
	var f *os.File
	var err error
	if p.root != "" {
		f, err = rootfs.Open(p.root, p.real)
	} else {
		f, err = os.OpenFile(p.real, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	}
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, 0, &pathError{p.given, errNotFound}
		}
		return nil, 0, &pathError{p.given, err}
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return nil, 0, &pathError{p.given, err}
	}
	if !info.Mode().IsRegular() {
		return nil, 0, &pathError{p.given, errNotRegular}
	}
	data, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, 0, &pathError{p.given, err}
	}
	size := max(info.Size(), int64(len(data)))
	if int64(len(data)) > limit {
		data = data[:limit]
	}
	return data, size, nil
}

// isBinary reports whether data looks binary: a NUL byte or invalid UTF-8 in
// its first 8 KiB (SPEC §15.1). A code point cut by the 8 KiB boundary does
// not count.
func isBinary(data []byte) bool {
	head := data
	if len(head) > binarySniffBytes {
		head = cutAtRune(head[:binarySniffBytes])
	}
	return bytes.IndexByte(head, 0) >= 0 || !utf8.Valid(head)
}

// cutAtRune drops an incomplete UTF-8 sequence at the end of b, so that a
// cut never splits a code point.
func cutAtRune(b []byte) []byte {
	for i := len(b) - 1; i >= 0 && i >= len(b)-utf8.UTFMax; i-- {
		if utf8.RuneStart(b[i]) {
			if !utf8.FullRune(b[i:]) {
				return b[:i]
			}
			break
		}
	}
	return b
}

// withFinalLine appends line to text as a line of its own: after a line
// feed, which is added when text does not end with one. No line feed follows
// it.
func withFinalLine(text, line string) string {
	if text != "" && !strings.HasSuffix(text, "\n") {
		text += "\n"
	}
	return text + line
}
