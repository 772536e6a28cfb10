package manager

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/fsnotify/fsnotify"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The watch tests change real files in t.TempDir() and wait for the
// manager to catch up with require.Eventually. They use a short debounce
// to stay fast; the few that check that a burst loads once use a longer
// one, so that a slow machine cannot split the burst.

const (
	testDebounce = 30 * time.Millisecond
	testMaxWait  = 300 * time.Millisecond
	testSettle   = 150 * time.Millisecond
	waitLong     = 10 * time.Second
	pollEvery    = 2 * time.Millisecond
)

// index builds an index.json declaring templates without variables:
// name → path.
func index(entries map[string]string) string {
	var parts []string
	for name, p := range entries {
		parts = append(parts, fmt.Sprintf("%q: {\"path\": %q}", name, p))
	}
	return `{"version": 1, "templates": {` + strings.Join(parts, ", ") + `}}`
}

// writeFile writes a file in place, creating its directory.
func writeFile(t testing.TB, p, content string) {
	t.Helper()
	require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
	require.NoError(t, os.WriteFile(p, []byte(content), 0o644))
}

// saveByRename saves the way most editors and config tools do: write a
// temporary file next to the target, then rename it over the target.
func saveByRename(t testing.TB, p, content string) {
	t.Helper()
	tmp := p + ".tmp~"
	writeFile(t, tmp, content)
	require.NoError(t, os.Rename(tmp, p))
}

// recorder keeps the reload events a manager reports.
type recorder struct {
	mu     sync.Mutex
	events []ReloadEvent
}

func record(m *Manager) *recorder {
	r := &recorder{}
	m.Subscribe(func(ev ReloadEvent) {
		r.mu.Lock()
		r.events = append(r.events, ev)
		r.mu.Unlock()
	})
	return r
}

func (r *recorder) all() []ReloadEvent {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]ReloadEvent(nil), r.events...)
}

func (r *recorder) failures() []ReloadEvent {
	var out []ReloadEvent
	for _, ev := range r.all() {
		if ev.Err != nil {
			out = append(out, ev)
		}
	}
	return out
}

// waitGeneration waits until the event of the reload that made generation
// gen has reached the subscriber and returns the events so far. A render
// sees a new set as soon as it is swapped in; its event is published
// right after, from the reloading goroutine.
func (r *recorder) waitGeneration(t *testing.T, gen uint64) []ReloadEvent {
	t.Helper()
	require.Eventually(t, func() bool {
		return slices.ContainsFunc(r.all(), func(ev ReloadEvent) bool { return ev.Err == nil && ev.Generation == gen })
	}, waitLong, pollEvery, "no event of generation %d", gen)
	return r.all()
}

// waitFailure waits for a failed reload attempt and returns it.
func (r *recorder) waitFailure(t *testing.T) ReloadEvent {
	t.Helper()
	require.Eventually(t, func() bool { return len(r.failures()) > 0 }, waitLong, pollEvery, "no failed reload was reported")
	return r.failures()[0]
}

// openWatched opens dir with WithWatch and the test debounce; Close runs
// at cleanup.
func openWatched(t *testing.T, dir string, opts ...Option) *Manager {
	t.Helper()
	opts = append([]Option{WithWatch(), WithDebounce(testDebounce), WithMaxWait(testMaxWait), WithSettle(testSettle)}, opts...)
	m, err := Open(dir, opts...)
	require.NoError(t, err)
	t.Cleanup(func() { assert.NoError(t, m.Close()) })
	return m
}

// waitRender waits until the template renders want.
func waitRender(t *testing.T, m *Manager, name, want string) {
	t.Helper()
	var out string
	var err error
	ok := assert.Eventually(t, func() bool {
		out, err = m.Render(name, nil)
		return err == nil && out == want
	}, waitLong, pollEvery)
	if !ok {
		t.Fatalf("%s never rendered %q: last render %q, %v; generation %d; last reload error: %v",
			name, want, out, err, m.Generation(), m.LastError())
	}
}

// settle waits long enough for any pending reload to have happened.
func settle(m *Manager) { time.Sleep(3*m.cfg.debounce + 50*time.Millisecond) }

func mustRender(t *testing.T, m *Manager, name string) string {
	t.Helper()
	out, err := m.Render(name, nil)
	require.NoError(t, err)
	return out
}

