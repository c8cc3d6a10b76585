package memory

import (
	"bytes"
	"encoding/binary"
	"errors"
	"time"
)

// The manifest is the listing the last update saw, stored in one BLOB of
// the stats row so that a refresh reads it in one go. It records, per
// directory in path order, the directory's path, its number of files and
// the change time (ctime) it had just before the walk read its entries,
// and per file, directory by directory and by name, its name, whether it
// is regular, its size and its modification time.
//
// A directory's ctime moves whenever an entry is created, removed or
// renamed in it (and on chmod, chown and utimes of the directory itself);
// a file edited in place keeps its directory's ctime but gets a new size
// or modification time. So when every directory of a walked manifest
// still has its ctime and every file its type, size and time, a new walk
// would list exactly the manifest: the refresh checks that (verifyManifest:
// one fstat per directory and one fstatat per file, no directory read)
// instead of walking. A ctime is trusted only when it is older than the
// walk by racyMargin, so that a change made in the same tick of the
// kernel's clock as the walk's read of the directory cannot be missed.
// (This compares the file system's clock with the local one: on a network
// file system whose clock runs more than racyMargin behind, a change made
// within one tick of the walk could pass unseen until the directory
// changes again.)
//
// A git listing can be trusted the same way when it also recorded the
// state git read (gitStamp, gitstate.go) and, as its directories, every
// directory git may list a file from: then a listing now would be the
// same when that state, every directory's ctime and every file's stat
// are unchanged. Its recorded ctimes follow the same racyMargin rule.
//
// Layout: manifestMagic, uvarint flags (manifestWalked or manifestGit),
// varint start of the listing (ns), uvarint-prefixed database path
// relative to the root, for manifestGit the git state (uvarint-prefixed
// environment key, uvarint count, per file uvarint-prefixed path and
// varints size, modification time, ctime, uvarint count of ignored
// directories, each uvarint-prefixed), then three sections, each but the last prefixed by its length in bytes:
// dirs (per directory: uvarint-prefixed path, uvarint file count), ctimes
// (a varint per directory) and files (per file: uvarint-prefixed name, a
// byte 1 for regular or 0, varint size, varint time). Two manifests list
// the same files when their dirs and files sections are equal.
const manifestMagic = "\xefM1"

// manifestWalked marks a manifest made by a walk (not by git);
// manifestGit one made by git with the state it depended on (gitStamp).
// These are the kinds verifyManifest may trust.
const (
	manifestWalked = 1
	manifestGit    = 2
)

// racyMargin is how much older than the walk a directory's ctime must be
// to be trusted: far more than the tick of any clock that stamps it.
var racyMargin = 2 * time.Second

// manifest is a decoded manifest; its slices point into the stored BLOB.
type manifest struct {
	walked bool
	git    *gitStamp // the git state of a manifestGit manifest
	start  int64
	dbRel  string
	dirs   []manifestDir
	dirSec []byte // the dirs section
	files  []byte // the files section
}

// manifestDir is one directory of a manifest.
type manifestDir struct {
	path   string
	nfiles int
	ctime  int64
	off    int // where its files start in the files section
}

var errBadManifest = errors.New("malformed manifest")

