package openaichat_test

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/seed-e7d2830f/promptkit/message"
	"github.com/seed-e7d2830f/promptkit/providers/internal/sdktest"
	"github.com/seed-e7d2830f/promptkit/providers/openaichat"
)

const completion = `{"id": "chatcmpl-1", "object": "chat.completion", "created": 0, "model": "gpt-4o",
	"choices": [{"index": 0, "message": {"role": "assistant", "content": "ok"}, "finish_reason": "stop"}]}`

// send builds the request with the official client, pointed at a local
// server, and returns the body it sent.
func send(t *testing.T, params openai.ChatCompletionNewParams) []byte {
	t.Helper()
	srv := sdktest.Serve(t, completion)
	client := openai.NewClient(option.WithBaseURL(srv.URL), option.WithAPIKey("test"), option.WithMaxRetries(0))
	resp, err := client.Chat.Completions.New(context.Background(), params)
	require.NoError(t, err)
	require.Equal(t, "ok", resp.Choices[0].Message.Content)
	path, body := srv.Last()
	require.Equal(t, "/chat/completions", path)
	return body
}

// TestRequests: each conversation of testdata/conversations, converted
// and sent by the SDK, is the request in testdata/openai (go test -update
// rewrites them; review the diff).
func TestRequests(t *testing.T) {
	for _, name := range sdktest.Names(t) {
		t.Run(name, func(t *testing.T) {
			msgs, tools := sdktest.Conversation(t, name)
			params := openai.ChatCompletionNewParams{Model: openai.ChatModelGPT4o}
			var err error
			params.Messages, err = openaichat.Messages(msgs)
			require.NoError(t, err)
			if tools != nil {
				params.Tools, err = openaichat.Tools(tools)
				require.NoError(t, err)
			}
			sdktest.Golden(t, filepath.Join("..", "testdata", "openai", name+".json"), send(t, params))
		})
	}
}

func TestDropReasoning(t *testing.T) {
	msgs, _ := sdktest.Conversation(t, "reasoning")
	params := openai.ChatCompletionNewParams{Model: openai.ChatModelGPT4o}
	var err error
	params.Messages, err = openaichat.Messages(msgs, openaichat.DropReasoning())
	require.NoError(t, err)
	body := send(t, params)
	assert.NotContains(t, string(body), "reasoning_content")
	assert.Contains(t, string(body), `"tool_calls"`)
}

func TestErrors(t *testing.T) {
	image := message.Part{Type: message.PartImage, URL: "https://e.x/a.png"}
	for _, tc := range []struct {
		name string
		msg  message.Message
		err  string
	}{
		{"a call without id", message.Message{Role: message.RoleAssistant, ToolCalls: []message.ToolCall{{Name: "f", Arguments: "{}"}}},
			"openaichat: messages[0] (assistant): tool_calls[0] (f) has no id, which the API requires: openaichat: no Chat Completions form"},
		{"a tool message without call id", message.Text(message.RoleTool, "x"),
			"openaichat: messages[0] (tool): a tool message without tool_call_id: openaichat: no Chat Completions form"},
		{"an image in a system message", message.Message{Role: message.RoleSystem, Parts: []message.Part{image}},
			"openaichat: messages[0] (system): content[0]: a image_url part in a system message, which takes text only: openaichat: no Chat Completions form"},
		{"an unknown role", message.Text("ipython", "x"),
			`openaichat: messages[0] (ipython): the role "ipython" (want system, developer, user, assistant or tool): openaichat: no Chat Completions form`},
		{"tool calls on a user message", message.Message{Role: message.RoleUser, ToolCalls: []message.ToolCall{{ID: "c", Name: "f"}}},
			"openaichat: messages[0] (user): tool calls on a user message: openaichat: no Chat Completions form"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := openaichat.Messages([]message.Message{tc.msg})
			require.ErrorIs(t, err, openaichat.ErrUnsupported)
			assert.EqualError(t, err, tc.err)
		})
	}
}