func TestWatchOptions(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, IndexFile), index(map[string]string{"a": "a.md"}))
	writeFile(t, filepath.Join(dir, "a.md"), "A")

	bad := []struct {
		name string
		opts []Option
		want string
	}{
		{"debounce without watch", []Option{WithDebounce(time.Second)}, "WithDebounce without WithWatch"},
		{"max wait without watch", []Option{WithMaxWait(time.Second)}, "WithMaxWait without WithWatch"},
		{"poll without watch", []Option{WithPollInterval(time.Second)}, "WithPollInterval without WithWatch"},
		{"zero debounce", []Option{WithWatch(), WithDebounce(0)}, "WithDebounce: 0s is not positive"},
		{"negative max wait", []Option{WithWatch(), WithMaxWait(-time.Second)}, "WithMaxWait: -1s is not positive"},
		{"zero poll", []Option{WithWatch(), WithPollInterval(0)}, "WithPollInterval: 0s is not positive"},
		{"settle without watch", []Option{WithSettle(time.Second)}, "WithSettle without WithWatch"},
		{"zero settle", []Option{WithWatch(), WithSettle(0)}, "WithSettle: 0s is not positive"},
		{"max wait under debounce", []Option{WithWatch(), WithDebounce(time.Second), WithMaxWait(time.Millisecond)}, "max wait 1ms is shorter than the debounce period 1s"},
	}
	for _, c := range bad {
		t.Run(c.name, func(t *testing.T) {
			_, err := Open(dir, c.opts...)
			require.ErrorIs(t, err, ErrTemplate)
			assert.ErrorContains(t, err, c.want)
		})
	}

	t.Run("watch needs Open", func(t *testing.T) {
		_, err := New(os.DirFS(dir), WithWatch())
		require.ErrorIs(t, err, ErrTemplate)
		assert.ErrorContains(t, err, "WithWatch needs a directory on disk: use Open")
	})

	t.Run("a long debounce raises the default max wait", func(t *testing.T) {
		m, err := Open(dir, WithWatch(), WithDebounce(3*time.Second))
		require.NoError(t, err)
		defer m.Close()
		assert.Equal(t, 3*time.Second, m.cfg.maxWait)
	})

	t.Run("defaults", func(t *testing.T) {
		m, err := Open(dir, WithWatch())
		require.NoError(t, err)
		defer m.Close()
		assert.Equal(t, DefaultDebounce, m.cfg.debounce)
		assert.Equal(t, DefaultMaxWait, m.cfg.maxWait)
		assert.Zero(t, m.cfg.pollInterval)
	})
}

func TestWatchRenameOverSave(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, IndexFile), index(map[string]string{"a": "a.md"}))
	writeFile(t, filepath.Join(dir, "a.md"), "version 1")
	m := openWatched(t, dir)
	rec := record(m)
	require.Equal(t, uint64(1), m.Generation())

	for v := 2; v <= 4; v++ {
		want := fmt.Sprintf("version %d", v)
		saveByRename(t, filepath.Join(dir, "a.md"), want)
		waitRender(t, m, "a", want)
		assert.Equal(t, uint64(v), m.Generation())
	}
	evs := rec.waitGeneration(t, m.Generation())
	assert.Empty(t, rec.failures())
	assert.NoError(t, m.LastError())
	last := evs[len(evs)-1]
	assert.Equal(t, TriggerWatch, last.Trigger)
	assert.Equal(t, 1, last.Templates)
	assert.Equal(t, m.Generation(), last.Generation)
}

func TestWatchMultiWriteSaveLoadsOnce(t *testing.T) {
	dir := t.TempDir()
	a := filepath.Join(dir, "a.md")
	writeFile(t, filepath.Join(dir, IndexFile), index(map[string]string{"a": "a.md"}))
	writeFile(t, a, "old")
	m := openWatched(t, dir, WithDebounce(250*time.Millisecond), WithMaxWait(5*time.Second))
	rec := record(m)

	// Every prefix of the final text is a broken template: had any write
	// been loaded on its own, a reload would have failed.
	f, err := os.OpenFile(a, os.O_WRONLY|os.O_TRUNC, 0)
	require.NoError(t, err)
	for _, chunk := range []string{"new {% if true", " %}yes{% en", "dif %}"} {
		_, err := f.WriteString(chunk)
		require.NoError(t, err)
		time.Sleep(5 * time.Millisecond)
	}
	require.NoError(t, f.Close())

	waitRender(t, m, "a", "new yes")
	settle(m)
	assert.Equal(t, uint64(2), m.Generation(), "three writes must load once")
	assert.Empty(t, rec.failures())
}

