//go:build unix

package server

import (
	"net/http"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A FIFO in the set never blocks /v1/files or /v1/schemas: they read as
// the manager reads (regular files only, opened non-blocking), and refuse
// it at once. Before, the open waited for a writer, holding the request
// and a thread. The client's timeout turns a hang into a failure.
func TestFileEndpointsRefuseFIFOs(t *testing.T) {
	files := map[string]string{
		"index.json":     `{"version": 1, "templates": {"t": {"path": "t.md", "variables": [{"name": "u", "schema": {"$ref": "schemas/u.json"}}]}}}`,
		"t.md":           "{{ u }}",
		"schemas/u.json": `{"type": "string"}`,
	}
	dir, s, ts := newDirServer(t, files, WithPreview())
	client := ts.Client()
	client.Timeout = 10 * time.Second
	// Should a handler be stuck opening a FIFO, a writer frees it, so the
	// test fails instead of hanging in the server's shutdown.
	t.Cleanup(func() {
		for _, p := range []string{"t.md", "schemas/u.json"} {
			if w, err := os.OpenFile(filepath.Join(dir, p), os.O_WRONLY|syscall.O_NONBLOCK, 0); err == nil {
				w.Close()
			}
		}
	})
	get := func(path string) (int, Problem) {
		t.Helper()
		resp, err := client.Get(ts.URL + path)
		require.NoError(t, err, "the request must not hang")
		defer resp.Body.Close()
		r := response{code: resp.StatusCode, header: resp.Header}
		b := make([]byte, 1<<16)
		n, _ := resp.Body.Read(b)
		r.body = string(b[:n])
		return r.code, r.problem(t).Problem
	}

	// The schema file becomes a FIFO after the set loaded: the last good
	// set still lists it, and the endpoint refuses what is there now.
	require.NoError(t, os.Remove(filepath.Join(dir, "schemas/u.json")))
	require.NoError(t, syscall.Mkfifo(filepath.Join(dir, "schemas/u.json"), 0o644))
	code, p := get("/v1/schemas/schemas/u.json")
	assert.Equal(t, http.StatusBadRequest, code)
	assert.Contains(t, p.Message, "not a regular file (a named pipe)")

	// The template becomes a FIFO: the reload fails naming it, and the
	// page's file endpoint refuses it too.
	require.NoError(t, os.Remove(filepath.Join(dir, "t.md")))
	require.NoError(t, syscall.Mkfifo(filepath.Join(dir, "t.md"), 0o644))
	waitFor(t, "the reload fails", func() bool { return !s.Status().OK })
	code, p = get("/v1/files/t.md")
	assert.Equal(t, http.StatusBadRequest, code)
	assert.Contains(t, p.Message, "not a regular file (a named pipe)")
}
