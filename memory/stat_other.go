//go:build !unix

package memory

import "os"

// statAt reads the size, time and type of the file name in the directory
// dirPath without following a symbolic link.
func statAt(_ *os.File, dirPath, name string) (listedFile, bool) {
	return statOther(dirPath, name)
}