func TestWatchVimSave(t *testing.T) {
	dir := t.TempDir()
	a := filepath.Join(dir, "a.md")
	swp := filepath.Join(dir, ".a.md.swp")
	writeFile(t, filepath.Join(dir, IndexFile), index(map[string]string{"a": "a.md"}))
	writeFile(t, a, "before")
	m := openWatched(t, dir, WithDebounce(250*time.Millisecond), WithMaxWait(5*time.Second))
	rec := record(m)

	// Editing: vim keeps a swap file next to the buffer and writes it; it
	// is not a file of the set, and reloads nothing (the generations
	// below count every reload).
	writeFile(t, swp, "b0VIM 9.0 swap")

	// :w with backupcopy=auto and writebackup: vim probes the directory
	// with a file named 4913, renames the original to a~, writes a new
	// file (here in two writes), then deletes the backup.
	probe := filepath.Join(dir, "4913")
	writeFile(t, probe, "")
	require.NoError(t, os.Remove(probe))
	require.NoError(t, os.Rename(a, a+"~"))
	f, err := os.OpenFile(a, os.O_CREATE|os.O_WRONLY|os.O_EXCL, 0o644)
	require.NoError(t, err)
	_, err = f.WriteString("after {{ 1")
	require.NoError(t, err)
	_, err = f.WriteString(" + 1 }}")
	require.NoError(t, err)
	require.NoError(t, f.Close())
	require.NoError(t, os.Remove(a+"~"))
	writeFile(t, swp, "b0VIM 9.0 swap, saved")

	waitRender(t, m, "a", "after 2")
	settle(m)
	assert.Equal(t, uint64(2), m.Generation(), "the whole save loads once, the swap file never")
	assert.Empty(t, rec.failures(), "a.md was missing mid-save: it must not have been loaded then")

	// Quitting deletes the swap file: nothing of the set changes. The
	// next save is the next generation.
	require.NoError(t, os.Remove(swp))
	saveByRename(t, a, "again")
	waitRender(t, m, "a", "again")
	assert.Equal(t, uint64(3), m.Generation())
	assert.Len(t, rec.waitGeneration(t, 3), 2)
}

func TestWatchIgnoresPureChmod(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, IndexFile), index(map[string]string{"a": "a.md"}))
	writeFile(t, filepath.Join(dir, "a.md"), "A")
	m := openWatched(t, dir)
	require.NoError(t, os.Chmod(filepath.Join(dir, "a.md"), 0o600))
	require.NoError(t, os.Chtimes(filepath.Join(dir, "a.md"), time.Now(), time.Now()))
	assert.Never(t, func() bool { return m.Generation() != 1 }, 10*testDebounce, pollEvery)
}

func TestWatchNewSubdirectories(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, IndexFile), index(map[string]string{"a": "a.md"}))
	writeFile(t, filepath.Join(dir, "a.md"), "A")
	m := openWatched(t, dir)

	// mkdir -p and a file written at once: the deeper directories exist
	// before the watcher hears of the first one.
	deep := filepath.Join(dir, "x", "y", "z")
	require.NoError(t, os.MkdirAll(deep, 0o755))
	writeFile(t, filepath.Join(deep, "d.md"), "deep 1")
	saveByRename(t, filepath.Join(dir, IndexFile), index(map[string]string{"a": "a.md", "d": "x/y/z/d.md"}))
	waitRender(t, m, "d", "deep 1")

	// Only the file in the new directory changes: that directory is watched.
	saveByRename(t, filepath.Join(deep, "d.md"), "deep 2")
	waitRender(t, m, "d", "deep 2")
	writeFile(t, filepath.Join(deep, "d.md"), "deep 3")
	waitRender(t, m, "d", "deep 3")

	// A directory prepared elsewhere and moved in.
	outside := filepath.Join(t.TempDir(), "parts")
	writeFile(t, filepath.Join(outside, "inner", "p.md"), "moved 1")
	require.NoError(t, os.Rename(outside, filepath.Join(dir, "parts")))
	saveByRename(t, filepath.Join(dir, IndexFile), index(map[string]string{"a": "a.md", "d": "x/y/z/d.md", "p": "parts/inner/p.md"}))
	waitRender(t, m, "p", "moved 1")
	writeFile(t, filepath.Join(dir, "parts", "inner", "p.md"), "moved 2")
	waitRender(t, m, "p", "moved 2")

	// A directory renamed inside the tree is watched under its new name.
	require.NoError(t, os.Rename(filepath.Join(dir, "parts"), filepath.Join(dir, "parts2")))
	saveByRename(t, filepath.Join(dir, IndexFile), index(map[string]string{"a": "a.md", "p": "parts2/inner/p.md"}))
	waitRender(t, m, "p", "moved 2")
	require.Eventually(t, func() bool { return len(m.Templates()) == 2 }, waitLong, pollEvery)
	writeFile(t, filepath.Join(dir, "parts2", "inner", "p.md"), "moved 3")
	waitRender(t, m, "p", "moved 3")
}

