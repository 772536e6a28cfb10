package service_test

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/seed-e7d2830f/promptkit"
	"github.com/seed-e7d2830f/promptkit/builders"
	"github.com/seed-e7d2830f/promptkit/manager"
	"github.com/seed-e7d2830f/promptkit/service"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestServiceOnWatchedManager: a service built on a watched manager builds
// with an edited template as soon as the manager has reloaded it, and with
// the last good one while an edit is broken.
func TestServiceOnWatchedManager(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.CopyFS(dir, promptkit.FS()))
	m, err := manager.Open(dir, manager.WithWatch(), manager.WithDebounce(20*time.Millisecond))
	require.NoError(t, err)
	defer m.Close()
	s, err := service.New(m, service.WithDefaultBuilders())
	require.NoError(t, err)

	build := func() string {
		out, err := s.Build("title", builders.Task{}, map[string]any{"intent": "查天气"})
		require.NoError(t, err)
		return out
	}
	require.Contains(t, build(), "<intent>查天气</intent>")

	title := filepath.Join(dir, "templates", "title.md")
	save := func(content string) {
		require.NoError(t, os.WriteFile(title+".tmp", []byte(content), 0o644))
		require.NoError(t, os.Rename(title+".tmp", title))
	}
	save("Title for: {{ intent }}")
	require.Eventually(t, func() bool { return build() == "Title for: 查天气" }, 10*time.Second, 2*time.Millisecond)

	// A broken edit is refused; the service keeps building with the last good set.
	gen := m.Generation()
	save("Title for: {{ intnet }}")
	require.Eventually(t, func() bool { return m.LastError() != nil }, 10*time.Second, 2*time.Millisecond)
	assert.ErrorIs(t, m.LastError(), manager.ErrUndeclaredVariable)
	assert.Equal(t, gen, m.Generation())
	assert.Equal(t, "Title for: 查天气", build())
}
