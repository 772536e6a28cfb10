package mcpserver_test

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/seed-e7d2830f/promptkit/manager"
	"github.com/seed-e7d2830f/promptkit/mcpserver"
)

func TestOptionsRefused(t *testing.T) {
	m, err := manager.Open("testdata/set")
	require.NoError(t, err)
	defer m.Close()
	for _, tc := range []struct {
		opt  mcpserver.Option
		want string
	}{
		{mcpserver.WithLogger(nil), "mcpserver: WithLogger: nil logger"},
		{mcpserver.WithImplementation(&mcp.Implementation{}), "mcpserver: WithImplementation: an implementation needs a name"},
		{mcpserver.WithMaxRenders(0, time.Second), "mcpserver: WithMaxRenders(0, 1s): both must be positive"},
		{mcpserver.WithToken(""), "mcpserver: WithToken: empty token"},
	} {
		_, err := mcpserver.New(m, tc.opt)
		assert.EqualError(t, err, tc.want)
	}
	_, err = mcpserver.New(nil)
	assert.EqualError(t, err, "mcpserver: nil manager")
}

func TestImplementationAndLogger(t *testing.T) {
	ctx := testContext(t, 30*time.Second)
	var logs strings.Builder
	_, s := openSet(t, "testdata/set", mcpserver.WithImplementation(&mcp.Implementation{Name: "prompts-of-acme", Version: "v3"}),
		mcpserver.WithLogger(slog.New(slog.NewTextHandler(&logs, nil))))
	// A host adds what else it serves beside the prompts through MCP().
	s.MCP().AddResource(&mcp.Resource{URI: "promptkit://set/README", Name: "README"},
		func(context.Context, *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
			return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: "promptkit://set/README", Text: "…"}}}, nil
		})
	cs, _ := client(t, ctx, s, "stdio")
	resources, err := cs.ListResources(ctx, nil)
	require.NoError(t, err)
	require.Len(t, resources.Resources, 1)
	assert.Equal(t, "README", resources.Resources[0].Name)
	info := cs.InitializeResult().ServerInfo
	assert.Equal(t, "prompts-of-acme", info.Name)
	assert.Equal(t, "v3", info.Version)
	assert.Contains(t, logs.String(), "promptkit: MCP prompts registered")
	assert.Contains(t, logs.String(), "prompts=3")
}

func TestToken(t *testing.T) {
	ctx := testContext(t, 30*time.Second)
	_, s := openSet(t, "testdata/set", mcpserver.WithToken("s3cret"))
	url := serveHTTP(t, ctx, s)
	connect := func(token string) error {
		hc := &http.Client{Transport: &bearer{token: token, next: &http.Transport{}}}
		defer hc.CloseIdleConnections()
		c := mcp.NewClient(&mcp.Implementation{Name: "t", Version: "v0"}, nil)
		cs, err := c.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: url, HTTPClient: hc, MaxRetries: -1}, nil)
		if err != nil {
			return err
		}
		defer cs.Close()
		_, err = cs.ListPrompts(ctx, nil)
		return err
	}
	assert.ErrorContains(t, connect("wrong"), "Unauthorized")
	assert.NoError(t, connect("s3cret"))
}

// bearer adds an Authorization header to every request.
type bearer struct {
	token string
	next  http.RoundTripper
}

func (b *bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return b.next.RoundTrip(r)
}

// A render that finds every slot taken for the queue wait is refused as
// overloaded. The render holding the slot is held in its clock
// (strftime_now), and released once the second has been refused.
func TestOverloaded(t *testing.T) {
	ctx := testContext(t, 30*time.Second)
	inClock, release := make(chan struct{}), make(chan struct{})
	m, err := manager.New(fstest.MapFS{
		"index.json": {Data: []byte(`{"version": 1, "templates": {"now": {"path": "now.md"}}}`)},
		"now.md":     {Data: []byte(`{{ strftime_now("%Y") }}`)},
	}, manager.WithClock(func() time.Time {
		inClock <- struct{}{}
		<-release
		return time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)
	}))
	require.NoError(t, err)
	s, err := mcpserver.New(m, mcpserver.WithMaxRenders(1, 10*time.Millisecond))
	require.NoError(t, err)
	defer s.Close()
	cs, _ := client(t, ctx, s, "stdio")

	first := make(chan error, 1)
	go func() {
		res, err := cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: "now"})
		if err == nil && res.Messages[0].Content.(*mcp.TextContent).Text != "2026" {
			err = errors.New("the held render gave another text")
		}
		first <- err
	}()
	<-inClock
	_, err = cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: "now"})
	var we *jsonrpc.Error
	require.True(t, errors.As(err, &we), "%v", err)
	assert.Equal(t, int64(jsonrpc.CodeInternalError), we.Code)
	assert.Contains(t, string(we.Data), `"kind":"overloaded"`)
	close(release)
	require.NoError(t, <-first)
	go func() { <-inClock }() // the next render's clock
	_, err = cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: "now"})
	assert.NoError(t, err, "the slot is free again")
}