func TestWatchDeletes(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, IndexFile), index(map[string]string{"a": "a.md", "b": "sub/b.md", "c": "sub/deeper/c.md"}))
	writeFile(t, filepath.Join(dir, "a.md"), "A")
	writeFile(t, filepath.Join(dir, "sub", "b.md"), "B")
	writeFile(t, filepath.Join(dir, "sub", "deeper", "c.md"), "C")
	m := openWatched(t, dir)
	rec := record(m)

	// A file the index still names: refused, the last good set serves.
	require.NoError(t, os.Remove(filepath.Join(dir, "sub", "b.md")))
	ev := rec.waitFailure(t)
	require.ErrorIs(t, ev.Err, ErrTemplate)
	assert.ErrorContains(t, ev.Err, `sub/b.md: template "b": cannot read the template`)
	assert.Equal(t, uint64(1), ev.Generation)
	assert.Equal(t, "B", mustRender(t, m, "b"))
	assert.Equal(t, ev.Err, m.LastError())

	// The index follows: the set shrinks.
	saveByRename(t, filepath.Join(dir, IndexFile), index(map[string]string{"a": "a.md", "c": "sub/deeper/c.md"}))
	require.Eventually(t, func() bool { return m.LastError() == nil && len(m.Templates()) == 2 }, waitLong, pollEvery)
	_, err := m.Render("b", nil)
	require.ErrorIs(t, err, ErrUnknownTemplate)

	// A whole subdirectory goes, with its entry.
	require.NoError(t, os.RemoveAll(filepath.Join(dir, "sub")))
	saveByRename(t, filepath.Join(dir, IndexFile), index(map[string]string{"a": "a.md"}))
	require.Eventually(t, func() bool { return m.LastError() == nil && len(m.Templates()) == 1 }, waitLong, pollEvery)

	// And comes back: the new directory is watched.
	writeFile(t, filepath.Join(dir, "sub", "deeper", "c.md"), "C2")
	saveByRename(t, filepath.Join(dir, IndexFile), index(map[string]string{"a": "a.md", "c": "sub/deeper/c.md"}))
	waitRender(t, m, "c", "C2")
	writeFile(t, filepath.Join(dir, "sub", "deeper", "c.md"), "C3")
	waitRender(t, m, "c", "C3")
}

func TestWatchIndexEditedRenamedMissing(t *testing.T) {
	dir := t.TempDir()
	idx := filepath.Join(dir, IndexFile)
	writeFile(t, idx, index(map[string]string{"a": "a.md"}))
	writeFile(t, filepath.Join(dir, "a.md"), "A")
	writeFile(t, filepath.Join(dir, "b.md"), "B")
	m := openWatched(t, dir)
	rec := record(m)

	t.Run("edited in place", func(t *testing.T) {
		writeFile(t, idx, index(map[string]string{"a": "a.md", "b": "b.md"}))
		waitRender(t, m, "b", "B")
		assert.Empty(t, rec.failures())
	})

	t.Run("briefly missing", func(t *testing.T) {
		// A debounce period that a slow machine cannot outlast between
		// two file operations.
		m := openWatched(t, dir, WithDebounce(250*time.Millisecond), WithMaxWait(5*time.Second))
		rec := record(m)
		require.NoError(t, os.Remove(idx))
		writeFile(t, idx, index(map[string]string{"b": "b.md"}))
		require.Eventually(t, func() bool { return len(m.Templates()) == 1 }, waitLong, pollEvery)
		settle(m)
		assert.Equal(t, uint64(2), m.Generation())
		assert.Empty(t, rec.failures(), "the gap was shorter than the debounce period")
		require.NoError(t, m.Close())
	})

	t.Run("renamed away and back", func(t *testing.T) {
		settle(m) // the other subtests' changes are loaded
		rec := record(m)
		gen := m.Generation()
		require.NoError(t, os.Rename(idx, idx+".bak"))
		ev := rec.waitFailure(t)
		require.ErrorIs(t, ev.Err, ErrIndex)
		assert.ErrorContains(t, ev.Err, "index.json: cannot read the index")
		assert.Equal(t, gen, m.Generation())
		assert.Equal(t, "B", mustRender(t, m, "b"), "the last good set keeps serving")

		require.NoError(t, os.Rename(idx+".bak", idx))
		require.Eventually(t, func() bool { return m.LastError() == nil && m.Generation() > gen }, waitLong, pollEvery)
	})
}

func TestWatchBrokenEditKeepsLastGood(t *testing.T) {
	dir := t.TempDir()
	idx := `{"version": 1, "templates": {
  "a": {"path": "a.md"},
  "b": {"path": "b.md", "variables": ["name"]}}}`
	writeFile(t, filepath.Join(dir, IndexFile), idx)
	writeFile(t, filepath.Join(dir, "a.md"), "A1")
	writeFile(t, filepath.Join(dir, "b.md"), "Hi {{ name }}")
	m := openWatched(t, dir)
	rec := record(m)

	// Two broken templates in one edit: both problems are reported.
	writeFile(t, filepath.Join(dir, "a.md"), "A2\n{% if %}")
	writeFile(t, filepath.Join(dir, "b.md"), "Hi {{ name }}, {{ nmae }}")
	ev := rec.waitFailure(t)
	// The two writes may land in two reloads; wait for one seeing both.
	require.Eventually(t, func() bool { return len(Problems(m.LastError())) == 2 }, waitLong, pollEvery, "last error: %v", m.LastError())

	err := m.LastError()
	var le *LoadError
	require.ErrorAs(t, err, &le)
	msgs := []string{le.Problems[0].Error(), le.Problems[1].Error()}
	assert.Regexp(t, `^a\.md:2:\d+: template "a": `, msgs[0])
	assert.Equal(t, `b.md:1:19: template "b": undeclared variable "nmae" (declare it in index.json under "b"); did you mean "name"?`, msgs[1])
	assert.ErrorIs(t, err, ErrUndeclaredVariable)
	assert.Equal(t, uint64(1), ev.Generation)
	assert.Equal(t, uint64(1), m.Generation())
	assert.Equal(t, "A1", mustRender(t, m, "a"))
	out, rerr := m.Render("b", map[string]any{"name": "Ann"})
	require.NoError(t, rerr)
	assert.Equal(t, "Hi Ann", out)

	// Fixing both swaps the new set in and clears the error.
	writeFile(t, filepath.Join(dir, "a.md"), "A3")
	writeFile(t, filepath.Join(dir, "b.md"), "Hello {{ name }}")
	waitRender(t, m, "a", "A3")
	require.Eventually(t, func() bool { return m.LastError() == nil }, waitLong, pollEvery)
	out, rerr = m.Render("b", map[string]any{"name": "Ann"})
	require.NoError(t, rerr)
	assert.Equal(t, "Hello Ann", out)
}

