package manager

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"testing/fstest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func mapSet(files map[string]string) fstest.MapFS {
	fsys := fstest.MapFS{}
	for p, s := range files {
		fsys[p] = &fstest.MapFile{Data: []byte(s)}
	}
	return fsys
}

func TestReloadFS(t *testing.T) {
	fsys := mapSet(map[string]string{IndexFile: index(map[string]string{"a": "a.md"}), "a.md": "A1"})
	m, err := New(fsys)
	require.NoError(t, err)
	defer m.Close()
	rec := record(m)
	assert.Equal(t, uint64(1), m.Generation())
	assert.NoError(t, m.LastError())

	fsys["a.md"].Data = []byte("A2")
	require.NoError(t, m.Reload(t.Context()))
	assert.Equal(t, "A2", mustRender(t, m, "a"))
	assert.Equal(t, uint64(2), m.Generation())

	// A broken set is refused whole, with every problem; the last good set
	// serves on.
	fsys["a.md"].Data = []byte("{% if %}")
	fsys[IndexFile].Data = []byte(index(map[string]string{"a": "a.md", "b": "b.md"}))
	err = m.Reload(t.Context())
	var le *LoadError
	require.ErrorAs(t, err, &le)
	require.Len(t, le.Problems, 2)
	assert.Equal(t, "a.md", le.Problems[0].Path)
	assert.Equal(t, "b.md", le.Problems[1].Path)
	assert.Equal(t, err, m.LastError())
	assert.Equal(t, uint64(2), m.Generation())
	assert.Equal(t, "A2", mustRender(t, m, "a"))
	_, err = m.Render("b", nil)
	assert.ErrorIs(t, err, ErrUnknownTemplate, "nothing of the refused set is used")

	// Fixed: swapped in, error cleared. Nothing changed: still a new generation.
	fsys["a.md"].Data = []byte("A3")
	fsys["b.md"] = &fstest.MapFile{Data: []byte("B")}
	require.NoError(t, m.Reload(t.Context()))
	assert.NoError(t, m.LastError())
	assert.Equal(t, "B", mustRender(t, m, "b"))
	require.NoError(t, m.Reload(t.Context()))
	assert.Equal(t, uint64(4), m.Generation())

	evs := rec.all()
	require.Len(t, evs, 4)
	for i, want := range []struct {
		gen       uint64
		ok        bool
		templates int
	}{{2, true, 1}, {2, false, 1}, {3, true, 2}, {4, true, 2}} {
		assert.Equal(t, want.gen, evs[i].Generation, "event %d", i)
		assert.Equal(t, want.ok, evs[i].Err == nil, "event %d", i)
		assert.Equal(t, want.templates, evs[i].Templates, "event %d", i)
		assert.Equal(t, TriggerReload, evs[i].Trigger)
		assert.False(t, evs[i].Time.IsZero())
	}
	assert.Same(t, le, evs[1].Err)
}

// TestReloadOpenReadsTheDirectoryAgain: without WithWatch, Reload picks up
// edits, and a directory replaced since Open.
func TestReloadOpenReadsTheDirectoryAgain(t *testing.T) {
	base := t.TempDir()
	dir := filepath.Join(base, "prompts")
	writeFile(t, filepath.Join(dir, IndexFile), index(map[string]string{"a": "a.md"}))
	writeFile(t, filepath.Join(dir, "a.md"), "one")
	m, err := Open(dir)
	require.NoError(t, err)
	defer m.Close()
	assert.Nil(t, m.w, "no watcher without WithWatch")

	writeFile(t, filepath.Join(dir, "a.md"), "two")
	assert.Equal(t, "one", mustRender(t, m, "a"), "nothing reloads by itself")
	require.NoError(t, m.Reload(t.Context()))
	assert.Equal(t, "two", mustRender(t, m, "a"))

	writeFile(t, filepath.Join(base, "next", IndexFile), index(map[string]string{"a": "a.md"}))
	writeFile(t, filepath.Join(base, "next", "a.md"), "three")
	require.NoError(t, os.Rename(dir, filepath.Join(base, "old")))
	require.NoError(t, os.Rename(filepath.Join(base, "next"), dir))
	require.NoError(t, m.Reload(t.Context()))
	assert.Equal(t, "three", mustRender(t, m, "a"))

	require.NoError(t, os.RemoveAll(dir))
	err = m.Reload(t.Context())
	require.ErrorIs(t, err, ErrTemplate)
	assert.ErrorContains(t, err, "cannot open the template directory")
	assert.Equal(t, "three", mustRender(t, m, "a"))
}

