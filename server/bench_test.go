package server

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/seed-e7d2830f/promptkit/manager"
	"github.com/stretchr/testify/require"
)

// benchSet writes the benchmark's prompt workload (manager/testdata/bench:
// a ~1.6 KB Chinese prompt, a loop over 5 documents, 5,968 bytes out) as a
// set, and returns its directory, the variables as a request body, and the
// expected output.
func benchSet(b *testing.B) (dir string, body []byte, want string) {
	b.Helper()
	src := "../manager/testdata/bench/"
	jinja, err := os.ReadFile(src + "prompt.jinja")
	require.NoError(b, err)
	golden, err := os.ReadFile(src + "prompt.golden")
	require.NoError(b, err)
	raw, err := os.ReadFile(src + "vars.json")
	require.NoError(b, err)
	var all map[string]json.RawMessage
	require.NoError(b, json.Unmarshal(raw, &all))
	var vars map[string]any
	require.NoError(b, json.Unmarshal(all["prompt"], &vars))
	names := make([]string, 0, len(vars))
	for k := range vars {
		names = append(names, k)
	}
	slices.Sort(names)
	index, err := json.Marshal(map[string]any{"version": 1, "templates": map[string]any{
		"prompt": map[string]any{"path": "prompt.jinja", "variables": names}}})
	require.NoError(b, err)
	dir = b.TempDir()
	require.NoError(b, os.WriteFile(filepath.Join(dir, "index.json"), index, 0o644))
	require.NoError(b, os.WriteFile(filepath.Join(dir, "prompt.jinja"), jinja, 0o644))
	return dir, all["prompt"], string(golden)
}

// BenchmarkRender splits the cost of one render over HTTP: decoding the
// variables' JSON, the manager rendering from them (the baseline: what a
// Go host given JSON pays), the handler without a network (body, headers,
// metrics), and a real request over loopback on a kept-alive connection.
//
//	go test -run '^$' -bench BenchmarkRender -benchmem -count 10 ./server
func BenchmarkRender(b *testing.B) {
	dir, body, want := benchSet(b)
	m, err := manager.Open(dir)
	require.NoError(b, err)
	defer m.Close()
	vars, err := manager.DecodeJSON(body)
	require.NoError(b, err)
	out, err := m.Render("prompt", vars.(map[string]any))
	require.NoError(b, err)
	require.Equal(b, want, out)

	s, err := New(Dir(dir))
	require.NoError(b, err)
	defer s.Close()

	b.Run("decode", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := manager.DecodeJSON(body); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("manager", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			// The handler decodes the body on every request; so does this.
			v, _ := manager.DecodeJSON(body)
			if _, err := m.Render("prompt", v.(map[string]any)); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("handler", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			rec := httptest.NewRecorder()
			req := httptest.NewRequest("POST", "/v1/templates/prompt:render", bytes.NewReader(body))
			s.ServeHTTP(rec, req)
			if rec.Code != http.StatusOK || rec.Body.Len() != len(want) {
				b.Fatalf("%d %s", rec.Code, rec.Body.String())
			}
		}
	})
	b.Run("loopback", func(b *testing.B) {
		ts := httptest.NewServer(s)
		defer ts.Close()
		client := ts.Client()
		url := ts.URL + "/v1/templates/prompt:render"
		b.ReportAllocs()
		for b.Loop() {
			resp, err := client.Post(url, "application/json", bytes.NewReader(body))
			if err != nil {
				b.Fatal(err)
			}
			n, _ := io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			if resp.StatusCode != http.StatusOK || n != int64(len(want)) {
				b.Fatalf("%d, %d bytes", resp.StatusCode, n)
			}
		}
	})
}