// configMap lays dir out as the kubelet publishes a ConfigMap volume: the
// files live in a timestamped directory, ..data is a symlink to it, and
// each top-level name is a symlink through ..data.
func configMap(t *testing.T, dir, stamp string, files map[string]string) {
	t.Helper()
	ts := filepath.Join(dir, stamp)
	for name, content := range files {
		writeFile(t, filepath.Join(ts, name), content)
	}
	// The kubelet's atomic writer: a new ..data_tmp symlink renamed over
	// ..data, then the old timestamped directory removed.
	old, _ := os.Readlink(filepath.Join(dir, "..data"))
	require.NoError(t, os.Symlink(stamp, filepath.Join(dir, "..data_tmp")))
	require.NoError(t, os.Rename(filepath.Join(dir, "..data_tmp"), filepath.Join(dir, "..data")))
	for name := range files {
		top := strings.Split(name, "/")[0]
		link := filepath.Join(dir, top)
		if _, err := os.Lstat(link); errors.Is(err, os.ErrNotExist) {
			require.NoError(t, os.Symlink(filepath.Join("..data", top), link))
		}
	}
	if old != "" {
		require.NoError(t, os.RemoveAll(filepath.Join(dir, old)))
	}
}

func TestWatchConfigMapSwap(t *testing.T) {
	dir := t.TempDir()
	set := func(v string) map[string]string {
		return map[string]string{
			IndexFile:           index(map[string]string{"greet": "prompts/greet.md"}),
			"prompts/greet.md":  "hello " + v + ` {% include "prompts/part.md" %}`,
			"prompts/part.md":   "part " + v,
			"prompts/unused.md": v,
		}
	}
	configMap(t, dir, "..2026_11_29_10_00_00.000000001", set("v1"))
	m := openWatched(t, dir)
	rec := record(m)
	require.Equal(t, "hello v1 part v1", mustRender(t, m, "greet"))

	configMap(t, dir, "..2026_11_29_10_01_00.000000002", set("v2"))
	waitRender(t, m, "greet", "hello v2 part v2")
	configMap(t, dir, "..2026_11_29_10_02_00.000000003", set("v3"))
	waitRender(t, m, "greet", "hello v3 part v3")
	assert.Empty(t, rec.failures())

	// A rollout with a broken template keeps v3 serving.
	bad := set("v4")
	bad["prompts/part.md"] = "{% endif %}"
	configMap(t, dir, "..2026_11_29_10_03_00.000000004", bad)
	rec.waitFailure(t)
	assert.Equal(t, "hello v3 part v3", mustRender(t, m, "greet"))
	configMap(t, dir, "..2026_11_29_10_04_00.000000005", set("v5"))
	waitRender(t, m, "greet", "hello v5 part v5")
}

// TestWatchDirectorySwap replaces the template directory itself: os.Root
// keeps the directory it opened, so a reload must open the path again.
func TestWatchDirectorySwap(t *testing.T) {
	base := t.TempDir()
	release := func(name, v string) {
		writeFile(t, filepath.Join(base, name, IndexFile), index(map[string]string{"a": "a.md"}))
		writeFile(t, filepath.Join(base, name, "a.md"), v)
	}
	release("r1", "release 1")
	current := filepath.Join(base, "current")
	require.NoError(t, os.Symlink("r1", current))
	m := openWatched(t, current)

	t.Run("symlink swapped to a new release", func(t *testing.T) {
		release("r2", "release 2")
		require.NoError(t, os.Symlink("r2", current+".tmp"))
		require.NoError(t, os.Rename(current+".tmp", current))
		waitRender(t, m, "a", "release 2")
		// The new release is watched, the old one is not needed.
		writeFile(t, filepath.Join(base, "r2", "a.md"), "release 2, edited")
		waitRender(t, m, "a", "release 2, edited")
		gen := m.Generation()
		writeFile(t, filepath.Join(base, "r1", "a.md"), "the old release")
		assert.Never(t, func() bool { return m.Generation() != gen }, 10*testDebounce, pollEvery)
	})

	t.Run("directory deleted and re-created", func(t *testing.T) {
		dir := t.TempDir()
		writeFile(t, filepath.Join(dir, IndexFile), index(map[string]string{"a": "a.md"}))
		writeFile(t, filepath.Join(dir, "a.md"), "first")
		m := openWatched(t, dir)
		rec := record(m)
		require.NoError(t, os.RemoveAll(dir))
		rec.waitFailure(t)
		assert.Equal(t, "first", mustRender(t, m, "a"))
		writeFile(t, filepath.Join(dir, IndexFile), index(map[string]string{"a": "a.md"}))
		writeFile(t, filepath.Join(dir, "a.md"), "second")
		waitRender(t, m, "a", "second")
		writeFile(t, filepath.Join(dir, "a.md"), "third")
		waitRender(t, m, "a", "third")
	})
}

