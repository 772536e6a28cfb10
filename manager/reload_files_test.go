package manager

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var changeSet = map[string]string{
	IndexFile: `{"version":1,"templates":{
		"a":{"path":"a.md","variables":["x"]},
		"b":{"path":"b.md"},
		"c":{"path":"c.md"}}}`,
	"a.md":       `A {% include "parts/p.md" %}{% include "parts/later.md" ignore missing %} {{ x }}`,
	"b.md":       "B1",
	"c.md":       "C",
	"parts/p.md": "P1",
}

// loadDir loads dir as a watching manager's first load does.
func loadDir(t *testing.T, dir string) (*snapshot, *config) {
	t.Helper()
	cfg, err := newConfig([]Option{WithWatch()})
	require.NoError(t, err)
	root, err := os.OpenRoot(dir)
	require.NoError(t, err)
	t.Cleanup(func() { root.Close() })
	s, err := load(newRootFS(root), cfg, nil, nil)
	require.NoError(t, err)
	return s, cfg
}

func applyChange(t *testing.T, dir string, cfg *config, prev *snapshot, files ...string) (*snapshot, error, bool) {
	t.Helper()
	root, err := os.OpenRoot(dir)
	require.NoError(t, err)
	defer root.Close()
	return loadChanged(newRootFS(root), cfg, prev, files, nil)
}

// A change recompiles exactly the templates whose sources it touches,
// shares the others with the set serving, and gives the set the digest a
// load from scratch gives.
func TestReloadAppliesChangedFiles(t *testing.T) {
	dir := t.TempDir()
	writeTree(t, dir, changeSet)
	s0, cfg := loadDir(t, dir)
	require.True(t, s0.applies)
	assert.Equal(t, []string{IndexFile}, s0.others)

	for _, tc := range []struct {
		file, data string
		recompiled []string
	}{
		{"b.md", "B2", []string{"b"}},
		{"parts/p.md", "P2", []string{"a"}},
		{"unrelated.swp", "vim", nil},
		{"parts/later.md", "L", []string{"a"}}, // an include that was missing
	} {
		t.Run(tc.file, func(t *testing.T) {
			writeTree(t, dir, map[string]string{tc.file: tc.data})
			s1, err, ok := applyChange(t, dir, cfg, s0, tc.file)
			require.True(t, ok)
			require.NoError(t, err)
			for _, name := range s0.names {
				same := s1.templates[name] == s0.templates[name]
				assert.Equal(t, !contains(tc.recompiled, name), same, "template %s shared", name)
			}
			fresh, _ := loadDir(t, dir)
			assert.Equal(t, fresh.digest, s1.digest)
			assert.Equal(t, fresh.files, s1.files)
			assert.Equal(t, fresh.paths, s1.paths)
			for _, name := range tc.recompiled {
				assert.Equal(t, fresh.templates[name].info.Hash, s1.templates[name].info.Hash)
			}
			s0 = s1
		})
	}
	out, err := s0.templates["a"].tmpl.Render(t.Context(), map[string]any{"x": "!"}, &cfg.limits)
	require.NoError(t, err)
	assert.Equal(t, "A P2L !", out)

	// The optional include goes away again.
	require.NoError(t, os.Remove(filepath.Join(dir, "parts", "later.md")))
	s1, err, ok := applyChange(t, dir, cfg, s0, "parts/later.md")
	require.True(t, ok)
	require.NoError(t, err)
	fresh, _ := loadDir(t, dir)
	assert.Equal(t, fresh.digest, s1.digest)
	assert.Equal(t, fresh.paths, s1.paths)
	out, err = s1.templates["a"].tmpl.Render(t.Context(), map[string]any{"x": "!"}, &cfg.limits)
	require.NoError(t, err)
	assert.Equal(t, "A P2 !", out)
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// A broken edit fails the reload, naming the template; index.json, an
// unknown list or an override make the reload read the set whole.
func TestReloadChangedFilesFallsBack(t *testing.T) {
	dir := t.TempDir()
	writeTree(t, dir, changeSet)
	s0, cfg := loadDir(t, dir)

	writeTree(t, dir, map[string]string{"b.md": "{% if %}"})
	_, err, ok := applyChange(t, dir, cfg, s0, "b.md")
	require.True(t, ok)
	require.Error(t, err)
	assert.Contains(t, err.Error(), `b.md:1:7: template "b"`)

	_, _, ok = applyChange(t, dir, cfg, s0, IndexFile)
	assert.False(t, ok, "index.json decides what the set is")
	_, _, ok = applyChange(t, dir, cfg, s0)
	assert.False(t, ok, "nil: anything may have changed")
	// A schema file feeds templates through index.json: the set is read whole.
	typed := t.TempDir()
	writeTree(t, typed, map[string]string{
		IndexFile:   `{"version":1,"templates":{"u":{"path":"u.md","variables":[{"name":"user","schema":{"$ref":"user.json"}}]}}}`,
		"u.md":      "{{ user.name }}",
		"user.json": `{"type":"object","properties":{"name":{"type":"string"}}}`,
	})
	st, tcfg := loadDir(t, typed)
	assert.Equal(t, []string{IndexFile, "user.json"}, st.others)
	_, _, ok = applyChange(t, typed, tcfg, st, "user.json")
	assert.False(t, ok, "a schema changed")

	withOverride := *s0
	withOverride.overrides = map[string]override{"b": {}}
	_, _, ok = applyChange(t, dir, cfg, &withOverride, "c.md")
	assert.False(t, ok)
}

// A set whose files are reached through a symlink (a ConfigMap's ..data)
// is always read whole: an edit through the link names its target.
func TestReloadThroughSymlinksReadsWhole(t *testing.T) {
	dir := t.TempDir()
	real := filepath.Join(dir, "..2026_12_01")
	writeTree(t, real, changeSet)
	require.NoError(t, os.Symlink("..2026_12_01", filepath.Join(dir, "..data")))
	for f := range changeSet {
		if filepath.Dir(f) == "." {
			require.NoError(t, os.Symlink(filepath.Join("..data", f), filepath.Join(dir, f)))
		}
	}
	require.NoError(t, os.Symlink("..data/parts", filepath.Join(dir, "parts")))
	s, _ := loadDir(t, dir)
	assert.False(t, s.applies)
}

// End to end: a watching manager applies an edit of one file, and the set
// it serves is the one a fresh Open reads.
func TestWatchAppliesOneEdit(t *testing.T) {
	dir := t.TempDir()
	writeTree(t, dir, changeSet)
	m, err := Open(dir, WithWatch(), WithDebounce(20*time.Millisecond))
	require.NoError(t, err)
	defer m.Close()
	before := m.cur.Load()
	var events []ReloadEvent
	done := make(chan struct{}, 8)
	m.Subscribe(func(ev ReloadEvent) { events = append(events, ev); done <- struct{}{} })
	writeTree(t, dir, map[string]string{"c.md": "C2"})
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("no reload")
	}
	require.NoError(t, events[0].Err)
	assert.Equal(t, 1, events[0].Compiled, "one template compiled")
	assert.Equal(t, 3, events[0].Templates)
	after := m.cur.Load()
	assert.Same(t, before.templates["a"], after.templates["a"])
	assert.NotSame(t, before.templates["c"], after.templates["c"])
	got, err := m.Render("c", nil)
	require.NoError(t, err)
	assert.Equal(t, "C2", got)
	fresh, err := Open(dir)
	require.NoError(t, err)
	defer fresh.Close()
	assert.Equal(t, fresh.Digest(), m.Digest())
}

func writeTree(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for p, data := range files {
		writeFile(t, filepath.Join(dir, p), data)
	}
}
