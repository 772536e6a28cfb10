package fleet

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"oras.land/oras-go/v2"

	"github.com/seed-e7d2830f/promptkit/manager"
)

// pushRaw pushes s as it is, without the checks Push makes: how a broken
// or forged artifact reaches a registry by another tool.
func pushRaw(t *testing.T, ctx context.Context, c *Client, ref string, s *Set, artifactType string) string {
	t.Helper()
	r, err := parseRef(ref)
	require.NoError(t, err)
	repo, err := c.repository(r)
	require.NoError(t, err)
	store, desc, err := pack(ctx, s, "forged", time.Now())
	require.NoError(t, err)
	if artifactType != ArtifactType {
		desc, err = oras.PackManifest(ctx, store, oras.PackManifestVersion1_1, artifactType, oras.PackManifestOptions{})
		require.NoError(t, err)
	}
	require.NoError(t, store.Tag(ctx, desc, r.Reference))
	_, err = oras.Copy(ctx, store, r.Reference, repo, r.Reference, oras.DefaultCopyOptions)
	require.NoError(t, err)
	return desc.Digest.String()
}

func render(t *testing.T, m *manager.Manager) string {
	t.Helper()
	out, err := m.Render("greet", map[string]any{"name": "Ann"})
	require.NoError(t, err)
	return out
}

// followOpts are fast options for tests: polls only when the test asks.
func followOpts(c *Client, cache string) []FollowOption {
	return []FollowOption{WithClient(c), WithCacheDir(cache), WithInterval(time.Hour), WithTimeout(20 * time.Second)}
}

func TestFollowRefusesBadSets(t *testing.T) {
	reg, c := startRegistry(t)
	ctx := testContext(t, time.Minute)
	repo := reg.Host + "/prompts"
	s1, err := Load(writeDir(t, setFiles("one")))
	require.NoError(t, err)
	s2, err := Load(writeDir(t, setFiles("two")))
	require.NoError(t, err)
	_, err = c.Push(ctx, s1, repo+":production", "")
	require.NoError(t, err)

	cache := t.TempDir()
	f, err := Follow(ctx, repo+":production", followOpts(c, cache)...)
	require.NoError(t, err)
	defer f.Close()
	good := f.Status().Manifest

	forgedDigest := &Set{Digest: s1.Digest, Files: s2.Files} // v2's files under v1's digest
	unused := &Set{Digest: s2.Digest, Files: map[string][]byte{"extra.md": []byte("x")}}
	for p, d := range s2.Files {
		unused.Files[p] = d
	}
	tests := []struct {
		name    string
		set     *Set
		artType string
		want    error
	}{
		{"files that do not make the digest", forgedDigest, ArtifactType, ErrDigest},
		{"a file the set does not use", unused, ArtifactType, ErrNotSet},
		{"not a promptkit set", s2, "application/vnd.example.other", ErrNotSet},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			bad := pushRaw(t, ctx, c, repo+":production", tc.set, tc.artType)
			err := f.Poll(ctx)
			require.ErrorIs(t, err, tc.want)
			assert.ErrorIs(t, f.Status().LastError, tc.want)
			assert.Equal(t, good, f.Status().Manifest, "the last good set keeps serving")
			assert.Equal(t, "[one] one, Ann", render(t, f.Manager()))
			assert.Equal(t, good, f.cache.serving(), "a restart starts from the last good set")
			_, cached := f.cache.lookup(bad)
			assert.False(t, cached)
			// Polled again, the refused manifest is not pulled again.
			polls := f.Status().Polls
			require.ErrorIs(t, f.Poll(ctx), tc.want)
			assert.Equal(t, polls+1, f.Status().Polls)
		})
	}

	// The label moves on to a good set: the follower follows.
	_, err = c.Push(ctx, s2, repo+":production", "")
	require.NoError(t, err)
	require.NoError(t, f.Poll(ctx))
	assert.Equal(t, "[two] two, Ann", render(t, f.Manager()))
	assert.Equal(t, s2.Digest, f.Manager().Digest())
	assert.NoError(t, f.Manager().LastError())
}

func TestFollowPinned(t *testing.T) {
	reg, c := startRegistry(t)
	ctx := testContext(t, time.Minute)
	repo := reg.Host + "/prompts"
	s1, err := Load(writeDir(t, setFiles("one")))
	require.NoError(t, err)
	p1, err := c.Push(ctx, s1, repo+":v1", "")
	require.NoError(t, err)
	s2, err := Load(writeDir(t, setFiles("two")))
	require.NoError(t, err)
	_, err = c.Push(ctx, s2, repo+":v1", "") // the label moves; the pin does not
	require.NoError(t, err)

	pinned := repo + "@" + p1.Manifest
	cache := t.TempDir()
	f, err := Follow(ctx, pinned, followOpts(c, cache)...)
	require.NoError(t, err)
	st := f.Status()
	assert.True(t, st.Pinned)
	assert.Equal(t, p1.Manifest, st.Manifest)
	assert.Equal(t, s1.Digest, st.SetDigest)
	assert.Equal(t, "[one] one, Ann", render(t, f.Manager()))
	assert.NoError(t, f.Poll(ctx), "a pin has nothing to poll")
	require.NoError(t, f.Close())

	// Without the registry, the cache serves the pin; without either, no start.
	reg.Stop()
	f, err = Follow(ctx, pinned, followOpts(c, cache)...)
	require.NoError(t, err)
	assert.Equal(t, s1.Digest, f.Manager().Digest())
	require.NoError(t, f.Close())
	_, err = Follow(ctx, pinned, followOpts(c, t.TempDir())...)
	assert.Error(t, err)
}