// TestWatchOverflow simulates lost events: a directory's watch is dropped
// and a file in it changes unseen; the overflow error that the platform
// sends in that case must reload everything and restore the watches.
func TestWatchOverflow(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, IndexFile), index(map[string]string{"a": "sub/a.md"}))
	writeFile(t, filepath.Join(dir, "sub", "a.md"), "A1")
	m := openWatched(t, dir)
	rec := record(m)

	sub, err := filepath.EvalSymlinks(filepath.Join(dir, "sub"))
	require.NoError(t, err)
	require.NoError(t, m.w.Platform().Remove(sub))
	writeFile(t, filepath.Join(dir, "sub", "a.md"), "A2")
	assert.Never(t, func() bool { return m.Generation() != 1 }, 10*testDebounce, pollEvery, "the change was not supposed to be seen")

	m.w.Platform().Errors <- fsnotify.ErrEventOverflow
	waitRender(t, m, "a", "A2")
	evs := rec.waitGeneration(t, m.Generation())
	assert.Equal(t, TriggerOverflow, evs[len(evs)-1].Trigger)

	writeFile(t, filepath.Join(dir, "sub", "a.md"), "A3")
	waitRender(t, m, "a", "A3")
}

// withoutNotify is an option that makes the platform watcher unavailable.
func withoutNotify() Option {
	return func(c *config) error {
		c.newPlatformWatcher = func() (*fsnotify.Watcher, error) { return nil, errors.New("inotify: too many instances") }
		return nil
	}
}

func TestWatchPolling(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, IndexFile), index(map[string]string{"a": "a.md"}))
	writeFile(t, filepath.Join(dir, "a.md"), "A1")
	_, err := Open(dir, WithWatch(), withoutNotify())
	require.ErrorIs(t, err, ErrTemplate)
	assert.ErrorContains(t, err, "too many instances (WithPollInterval polls instead)")

	m := openWatched(t, dir, WithPollInterval(20*time.Millisecond), withoutNotify())
	require.Nil(t, m.w.Platform(), "polling only")
	rec := record(m)

	saveByRename(t, filepath.Join(dir, "a.md"), "A2")
	waitRender(t, m, "a", "A2")
	writeFile(t, filepath.Join(dir, "a.md"), "A3 longer")
	waitRender(t, m, "a", "A3 longer")
	writeFile(t, filepath.Join(dir, "new", "b.md"), "B")
	saveByRename(t, filepath.Join(dir, IndexFile), index(map[string]string{"a": "a.md", "b": "new/b.md"}))
	waitRender(t, m, "b", "B")
	for _, ev := range rec.waitGeneration(t, m.Generation()) {
		assert.Equal(t, TriggerPoll, ev.Trigger)
	}

	// Nothing changes, nothing reloads.
	gen := m.Generation()
	assert.Never(t, func() bool { return m.Generation() != gen }, 200*time.Millisecond, pollEvery)
}

func TestWatchPollingConfigMap(t *testing.T) {
	dir := t.TempDir()
	set := func(v string) map[string]string {
		return map[string]string{IndexFile: index(map[string]string{"a": "p/a.md"}), "p/a.md": v}
	}
	configMap(t, dir, "..1", set("one"))
	m := openWatched(t, dir, WithPollInterval(20*time.Millisecond), withoutNotify())
	// Same sizes, and possibly the same modification times: the symlink
	// target is what changes.
	configMap(t, dir, "..2", set("two"))
	waitRender(t, m, "a", "two")
}

func TestWatchPollingAlongsideEvents(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, IndexFile), index(map[string]string{"a": "sub/a.md"}))
	writeFile(t, filepath.Join(dir, "sub", "a.md"), "A1")
	m := openWatched(t, dir, WithPollInterval(30*time.Millisecond))
	require.NotNil(t, m.w.Platform())
	rec := record(m)

	// A change the events miss (as on a network filesystem) is polled.
	sub, err := filepath.EvalSymlinks(filepath.Join(dir, "sub"))
	require.NoError(t, err)
	require.NoError(t, m.w.Platform().Remove(sub))
	writeFile(t, filepath.Join(dir, "sub", "a.md"), "A2")
	waitRender(t, m, "a", "A2")
	assert.Equal(t, TriggerPoll, rec.waitGeneration(t, 2)[0].Trigger)
}

