package mcpserver_test

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/seed-e7d2830f/promptkit/fleet"
	"github.com/seed-e7d2830f/promptkit/internal/registrytest"
	"github.com/seed-e7d2830f/promptkit/mcpserver"
)

// A host that follows a registry label serves the follower's manager:
// when the label moves, the update is a reload, and MCP clients hear of
// it. A real registry (Debian's docker-registry; skipped without it).
func TestFleetUpdateSendsListChanged(t *testing.T) {
	reg := registrytest.Start(t)
	ctx := testContext(t, time.Minute)
	config := filepath.Join(t.TempDir(), "config.json")
	require.NoError(t, os.WriteFile(config, []byte(`{}`), 0o600)) // never the machine's Docker config
	c := &fleet.Client{PlainHTTP: true, DockerConfig: config}
	ref := reg.Host + "/prompts:production"

	v1, err := fleet.Load("testdata/set")
	require.NoError(t, err)
	_, err = c.Push(ctx, v1, ref, "v1")
	require.NoError(t, err)
	f, err := fleet.Follow(ctx, ref, fleet.WithClient(c), fleet.WithCacheDir(t.TempDir()), fleet.WithInterval(time.Hour))
	require.NoError(t, err)
	defer f.Close()
	s, err := mcpserver.New(f.Manager())
	require.NoError(t, err)
	defer s.Close()
	cs, changed := client(t, ctx, s, "http")

	dir := copySet(t)
	editFile(t, dir, "templates/title.md", "标题：{{ intent }}（{{ tone }}）")
	v2, err := fleet.Load(dir)
	require.NoError(t, err)
	_, err = c.Push(ctx, v2, ref, "v2")
	require.NoError(t, err)
	require.NoError(t, f.Poll(ctx))
	waitChanged(t, ctx, changed)
	res, err := cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: "title", Arguments: map[string]string{"intent": "查天气"}})
	require.NoError(t, err)
	assert.Equal(t, "标题：查天气（亲切）", res.Messages[0].Content.(*mcp.TextContent).Text)
}
