// Package sdktest runs the official SDKs against a local server that
// captures the request each one sends, and compares it with a golden
// file: what a provider would receive, without the network.
package sdktest

import (
	"bytes"
	"encoding/json"
	"flag"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/seed-e7d2830f/promptkit/message"
)

var update = flag.Bool("update", false, "rewrite the golden request files")

// Server is a local HTTP server that answers every request with a fixed
// response and keeps the body of the last one.
type Server struct {
	URL  string
	mu   sync.Mutex
	last []byte
	path string
}

// Serve starts a server on loopback that answers with response (JSON).
func Serve(t *testing.T, response string) *Server {
	t.Helper()
	s := &Server{}
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		s.mu.Lock()
		s.last, s.path = body, r.URL.Path
		s.mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, response)
	}))
	t.Cleanup(ts.Close)
	s.URL = ts.URL
	return s
}

// Last returns the path and body of the last request.
func (s *Server) Last() (path string, body []byte) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.path, s.last
}

// Golden compares the JSON body with the golden file, indented alike
// (with -update, it writes the file).
func Golden(t *testing.T, file string, body []byte) {
	t.Helper()
	var got bytes.Buffer
	require.NoError(t, json.Indent(&got, body, "", "  "))
	got.WriteByte('\n')
	if *update {
		require.NoError(t, os.MkdirAll(filepath.Dir(file), 0o755))
		require.NoError(t, os.WriteFile(file, got.Bytes(), 0o644))
	}
	want, err := os.ReadFile(file)
	require.NoError(t, err, "run go test -update to write the golden file")
	require.Equal(t, string(want), got.String(), "the request the SDK sent")
}

// Conversation reads testdata/conversations/NAME.json of the providers
// module: the messages, and the tools when the file has them.
func Conversation(t *testing.T, name string) ([]message.Message, []message.Tool) {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "testdata", "conversations", name+".json"))
	require.NoError(t, err)
	var c struct {
		Messages json.RawMessage `json:"messages"`
		Tools    json.RawMessage `json:"tools"`
	}
	require.NoError(t, json.Unmarshal(data, &c))
	msgs, err := message.DecodeMessages(c.Messages)
	require.NoError(t, err)
	var tools []message.Tool
	if len(c.Tools) > 0 {
		tools, err = message.DecodeTools(c.Tools)
		require.NoError(t, err)
	}
	return msgs, tools
}

// Names are the conversations of testdata/conversations.
func Names(t *testing.T) []string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join("..", "testdata", "conversations", "*.json"))
	require.NoError(t, err)
	require.NotEmpty(t, files)
	var names []string
	for _, f := range files {
		names = append(names, filepath.Base(f[:len(f)-len(".json")]))
	}
	return names
}

// Requests are the provider-neutral requests of testdata/requests.
func Requests(t *testing.T) []string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join("..", "testdata", "requests", "*.json"))
	require.NoError(t, err)
	require.NotEmpty(t, files)
	var names []string
	for _, f := range files {
		names = append(names, filepath.Base(f[:len(f)-len(".json")]))
	}
	return names
}

// Request reads testdata/requests/NAME.json of the providers module.
func Request(t *testing.T, name string) message.Request {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "testdata", "requests", name+".json"))
	require.NoError(t, err)
	req, err := message.DecodeRequest(data)
	require.NoError(t, err)
	return req
}

// Sample is a valid JSON value of a known setting.
func Sample(k message.Setting) string {
	switch {
	case k.Enum != nil:
		return `"` + k.Enum[0] + `"`
	case k.Key == "tool_choice":
		return `"auto"`
	}
	switch k.Type {
	case "string":
		return `"m"`
	case "number":
		return "0.5"
	case "integer":
		return "10"
	case "boolean":
		return "false"
	}
	return `["x"]`
}

// Has reports whether the JSON object v has a value at the path of keys.
func Has(v map[string]any, path []string) bool {
	for i, k := range path {
		x, ok := v[k]
		if !ok {
			return false
		}
		if i == len(path)-1 {
			return true
		}
		if v, ok = x.(map[string]any); !ok {
			return false
		}
	}
	return false
}
