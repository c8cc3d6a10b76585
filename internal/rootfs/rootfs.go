// Package rootfs opens files that a check has placed inside the project
// root, through an os.Root, so that a symbolic link swapped into the path
// between the check and the open cannot lead outside the root (SPEC §19).
//
//	f, err := rootfs.Open(root, "/project/src/a.go")
package rootfs

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"syscall"
)

// ErrOutside is the error for a path that does not lie inside the root.
var ErrOutside = errors.New("path outside the project root")

// Rel returns p relative to root, both absolute and clean, and whether p
// lies in or at root.
func Rel(root, p string) (string, bool) {
	rel, err := filepath.Rel(root, p)
	if err != nil || !(rel == "." || filepath.IsLocal(rel)) {
		return "", false
	}
	return rel, true
}

// Open opens the file or directory p for reading; p is absolute, lies
// inside root and has had its symbolic links resolved when it was checked
// (filepath.EvalSymlinks). The open goes through an os.Root at root: a
// symbolic link found on the way now — swapped in after the check — is
// followed only when it is relative and stays inside root (os.Root refuses
// absolute links and links out of it). A FIFO is opened without
// blocking, so that one swapped in cannot hang the reader.
func Open(root, p string) (*os.File, error) {
	rel, ok := Rel(root, p)
	if !ok {
		return nil, ErrOutside
	}
	r, err := os.OpenRoot(root)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	return r.OpenFile(rel, os.O_RDONLY|syscall.O_NONBLOCK, 0)
}

// ReadFile reads the whole file p (as Open).
func ReadFile(root, p string) ([]byte, error) {
	f, err := Open(root, p)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !info.Mode().IsRegular() {
		return nil, errors.New("not a regular file")
	}
	return io.ReadAll(f)
}
