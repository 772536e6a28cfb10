//go:build unix

package manager

import (
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// openOnly hides rootFS's Stat, as a FIFO swapped in after the loader's
// check would: only the check on the open file is left.
type openOnly struct{ fsys fs.FS }

func (o openOnly) Open(name string) (fs.File, error) { return o.fsys.Open(name) }

// A FIFO that slips past the pre-open check opens at once and is refused;
// a plain open would block until a writer came.
func TestRootFSOpensFIFOWithoutBlocking(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, syscall.Mkfifo(filepath.Join(dir, "t.md"), 0o644))
	root, err := os.OpenRoot(dir)
	require.NoError(t, err)
	defer root.Close()

	done := make(chan error, 1)
	go func() {
		_, _, err := readSetFile(openOnly{newRootFS(root)}, "t.md", 1<<20)
		done <- err
	}()
	select {
	case err := <-done:
		require.ErrorIs(t, err, errNotRegular)
		assert.Contains(t, err.Error(), "named pipe")
	case <-time.After(10 * time.Second):
		// Unblock the open so the goroutine ends, then fail.
		if w, err := os.OpenFile(filepath.Join(dir, "t.md"), os.O_WRONLY, 0); err == nil {
			w.Close()
		}
		t.Fatal("opening a FIFO blocked the loader")
	}

	_, err = newRootFS(root).Open("../x")
	assert.ErrorIs(t, err, fs.ErrInvalid, "a path that is not an fs path is refused before os.Root sees it")
}
