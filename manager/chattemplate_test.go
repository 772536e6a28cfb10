package manager_test

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/sync/errgroup"

	"github.com/seed-e7d2830f/promptkit/manager"
	"github.com/seed-e7d2830f/promptkit/message"
)

// toolTemplate reads what tool-calling chat templates read: tool_calls,
// function.name and function.arguments (printed with tojson, as
// Llama 3.1's template does, and tested for a string, as Qwen's does),
// tool_call_id and name of a tool message, reasoning_content, the tools.
const toolTemplate = `{% if tools is none %}no tools{% else %}{{ tools | length }} tools: {{ tools | tojson }}{% endif %}
{% for m in messages %}[{{ m.role }}]{% if m.reasoning_content %}<think>{{ m.reasoning_content }}</think>{% endif %}{{ m.content if m.content is string else m.content | tojson }}
{% for c in m.tool_calls or [] %}call {{ c.id }} {{ c.function.name }} {% if c.function.arguments is string %}str {{ c.function.arguments }}{% else %}dict {{ c.function.arguments | tojson }}{% endif %}
{% endfor %}{% if m.role == "tool" %}result of {{ m.tool_call_id }} ({{ m.name }})
{% endif %}{% endfor %}`

func TestApplyTypedMessages(t *testing.T) {
	ct, err := manager.ParseChatTemplate("tools.jinja", toolTemplate)
	require.NoError(t, err)
	call := message.ToolCall{ID: "call_1", Name: "get_weather", Arguments: `{"city": "北京"}`}
	object := call
	object.ID, object.ObjectArguments = "call_2", true
	msgs := []message.Message{
		message.Text(message.RoleUser, "北京和上海明天天气如何？"),
		{Role: message.RoleAssistant, ReasoningContent: "查两次", ToolCalls: []message.ToolCall{call, object}},
		message.ToolResult(call, "晴"),
		message.ToolResult(object, "雨"),
		{Role: message.RoleUser, Parts: []message.Part{{Type: message.PartText, Text: "图里是哪？"}, {Type: message.PartImage, URL: "https://e.x/a.png"}}},
	}
	tools := []message.Tool{{Name: "get_weather", Description: "查询天气", Parameters: []byte(`{"type": "object", "properties": {"city": {"type": "string"}}}`)}}
	typed, err := ct.Apply(context.Background(), manager.ChatInput{Messages: msgs, Tools: tools})
	require.NoError(t, err)

	msgsJSON, err := message.EncodeMessages(msgs)
	require.NoError(t, err)
	toolsJSON, err := message.EncodeTools(tools)
	require.NoError(t, err)
	asJSON, err := ct.Apply(context.Background(), manager.ChatInput{MessagesJSON: msgsJSON, ToolsJSON: toolsJSON})
	require.NoError(t, err)
	assert.Equal(t, asJSON, typed)
	// As Python's Jinja2 renders it, with transformers' environment.
	assert.Equal(t, `1 tools: [{"type": "function", "function": {"name": "get_weather", "description": "查询天气", "parameters": {"type": "object", "properties": {"city": {"type": "string"}}}}}][user]北京和上海明天天气如何？
[assistant]<think>查两次</think>null
call call_1 get_weather str {"city": "北京"}call call_2 get_weather dict {"city": "北京"}[tool]晴
result of call_1 (get_weather)
[tool]雨
result of call_2 (get_weather)
[user][{"type": "text", "text": "图里是哪？"}, {"type": "image_url", "image_url": {"url": "https://e.x/a.png"}}]
`, typed)

	none, err := ct.Apply(context.Background(), manager.ChatInput{Messages: msgs[:1]})
	require.NoError(t, err)
	assert.Contains(t, none, "no tools", "no Tools is None")
	empty, err := ct.Apply(context.Background(), manager.ChatInput{Messages: msgs[:1], Tools: []message.Tool{}})
	require.NoError(t, err)
	assert.Contains(t, empty, "0 tools: []", "an empty list is a list")
}

