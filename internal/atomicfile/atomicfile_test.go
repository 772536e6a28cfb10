package atomicfile

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestWriteReplacesWhole(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "golden.txt")
	require.NoError(t, Write(p, []byte("old"), 0o644))
	require.NoError(t, Write(p, []byte("new contents"), 0o644))
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
	require.NoError(t, WriteIn(root, "sub/a.json", []byte("{}"), 0o644))
	b, err := os.ReadFile(filepath.Join(dir, "sub", "a.json"))
	require.NoError(t, err)
	assert.Equal(t, "{}", string(b))

	assert.Error(t, WriteIn(root, "escape/x.txt", []byte("x"), 0o644), "a symlink out of the root is refused")
	assert.Error(t, WriteIn(root, "../x.txt", []byte("x"), 0o644))
	entries, err := os.ReadDir(outside)
	require.NoError(t, err)
	assert.Empty(t, entries)
}

func TestWriteFailureLeavesTheTarget(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "a.txt")
	require.NoError(t, Write(p, []byte("kept"), 0o644))
	// A directory in the target's place: the rename fails.
	require.NoError(t, os.Mkdir(filepath.Join(dir, "d"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "d", "x"), nil, 0o644))
	assert.Error(t, Write(filepath.Join(dir, "d"), []byte("x"), 0o644))
	b, err := os.ReadFile(p)
	require.NoError(t, err)
	assert.Equal(t, "kept", string(b))
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	assert.Len(t, entries, 2, "the temporary file was removed")
}