func TestFollowCache(t *testing.T) {
	reg, c := startRegistry(t)
	ctx := testContext(t, time.Minute)
	repo := reg.Host + "/prompts"
	cache := t.TempDir()

	// No registry and no cache: nothing to serve.
	reg.Stop()
	_, err := Follow(ctx, repo+":production", followOpts(c, cache)...)
	require.Error(t, err)
	reg.Restart()

	var manifests []string
	opts := append(followOpts(c, cache), WithKeep(1))
	var f *Follower
	for _, word := range []string{"one", "two", "three", "four"} {
		s, err := Load(writeDir(t, setFiles(word)))
		require.NoError(t, err)
		p, err := c.Push(ctx, s, repo+":production", word)
		require.NoError(t, err)
		manifests = append(manifests, p.Manifest)
		if f == nil {
			f, err = Follow(ctx, repo+":production", opts...)
			require.NoError(t, err)
		} else {
			require.NoError(t, f.Poll(ctx))
		}
		assert.Equal(t, s.Digest, f.Manager().Digest())
	}
	defer f.Close()
	// Kept: the newest (serving) and the one before, for a rollback.
	entries, err := os.ReadDir(filepath.Join(cache, "sets"))
	require.NoError(t, err)
	var dirs []string
	for _, e := range entries {
		if e.IsDir() {
			dirs = append(dirs, e.Name())
		}
	}
	assert.ElementsMatch(t, []string{f.cache.name(manifests[2]), f.cache.name(manifests[3])}, dirs)
	require.NoError(t, f.Close())

	// A cached set changed on disk is never served as the set it was.
	greet := filepath.Join(cache, "current", "templates", "greet.md")
	require.NoError(t, os.WriteFile(greet, []byte("{{ name }} tampered"), 0o644))
	reg.Stop()
	_, err = Follow(ctx, repo+":production", opts...)
	require.ErrorIs(t, err, ErrDigest)
	// With the registry, it is pulled afresh.
	reg.Restart()
	f, err = Follow(ctx, repo+":production", opts...)
	require.NoError(t, err)
	defer f.Close()
	assert.Equal(t, "[four] four, Ann", render(t, f.Manager()))
}

func TestFollowClose(t *testing.T) {
	reg, c := startRegistry(t)
	ctx := testContext(t, time.Minute)
	s1, err := Load(writeDir(t, setFiles("one")))
	require.NoError(t, err)
	_, err = c.Push(ctx, s1, reg.Host+"/prompts:production", "")
	require.NoError(t, err)
	f, err := Follow(ctx, reg.Host+"/prompts:production", WithClient(c), WithCacheDir(t.TempDir()), WithInterval(10*time.Millisecond))
	require.NoError(t, err)
	require.Eventually(t, func() bool { return f.Status().Polls >= 3 }, 10*time.Second, 5*time.Millisecond, "the follower polls by itself")
	require.NoError(t, f.Close())
	polls := f.Status().Polls
	assert.ErrorIs(t, f.Poll(ctx), ErrClosed)
	assert.Equal(t, polls, f.Status().Polls, "no poll after Close")
	assert.Equal(t, "[one] one, Ann", render(t, f.Manager()), "renders go on after Close")
	assert.NoError(t, f.Close(), "Close twice")
}

func TestFollowOptions(t *testing.T) {
	ctx := context.Background()
	tests := []struct {
		name string
		ref  string
		opts []FollowOption
		want string
	}{
		{"no label", "127.0.0.1:1/prompts", nil, "names no label"},
		{"history tag", "127.0.0.1:1/prompts:production-at-20250102T030405.000000000Z", nil, "history tag"},
		{"interval", "127.0.0.1:1/prompts:p", []FollowOption{WithInterval(0)}, "WithInterval"},
		{"jitter", "127.0.0.1:1/prompts:p", []FollowOption{WithJitter(0.7)}, "WithJitter"},
		{"timeout", "127.0.0.1:1/prompts:p", []FollowOption{WithTimeout(-1)}, "WithTimeout"},
		{"keep", "127.0.0.1:1/prompts:p", []FollowOption{WithKeep(0)}, "WithKeep"},
		{"cache", "127.0.0.1:1/prompts:p", []FollowOption{WithCacheDir("")}, "WithCacheDir"},
		{"client", "127.0.0.1:1/prompts:p", []FollowOption{WithClient(nil)}, "WithClient"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Follow(ctx, tc.ref, tc.opts...)
			require.Error(t, err)
			assert.Contains(t, err.Error(), tc.want)
		})
	}
}
