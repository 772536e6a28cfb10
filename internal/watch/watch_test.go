package watch

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/fsnotify/fsnotify"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// reports collects what a watcher reports.
type reports struct {
	mu sync.Mutex
	cs []Change
}

func (r *reports) add(c Change) time.Duration {
	r.mu.Lock()
	r.cs = append(r.cs, c)
	r.mu.Unlock()
	return 0
}

// all returns the triggers reported.
func (r *reports) all() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	var tr []string
	for _, c := range r.cs {
		tr = append(tr, c.Trigger)
	}
	return tr
}

func (r *reports) changes() []Change {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]Change(nil), r.cs...)
}

func start(t *testing.T, dir string, opt Options) (*Watcher, *reports) {
	t.Helper()
	w, err := New(dir, opt)
	require.NoError(t, err)
	r := &reports{}
	w.Start(r.add)
	t.Cleanup(func() { require.NoError(t, w.Stop()) })
	return w, r
}

// A burst of writes within the quiet period is reported once. The quiet
// period is long beside the burst (five writes back to back), so that a
// loaded machine pausing the test between two writes does not split it.
func TestBurstReportedOnce(t *testing.T) {
	dir := t.TempDir()
	_, r := start(t, dir, Options{Debounce: time.Second, MaxWait: 30 * time.Second})
	for i := range 5 {
		require.NoError(t, os.WriteFile(filepath.Join(dir, "a.md"), []byte{byte('a' + i)}, 0o644))
	}
	require.Eventually(t, func() bool { return len(r.all()) == 1 }, 20*time.Second, 10*time.Millisecond)
	assert.Never(t, func() bool { return len(r.all()) > 1 }, 400*time.Millisecond, 20*time.Millisecond)
	assert.Equal(t, []string{TriggerWatch}, r.all())
}

// A constant stream of changes is reported by MaxWait, not held back.
func TestMaxWaitBoundsTheDelay(t *testing.T) {
	dir := t.TempDir()
	_, r := start(t, dir, Options{Debounce: 200 * time.Millisecond, MaxWait: 300 * time.Millisecond})
	stop := time.Now().Add(1500 * time.Millisecond)
	for i := 0; time.Now().Before(stop); i++ {
		require.NoError(t, os.WriteFile(filepath.Join(dir, "a.md"), []byte{byte(i)}, 0o644))
		time.Sleep(50 * time.Millisecond)
	}
	assert.GreaterOrEqual(t, len(r.all()), 2, "reported while the writes went on")
}

// New directories are watched as they appear; files in them are seen.
func TestNewDirectoriesWatched(t *testing.T) {
	dir := t.TempDir()
	_, r := start(t, dir, Options{Debounce: 30 * time.Millisecond})
	require.NoError(t, os.MkdirAll(filepath.Join(dir, "x", "y"), 0o755))
	require.Eventually(t, func() bool { return len(r.all()) >= 1 }, 5*time.Second, 10*time.Millisecond)
	n := len(r.all())
	require.NoError(t, os.WriteFile(filepath.Join(dir, "x", "y", "a.md"), []byte("a"), 0o644))
	require.Eventually(t, func() bool { return len(r.all()) > n }, 5*time.Second, 10*time.Millisecond)
}

// Without a platform watcher, New fails unless it may poll; polling alone
// reports a change of the tree.
func TestPollingFallback(t *testing.T) {
	dir := t.TempDir()
	broken := func() (*fsnotify.Watcher, error) { return nil, errors.New("inotify: too many instances") }
	_, err := New(dir, Options{Debounce: 10 * time.Millisecond, NewPlatform: broken})
	require.ErrorIs(t, err, ErrNoPlatformWatch)

	w, r := start(t, dir, Options{Debounce: 10 * time.Millisecond, PollInterval: 20 * time.Millisecond, NewPlatform: broken})
	assert.Nil(t, w.Platform())
	require.NoError(t, os.WriteFile(filepath.Join(dir, "a.md"), []byte("a"), 0o644))
	require.Eventually(t, func() bool { return len(r.all()) == 1 }, 5*time.Second, 10*time.Millisecond)
	assert.Equal(t, TriggerPoll, r.all()[0])
}

func TestStopIdempotent(t *testing.T) {
	w, err := New(t.TempDir(), Options{Debounce: time.Millisecond})
	require.NoError(t, err)
	w.Start(func(Change) time.Duration { return 0 })
	require.NoError(t, w.Stop())
	require.NoError(t, w.Stop())
	var nilW *Watcher
	require.NoError(t, nilW.Stop())
}

