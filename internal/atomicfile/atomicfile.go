// Package atomicfile writes a file so that a reader, a crash, a kill or a
// full disk never leaves it cut: the new content goes to a temporary file
// in the same directory, is flushed to the disk (fsync), and is renamed
// over the old file in one step; on any failure the old file is left as
// it was and the temporary file is removed. `promptkit gen --out` and the
// fleet's disk cache write through it.
package atomicfile

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
)

// WriteFile writes data to path atomically. A file that exists keeps its
// permission bits; a new one gets perm. When path is a symbolic link, the
// file it points to is replaced and the link stays.
func WriteFile(path string, data []byte, perm fs.FileMode) error {
	if st, err := os.Lstat(path); err == nil {
		if st.Mode()&fs.ModeSymlink != 0 {
			target, err := filepath.EvalSymlinks(path)
			if err != nil {
				return err
			}
			path = target
			if st, err = os.Stat(path); err != nil {
				return err
			}
		}
		if !st.Mode().IsRegular() {
			return &fs.PathError{Op: "write", Path: path, Err: errors.New("not a regular file")}
		}
		perm = st.Mode().Perm()
	}
	dir, name := filepath.Split(path)
	if dir == "" {
		dir = "."
	}
	f, err := os.CreateTemp(dir, "."+name+".tmp-")
	if err != nil {
		return err
	}
	_, err = f.Write(data)
	if err == nil {
		err = f.Chmod(perm)
	}
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(f.Name(), path)
	}
	if err != nil {
		os.Remove(f.Name())
		return err
	}
	// The rename is durable once the directory is flushed too; a system
	// that cannot flush a directory (Windows) has renamed it all the same.
	if d, err := os.Open(dir); err == nil {
		d.Sync()
		d.Close()
	}
	return nil
}
