// Package atomicfile writes a file so that a reader, a crash, a kill or a
// full disk never leaves it cut: the new content goes to a temporary file
// in the same directory, is flushed to the disk (fsync), and is renamed
// over the old file in one step; on any failure the old file is left as
// it was and the temporary file is removed.
//
// WriteFile writes a path (`promptkit gen --out`, the fleet's disk cache);
// WriteIn writes through an *os.Root, so neither the name nor a symlink on
// its way leaves the root (the preview server writes fixtures into a
// template set that way, and `promptkit test --update` its golden files).
package atomicfile

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
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
	root, err := os.OpenRoot(filepath.Dir(path))
	if err != nil {
		return err
	}
	defer root.Close()
	return WriteIn(root, filepath.Base(path), data, perm)
}

// WriteIn writes data to name, a path relative to root, atomically, with
// permission bits perm. Its directory must exist inside root.
func WriteIn(root *os.Root, name string, data []byte, perm fs.FileMode) error {
	var suffix [8]byte
	_, _ = rand.Read(suffix[:]) // never fails (crypto/rand)
	dir := filepath.Dir(name)
	tmp := filepath.Join(dir, "."+filepath.Base(name)+".tmp-"+hex.EncodeToString(suffix[:]))
	f, err := root.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, perm)
	if err != nil {
		return err
	}
	_, werr := f.Write(data)
	merr := f.Chmod(perm) // the mode the caller asked for, whatever the umask
	serr := f.Sync()
	cerr := f.Close()
	if err := errors.Join(werr, merr, serr, cerr); err != nil {
		_ = root.Remove(tmp)
		return fmt.Errorf("write %s: %w", name, err)
	}
	if err := root.Rename(tmp, name); err != nil {
		_ = root.Remove(tmp)
		return err
	}
	// The rename is durable once the directory is flushed too; a system
	// that cannot flush a directory (Windows) has renamed it all the same.
	if d, err := root.Open(dir); err == nil {
		_ = d.Sync()
		_ = d.Close()
	}
	return nil
}
