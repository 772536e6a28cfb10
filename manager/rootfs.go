package manager

import (
	"io/fs"
	"os"
)

// rootFS is an os.Root as an fs.FS whose Open cannot block. The loader
// checks that a path is a regular file before opening it, but a FIFO put
// in its place between the check and the open would block a plain open
// until a writer came, wedging the load (or the watcher's reload). Opened
// non-blocking, a FIFO opens at once, and the check on the open file
// refuses it.
type rootFS struct {
	root *os.Root
	fsys fs.FS
}

func newRootFS(r *os.Root) rootFS { return rootFS{root: r, fsys: r.FS()} }

func (r rootFS) Open(name string) (fs.File, error) {
	if !fs.ValidPath(name) {
		return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrInvalid}
	}
	f, err := r.root.OpenFile(name, openFlags, 0)
	if err != nil {
		return nil, err
	}
	return f, nil
}

func (r rootFS) Stat(name string) (fs.FileInfo, error) { return fs.Stat(r.fsys, name) }

func (r rootFS) ReadDir(name string) ([]fs.DirEntry, error) { return fs.ReadDir(r.fsys, name) }
