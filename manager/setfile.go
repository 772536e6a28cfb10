package manager

import (
	"io/fs"
	"os"
)

// RootFS returns root as the fs.FS that Open reads a directory through:
// no path or symlink leaves root, and opening a file never blocks (a FIFO
// or a device opens non-blocking, and ReadSetFile refuses it). A host that
// serves a set's files beside the manager (package server's preview)
// reads them through it and ReadSetFile.
func RootFS(root *os.Root) fs.FS { return newRootFS(root) }

// ReadSetFile reads the file name of fsys as a load reads every file of a
// set: only a regular file (checked before opening it and again on the
// open file, so a FIFO or a device swapped in is refused, not waited on),
// and at most maxBytes (checked before reading, so a sparse giant is
// refused, not read). With RootFS, the open itself cannot block either.
func ReadSetFile(fsys fs.FS, name string, maxBytes int64) ([]byte, error) {
	data, _, err := readSetFile(fsys, name, maxBytes)
	return data, err
}
