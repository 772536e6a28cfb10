package anthropicmsg_test

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/anthropics/anthropic-sdk-go/v2"
	"github.com/anthropics/anthropic-sdk-go/v2/option"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/seed-e7d2830f/promptkit/message"
	"github.com/seed-e7d2830f/promptkit/providers/anthropicmsg"
	"github.com/seed-e7d2830f/promptkit/providers/internal/sdktest"
)

const reply = `{"id": "msg_1", "type": "message", "role": "assistant", "model": "claude-sonnet-4-5",
	"content": [{"type": "text", "text": "ok"}], "stop_reason": "end_turn", "stop_sequence": null,
	"usage": {"input_tokens": 1, "output_tokens": 1}}`

// send builds the request with the official client, pointed at a local
// server, and returns the body it sent.
func send(t *testing.T, params anthropic.MessageNewParams) []byte {
	t.Helper()
	srv := sdktest.Serve(t, reply)
	client := anthropic.NewClient(option.WithBaseURL(srv.URL), option.WithAPIKey("test"), option.WithMaxRetries(0))
	resp, err := client.Messages.New(context.Background(), params)
	require.NoError(t, err)
	require.Equal(t, "ok", resp.Content[0].Text)
	path, body := srv.Last()
	require.Equal(t, "/v1/messages", path)
	return body
}

func params(t *testing.T, name string, opts ...anthropicmsg.Option) anthropic.MessageNewParams {
	t.Helper()
	msgs, tools := sdktest.Conversation(t, name)
	p := anthropic.MessageNewParams{Model: anthropic.ModelClaudeSonnet4_5, MaxTokens: 1024}
	var err error
	p.System, p.Messages, err = anthropicmsg.Messages(msgs, opts...)
	require.NoError(t, err)
	if tools != nil {
		p.Tools, err = anthropicmsg.Tools(tools)
		require.NoError(t, err)
	}
	return p
}

// TestRequests: each conversation of testdata/conversations, converted
// and sent by the SDK, is the request in testdata/anthropic (go test
// -update rewrites them; review the diff). Reasoning has no Anthropic
// form, so that conversation is sent with DropReasoning.
func TestRequests(t *testing.T) {
	for _, name := range sdktest.Names(t) {
		t.Run(name, func(t *testing.T) {
			var opts []anthropicmsg.Option
			if name == "reasoning" {
				opts = append(opts, anthropicmsg.DropReasoning())
			}
			sdktest.Golden(t, filepath.Join("..", "testdata", "anthropic", name+".json"), send(t, params(t, name, opts...)))
		})
	}
}

// TestTurns: what the Messages API requires of a conversation's shape.
func TestTurns(t *testing.T) {
	p := params(t, "parallel_tool_calls")
	require.Len(t, p.Messages, 3, "the two tool results and the question after them are one user turn")
	user := p.Messages[2].OfUser
	require.NotNil(t, user)
	require.Len(t, user.Content, 3)
	assert.Equal(t, "call_paris", user.Content[0].OfToolResult.ToolUseID)
	assert.Equal(t, "call_tokyo", user.Content[1].OfToolResult.ToolUseID)
	assert.Equal(t, "Which one is warmer?", user.Content[2].OfText.Text)

	p = params(t, "cache_control")
	require.Len(t, p.System, 2)
	assert.Equal(t, anthropic.CacheControlEphemeralTTLTTL1h, p.System[1].CacheControl.TTL)
	last := p.Messages[len(p.Messages)-1].OfUser.Content[0].OfText
	assert.Equal(t, "ephemeral", string(last.CacheControl.Type), "a message's mark is on its last block")
	assert.Equal(t, "ephemeral", string(p.Tools[0].OfTool.CacheControl.Type))

	p = params(t, "reasoning", anthropicmsg.DropReasoning())
	require.Len(t, p.System, 1, "the opening developer message is the system prompt")
	require.NotNil(t, p.Messages[3].OfSystem, "a later system message is a system turn where it stands")
}

func TestErrors(t *testing.T) {
	msgs, _ := sdktest.Conversation(t, "reasoning")
	_, _, err := anthropicmsg.Messages(msgs)
	require.ErrorIs(t, err, anthropicmsg.ErrUnsupported)
	assert.EqualError(t, err, "anthropicmsg: messages[2] (assistant): reasoning_content: a thinking block needs Anthropic's signature (DropReasoning leaves it out): anthropicmsg: no Messages API form")

	audio := message.Part{Type: message.PartAudio, Audio: &message.Audio{Data: "AAAA", Format: "wav"}}
	for _, tc := range []struct {
		name string
		msg  message.Message
		err  string
	}{
		{"audio", message.Message{Role: message.RoleUser, Parts: []message.Part{audio}},
			"anthropicmsg: messages[0] (user): content[0]: a input_audio part: anthropicmsg: no Messages API form"},
		{"a name", message.Message{Role: message.RoleUser, Name: "ada", Parts: []message.Part{{Type: message.PartText, Text: "hi"}}},
			`anthropicmsg: messages[0] (user): a participant's name ("ada"): anthropicmsg: no Messages API form`},
		{"arguments that are not an object", message.Message{Role: message.RoleAssistant, ToolCalls: []message.ToolCall{{ID: "c", Name: "f", Arguments: "[1]"}}},
			"anthropicmsg: messages[0] (assistant): tool_calls[0] (f): arguments that are not a JSON object cannot be a tool_use input: anthropicmsg: no Messages API form"},
		{"a call without id", message.Message{Role: message.RoleAssistant, ToolCalls: []message.ToolCall{{Name: "f", Arguments: "{}"}}},
			"anthropicmsg: messages[0] (assistant): tool_calls[0] (f) has no id, which tool_use requires: anthropicmsg: no Messages API form"},
		{"an image of another type", message.Message{Role: message.RoleUser, Parts: []message.Part{{Type: message.PartImage, URL: "data:image/bmp;base64,Qk0="}}},
			"anthropicmsg: messages[0] (user): content[0]: an image of type image/bmp (want image/jpeg, image/png, image/gif, image/webp): anthropicmsg: no Messages API form"},
		{"an image from the assistant", message.Message{Role: message.RoleAssistant, Parts: []message.Part{{Type: message.PartImage, URL: "https://e.x/a.png"}}},
			"anthropicmsg: messages[0] (assistant): content[0]: a image_url part in an assistant message: anthropicmsg: no Messages API form"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, _, err := anthropicmsg.Messages([]message.Message{tc.msg})
			require.ErrorIs(t, err, anthropicmsg.ErrUnsupported)
			assert.EqualError(t, err, tc.err)
		})
	}
}
