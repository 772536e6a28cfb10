package atomicfile_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/seed-e7d2830f/promptkit/internal/atomicfile"
)

func TestWriteFile(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "out.go")

	require.NoError(t, atomicfile.WriteFile(p, []byte("new"), 0o640))
	st, err := os.Stat(p)
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o640), st.Mode().Perm(), "a new file gets perm")

	require.NoError(t, os.Chmod(p, 0o600))
	require.NoError(t, atomicfile.WriteFile(p, []byte("newer"), 0o644))
	st, err = os.Stat(p)
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o600), st.Mode().Perm(), "a file keeps its mode")
	got, _ := os.ReadFile(p)
	assert.Equal(t, "newer", string(got))

	// Through a symlink: the target is replaced, the link stays.
	link := filepath.Join(dir, "link.go")
	require.NoError(t, os.Symlink("out.go", link))
	require.NoError(t, atomicfile.WriteFile(link, []byte("via link"), 0o644))
	got, _ = os.ReadFile(p)
	assert.Equal(t, "via link", string(got))
	st, err = os.Lstat(link)
	require.NoError(t, err)
	assert.NotZero(t, st.Mode()&os.ModeSymlink)

	// A directory is not replaced.
	require.Error(t, atomicfile.WriteFile(dir, []byte("x"), 0o644))

	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	assert.Len(t, entries, 2, "no temporary file is left behind")
}

// A write that fails leaves the old file whole and no temporary file.
func TestWriteFileFails(t *testing.T) {
	if os.Geteuid() == 0 {
		t.Skip("root writes into a read-only directory")
	}
	dir := t.TempDir()
	p := filepath.Join(dir, "out.go")
	require.NoError(t, os.WriteFile(p, []byte("old"), 0o644))
	require.NoError(t, os.Chmod(dir, 0o555))
	t.Cleanup(func() { os.Chmod(dir, 0o755) })
	require.Error(t, atomicfile.WriteFile(p, []byte("new"), 0o644))
	got, _ := os.ReadFile(p)
	assert.Equal(t, "old", string(got))
}

func TestWriteReplacesWhole(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "golden.txt")
	require.NoError(t, atomicfile.WriteFile(p, []byte("old"), 0o644))
	require.NoError(t, atomicfile.WriteFile(p, []byte("new contents"), 0o644))
	b, err := os.ReadFile(p)
	require.NoError(t, err)
	assert.Equal(t, "new contents", string(b))
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	assert.Len(t, entries, 1, "no temporary file is left behind")
}

func TestWriteInStaysInsideTheRoot(t *testing.T) {
	dir := t.TempDir()
	outside := t.TempDir()
	require.NoError(t, os.Symlink(outside, filepath.Join(dir, "escape")))
	root, err := os.OpenRoot(dir)
	require.NoError(t, err)
	defer root.Close()

	require.NoError(t, os.Mkdir(filepath.Join(dir, "sub"), 0o755))
	require.NoError(t, atomicfile.WriteIn(root, "sub/a.json", []byte("{}"), 0o644))
	b, err := os.ReadFile(filepath.Join(dir, "sub", "a.json"))
	require.NoError(t, err)
	assert.Equal(t, "{}", string(b))

	assert.Error(t, atomicfile.WriteIn(root, "escape/x.txt", []byte("x"), 0o644), "a symlink out of the root is refused")
	assert.Error(t, atomicfile.WriteIn(root, "../x.txt", []byte("x"), 0o644))
	entries, err := os.ReadDir(outside)
	require.NoError(t, err)
	assert.Empty(t, entries)
}

func TestWriteFailureLeavesTheTarget(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "a.txt")
	require.NoError(t, atomicfile.WriteFile(p, []byte("kept"), 0o644))
	// A directory in the target's place: the rename fails.
	require.NoError(t, os.Mkdir(filepath.Join(dir, "d"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "d", "x"), nil, 0o644))
	assert.Error(t, atomicfile.WriteFile(filepath.Join(dir, "d"), []byte("x"), 0o644))
	b, err := os.ReadFile(p)
	require.NoError(t, err)
	assert.Equal(t, "kept", string(b))
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	assert.Len(t, entries, 2, "the temporary file was removed")
}