// TestWatchMaxWait writes without pause for longer than the maximum wait:
// reloads happen during the stream, not only after it.
// A constant stream of whole saves (each renamed into place) still
// reloads every max wait. (Writes in place wait until the file settles:
// TestWatchSlowWriters.)
func TestWatchMaxWait(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, IndexFile), index(map[string]string{"a": "a.md"}))
	writeFile(t, filepath.Join(dir, "a.md"), "0")
	m := openWatched(t, dir, WithDebounce(100*time.Millisecond), WithMaxWait(200*time.Millisecond))
	rec := record(m)

	deadline := time.Now().Add(2 * time.Second) // ten max waits: a loaded machine still sees two
	i := 0
	for time.Now().Before(deadline) {
		i++
		saveByRename(t, filepath.Join(dir, "a.md"), strconv.Itoa(i))
		time.Sleep(5 * time.Millisecond)
	}
	during := len(rec.all())
	waitRender(t, m, "a", strconv.Itoa(i))
	assert.GreaterOrEqual(t, during, 2, "a constant stream of writes still reloads every max wait")
}

// TestWatchBurst saves 1,000 versions as fast as it can while 8 goroutines
// render. Each version is a whole set of two files: a new template, then
// index.json, renamed over the old one, which switches to that template
// and holds a default naming the same version. Every render must return
// one version whole, never the index of one with the template of another
// and never an error, and the last version must win.
func TestWatchBurst(t *testing.T) {
	const versions = 1000
	dir := t.TempDir()
	save := func(v int) {
		writeFile(t, filepath.Join(dir, "t", strconv.Itoa(v)+".md"), fmt.Sprintf("idx={{ idx }} tpl=%d", v))
		saveByRename(t, filepath.Join(dir, IndexFile), fmt.Sprintf(
			`{"version": 1, "templates": {"main": {"path": "t/%d.md", "variables": [{"name": "idx", "required": false, "default": "%d"}]}}}`, v, v))
	}
	save(0)
	m := openWatched(t, dir, WithDebounce(10*time.Millisecond), WithMaxWait(50*time.Millisecond))
	rec := record(m)

	re := regexp.MustCompile(`^idx=(\d+) tpl=(\d+)$`)
	var (
		stop    atomic.Bool
		renders atomic.Int64
		wg      sync.WaitGroup
		badMu   sync.Mutex
		bad     []string
		seenMu  sync.Mutex
		seen    = map[string]bool{}
	)
	for range 8 {
		wg.Go(func() {
			local := map[string]bool{}
			for !stop.Load() {
				// A pause between renders leaves the writer and the watcher
				// CPU time on a small machine; each renderer still renders
				// thousands of times a second.
				time.Sleep(200 * time.Microsecond)
				out, err := m.Render("main", nil)
				renders.Add(1)
				sub := re.FindStringSubmatch(out)
				if err != nil || sub == nil || sub[1] != sub[2] {
					badMu.Lock()
					bad = append(bad, fmt.Sprintf("%q, %v", out, err))
					badMu.Unlock()
					continue
				}
				local[sub[1]] = true
			}
			seenMu.Lock()
			for v := range local {
				seen[v] = true
			}
			seenMu.Unlock()
		})
	}

	start := time.Now()
	for v := 1; v <= versions; v++ {
		save(v)
	}
	burst := time.Since(start)
	waitRender(t, m, "main", fmt.Sprintf("idx=%d tpl=%d", versions, versions))
	stop.Store(true)
	wg.Wait()

	require.Empty(t, bad, "renders that were not one whole version")
	for v := range seen {
		n, err := strconv.Atoi(v)
		require.NoError(t, err)
		assert.True(t, n >= 0 && n <= versions, "version %d was never written", n)
	}
	t.Logf("%d saves in %v; %d renders saw %d versions over %d generations; %d reload attempts, %d failed",
		versions, burst.Round(time.Millisecond), renders.Load(), len(seen), m.Generation(), len(rec.all()), len(rec.failures()))
	assert.Empty(t, rec.failures(), "every version was written whole")
	assert.GreaterOrEqual(t, m.Generation(), uint64(2))
}

// watcherGoroutines lists the goroutines that run the manager's watcher or
// fsnotify's reader.
func watcherGoroutines() []string {
	buf := make([]byte, 1<<20)
	buf = buf[:runtime.Stack(buf, true)]
	var out []string
	for _, g := range strings.Split(string(buf), "\n\n") {
		if strings.Contains(g, "watch.(*Watcher).run") || strings.Contains(g, "github.com/fsnotify/") {
			out = append(out, g)
		}
	}
	return out
}

