package fleet

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/opencontainers/go-digest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// countingTransport counts the requests that reach the registry, by
// method and kind of path ("GET blobs", "HEAD manifests").
type countingTransport struct {
	mu sync.Mutex
	n  map[string]int
}

func (c *countingTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	kind := "other"
	for _, k := range []string{"/blobs/", "/manifests/", "/tags/"} {
		if strings.Contains(r.URL.Path, k) {
			kind = strings.Trim(k, "/")
		}
	}
	c.mu.Lock()
	if c.n == nil {
		c.n = map[string]int{}
	}
	c.n[r.Method+" "+kind]++
	c.mu.Unlock()
	return http.DefaultTransport.RoundTrip(r)
}

func (c *countingTransport) count(key string) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.n[key]
}

// corrupt flips one byte of the file the registry stores a blob in,
// keeping its size: the registry then serves bytes that do not match the
// digest naming them. It returns the digest of what the registry serves.
func corrupt(t *testing.T, file string, old, new []byte) string {
	t.Helper()
	data, err := os.ReadFile(file)
	require.NoError(t, err)
	require.Equal(t, len(old), len(new))
	require.True(t, bytes.Contains(data, old), "%s holds %q", file, old)
	data = bytes.Replace(data, old, new, 1)
	require.NoError(t, os.WriteFile(file, data, 0o644))
	return digest.FromBytes(data).String()
}

// A label on a set whose file or manifest the registry serves corrupted:
// the error names the reference and both digests, the set is refused and
// the last good one keeps serving, and further polls do not download it
// again (one HEAD each) until its backoff has passed.
func TestFollowBacksOffCorruptedSets(t *testing.T) {
	reg, c := startRegistry(t)
	counter := &countingTransport{}
	c.HTTPClient = &http.Client{Transport: counter}
	ctx := testContext(t, time.Minute)
	repo := reg.Host + "/prompts"
	sets := map[string]*Set{}
	for _, word := range []string{"one", "two", "three"} {
		s, err := Load(writeDir(t, setFiles(word)))
		require.NoError(t, err)
		sets[word] = s
	}
	_, err := c.Push(ctx, sets["one"], repo+":production", "")
	require.NoError(t, err)
	f, err := Follow(ctx, repo+":production", followOpts(c, t.TempDir())...)
	require.NoError(t, err)
	defer f.Close()
	good := f.Status().Manifest

	// A file's blob goes bad in the registry.
	p2, err := c.Push(ctx, sets["two"], repo+":v2", "")
	require.NoError(t, err)
	sign := sets["two"].Files["parts/sign.md"]
	blob := digest.FromBytes(sign).String()
	got := corrupt(t, reg.BlobFile(blob), []byte("[two]"), []byte("[tw0]"))
	_, err = c.Tag(ctx, repo+":v2", "production")
	require.NoError(t, err)

	getBlobs := counter.count("GET blobs")
	err = f.Poll(ctx)
	require.ErrorIs(t, err, ErrDigest)
	var de *DigestError
	require.ErrorAs(t, err, &de)
	assert.Equal(t, DigestError{Ref: repo + "@" + p2.Manifest, What: `file "parts/sign.md"`, Want: blob, Got: got, WantSize: 5, GotSize: 5}, *de)
	assert.Equal(t, "fleet: "+repo+"@"+p2.Manifest+`: file "parts/sign.md" `+blob+": the registry sent content whose digest is "+got, err.Error())
	assert.Equal(t, good, f.Status().Manifest, "the last good set keeps serving")
	assert.Equal(t, "[one] one, Ann", render(t, f.Manager()))
	downloaded := counter.count("GET blobs") - getBlobs
	assert.Positive(t, downloaded)

	heads, gets, blobs := counter.count("HEAD manifests"), counter.count("GET manifests"), counter.count("GET blobs")
	for range 5 {
		require.ErrorIs(t, f.Poll(ctx), ErrDigest, "the refusal is remembered")
	}
	assert.Equal(t, 5, counter.count("HEAD manifests")-heads, "one HEAD a poll")
	assert.Equal(t, gets, counter.count("GET manifests"), "no manifest downloaded again")
	assert.Equal(t, blobs, counter.count("GET blobs"), "no blob downloaded again")

	// A manifest goes bad in the registry, after it was labelled.
	p3, err := c.Push(ctx, sets["three"], repo+":v3", "aaaa")
	require.NoError(t, err)
	_, err = c.Tag(ctx, repo+":v3", "production")
	require.NoError(t, err)
	gotManifest := corrupt(t, reg.BlobFile(p3.Manifest), []byte(`"aaaa"`), []byte(`"aaab"`))
	err = f.Poll(ctx)
	require.ErrorAs(t, err, &de)
	assert.Equal(t, "fleet: "+repo+"@"+p3.Manifest+": manifest "+p3.Manifest+": the registry sent content whose digest is "+gotManifest, err.Error(),
		"the reference and both digests, not just \"mismatched digest\"")
	gets = counter.count("GET manifests")
	for range 3 {
		require.ErrorIs(t, f.Poll(ctx), ErrDigest)
	}
	assert.Equal(t, gets, counter.count("GET manifests"), "no manifest downloaded again")
	assert.Equal(t, "[one] one, Ann", render(t, f.Manager()))

	// Pull says the same.
	_, err = c.Pull(ctx, repo+":production", filepath.Join(t.TempDir(), "p"))
	require.ErrorAs(t, err, &de)
	assert.Equal(t, repo+":production", de.Ref)
	assert.Equal(t, p3.Manifest, de.Want)
	assert.Equal(t, gotManifest, de.Got)
}