func TestReloadContextAndClose(t *testing.T) {
	m, err := New(mapSet(map[string]string{IndexFile: index(map[string]string{"a": "a.md"}), "a.md": "A"}))
	require.NoError(t, err)

	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	assert.ErrorIs(t, m.Reload(ctx), context.Canceled)
	assert.Equal(t, uint64(1), m.Generation())

	// A reload in progress holds the others back; the context bounds the wait.
	m.reloads.sem <- struct{}{}
	ctx, cancel = context.WithTimeout(t.Context(), 20*time.Millisecond)
	defer cancel()
	assert.ErrorIs(t, m.Reload(ctx), context.DeadlineExceeded)
	<-m.reloads.sem

	require.NoError(t, m.Close())
	assert.ErrorIs(t, m.Reload(t.Context()), ErrClosed)
	assert.Equal(t, "A", mustRender(t, m, "a"))
}

// TestReloadConcurrent: concurrent reloads are serialized; generations
// count every one and events arrive in order.
func TestReloadConcurrent(t *testing.T) {
	m, err := New(mapSet(map[string]string{IndexFile: index(map[string]string{"a": "a.md"}), "a.md": "A"}))
	require.NoError(t, err)
	rec := record(m)
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for range 10 {
				assert.NoError(t, m.Reload(t.Context()))
				_, err := m.Render("a", nil)
				assert.NoError(t, err)
			}
		})
	}
	wg.Wait()
	assert.Equal(t, uint64(81), m.Generation())
	for i, ev := range rec.all() {
		assert.Equal(t, uint64(i+2), ev.Generation)
	}
}

func TestSubscribe(t *testing.T) {
	m, err := New(mapSet(map[string]string{IndexFile: index(map[string]string{"a": "a.md"}), "a.md": "A"}))
	require.NoError(t, err)
	var calls []string
	cancel1 := m.Subscribe(func(ev ReloadEvent) { calls = append(calls, "first") })
	m.Subscribe(func(ev ReloadEvent) {
		calls = append(calls, "second")
		// The new set is serving when subscribers hear of it.
		assert.Equal(t, ev.Generation, m.Generation())
	})
	require.NoError(t, m.Reload(t.Context()))
	assert.Equal(t, []string{"first", "second"}, calls)
	cancel1()
	cancel1() // idempotent
	require.NoError(t, m.Reload(t.Context()))
	assert.Equal(t, []string{"first", "second", "second"}, calls)
}

func TestReloadLogs(t *testing.T) {
	var buf bytes.Buffer
	var mu sync.Mutex
	logger := slog.New(slog.NewJSONHandler(lockedWriter{&mu, &buf}, nil))
	fsys := mapSet(map[string]string{IndexFile: index(map[string]string{"a": "a.md"}), "a.md": "A"})
	m, err := New(fsys, WithLogger(logger))
	require.NoError(t, err)
	require.NoError(t, m.Reload(t.Context()))
	fsys["a.md"].Data = []byte("{{ x }}")
	require.Error(t, m.Reload(t.Context()))

	var recs []map[string]any
	mu.Lock()
	for _, line := range bytes.Split(bytes.TrimSpace(buf.Bytes()), []byte("\n")) {
		var r map[string]any
		require.NoError(t, json.Unmarshal(line, &r))
		recs = append(recs, r)
	}
	mu.Unlock()
	require.Len(t, recs, 3) // load, reload, failed reload
	assert.Equal(t, "INFO", recs[1]["level"])
	assert.Equal(t, "promptkit: template set reloaded", recs[1]["msg"])
	assert.Equal(t, float64(2), recs[1]["generation"])
	assert.Equal(t, float64(1), recs[1]["templates"])
	assert.Equal(t, TriggerReload, recs[1]["trigger"])
	assert.Equal(t, "WARN", recs[2]["level"])
	assert.Equal(t, "promptkit: reload failed; the last good set keeps serving", recs[2]["msg"])
	assert.Equal(t, float64(2), recs[2]["generation"])
	assert.Equal(t, []any{`a.md:1:4: template "a": undeclared variable "x" (declare it in index.json under "a")`}, recs[2]["problems"])
}

type lockedWriter struct {
	mu *sync.Mutex
	w  *bytes.Buffer
}

func (l lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}
