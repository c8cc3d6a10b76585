package memory

import (
	"context"
	"sync"
	"sync/atomic"
	"unsafe"

	"golang.org/x/sys/unix"
)

// canVerify is true where verifyManifest can succeed.
const canVerify = true

// verifyManifest reports whether a walk of root now would list exactly the
// files of m (see manifest.go): every directory of m is opened (O_PATH,
// without reading it) and must have its recorded ctime, and every file
// must have its recorded type, size and time. The directories are checked
// by up to walkWorkers goroutines; the first difference stops them all.
// m must be trusted.
func verifyManifest(ctx context.Context, root string, m *manifest) bool {
	rootFD, err := openPath(-1, root)
	if err != nil {
		return false
	}
	defer unix.Close(rootFD)
	var (
		next   atomic.Int64
		failed atomic.Bool
		wg     sync.WaitGroup
	)
	check := func(d *manifestDir) bool {
		fd := rootFD
		if d.path != "" {
			dfd, err := openPath(rootFD, d.path)
			if err != nil {
				return false
			}
			defer unix.Close(dfd)
			fd = dfd
		}
		var st unix.Stat_t
		if err := unix.Fstat(fd, &st); err != nil || st.Mode&unix.S_IFMT != unix.S_IFDIR ||
			st.Ctim.Sec*1e9+st.Ctim.Nsec != d.ctime {
			return false
		}
		return m.eachFile(d, func(f manifestFile) bool {
			if failed.Load() {
				return false
			}
			for {
				err := unix.Fstatat(fd, unsafe.String(unsafe.SliceData(f.name), len(f.name)), &st, unix.AT_SYMLINK_NOFOLLOW)
				if err == unix.EINTR {
					continue
				}
				if err != nil {
					return false
				}
				break
			}
			return (st.Mode&unix.S_IFMT == unix.S_IFREG) == f.regular && st.Size == f.size &&
				st.Mtim.Sec*1e9+st.Mtim.Nsec == f.mtime
		})
	}
	for range min(walkWorkers, max(1, len(m.dirs)/64)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for !failed.Load() && ctx.Err() == nil {
				i := int(next.Add(1)) - 1
				if i >= len(m.dirs) {
					return
				}
				if !check(&m.dirs[i]) {
					failed.Store(true)
				}
			}
		}()
	}
	wg.Wait()
	return !failed.Load() && ctx.Err() == nil
}

// openPath opens the directory path (relative to the directory dirFD, or
// absolute with dirFD -1) with O_PATH, which checks no read permission and
// reads nothing, without following a final symbolic link.
func openPath(dirFD int, path string) (int, error) {
	if dirFD < 0 {
		dirFD = unix.AT_FDCWD
	}
	for {
		fd, err := unix.Openat(dirFD, path, unix.O_PATH|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
		if err != unix.EINTR {
			return fd, err
		}
	}
}