// A report lists the files of its burst when every event was about a
// regular file (written, created by a rename, removed), and nil when one
// was about a directory or a symlink.
func TestChangeListsFiles(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(dir, "t"), 0o755))
	for _, f := range []string{"a.md", "t/b.md", "gone.md"} {
		require.NoError(t, os.WriteFile(filepath.Join(dir, f), []byte("x"), 0o644))
	}
	_, r := start(t, dir, Options{Debounce: 100 * time.Millisecond})
	require.NoError(t, os.WriteFile(filepath.Join(dir, "a.md"), []byte("y"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "t", ".b.md.tmp"), []byte("y"), 0o644))
	require.NoError(t, os.Rename(filepath.Join(dir, "t", ".b.md.tmp"), filepath.Join(dir, "t", "b.md")))
	require.NoError(t, os.Remove(filepath.Join(dir, "gone.md")))
	require.Eventually(t, func() bool { return len(r.changes()) == 1 }, 5*time.Second, 10*time.Millisecond)
	assert.Equal(t, []string{"a.md", "gone.md", "t/.b.md.tmp", "t/b.md"}, r.changes()[0].Files)
	assert.Equal(t, []string{"a.md", "t/.b.md.tmp"}, r.changes()[0].Written, "b.md was renamed into place, whole")
	assert.False(t, r.changes()[0].Attrib)

	for name, change := range map[string]func() error{
		"a new directory":  func() error { return os.Mkdir(filepath.Join(dir, "d"), 0o755) },
		"a symlink":        func() error { return os.Symlink("a.md", filepath.Join(dir, "..data")) },
		"a removed folder": func() error { return os.RemoveAll(filepath.Join(dir, "t")) },
	} {
		n := len(r.changes())
		require.NoError(t, change(), name)
		require.Eventually(t, func() bool { return len(r.changes()) > n }, 5*time.Second, 10*time.Millisecond, name)
		time.Sleep(150 * time.Millisecond) // the rest of the burst, if it was split
		cs := r.changes()[n:]
		assert.True(t, slices.ContainsFunc(cs, func(c Change) bool { return c.Files == nil }), "%s: %+v", name, cs)
	}
}

// A burst of attribute changes alone is reported as such (the user
// ignores it unless its last reload failed: a chmod may have fixed it).
func TestAttributeChangesReported(t *testing.T) {
	dir := t.TempDir()
	a := filepath.Join(dir, "a.md")
	require.NoError(t, os.WriteFile(a, []byte("x"), 0o644))
	_, r := start(t, dir, Options{Debounce: 50 * time.Millisecond})
	require.NoError(t, os.Chmod(a, 0o600))
	require.NoError(t, os.Chtimes(a, time.Now(), time.Now()))
	require.Eventually(t, func() bool { return len(r.changes()) == 1 }, 5*time.Second, 10*time.Millisecond)
	assert.Equal(t, Change{Trigger: TriggerWatch, Files: []string{"a.md"}, Attrib: true}, r.changes()[0])

	require.NoError(t, os.Chmod(a, 0o644))
	require.NoError(t, os.WriteFile(a, []byte("y"), 0o644))
	require.Eventually(t, func() bool { return len(r.changes()) == 2 }, 5*time.Second, 10*time.Millisecond)
	assert.False(t, r.changes()[1].Attrib, "a write among the changes")
}

// A change its user asks to see again is reported again after the
// delay asked, with what happened meanwhile.
func TestChangeReportedAgain(t *testing.T) {
	dir := t.TempDir()
	w, err := New(dir, Options{Debounce: 30 * time.Millisecond})
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, w.Stop()) })
	got := make(chan Change, 8)
	calls := 0
	w.Start(func(c Change) time.Duration {
		calls++
		got <- c
		if calls == 1 {
			// The first report: another file is written, and the change
			// is to be reported again.
			if err := os.WriteFile(filepath.Join(dir, "b.md"), []byte("b"), 0o644); err != nil {
				panic(err)
			}
			return 200 * time.Millisecond
		}
		return 0
	})
	require.NoError(t, os.WriteFile(filepath.Join(dir, "a.md"), []byte("a"), 0o644))
	first := <-got
	assert.Equal(t, []string{"a.md"}, first.Files)
	second := <-got
	assert.Equal(t, []string{"a.md", "b.md"}, second.Files, "the first change, joined by what came meanwhile")
	assert.Equal(t, []string{"a.md", "b.md"}, second.Written)
}
