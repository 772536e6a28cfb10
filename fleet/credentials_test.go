package fleet

import (
	"encoding/base64"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/seed-e7d2830f/promptkit/internal/registrytest"
)

// Credentials come from a Docker config file, as docker login writes it.
func TestCredentialsFromDockerConfig(t *testing.T) {
	reg := registrytest.StartWithAuth(t)
	ctx := testContext(t, time.Minute)
	s, err := Load(writeDir(t, setFiles("one")))
	require.NoError(t, err)
	ref := reg.Host + "/prompts:v1"

	write := func(json string) string {
		p := filepath.Join(t.TempDir(), "config.json")
		require.NoError(t, os.WriteFile(p, []byte(json), 0o600))
		return p
	}
	basic := func(user, password string) string {
		return base64.StdEncoding.EncodeToString([]byte(user + ":" + password))
	}
	anonymous := &Client{PlainHTTP: true, DockerConfig: write(`{}`)}
	wrong := &Client{PlainHTTP: true, DockerConfig: write(`{"auths":{"` + reg.Host + `":{"auth":"` + basic(registrytest.User, "nope") + `"}}}`)}
	right := &Client{PlainHTTP: true, DockerConfig: write(`{"auths":{"` + reg.Host + `":{"auth":"` + basic(registrytest.User, registrytest.Password) + `"}}}`)}
	// A credential helper that does not exist is an error, not anonymous access.
	helper := &Client{PlainHTTP: true, DockerConfig: write(`{"credHelpers":{"` + reg.Host + `":"promptkit-absent"}}`)}

	_, err = anonymous.Push(ctx, s, ref, "")
	assert.ErrorContains(t, err, "basic credential not found")
	_, err = wrong.Push(ctx, s, ref, "")
	assert.ErrorContains(t, err, "401")
	_, err = helper.Push(ctx, s, ref, "")
	assert.ErrorContains(t, err, "promptkit-absent")

	p, err := right.Push(ctx, s, ref, "")
	require.NoError(t, err)
	got, err := right.Pull(ctx, ref, filepath.Join(t.TempDir(), "set"))
	require.NoError(t, err)
	assert.Equal(t, p.Manifest, got.Manifest)
	_, err = anonymous.Resolve(ctx, ref)
	assert.ErrorContains(t, err, "basic credential not found")

	f, err := Follow(ctx, ref, WithClient(right), WithCacheDir(t.TempDir()), WithInterval(time.Hour))
	require.NoError(t, err)
	defer f.Close()
	assert.Equal(t, s.Digest, f.Manager().Digest())
}
