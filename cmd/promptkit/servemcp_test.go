package main

import (
	"context"
	"io"
	"path/filepath"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/seed-e7d2830f/promptkit"
	"github.com/seed-e7d2830f/promptkit/manager"
)

func TestServeMCPUsage(t *testing.T) {
	broken := writeSet(t, `{"version": 1, "templates": {"t": {"path": "t.md"}}}`, map[string]string{"t.md": "{{ x }}"})
	runCases(t, []cliCase{
		{name: "a flag of the HTTP API", args: []string{"serve", "--mcp", "--dev", "--max-connections", "4"}, code: exitUsage,
			stderr: "promptkit serve: --mcp serves prompts over MCP; --dev and --max-connections belong to the HTTP API"},
		{name: "a set that does not load", args: []string{"serve", "--mcp", "--dir", broken}, code: exitPrompt,
			stderr: `t.md:1:4: template "t": undeclared variable "x"`},
		{name: "a missing directory", args: []string{"serve", "--mcp", "--dir", filepath.Join(broken, "none")}, code: exitPrompt,
			stderr: "promptkit serve: cannot read the template set "},
	})
	code, stdout, _ := runCLI(t, "", "serve", "--help")
	assert.Equal(t, exitOK, code)
	assert.Contains(t, stdout, "--mcp serves the set's templates as MCP prompts")
}

// serve --mcp on standard input and output, as an MCP client starts it:
// the Go SDK's client on the other end of the pipes.
func TestServeMCPStdio(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	var stderr syncBuffer
	done := make(chan int, 1)
	go func() {
		done <- run(ctx, []string{"serve", "--mcp"}, inR, outW, &stderr)
		outW.Close()
	}()
	c := mcp.NewClient(&mcp.Implementation{Name: "t", Version: "v0"}, nil)
	cs, err := c.Connect(ctx, &mcp.IOTransport{Reader: outR, Writer: inW}, nil)
	require.NoError(t, err, stderr.String())
	res, err := cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: "title", Arguments: map[string]string{"intent": "查询明天北京的天气"}})
	require.NoError(t, err)
	m, err := manager.New(promptkit.FS())
	require.NoError(t, err)
	want, err := m.Render("title", map[string]any{"intent": "查询明天北京的天气"})
	require.NoError(t, err)
	assert.Equal(t, want, res.Messages[0].Content.(*mcp.TextContent).Text, "the embedded set's prompt")
	require.NoError(t, cs.Close()) // closes the server's standard input: the command ends
	assert.Equal(t, exitOK, <-done, stderr.String())
	assert.Contains(t, stderr.String(), "promptkit serve: serving the embedded set over MCP on standard input and output")
}
