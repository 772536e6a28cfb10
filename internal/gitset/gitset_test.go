package gitset

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// repo makes a git repository with two commits: prompts/a.md "one", then
// "two" and prompts/sub/b.md.
func repo(t *testing.T) string {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	dir := t.TempDir()
	run := func(args ...string) {
		cmd := exec.Command("git", append([]string{"-C", dir, "-c", "user.name=t", "-c", "user.email=t@example.com"}, args...)...)
		out, err := cmd.CombinedOutput()
		require.NoError(t, err, "%s", out)
	}
	write := func(p, s string) {
		require.NoError(t, os.MkdirAll(filepath.Dir(filepath.Join(dir, p)), 0o755))
		require.NoError(t, os.WriteFile(filepath.Join(dir, p), []byte(s), 0o644))
	}
	run("init", "-q")
	write("prompts/a.md", "one")
	run("add", ".")
	run("commit", "-qm", "one")
	write("prompts/a.md", "two")
	write("prompts/sub/b.md", "b")
	require.NoError(t, os.Symlink("a.md", filepath.Join(dir, "prompts", "link.md")))
	run("add", ".")
	run("commit", "-qm", "two")
	write("prompts/a.md", "not committed")
	return dir
}

func read(t *testing.T, fsys fs.FS, name string) string {
	t.Helper()
	b, err := fs.ReadFile(fsys, name)
	require.NoError(t, err)
	return string(b)
}

func TestOpen(t *testing.T) {
	dir := repo(t)
	ctx := context.Background()

	head, err := Open(ctx, dir, "HEAD", "prompts")
	require.NoError(t, err)
	assert.Equal(t, "two", read(t, head, "a.md"), "the commit, not the work tree")
	assert.Equal(t, "b", read(t, head, "sub/b.md"))
	_, err = fs.Stat(head, "link.md")
	assert.ErrorIs(t, err, fs.ErrNotExist, "a symlink is left out")

	prev, err := Open(ctx, dir, "HEAD~1", "prompts")
	require.NoError(t, err)
	assert.Equal(t, "one", read(t, prev, "a.md"))

	// Without a path: the directory git runs in.
	here, err := Open(ctx, filepath.Join(dir, "prompts", "sub"), "HEAD", "")
	require.NoError(t, err)
	assert.Equal(t, "b", read(t, here, "b.md"))
	root, err := Open(ctx, dir, "HEAD", "")
	require.NoError(t, err)
	assert.Equal(t, "two", read(t, root, "prompts/a.md"))
}

func TestOpenRefuses(t *testing.T) {
	dir := repo(t)
	ctx := context.Background()
	for _, tc := range []struct{ rev, path, want string }{
		{"nope", "prompts", "not a valid object name"},
		{"HEAD", "nope", "not a valid object name"},
		{"--output=/tmp/x", "", `"--output=/tmp/x"`},
		{"", "", `""`},
		{"HEAD", "/etc", "not relative"},
	} {
		_, err := Open(ctx, dir, tc.rev, tc.path)
		require.Error(t, err, tc.rev)
		assert.True(t, errors.Is(err, ErrRevision), "%v", err)
		assert.ErrorContains(t, err, tc.want)
	}
	_, err := Open(ctx, t.TempDir(), "HEAD", "")
	assert.ErrorContains(t, err, "not a git repository")
}
