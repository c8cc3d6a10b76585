package main

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"

	"github.com/evalrun/evalrun/sexp"
)

// format implements "evalrun fmt [-w] FILE..." (SPEC §17.5). Without -w the
// formatted text of each file goes to stdout. With -w a file is rewritten only
// when its formatting changes: the new text is written to a temporary file in
// the same directory, given the original's permissions and renamed over it,
// so that an interrupted fmt never leaves a half-written file. A file with a
// syntax error is reported and left untouched (exit 3); an unreadable file is
// exit 2. Every file is processed even when an earlier one fails.
func (a *app) format(files []string, write bool) int {
	code := exitOK
	fail := func(c int) {
		if code == exitOK || c == exitUsage {
			code = c
		}
	}
	for _, name := range files {
		if write && name == "-" {
			a.errorf("cannot rewrite standard input; use fmt without -w")
			fail(exitUsage)
			continue
		}
		text, err := a.readFile(name)
		if err != nil {
			a.errorf("cannot read %s: %v", name, reason(err))
			fail(exitUsage)
			continue
		}
		srcName := name
		if name == "-" {
			srcName = stdinName
		}
		out, err := sexp.Format(sexp.NewSource(srcName, text))
		if err != nil {
			a.reportError(err)
			fail(exitSyntax)
			continue
		}
		if !write {
			a.stdout.Write(out)
			continue
		}
		if bytes.Equal(out, []byte(text)) {
			continue
		}
		if err := writeFileAtomic(name, out); err != nil {
			a.errorf("cannot write %s: %v", name, err)
			fail(exitUsage)
		}
	}
	return code
}

// writeFileAtomic replaces the file at name (following symbolic links) with
// data: it writes a temporary file in the same directory with the same
// permissions and renames it over the original.
func writeFileAtomic(name string, data []byte) (err error) {
	target, err := filepath.EvalSymlinks(name)
	if err != nil {
		return reason(err)
	}
	info, err := os.Stat(target)
	if err != nil {
		return reason(err)
	}
	if !info.Mode().IsRegular() {
		return errors.New("not a regular file")
	}
	dir, base := filepath.Split(target)
	if dir == "" {
		dir = "."
	}
	tmp, err := os.CreateTemp(dir, "."+base+".fmt-*")
	if err != nil {
		return reason(err)
	}
	defer func() {
		if err != nil {
			tmp.Close()
			os.Remove(tmp.Name())
		}
	}()
	if err := tmp.Chmod(info.Mode().Perm()); err != nil {
		return reason(err)
	}
	if _, err := io.Copy(tmp, bytes.NewReader(data)); err != nil {
		return reason(err)
	}
	if err := tmp.Sync(); err != nil {
		return reason(err)
	}
	if err := tmp.Close(); err != nil {
		return reason(err)
	}
	if err := os.Rename(tmp.Name(), target); err != nil {
		return reason(err)
	}
	return nil
}