func TestCloseLeavesNoGoroutine(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, IndexFile), index(map[string]string{"a": "a.md"}))
	writeFile(t, filepath.Join(dir, "a.md"), "A")
	// Other tests' managers are closed by their cleanups; wait for theirs.
	require.Eventually(t, func() bool { return len(watcherGoroutines()) == 0 }, waitLong, pollEvery)
	time.Sleep(10 * time.Millisecond) // require.Eventually's own goroutines end
	before := runtime.NumGoroutine()

	for _, opts := range [][]Option{
		{WithWatch()},
		{WithWatch(), WithPollInterval(10 * time.Millisecond)},
	} {
		m, err := Open(dir, append(opts, WithDebounce(testDebounce))...)
		require.NoError(t, err)
		record(m)
		require.NotEmpty(t, watcherGoroutines())
		writeFile(t, filepath.Join(dir, "a.md"), "B")
		waitRender(t, m, "a", "B")
		writeFile(t, filepath.Join(dir, "a.md"), "A") // pending when Close runs
		require.NoError(t, m.Close())
		require.NoError(t, m.Close(), "Close is idempotent")
		// Close waited for the watcher's goroutine. fsnotify's Close waits
		// for its reader too, which returns a few instructions later.
		assert.False(t, slices.ContainsFunc(watcherGoroutines(), func(g string) bool {
			return strings.Contains(g, "watch.(*Watcher).run")
		}))
		require.Eventually(t, func() bool { return len(watcherGoroutines()) == 0 }, waitLong, pollEvery)
		assert.ErrorIs(t, m.Reload(t.Context()), ErrClosed)
		_, err = m.Render("a", nil)
		assert.NoError(t, err, "renders go on after Close")
	}
	// Counted here, not in require.Eventually, whose check runs on a
	// goroutine of its own.
	for deadline := time.Now().Add(waitLong); runtime.NumGoroutine() > before && time.Now().Before(deadline); {
		time.Sleep(pollEvery)
	}
	if n := runtime.NumGoroutine(); n > before {
		buf := make([]byte, 1<<20)
		t.Fatalf("%d goroutines, %d before:\n%s", n, before, buf[:runtime.Stack(buf, true)])
	}
}

func TestWatchOpenFailureLeavesNoGoroutine(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, IndexFile), index(map[string]string{"a": "a.md"}))
	writeFile(t, filepath.Join(dir, "a.md"), "{% if %}")
	require.Eventually(t, func() bool { return len(watcherGoroutines()) == 0 }, waitLong, pollEvery)
	_, err := Open(dir, WithWatch())
	require.Error(t, err)
	require.Eventually(t, func() bool { return len(watcherGoroutines()) == 0 }, waitLong, pollEvery)
}

// TestWatchRealOverflow overflows the kernel's inotify queue: while the
// watcher waits to reload an edit of a.md, attribute changes of files
// outside the set (which reload nothing) fill the queue past
// fs.inotify.max_queued_events, and an edit of b.md that follows is lost
// with the events beyond. The overflow must lead to a full reload, which
// finds it (the reload of a.md's edit reads a.md alone).
func TestWatchRealOverflow(t *testing.T) {
	raw, err := os.ReadFile("/proc/sys/fs/inotify/max_queued_events")
	if err != nil {
		t.Skip("no inotify here:", err)
	}
	limit, err := strconv.Atoi(strings.TrimSpace(string(raw)))
	require.NoError(t, err)
	if limit > 100_000 {
		t.Skipf("max_queued_events is %d: too many events to queue in a test", limit)
	}
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, IndexFile), index(map[string]string{"a": "a.md", "b": "b.md"}))
	writeFile(t, filepath.Join(dir, "a.md"), "A1")
	writeFile(t, filepath.Join(dir, "b.md"), "B1")
	writeFile(t, filepath.Join(dir, "x"), "")
	writeFile(t, filepath.Join(dir, "y"), "")
	m := openWatched(t, dir)
	rec := record(m)

	// Hold the reload lock, as a long reload would: the watcher stops
	// reading events once its own reload waits for it.
	m.reloads.sem <- struct{}{}
	writeFile(t, filepath.Join(dir, "a.md"), "A2")
	time.Sleep(5 * testDebounce)
	// Alternate two files so that the kernel cannot merge the events;
	// fsnotify's reader holds up to 64 KiB of them on top of the queue.
	for i := range limit + 8192 {
		p := filepath.Join(dir, "x")
		if i%2 == 1 {
			p = filepath.Join(dir, "y")
		}
		require.NoError(t, os.Chmod(p, os.FileMode(0o600|i%2<<2)))
	}
	writeFile(t, filepath.Join(dir, "b.md"), "B2") // its event is lost
	<-m.reloads.sem

	require.Eventually(t, func() bool {
		return slices.ContainsFunc(rec.all(), func(ev ReloadEvent) bool { return ev.Trigger == TriggerOverflow })
	}, waitLong, pollEvery, "no reload for the overflow")
	assert.Equal(t, "A2", mustRender(t, m, "a"))
	assert.Equal(t, "B2", mustRender(t, m, "b"))
	writeFile(t, filepath.Join(dir, "b.md"), "B3")
	waitRender(t, m, "b", "B3")
}
