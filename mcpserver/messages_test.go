package mcpserver_test

import (
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/seed-e7d2830f/promptkit/mcpserver"
	"github.com/seed-e7d2830f/promptkit/message"
)

func TestMessages(t *testing.T) {
	got, err := mcpserver.Messages([]message.Message{
		message.Text(message.RoleDeveloper, "只用中文回答。"),
		{Role: message.RoleUser, Parts: []message.Part{{Type: message.PartImage, URL: "https://example.com/a.png", Detail: "low"}}},
		{Role: message.RoleUser, Parts: []message.Part{{Type: message.PartAudio, Audio: &message.Audio{Data: "UklGRg==", Format: "wav"}}}},
		{Role: message.RoleAssistant},
	})
	require.NoError(t, err)
	assert.Equal(t, []*mcp.PromptMessage{
		{Role: "user", Content: &mcp.TextContent{Text: "只用中文回答。", Meta: mcp.Meta{mcpserver.MetaRole: "developer"}}},
		{Role: "user", Content: &mcp.ResourceLink{URI: "https://example.com/a.png", Name: "image", Meta: mcp.Meta{mcpserver.MetaDetail: "low"}}},
		{Role: "user", Content: &mcp.AudioContent{Data: []byte("RIFF"), MIMEType: "audio/wav"}},
		{Role: "assistant", Content: &mcp.TextContent{}},
	}, got)

	// What an MCP prompt message cannot carry is an error, never dropped.
	for _, tc := range []struct {
		msg  message.Message
		want string
	}{
		{message.Message{Role: message.RoleAssistant, ToolCalls: []message.ToolCall{{ID: "c1", Name: "f", Arguments: "{}"}}}, "message 0: an MCP prompt message cannot carry tool calls"},
		{message.ToolResult(message.ToolCall{ID: "c1", Name: "f"}, "晴"), "message 0: an MCP prompt message cannot carry a tool result"},
		{message.Message{Role: message.RoleAssistant, ReasoningContent: "先想想"}, "message 0: an MCP prompt message cannot carry reasoning"},
		{message.Message{Role: message.RoleUser, Name: "ada"}, "message 0: an MCP prompt message cannot carry a name"},
		{message.Message{Role: message.RoleUser, CacheControl: &message.CacheControl{}}, "message 0: an MCP prompt message cannot carry a cache mark"},
		{message.Message{Role: "ipython"}, `message 0: role "ipython" has no MCP prompt form`},
		{message.Message{Role: message.RoleUser, Parts: []message.Part{{Type: message.PartFile, File: &message.File{ID: "f1"}}}}, "message 0, part 0: a file part has no MCP prompt form"},
		{message.Message{Role: message.RoleUser, Parts: []message.Part{{Type: message.PartText, Text: "x", CacheControl: &message.CacheControl{}}}}, "message 0, part 0: an MCP content cannot carry a cache mark"},
		{message.Message{Role: message.RoleUser, Parts: []message.Part{{Type: message.PartImage, URL: "data:image/png,abc"}}}, "message 0, part 0: an image data: URL must be data:TYPE;base64,…"},
	} {
		_, err := mcpserver.Messages([]message.Message{tc.msg})
		assert.ErrorContains(t, err, tc.want)
	}
}
