package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// syncBuffer is a bytes.Buffer the watcher's goroutine writes while the
// test reads.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) lines() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.b.Len() == 0 {
		return nil
	}
	return strings.Split(strings.TrimSuffix(s.b.String(), "\n"), "\n")
}

func TestWatchCommand(t *testing.T) {
	dir := writeSet(t, `{"version":1,"templates":{"a":{"path":"a.md"}}}`, map[string]string{"a.md": "A"})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var stdout syncBuffer
	var stderr bytes.Buffer
	done := make(chan int)
	go func() {
		done <- run(ctx, []string{"watch", "--dir", dir, "--debounce", "20ms"}, strings.NewReader(""), &stdout, &stderr)
	}()

	want := []string{`{"generation":1,"ok":true,"templates":1}`}
	waitLines := func() {
		t.Helper()
		require.Eventually(t, func() bool { return len(stdout.lines()) >= len(want) }, 10*time.Second, 5*time.Millisecond, "output so far: %q", stdout.lines())
		assert.Equal(t, want, stdout.lines())
	}
	waitLines()

	save := func(p, s string) {
		t.Helper()
		tmp := filepath.Join(dir, p+".tmp")
		require.NoError(t, os.WriteFile(tmp, []byte(s), 0o644))
		require.NoError(t, os.Rename(tmp, filepath.Join(dir, p)))
	}
	save("a.md", "A2")
	want = append(want, `{"generation":2,"ok":true,"templates":1}`)
	waitLines()

	// Two problems in one edit: both listed, generation 2 keeps serving.
	require.NoError(t, os.WriteFile(filepath.Join(dir, "b.md"), []byte("{{ x }}"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "c.md"), []byte("C {{ y }}"), 0o644))
	save("index.json", `{"version":1,"templates":{"a":{"path":"a.md"},"b":{"path":"b.md"},"c":{"path":"c.md"}}}`)
	want = append(want, `{"generation":2,"ok":false,"problems":["b.md:1:4: template \"b\": undeclared variable \"x\" (declare it in index.json under \"b\")","c.md:1:6: template \"c\": undeclared variable \"y\" (declare it in index.json under \"c\")"]}`)
	waitLines()

	save("index.json", `{"version":1,"templates":{"a":{"path":"a.md"},"b":{"path":"b.md","variables":["x"]},"c":{"path":"c.md","variables":["y"]}}}`)
	want = append(want, `{"generation":3,"ok":true,"templates":3}`)
	waitLines()

	cancel()
	select {
	case code := <-done:
		assert.Equal(t, exitOK, code)
	case <-time.After(10 * time.Second):
		t.Fatal("watch did not stop when its context was cancelled")
	}
	assert.Empty(t, stderr.String())
	for _, l := range stdout.lines() {
		assert.True(t, json.Valid([]byte(l)), l)
	}
}

func TestWatchCommandErrors(t *testing.T) {
	code, _, stderr := runCLI(t, "", "watch")
	assert.Equal(t, exitUsage, code)
	assert.Contains(t, stderr, "watch needs --dir: the embedded set never changes")

	dir := writeSet(t, `{"version":1,"templates":{"a":{"path":"a.md"}}}`, map[string]string{"a.md": "{% if %}"})
	code, _, stderr = runCLI(t, "", "watch", "extra", "--dir", dir)
	assert.Equal(t, exitUsage, code)
	assert.Contains(t, stderr, "watch takes no arguments")

	code, _, stderr = runCLI(t, "", "watch", "--dir", dir, "--debounce", "0s")
	assert.Equal(t, exitUsage, code)
	assert.Contains(t, stderr, "--debounce must be positive")

	code, _, stderr = runCLI(t, "", "watch", "--dir", dir, "--debounce", "2s", "--max-wait", "1s")
	assert.Equal(t, exitUsage, code)
	assert.Contains(t, stderr, "promptkit watch: --max-wait 1s is shorter than --debounce 2s")

	code, _, stderr = runCLI(t, "", "watch", "--dir", filepath.Join(dir, "none"))
	assert.Equal(t, exitPrompt, code)
	assert.Contains(t, stderr, "promptkit watch: cannot read the template set ")

	// The initial load fails: one line, exit 1, no waiting; the problem on stderr too.
	code, stdout, stderr := runCLI(t, "", "watch", "--dir", dir)
	assert.Equal(t, exitPrompt, code)
	assert.Contains(t, stderr, "promptkit watch: a.md:1:")
	var l watchLine
	require.NoError(t, json.Unmarshal([]byte(stdout), &l))
	assert.False(t, l.OK)
	assert.Zero(t, l.Generation)
	require.Len(t, l.Problems, 1)
	assert.Contains(t, l.Problems[0], `a.md:1:`)

	code, stdout, _ = runCLI(t, "", "watch", "--help")
	assert.Equal(t, exitOK, code)
	assert.Contains(t, stdout, "Ctrl-C exits 130")
}
