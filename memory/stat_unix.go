//go:build unix

package memory

import (
	"os"

	"golang.org/x/sys/unix"
)

// openDir opens a directory for reading its entries with a blocking
// descriptor, which the runtime's poller does not try to register and
// whose Fd needs no fcntl.
func openDir(path string) (*os.File, error) {
	for {
		fd, err := unix.Open(path, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return nil, &os.PathError{Op: "open", Path: path, Err: err}
		}
		return os.NewFile(uintptr(fd), path), nil
	}
}

// dirFD returns the descriptor of an open directory for statAt.
func dirFD(f *os.File) int { return int(f.Fd()) }

// statAt reads the size, time and type of the file name in the open
// directory fd (path dirPath) without following a symbolic link, by
// fstatat relative to the directory, so the kernel does not resolve the
// whole path again for every file.
func statAt(fd int, dirPath, name string) (listedFile, bool) {
	var st unix.Stat_t
	for {
		err := unix.Fstatat(fd, name, &st, unix.AT_SYMLINK_NOFOLLOW)
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return statOther(dirPath, name)
		}
		break
	}
	return listedFile{
		regular: st.Mode&unix.S_IFMT == unix.S_IFREG,
		size:    st.Size,
		mtime:   st.Mtim.Sec*1e9 + st.Mtim.Nsec,
	}, true
}

// dirCtime returns the change time of the open directory fd in
// nanoseconds, 0 when it cannot be read.
func dirCtime(fd int) int64 {
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		return 0
	}
	return st.Ctim.Sec*1e9 + st.Ctim.Nsec
}

// pathCtime returns the change time of path (not followed) in
// nanoseconds, 0 when it cannot be read.
func pathCtime(path string) int64 {
	var st unix.Stat_t
	if err := unix.Lstat(path, &st); err != nil {
		return 0
	}
	return st.Ctim.Sec*1e9 + st.Ctim.Nsec
}

// statFollow reads the size, modification time and change time (in
// nanoseconds) of path, following symbolic links.
func statFollow(path string) (size, mtime, ctime int64, ok bool) {
	var st unix.Stat_t
	if err := unix.Stat(path, &st); err != nil {
		return 0, 0, 0, false
	}
	return st.Size, st.Mtim.Sec*1e9 + st.Mtim.Nsec, st.Ctim.Sec*1e9 + st.Ctim.Nsec, true
}
