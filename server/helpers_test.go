package server

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/seed-e7d2830f/promptkit/manager"
	"github.com/stretchr/testify/require"
)

// testIndex is a small set with a text template, names with dots and
// dashes, a chat template, one that outgrows the output limit and one
// that fails at render time.
const testIndex = `{"version": 1, "templates": {
  "greet": {"path": "greet.md", "description": "a greeting",
            "variables": ["name", {"name": "tone", "required": false, "default": "warm", "description": "how to greet"}]},
  "notes.v2-beta": {"path": "parts/notes.md",
            "variables": [{"name": "items", "required": false, "default": ["a", 1]},
                          {"name": "nothing", "required": false, "default": null}]},
  "chat.v1-x": {"path": "chat.md", "variables": ["bot", "q", {"name": "pic", "required": false}]},
  "big": {"path": "big.md", "variables": ["n"]},
  "attr": {"path": "attr.md", "variables": ["n"]}
}}`

var testFiles = map[string]string{
	"index.json":     testIndex,
	"greet.md":       "Hello {{ name }} ({{ tone }})!\n",
	"parts/notes.md": "{% for i in items %}- {{ i }}\n{% endfor %}{{ nothing }}",
	"chat.md": `{% chat role="system" %}You are {{ bot }}.{% endchat %}` +
		`{% chat role="user" %}{{ q }}{% if pic is defined %}{{ pic | image }}{% endif %}{% endchat %}`,
	"big.md":  "{% for i in range(n) %}0123456789{% endfor %}",
	"attr.md": "x\n{{ n / 0 }}\n",
}

// writeSet writes files (path → content) under dir.
func writeSet(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for p, s := range files {
		full := filepath.Join(dir, filepath.FromSlash(p))
		require.NoError(t, os.MkdirAll(filepath.Dir(full), 0o755))
		require.NoError(t, os.WriteFile(full, []byte(s), 0o644))
	}
}

// newDirServer serves a fresh copy of files from a temp dir, watched with a
// short debounce, over a real loopback listener (httptest).
func newDirServer(t *testing.T, files map[string]string, opts ...Option) (string, *Server, *httptest.Server) {
	t.Helper()
	dir := t.TempDir()
	writeSet(t, dir, files)
	s, err := New(Dir(dir, manager.WithDebounce(20*time.Millisecond), manager.WithMaxOutputBytes(100)),
		append([]Option{WithRetryInterval(20 * time.Millisecond)}, opts...)...)
	require.NoError(t, err)
	ts := httptest.NewServer(s)
	t.Cleanup(func() {
		ts.Close()
		require.NoError(t, s.Close())
	})
	return dir, s, ts
}

type response struct {
	code   int
	header http.Header
	body   string
}

// call sends one request; body "" sends none.
func call(t *testing.T, ts *httptest.Server, method, path, body string, header ...string) response {
	t.Helper()
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req, err := http.NewRequest(method, ts.URL+path, rd)
	require.NoError(t, err)
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	resp, err := ts.Client().Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return response{resp.StatusCode, resp.Header, string(b)}
}

// problem decodes an error response, checking it is one.
func (r response) problem(t *testing.T) errorBody {
	t.Helper()
	require.Equal(t, "application/json", r.header.Get("Content-Type"), r.body)
	var p errorBody
	dec := json.NewDecoder(strings.NewReader(r.body))
	dec.DisallowUnknownFields()
	require.NoError(t, dec.Decode(&p), r.body)
	require.NotNil(t, p.Variables, "variables is always a list")
	require.NotEmpty(t, p.Error)
	return p
}

// waitFor polls cond until it holds (a reload lands after the debounce).
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	require.Eventually(t, cond, 10*time.Second, 5*time.Millisecond, what)
}

func waitGeneration(t *testing.T, s *Server, gen uint64) {
	t.Helper()
	waitFor(t, "generation", func() bool { return s.Status().Generation >= gen })
}