// encodeManifest returns the stored form of a listing; dbRel is the
// database's path relative to the root ('/'-separated), which the listing
// leaves out. A git listing without its git state (listing.git) has no
// directories of its own: its files are grouped by their directories,
// with no ctime and no start time, so that the same files give the same
// bytes.
func encodeManifest(l listing, dbRel string) []byte {
	dirs := l.dirs
	if dirs == nil {
		dirs = nil
		for _, f := range l.files {
			d, _ := splitPath(f.path)
			if len(dirs) == 0 || dirs[len(dirs)-1].path != d {
				dirs = append(dirs, listedDir{path: d})
			}
		}
	}
	counts := make([]int, len(dirs))
	i := 0
	for di, d := range dirs {
		for i < len(l.files) {
			fd, _ := splitPath(l.files[i].path)
			if fd != d.path {
				break
			}
			counts[di]++
			i++
		}
	}
	// A walk lists files only in the directories it read, in the same
	// order: every file has been counted.
	var dirSec, ctimes, files []byte
	for di, d := range dirs {
		dirSec = binary.AppendUvarint(dirSec, uint64(len(d.path)))
		dirSec = append(dirSec, d.path...)
		dirSec = binary.AppendUvarint(dirSec, uint64(counts[di]))
		ctimes = binary.AppendVarint(ctimes, d.ctime)
	}
	files = make([]byte, 0, len(l.files)*24)
	for _, f := range l.files[:i] {
		_, name := splitPath(f.path)
		files = binary.AppendUvarint(files, uint64(len(name)))
		files = append(files, name...)
		if f.regular {
			files = append(files, 1)
		} else {
			files = append(files, 0)
		}
		files = binary.AppendVarint(files, f.size)
		files = binary.AppendVarint(files, f.mtime)
	}
	out := make([]byte, 0, len(manifestMagic)+32+len(dbRel)+len(dirSec)+len(ctimes)+len(files))
	out = append(out, manifestMagic...)
	flags, start := uint64(0), int64(0)
	if l.walked {
		flags, start = manifestWalked, l.start
	} else if l.git != nil {
		flags, start = manifestGit, l.start
	}
	out = binary.AppendUvarint(out, flags)
	out = binary.AppendVarint(out, start)
	out = binary.AppendUvarint(out, uint64(len(dbRel)))
	out = append(out, dbRel...)
	if l.git != nil && !l.walked {
		out = binary.AppendUvarint(out, uint64(len(l.git.env)))
		out = append(out, l.git.env...)
		out = binary.AppendUvarint(out, uint64(len(l.git.files)))
		for _, f := range l.git.files {
			out = binary.AppendUvarint(out, uint64(len(f.path)))
			out = append(out, f.path...)
			out = binary.AppendVarint(out, f.size)
			out = binary.AppendVarint(out, f.mtime)
			out = binary.AppendVarint(out, f.ctime)
		}
		out = binary.AppendUvarint(out, uint64(len(l.git.ignored)))
		for _, d := range l.git.ignored {
			out = binary.AppendUvarint(out, uint64(len(d)))
			out = append(out, d...)
		}
	}
	out = binary.AppendUvarint(out, uint64(len(dirSec)))
	out = append(out, dirSec...)
	out = binary.AppendUvarint(out, uint64(len(ctimes)))
	out = append(out, ctimes...)
	return append(out, files...)
}

// decodeManifest decodes a stored manifest. A BLOB of an older format is
// errBadManifest, and the refresh walks.
func decodeManifest(b []byte) (*manifest, error) {
	if !bytes.HasPrefix(b, []byte(manifestMagic)) {
		return nil, errBadManifest
	}
	r := manifestReader{b: b, i: len(manifestMagic)}
	m := &manifest{}
	flags := r.uvarint()
	m.walked = flags&manifestWalked != 0
	m.start = r.varint()
	m.dbRel = string(r.bytes(int(r.uvarint())))
	if flags&manifestGit != 0 && !m.walked {
		m.git = &gitStamp{env: string(r.bytes(int(r.uvarint())))}
		n := r.uvarint()
		for i := uint64(0); i < n && !r.bad; i++ {
			f := stampFile{path: string(r.bytes(int(r.uvarint())))}
			f.size, f.mtime, f.ctime = r.varint(), r.varint(), r.varint()
			m.git.files = append(m.git.files, f)
		}
		n = r.uvarint()
		for i := uint64(0); i < n && !r.bad; i++ {
			m.git.ignored = append(m.git.ignored, string(r.bytes(int(r.uvarint()))))
		}
	}
	m.dirSec = r.bytes(int(r.uvarint()))
	ctimes := manifestReader{b: r.bytes(int(r.uvarint()))}
	m.files = b[min(r.i, len(b)):]
	if r.bad {
		return nil, errBadManifest
	}
	dr := manifestReader{b: m.dirSec}
	fr := manifestReader{b: m.files}
	for dr.i < len(dr.b) && !dr.bad {
		d := manifestDir{path: string(dr.bytes(int(dr.uvarint()))), nfiles: int(dr.uvarint()), ctime: ctimes.varint(), off: fr.i}
		for range d.nfiles {
			fr.skipFile()
		}
		m.dirs = append(m.dirs, d)
	}
	if dr.bad || ctimes.bad || fr.bad || ctimes.i != len(ctimes.b) || fr.i != len(fr.b) {
		return nil, errBadManifest
	}
	return m, nil
}

