package manager_test

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"sync/atomic"
	"syscall"
	"testing"
	"testing/fstest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/seed-e7d2830f/promptkit/manager"
)

const faultIndex = `{"version":1,"templates":{"t":{"path":"parts/t.md","variables":["v"]}}}`

// faultDir writes a good set to a temp dir and opens it.
func faultDir(t *testing.T) (string, *manager.Manager) {
	t.Helper()
	dir := t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(dir, "parts"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "index.json"), []byte(faultIndex), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "parts/t.md"), []byte("good {{ v }}"), 0o644))
	m, err := manager.Open(dir)
	require.NoError(t, err)
	t.Cleanup(func() { m.Close() })
	return dir, m
}

// requireServing checks the last good set still renders.
func requireServing(t *testing.T, m *manager.Manager) {
	t.Helper()
	out, err := m.Render("t", map[string]any{"v": 1})
	require.NoError(t, err)
	assert.Equal(t, "good 1", out)
	assert.Equal(t, uint64(1), m.Generation())
}

func TestReloadFaultsKeepTheLastGoodSet(t *testing.T) {
	for name, c := range map[string]struct {
		break_ func(t *testing.T, dir string)
		where  string // the path the error names
		what   string
	}{
		"file replaced by a directory": {func(t *testing.T, dir string) {
			p := filepath.Join(dir, "parts/t.md")
			require.NoError(t, os.Remove(p))
			require.NoError(t, os.Mkdir(p, 0o755))
		}, "parts/t.md", "cannot read the template"},
		"dangling symlink": {func(t *testing.T, dir string) {
			p := filepath.Join(dir, "parts/t.md")
			require.NoError(t, os.Remove(p))
			require.NoError(t, os.Symlink("gone.md", p)) // relative, inside the root, to nothing
		}, "parts/t.md", "cannot read the template"},
		"symlink out of the root": {func(t *testing.T, dir string) {
			outside := filepath.Join(t.TempDir(), "secret.md")
			require.NoError(t, os.WriteFile(outside, []byte("secret"), 0o644))
			p := filepath.Join(dir, "parts/t.md")
			require.NoError(t, os.Remove(p))
			require.NoError(t, os.Symlink(outside, p))
		}, "parts/t.md", "leaves the template root"},
		"truncated mid-write": {func(t *testing.T, dir string) {
			require.NoError(t, os.WriteFile(filepath.Join(dir, "parts/t.md"), []byte("good {{ v "), 0o644))
		}, "parts/t.md:1:", "unclosed"},
		"index truncated mid-write": {func(t *testing.T, dir string) {
			require.NoError(t, os.WriteFile(filepath.Join(dir, "index.json"), []byte(faultIndex[:40]), 0o644))
		}, "index.json", "invalid JSON"},
		"directory replaced by a file": {func(t *testing.T, dir string) {
			require.NoError(t, os.RemoveAll(filepath.Join(dir, "parts")))
			require.NoError(t, os.WriteFile(filepath.Join(dir, "parts"), []byte("x"), 0o644))
		}, "parts/t.md", "cannot read the template"},
		"directory removed": {func(t *testing.T, dir string) {
			require.NoError(t, os.RemoveAll(filepath.Join(dir, "parts")))
		}, "parts/t.md", "cannot read the template"},
		"permission denied": {func(t *testing.T, dir string) {
			if os.Geteuid() == 0 {
				t.Skip("running as root: chmod 000 does not stop root; TestReloadFaultsFromTheFS injects EACCES instead")
			}
			require.NoError(t, os.Chmod(filepath.Join(dir, "parts/t.md"), 0))
		}, "parts/t.md", "permission denied"},
	} {
		t.Run(name, func(t *testing.T) {
			dir, m := faultDir(t)
			c.break_(t, dir)
			err := m.Reload(context.Background())
			require.Error(t, err)
			assert.Contains(t, err.Error(), c.where)
			assert.Contains(t, err.Error(), c.what)
			require.Error(t, m.LastError())
			assert.Equal(t, err.Error(), m.LastError().Error())
			requireServing(t, m)
		})
	}
}

// faultFS wraps a good set and, once armed, fails reading one file with
// an injected error: the faults a disk gives (full, I/O error, permission).
type faultFS struct {
	fstest.MapFS
	armed atomic.Bool
	file  string
	err   error
}

func (f *faultFS) Open(name string) (fs.File, error) {
	if f.armed.Load() && name == f.file {
		return nil, &fs.PathError{Op: "open", Path: name, Err: f.err}
	}
	return f.MapFS.Open(name)
}

func (f *faultFS) ReadFile(name string) ([]byte, error) {
	if f.armed.Load() && name == f.file {
		return nil, &fs.PathError{Op: "read", Path: name, Err: f.err}
	}
	return f.MapFS.ReadFile(name)
}

func TestReloadFaultsFromTheFS(t *testing.T) {
	for _, c := range []struct {
		file string
		err  error
		text string
	}{
		{"parts/t.md", syscall.ENOSPC, "no space left on device"},
		{"parts/t.md", syscall.EIO, "input/output error"},
		{"parts/t.md", syscall.EACCES, "permission denied"},
		{"index.json", syscall.EIO, "input/output error"},
		{"index.json", fs.ErrPermission, "permission denied"},
	} {
		t.Run(c.file+" "+c.text, func(t *testing.T) {
			fsys := &faultFS{MapFS: set(faultIndex, map[string]string{"parts/t.md": "good {{ v }}"}), file: c.file, err: c.err}
			m, err := manager.New(fsys)
			require.NoError(t, err)
			fsys.armed.Store(true)
			err = m.Reload(context.Background())
			require.Error(t, err)
			assert.True(t, errors.Is(err, c.err), "the cause is kept: %v", err)
			assert.Contains(t, err.Error(), c.file)
			assert.Contains(t, err.Error(), c.text)
			assert.Equal(t, err.Error(), m.LastError().Error())
			requireServing(t, m)

			fsys.armed.Store(false)
			require.NoError(t, m.Reload(context.Background()), "the fault cleared, reloading works again")
			assert.NoError(t, m.LastError())
			assert.Equal(t, uint64(2), m.Generation())
		})
	}
}
