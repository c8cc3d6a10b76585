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