func TestApplyTypedMessagesErrors(t *testing.T) {
	ct, err := manager.ParseChatTemplate("tools.jinja", toolTemplate)
	require.NoError(t, err)
	msgs := []message.Message{message.Text(message.RoleUser, "hi")}

	_, err = ct.Apply(context.Background(), manager.ChatInput{Messages: msgs, MessagesJSON: []byte(`[]`)})
	require.ErrorIs(t, err, manager.ErrTemplate)
	assert.Contains(t, err.Error(), "messages given twice: as Go values and as JSON")
	_, err = ct.Apply(context.Background(), manager.ChatInput{Tools: []message.Tool{}, ToolsJSON: []byte(`[]`)})
	assert.ErrorContains(t, err, "tools given twice")

	_, err = ct.Apply(context.Background(), manager.ChatInput{Messages: append(msgs, message.Message{Parts: msgs[0].Parts})})
	require.ErrorIs(t, err, manager.ErrTemplate)
	require.ErrorIs(t, err, message.ErrInvalid)
	assert.Contains(t, err.Error(), "messages[1].role: empty")
	var me *manager.Error
	require.ErrorAs(t, err, &me)
	assert.Equal(t, []string{"messages"}, me.Variables)
}

// TestApplyDecodedValues: a request decoded once (DecodeChatValue), its
// members picked with Get, and tools decoded once and shared by
// concurrent applications render what the same JSON renders.
func TestApplyDecodedValues(t *testing.T) {
	ct, err := manager.ParseChatTemplate("tools.jinja", toolTemplate)
	require.NoError(t, err)
	const request = `{"model": "m", "messages": [{"role": "user", "content": "北京明天天气如何？"}],
		"tools": [{"type": "function", "function": {"name": "get_weather", "parameters": {"type": "object", "properties": {"city": {"type": "string"}, "days": {"type": "integer", "maximum": 3.0}}}}}]}`
	var raw struct{ Messages, Tools json.RawMessage }
	require.NoError(t, json.Unmarshal([]byte(request), &raw))
	want, err := ct.Apply(context.Background(), manager.ChatInput{MessagesJSON: raw.Messages, ToolsJSON: raw.Tools})
	require.NoError(t, err)
	assert.Contains(t, want, `"maximum": 3.0`, "a float stays a float")

	req, err := manager.DecodeChatValue([]byte(request))
	require.NoError(t, err)
	msgs, ok := req.Get("messages")
	require.True(t, ok)
	tools, ok := req.Get("tools")
	require.True(t, ok)
	_, ok = req.Get("absent")
	assert.False(t, ok)
	_, ok = msgs.Get("role")
	assert.False(t, ok, "a list has no members")

	var g errgroup.Group
	for range 8 {
		g.Go(func() error {
			got, err := ct.Apply(context.Background(), manager.ChatInput{MessagesValue: msgs, ToolsValue: tools})
			if err == nil && got != want {
				err = fmt.Errorf("got %q", got)
			}
			return err
		})
	}
	require.NoError(t, g.Wait())
	got, err := ct.Apply(context.Background(), manager.ChatInput{MessagesJSON: raw.Messages, ToolsValue: tools})
	require.NoError(t, err)
	assert.Equal(t, want, got, "JSON messages, decoded tools")

	_, err = ct.Apply(context.Background(), manager.ChatInput{MessagesJSON: raw.Messages, MessagesValue: msgs})
	assert.ErrorContains(t, err, "messages given twice: as JSON and as a decoded ChatValue")
	_, err = manager.DecodeChatValue([]byte(`{"n": 123456789012345678901234}`))
	assert.ErrorContains(t, err, "integer 123456789012345678901234 is beyond the 64-bit range templates compute in (line 1, column 7)")
	_, err = ct.Apply(context.Background(), manager.ChatInput{MessagesJSON: []byte(`[{"role": "user", "content": 123456789012345678901234}]`)})
	assert.ErrorContains(t, err, "messages: invalid JSON: integer 123456789012345678901234 is beyond the 64-bit range", "an error, not a panic")
}
