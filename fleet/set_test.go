package fleet

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/seed-e7d2830f/promptkit/manager"
)

func TestLoad(t *testing.T) {
	files := setFiles("one")
	plain := writeDir(t, files)
	s, err := Load(plain)
	require.NoError(t, err)
	m, err := manager.Open(plain)
	require.NoError(t, err)
	defer m.Close()
	assert.Equal(t, m.Digest(), s.Digest, "the digest the manager computes")
	assert.Equal(t, 1, s.Templates)
	assert.Equal(t, []string{"index.json", "parts/sign.md", "templates/greet.md"}, s.Paths())
	assert.Equal(t, files["parts/sign.md"], string(s.Files["parts/sign.md"]))

	// A Kubernetes ConfigMap's layout: files behind ..data symlinks. The
	// same set, the same files, the same digest.
	cm := t.TempDir()
	data := filepath.Join(cm, "..2025_01_02_03_04_05.000000001")
	for p, c := range files {
		full := filepath.Join(data, filepath.FromSlash(p))
		require.NoError(t, os.MkdirAll(filepath.Dir(full), 0o755))
		require.NoError(t, os.WriteFile(full, []byte(c), 0o644))
	}
	require.NoError(t, os.Symlink(filepath.Base(data), filepath.Join(cm, "..data")))
	for _, top := range []string{"index.json", "templates", "parts"} {
		require.NoError(t, os.Symlink(filepath.Join("..data", top), filepath.Join(cm, top)))
	}
	s2, err := Load(cm)
	require.NoError(t, err)
	assert.Equal(t, s.Digest, s2.Digest)
	assert.Equal(t, s.Files, s2.Files)
}

func TestLoadRefuses(t *testing.T) {
	unused := setFiles("one")
	unused["index.json"] = `{"version":1,"templates":{"greet":{"path":"templates/greet.md","variables":["name","spare"]}}}`
	broken := setFiles("one")
	broken["templates/greet.md"] = "{% if %}"
	outside := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(outside, "secret.md"), []byte("secret"), 0o644))
	escape := writeDir(t, map[string]string{"index.json": `{"version":1,"templates":{"t":{"path":"t.md"}}}`})
	require.NoError(t, os.Symlink(filepath.Join(outside, "secret.md"), filepath.Join(escape, "t.md")))

	tests := []struct {
		name string
		dir  string
		want error
		text string
	}{
		{"unused variable", writeDir(t, unused), ErrUnused, `templates/greet.md: template "greet": declared variables never used: spare`},
		{"syntax error", writeDir(t, broken), manager.ErrTemplate, "templates/greet.md:1:"},
		{"symlink out of the set", escape, manager.ErrSandbox, "leaves the template root"},
		{"no index", t.TempDir(), manager.ErrIndex, "index.json"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Load(tc.dir)
			require.ErrorIs(t, err, tc.want)
			assert.Contains(t, err.Error(), tc.text)
		})
	}
}

// A set's call contracts travel with it: the files they read (tools,
// schemas, model settings) are files of the set, under its digest.
func TestLoadCarriesTheContract(t *testing.T) {
	dir := "../manager/testdata/contract/good"
	s, err := Load(dir)
	require.NoError(t, err)
	assert.Equal(t, []string{"index.json", "models/fast.json", "schemas/answer.json", "schemas/city.json",
		"templates/plain.md", "templates/summary.md", "templates/weather.md", "tools/get_weather.json"}, s.Paths())
	m, err := manager.Open(dir)
	require.NoError(t, err)
	defer m.Close()
	assert.Equal(t, m.Digest(), s.Digest)
}
