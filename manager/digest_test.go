package manager_test

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/seed-e7d2830f/promptkit/manager"
)

var digestSet = map[string]string{
	"index.json":     `{"version":1,"templates":{"greet":{"path":"t/greet.md","variables":["name"]},"bye":{"path":"bye.md"}}}`,
	"t/greet.md":     `{% include "parts/head.md" %}Hello {{ name }}.`,
	"parts/head.md":  "# Head\n",
	"bye.md":         "Bye.",
	"unused.md":      "not in the index",
	"parts/other.md": "not included",
}

func digestOf(t *testing.T, dir string) string {
	t.Helper()
	m, err := manager.Open(dir)
	require.NoError(t, err)
	defer m.Close()
	d := m.Digest()
	for _, tpl := range m.Templates() {
		assert.Equal(t, d, tpl.SetDigest, "template %s", tpl.Name)
	}
	return d
}

// The digest names the files a set uses and nothing else: not where the
// set is, not the files' times, not files it does not use; and one byte
// of a used file changes it.
func TestDigestStable(t *testing.T) {
	a, b := t.TempDir(), t.TempDir()
	writeFiles(t, a, digestSet)
	writeFiles(t, b, digestSet)
	base := digestOf(t, a)
	assert.Regexp(t, regexp.MustCompile(`^sha256:[0-9a-f]{64}$`), base)
	assert.Equal(t, base, digestOf(t, b), "same files in another directory")

	old := time.Now().Add(-48 * time.Hour)
	require.NoError(t, os.Chtimes(filepath.Join(b, "bye.md"), old, old))
	require.NoError(t, os.WriteFile(filepath.Join(b, "unused.md"), []byte("changed"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(b, "parts", "other.md"), []byte("changed"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(b, "new.md"), []byte("new file"), 0o644))
	assert.Equal(t, base, digestOf(t, b), "times and unused files do not count")

	for _, f := range []string{"index.json", "t/greet.md", "parts/head.md", "bye.md"} {
		t.Run(f, func(t *testing.T) {
			c := t.TempDir()
			writeFiles(t, c, digestSet)
			data, err := os.ReadFile(filepath.Join(c, f))
			require.NoError(t, err)
			data = append(data, ' ')
			require.NoError(t, os.WriteFile(filepath.Join(c, f), data, 0o644))
			assert.NotEqual(t, base, digestOf(t, c), "one byte more in %s", f)
		})
	}
}

// A Kubernetes ConfigMap publishes its files as symlinks through ..data
// into a timestamped folder; the set it holds has the digest of the same
// files checked out plainly.
func TestDigestConfigMapLayout(t *testing.T) {
	plain := t.TempDir()
	writeFiles(t, plain, digestSet)

	cm := t.TempDir()
	ts := filepath.Join(cm, "..2026_12_01_08_00_00.000000001")
	writeFiles(t, ts, digestSet)
	require.NoError(t, os.Symlink(filepath.Base(ts), filepath.Join(cm, "..data")))
	for _, top := range []string{"index.json", "t", "parts", "bye.md", "unused.md"} {
		require.NoError(t, os.Symlink(filepath.Join("..data", top), filepath.Join(cm, top)))
	}
	assert.Equal(t, digestOf(t, plain), digestOf(t, cm))
}

// A reload that changes a used file changes the digest, and reports it.
func TestDigestFollowsReload(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, digestSet)
	m, err := manager.Open(dir)
	require.NoError(t, err)
	defer m.Close()
	before := m.Digest()
	var got manager.ReloadEvent
	cancel := m.Subscribe(func(ev manager.ReloadEvent) { got = ev })
	defer cancel()
	writeFiles(t, dir, map[string]string{"bye.md": "Goodbye."})
	require.NoError(t, m.Reload(context.Background()))
	assert.NotEqual(t, before, m.Digest())
	assert.Equal(t, m.Digest(), got.Digest)
}
