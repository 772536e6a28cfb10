package fleet

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/seed-e7d2830f/promptkit/manager"
)

func TestPushPullTagHistory(t *testing.T) {
	reg, c := startRegistry(t)
	ctx := testContext(t, time.Minute)
	repo := reg.Host + "/prompts"

	s1, err := Load(writeDir(t, setFiles("one")))
	require.NoError(t, err)
	assert.Equal(t, []string{"index.json", "parts/sign.md", "templates/greet.md"}, s1.Paths(), "only the files the set uses")
	p1, err := c.Push(ctx, s1, repo+":v1", "first version")
	require.NoError(t, err)
	assert.Equal(t, s1.Digest, p1.SetDigest)
	assert.Equal(t, "first version", p1.Message)
	assert.Equal(t, 3, p1.Files)
	assert.WithinDuration(t, time.Now(), p1.Created, time.Minute)

	s2, err := Load(writeDir(t, setFiles("two")))
	require.NoError(t, err)
	p2, err := c.Push(ctx, s2, repo+":v2", "")
	require.NoError(t, err)
	require.NotEqual(t, p1.Manifest, p2.Manifest)

	// Pull by label and by digest: the same files, the same digest.
	dir := filepath.Join(t.TempDir(), "pulled")
	got, err := c.Pull(ctx, repo+":v1", dir)
	require.NoError(t, err)
	assert.Equal(t, p1, got)
	m, err := manager.Open(dir)
	require.NoError(t, err)
	assert.Equal(t, s1.Digest, m.Digest())
	out, err := m.Render("greet", map[string]any{"name": "Ann"})
	require.NoError(t, err)
	assert.Equal(t, "[one] one, Ann", out)
	m.Close()
	_, err = os.Stat(filepath.Join(dir, "README.md"))
	assert.True(t, os.IsNotExist(err), "a file the set does not use does not travel")

	_, err = c.Pull(ctx, repo+":v2", dir)
	assert.ErrorIs(t, err, ErrDirNotEmpty)
	got, err = c.Pull(ctx, repo+"@"+p2.Manifest, filepath.Join(t.TempDir(), "byDigest"))
	require.NoError(t, err)
	assert.Equal(t, s2.Digest, got.SetDigest)

	// Promote, promote again, roll back.
	_, err = c.Tag(ctx, repo+":v1", "production")
	require.NoError(t, err)
	_, err = c.Tag(ctx, repo+":v2", "production")
	require.NoError(t, err)
	_, err = c.Tag(ctx, repo+"@"+p1.Manifest, "production")
	require.NoError(t, err)

	h, err := c.History(ctx, repo+":production")
	require.NoError(t, err)
	assert.Equal(t, p1.Manifest, h.Current)
	require.Len(t, h.Entries, 3)
	assert.Equal(t, []string{p1.Manifest, p2.Manifest, p1.Manifest},
		[]string{h.Entries[0].Manifest, h.Entries[1].Manifest, h.Entries[2].Manifest}, "newest first")
	assert.True(t, h.Entries[0].Current)
	assert.False(t, h.Entries[1].Current)
	assert.Equal(t, []string{"production", "v1"}, h.Entries[0].Labels)
	assert.Equal(t, []string{"v2"}, h.Entries[1].Labels)
	assert.Equal(t, "first version", h.Entries[0].Message)
	assert.True(t, h.Entries[0].Time.After(h.Entries[1].Time))
	assert.Equal(t, map[string]string{"v1": p1.Manifest, "v2": p2.Manifest, "production": p1.Manifest}, h.Labels)

	// v1's own history: its push.
	h, err = c.History(ctx, repo+":v1")
	require.NoError(t, err)
	require.Len(t, h.Entries, 1)
	assert.True(t, h.Entries[0].Current)
}

func TestPullInto(t *testing.T) {
	reg, c := startRegistry(t)
	ctx := testContext(t, time.Minute)
	repo := reg.Host + "/prompts"
	s1, err := Load(writeDir(t, setFiles("one")))
	require.NoError(t, err)
	_, err = c.Push(ctx, s1, repo+":v1", "")
	require.NoError(t, err)

	// An existing empty directory is filled.
	empty := t.TempDir()
	_, err = c.Pull(ctx, repo+":v1", empty)
	require.NoError(t, err)
	data, err := os.ReadFile(filepath.Join(empty, "parts", "sign.md"))
	require.NoError(t, err)
	assert.Equal(t, "[one]", string(data))

	// A pull that fails leaves nothing behind, not even its temporary directory.
	s2, err := Load(writeDir(t, setFiles("two")))
	require.NoError(t, err)
	pushRaw(t, ctx, c, repo+":forged", &Set{Digest: s1.Digest, Files: s2.Files}, ArtifactType)
	parent := t.TempDir()
	_, err = c.Pull(ctx, repo+":forged", filepath.Join(parent, "set"))
	require.ErrorIs(t, err, ErrDigest)
	entries, err := os.ReadDir(parent)
	require.NoError(t, err)
	assert.Empty(t, entries)
}
