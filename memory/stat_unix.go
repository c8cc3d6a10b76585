//go:build unix

package memory

import (
	"os"

	"golang.org/x/sys/unix"
)

// statAt reads the size, time and type of the file name in the open
// directory dir (path dirPath) without following a symbolic link, by
// fstatat relative to the directory, so the kernel does not resolve the
// whole path again for every file.
func statAt(dir *os.File, dirPath, name string) (listedFile, bool) {
	var st unix.Stat_t
	for {
		err := unix.Fstatat(int(dir.Fd()), name, &st, unix.AT_SYMLINK_NOFOLLOW)
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
