package fleet

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/seed-e7d2830f/promptkit/internal/registrytest"
)

// writeDir writes files (slash paths) into a new temporary directory.
func writeDir(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for p, s := range files {
		full := filepath.Join(dir, filepath.FromSlash(p))
		require.NoError(t, os.MkdirAll(filepath.Dir(full), 0o755))
		require.NoError(t, os.WriteFile(full, []byte(s), 0o644))
	}
	return dir
}

// setFiles is a small set whose greeting template includes a part, so a
// version changes two files; word is the version's wording.
func setFiles(word string) map[string]string {
	return map[string]string{
		"index.json":         `{"version":1,"templates":{"greet":{"path":"templates/greet.md","variables":["name"]}}}`,
		"templates/greet.md": "{% include \"parts/sign.md\" %} " + word + ", {{ name }}",
		"parts/sign.md":      "[" + word + "]",
		"README.md":          "not part of the set",
	}
}

// startRegistry starts a real registry and returns it with a client for it.
func startRegistry(t *testing.T) (*registrytest.Registry, *Client) {
	t.Helper()
	reg := registrytest.Start(t)
	// An empty Docker config: the test never reads the machine's.
	cfg := filepath.Join(t.TempDir(), "config.json")
	require.NoError(t, os.WriteFile(cfg, []byte(`{}`), 0o600))
	return reg, &Client{PlainHTTP: true, DockerConfig: cfg}
}

func testContext(t *testing.T, d time.Duration) context.Context {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), d)
	t.Cleanup(cancel)
	return ctx
}