func TestRefusalBackoff(t *testing.T) {
	const i = 30 * time.Second
	for times, want := range map[int]time.Duration{
		1: time.Minute, 2: 2 * time.Minute, 3: 4 * time.Minute, 6: 32 * time.Minute, 7: time.Hour, 50: time.Hour,
	} {
		assert.Equal(t, want, refusalBackoff(i, times), "refused %d times", times)
	}
	assert.Equal(t, 3*time.Hour, refusalBackoff(3*time.Hour, 1), "never less than an interval")
	assert.Equal(t, 3*time.Hour, refusalBackoff(3*time.Hour, 9))
}

// With a warm cache, a registry that accepts the connection and never
// answers delays nothing: Follow serves the cached set at once, and the
// first poll, in the background, waits for the registry instead.
func TestFollowWarmCacheHungRegistry(t *testing.T) {
	reg, c := startRegistry(t)
	ctx := testContext(t, time.Minute)
	s1, err := Load(writeDir(t, setFiles("one")))
	require.NoError(t, err)
	_, err = c.Push(ctx, s1, reg.Host+"/prompts:production", "")
	require.NoError(t, err)
	cache := t.TempDir()
	f, err := Follow(ctx, reg.Host+"/prompts:production", followOpts(c, cache)...)
	require.NoError(t, err)
	require.NoError(t, f.Close())

	arrived, release := make(chan string, 16), make(chan struct{})
	hung := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		arrived <- r.Method + " " + r.URL.Path
		select {
		case <-release:
		case <-r.Context().Done():
		}
	}))
	defer hung.Close()
	defer close(release)
	u, err := url.Parse(hung.URL)
	require.NoError(t, err)

	started := make(chan error, 1)
	go func() {
		var err error
		// The poll's timeout is an hour: only the cache can make Follow return now.
		f, err = Follow(context.Background(), u.Host+"/prompts:production",
			WithClient(&Client{PlainHTTP: true, DockerConfig: c.DockerConfig}), WithCacheDir(cache),
			WithInterval(time.Hour), WithTimeout(time.Hour))
		started <- err
	}()
	select {
	case err := <-started:
		require.NoError(t, err)
	case <-time.After(30 * time.Second):
		t.Fatal("Follow waited for the hung registry instead of serving its cache")
	}
	st := f.Status()
	assert.True(t, st.FromCache)
	assert.Equal(t, s1.Digest, st.SetDigest)
	assert.Equal(t, "[one] one, Ann", render(t, f.Manager()))
	select {
	case req := <-arrived:
		assert.Equal(t, "HEAD /v2/prompts/manifests/production", req, "the first poll runs in the background")
	case <-time.After(30 * time.Second):
		t.Fatal("no poll reached the registry")
	}
	assert.Zero(t, f.Status().Polls, "and is still waiting")
	require.NoError(t, f.Close(), "Close ends the poll in flight")
	assert.Equal(t, uint64(1), f.Status().Polls)
	assert.Error(t, f.Status().LastError)
}
