package watch

import (
	"errors"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/fsnotify/fsnotify"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// reports collects the triggers a watcher reports.
type reports struct {
	mu sync.Mutex
	tr []string
}

func (r *reports) add(t string) { r.mu.Lock(); r.tr = append(r.tr, t); r.mu.Unlock() }
func (r *reports) all() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.tr...)
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

// A burst of writes within the quiet period is reported once.
func TestBurstReportedOnce(t *testing.T) {
	dir := t.TempDir()
	_, r := start(t, dir, Options{Debounce: 150 * time.Millisecond, MaxWait: 5 * time.Second})
	for i := range 5 {
		require.NoError(t, os.WriteFile(filepath.Join(dir, "a.md"), []byte{byte('a' + i)}, 0o644))
		time.Sleep(10 * time.Millisecond)
	}
	require.Eventually(t, func() bool { return len(r.all()) == 1 }, 5*time.Second, 10*time.Millisecond)
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
	w.Start(func(string) {})
	require.NoError(t, w.Stop())
	require.NoError(t, w.Stop())
	var nilW *Watcher
	require.NoError(t, nilW.Stop())
}
