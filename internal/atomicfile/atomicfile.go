// Package atomicfile writes a file so that a reader sees either its old
// contents or its new ones, never a part: the data goes to a temporary file
// beside it, is synced, and the temporary file is renamed over the target
// (rename is atomic within a directory on POSIX systems). A failure leaves
// the target as it was and removes the temporary file.
//
// WriteIn writes through an *os.Root, so neither the name nor a symlink
// on its way leaves the root: the preview server writes fixtures into a
// template set that way, and promptkit test --update its golden files.
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

// Write writes data to path atomically, creating the file with perm if it
// does not exist (a file that exists keeps perm too: the new file replaces
// it). The directory must exist.
func Write(path string, data []byte, perm fs.FileMode) error {
	root, err := os.OpenRoot(filepath.Dir(path))
	if err != nil {
		return err
	}
	defer root.Close()
	return WriteIn(root, filepath.Base(path), data, perm)
}

// WriteIn writes data to name, a path relative to root, atomically. Its
// directory must exist inside root.
func WriteIn(root *os.Root, name string, data []byte, perm fs.FileMode) error {
	var suffix [8]byte
	_, _ = rand.Read(suffix[:]) // never fails (crypto/rand)
	tmp := filepath.Join(filepath.Dir(name), ".tmp-"+filepath.Base(name)+"-"+hex.EncodeToString(suffix[:]))
	f, err := root.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, perm)
	if err != nil {
		return err
	}
	_, werr := f.Write(data)
	serr := f.Sync()
	cerr := f.Close()
	if err := errors.Join(werr, serr, cerr); err != nil {
		_ = root.Remove(tmp)
		return fmt.Errorf("write %s: %w", name, err)
	}
	if err := root.Rename(tmp, name); err != nil {
		_ = root.Remove(tmp)
		return err
	}
	return nil
}