// sameFiles reports whether two manifests list the same files with the same
// types, sizes and times (their ctimes and start times aside).
// Directories without files are left aside: a git listing records them
// only when it can be trusted.
func sameFiles(a, b *manifest) bool {
	if !bytes.Equal(a.files, b.files) {
		return false
	}
	if bytes.Equal(a.dirSec, b.dirSec) {
		return true
	}
	i, j := 0, 0
	for {
		for i < len(a.dirs) && a.dirs[i].nfiles == 0 {
			i++
		}
		for j < len(b.dirs) && b.dirs[j].nfiles == 0 {
			j++
		}
		if i == len(a.dirs) || j == len(b.dirs) {
			return i == len(a.dirs) && j == len(b.dirs)
		}
		if a.dirs[i].path != b.dirs[j].path || a.dirs[i].nfiles != b.dirs[j].nfiles {
			return false
		}
		i++
		j++
	}
}

// trusted reports whether verifyManifest may rely on m: it was made by a
// walk, or by git with its git state, of the same tree layout, and every
// directory's and git state file's ctime is known and older than the
// listing by racyMargin. (That the git state still holds is checked
// apart: gitStamp.stampOK.)
func (m *manifest) trusted(dbRel string) bool {
	if !(m.walked || m.git != nil) || m.dbRel != dbRel {
		return false
	}
	if m.git != nil && !m.gitStateTrusted() {
		return false
	}
	limit := m.start - int64(racyMargin)
	for _, d := range m.dirs {
		if d.ctime == 0 || d.ctime >= limit {
			return false
		}
	}
	return true
}

// gitStateTrusted reports whether m has a git state whose files' ctimes
// are known and older than the listing by racyMargin: what git reported
// then (its configuration, the directories it ignores) was read after
// the last change to them.
func (m *manifest) gitStateTrusted() bool {
	if m.git == nil {
		return false
	}
	limit := m.start - int64(racyMargin)
	for _, f := range m.git.files {
		if f.size >= 0 && (f.ctime == 0 || f.ctime >= limit || f.mtime >= limit) {
			return false
		}
	}
	return true
}

// manifestFile is one file entry of a manifest.
type manifestFile struct {
	name    []byte
	regular bool
	size    int64
	mtime   int64
}

// eachFile calls fn for the files of d in order until fn returns false; it
// returns false when fn did or the section is malformed.
func (m *manifest) eachFile(d *manifestDir, fn func(f manifestFile) bool) bool {
	r := manifestReader{b: m.files, i: d.off}
	for range d.nfiles {
		f := manifestFile{name: r.bytes(int(r.uvarint()))}
		f.regular = r.byte() == 1
		f.size = r.varint()
		f.mtime = r.varint()
		if r.bad || !fn(f) {
			return false
		}
	}
	return true
}

// manifestReader reads the varints and byte strings of a manifest; bad is
// set at the first malformed or truncated value.
type manifestReader struct {
	b   []byte
	i   int
	bad bool
}

func (r *manifestReader) uvarint() uint64 {
	if r.bad {
		return 0
	}
	v, n := binary.Uvarint(r.b[r.i:])
	if n <= 0 {
		r.bad = true
		return 0
	}
	r.i += n
	return v
}

func (r *manifestReader) varint() int64 {
	if r.bad {
		return 0
	}
	v, n := binary.Varint(r.b[r.i:])
	if n <= 0 {
		r.bad = true
		return 0
	}
	r.i += n
	return v
}

func (r *manifestReader) byte() byte {
	if r.bad || r.i >= len(r.b) {
		r.bad = true
		return 0
	}
	r.i++
	return r.b[r.i-1]
}

func (r *manifestReader) bytes(n int) []byte {
	if r.bad || n < 0 || n > len(r.b)-r.i {
		r.bad = true
		return nil
	}
	r.i += n
	return r.b[r.i-n : r.i]
}

func (r *manifestReader) skipFile() {
	r.bytes(int(r.uvarint()))
	r.byte()
	r.varint()
	r.varint()
}
