package mcpserver_test

import (
	"context"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/require"

	"github.com/seed-e7d2830f/promptkit/manager"
	"github.com/seed-e7d2830f/promptkit/mcpserver"
)

// transports are the two an MCP client reaches the server over here: an
// in-process pipe (what stdio is, without the process) and streamable
// HTTP on a loopback port.
var transports = []string{"stdio", "http"}

// testContext is a context that ends with the test, or after d.
func testContext(t *testing.T, d time.Duration) context.Context {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), d)
	t.Cleanup(cancel)
	return ctx
}

// copySet copies the test set into a temporary directory a test may edit.
func copySet(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	require.NoError(t, os.CopyFS(dir, os.DirFS("testdata/set")))
	return dir
}

// openSet opens the test set (a copy when edit is set) and serves it.
func openSet(t *testing.T, dir string, opts ...mcpserver.Option) (*manager.Manager, *mcpserver.Server) {
	t.Helper()
	m, err := manager.Open(dir)
	require.NoError(t, err)
	t.Cleanup(func() { m.Close() })
	s, err := mcpserver.New(m, opts...)
	require.NoError(t, err)
	t.Cleanup(func() { s.Close() })
	return m, s
}

// client connects a Go SDK client to s over transport; every
// notifications/prompts/list_changed it gets is sent on the channel.
func client(t *testing.T, ctx context.Context, s *mcpserver.Server, transport string) (*mcp.ClientSession, <-chan struct{}) {
	t.Helper()
	changed := make(chan struct{}, 16)
	c := mcp.NewClient(&mcp.Implementation{Name: "promptkit-test", Version: "v0"}, &mcp.ClientOptions{
		PromptListChangedHandler: func(context.Context, *mcp.PromptListChangedRequest) { changed <- struct{}{} },
	})
	var ct mcp.Transport
	switch transport {
	case "stdio":
		serverSide, clientSide := mcp.NewInMemoryTransports()
		runCtx, stop := context.WithCancel(ctx)
		done := make(chan error, 1)
		go func() { done <- s.Run(runCtx, serverSide) }()
		t.Cleanup(func() {
			stop()
			require.NoError(t, <-done)
		})
		ct = clientSide
	case "http":
		endpoint := serveHTTP(t, ctx, s)
		// A client of its own, whose idle connections close before the
		// server stops (cleanups run last first).
		hc := &http.Client{Transport: &http.Transport{}}
		t.Cleanup(hc.CloseIdleConnections)
		ct = &mcp.StreamableClientTransport{Endpoint: endpoint, HTTPClient: hc, MaxRetries: -1}
	default:
		t.Fatalf("no transport %q", transport)
	}
	cs, err := c.Connect(ctx, ct, nil)
	require.NoError(t, err)
	t.Cleanup(func() { cs.Close() })
	return cs, changed
}

// serveHTTP serves s's streamable HTTP transport on a loopback port until
// the test ends and returns its URL.
func serveHTTP(t *testing.T, ctx context.Context, s *mcpserver.Server) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	serveCtx, stop := context.WithCancel(context.WithoutCancel(ctx))
	done := make(chan error, 1)
	go func() { done <- s.Serve(serveCtx, ln) }()
	t.Cleanup(func() {
		stop()
		require.NoError(t, <-done)
	})
	return "http://" + ln.Addr().String() + mcpserver.Path
}

// waitChanged waits for a list_changed notification.
func waitChanged(t *testing.T, ctx context.Context, changed <-chan struct{}) {
	t.Helper()
	select {
	case <-changed:
	case <-ctx.Done():
		t.Fatal("no notifications/prompts/list_changed")
	}
}

// editFile writes a file of the set in dir.
func editFile(t *testing.T, dir, name, content string) {
	t.Helper()
	require.NoError(t, os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644))
}

// syncBuffer is a buffer written from another goroutine (a command's
// stderr) and read by the test.
type syncBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}
