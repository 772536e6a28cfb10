package manager_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/seed-e7d2830f/promptkit/manager"
)

// TestSoakRenderWhileReloadingAndOverriding renders from 8 goroutines a
// fixed number of times while another goroutine rewrites the files and
// reloads, sets and removes runtime overrides, and now and then breaks a
// file (that reload fails). Every result must be exactly one of the valid
// versions, rendered whole; run it under -race.
func TestSoakRenderWhileReloadingAndOverriding(t *testing.T) {
	const workers, iterations = 8, 400
	dir := t.TempDir()
	write := func(name, s string) {
		require.NoError(t, os.WriteFile(filepath.Join(dir, name), []byte(s), 0o644))
	}
	write("index.json", `{"version":1,"templates":{"t":{"path":"t.md","variables":["v", "xs"]},"u":{"path":"u.md","variables":["v", "xs"]}}}`)
	versions := []string{
		"one {{ v }}{% for x in xs %}[{{ x }}]{% endfor %}",
		"two {{ v|upper }}{% for x in xs %}<{{ loop.index }}:{{ x }}>{% endfor %}",
	}
	write("t.md", versions[0])
	write("u.md", `{% include "t.md" %}`)
	m, err := manager.Open(dir)
	require.NoError(t, err)
	defer m.Close()

	valid := map[string]bool{}
	for _, v := range []string{"one a[1][2]", "two A<1:1><2:2>", "override a 2"} {
		valid[v] = true
	}
	vars := map[string]any{"v": "a", "xs": []int{1, 2}}

	var stop atomic.Bool
	var cycles atomic.Int64 // churn rounds completed
	var churn sync.WaitGroup
	churn.Add(1)
	go func() {
		defer churn.Done()
		for i := 0; !stop.Load(); i++ {
			if i%4 == 0 {
				cycles.Add(1)
			}
			switch i % 4 {
			case 0, 1:
				write("t.md", versions[i%2])
				assert.NoError(t, m.Reload(context.Background()))
			case 2:
				assert.NoError(t, m.Override("t", "override {{ v }} {{ xs|length }}"))
				write("t.md", "broken {{ v ")
				assert.Error(t, m.Reload(context.Background()), "a broken file is refused")
				write("t.md", versions[0])
			case 3:
				assert.NoError(t, m.RemoveOverride("t"))
			}
		}
	}()

	var wg sync.WaitGroup
	var renders atomic.Int64
	var seenMu sync.Mutex
	seen := map[string]bool{}
	// Each worker renders at least iterations times, and on until the
	// churn has gone round a few times (bounded, so a stuck churn fails the
	// assertions below instead of hanging the test).
	deadline := time.Now().Add(10 * time.Second)
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			for i := 0; i < iterations || (cycles.Load() < 4 && time.Now().Before(deadline)); i++ {
				name := "t"
				if (w+i)%3 == 0 {
					name = "u"
				}
				out, err := m.Render(name, vars)
				if !assert.NoError(t, err) {
					return
				}
				if name == "u" {
					// u includes the file, not the override.
					assert.Contains(t, []string{"one a[1][2]", "two A<1:1><2:2>"}, out, fmt.Sprintf("render %d of worker %d", i, w))
				} else {
					assert.True(t, valid[out], "render %d of worker %d: %q is no valid version", i, w, out)
				}
				renders.Add(1)
				seenMu.Lock()
				seen[out] = true
				seenMu.Unlock()
			}
		}(w)
	}
	wg.Wait()
	stop.Store(true)
	churn.Wait()
	assert.GreaterOrEqual(t, renders.Load(), int64(workers*iterations))
	assert.Greater(t, m.Generation(), uint64(1), "reloads happened while rendering")
	assert.GreaterOrEqual(t, len(seen), 2, "renders saw more than one version: %v", seen)
}
