//go:build !unix

package memory

import "os"

// openDir opens a directory for reading its entries.
func openDir(path string) (*os.File, error) { return os.Open(path) }

// dirFD is unused where statAt takes the path.
func dirFD(*os.File) int { return -1 }

// statAt reads the size, time and type of the file name in the directory
// dirPath without following a symbolic link.
func statAt(_ int, dirPath, name string) (listedFile, bool) {
	return statOther(dirPath, name)
}

// dirCtime is unknown (0) where the change time cannot be read: a
// manifest without change times is never trusted.
func dirCtime(int) int64 { return 0 }

// pathCtime is unknown (0) here.
func pathCtime(string) int64 { return 0 }

// statFollow reads the size and modification time of path, following
// symbolic links; the change time is unknown (0).
func statFollow(path string) (size, mtime, ctime int64, ok bool) {
	info, err := os.Stat(path)
	if err != nil {
		return 0, 0, 0, false
	}
	return info.Size(), info.ModTime().UnixNano(), 0, true
}
