package manager_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/sync/errgroup"

	"github.com/seed-e7d2830f/promptkit/manager"
	"github.com/seed-e7d2830f/promptkit/message"
)

// bigChatTemplate is a valid chat template of n bytes or a little more.
func bigChatTemplate(n int) string {
	unit := "{% for m in messages %}{{ m.content }}{% endfor %}\n"
	return strings.Repeat(unit, n/len(unit)+1)
}

func tokenizerConfig(t *testing.T, template string) []byte {
	t.Helper()
	data, err := json.Marshal(map[string]any{"chat_template": template, "bos_token": "<s>"})
	require.NoError(t, err)
	return data
}

// A chat template is held to a set's limits: a source over WithMaxInlined
// (4 MiB) and a config over WithMaxFileBytes (16 MiB) are refused before
// they are parsed — without it, a 15 MB template took seconds and most of
// a gigabyte to parse.
func TestChatTemplateSourceLimits(t *testing.T) {
	big := bigChatTemplate(15 << 20)
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	start := time.Now()
	_, err := manager.ParseChatTemplateConfig("tokenizer_config.json", tokenizerConfig(t, big), "")
	runtime.ReadMemStats(&after)
	require.ErrorIs(t, err, manager.ErrTemplate)
	assert.Regexp(t, `^tokenizer_config\.json: template "tokenizer_config\.json": the chat template is \d+ bytes of source, over the limit of 4194304 \(WithMaxInlined\)$`, err.Error())
	assert.Less(t, after.TotalAlloc-before.TotalAlloc, uint64(200<<20), "the config is decoded, the template not parsed")
	assert.Less(t, time.Since(start), hangBound)

	_, err = manager.ParseChatTemplate("t.jinja", bigChatTemplate(5<<20))
	require.ErrorIs(t, err, manager.ErrTemplate)
	assert.Contains(t, err.Error(), "over the limit of 4194304 (WithMaxInlined)")

	// The limits are the options'.
	_, err = manager.ParseChatTemplate("t.jinja", bigChatTemplate(300_000), manager.WithMaxInlined(256<<10))
	require.ErrorIs(t, err, manager.ErrTemplate)
	_, err = manager.ParseChatTemplate("t.jinja", bigChatTemplate(300_000), manager.WithMaxInlined(512<<10))
	require.NoError(t, err)
	_, err = manager.ParseChatTemplateConfig("c.json", tokenizerConfig(t, bigChatTemplate(2<<20)), "", manager.WithMaxFileBytes(1<<20))
	require.ErrorIs(t, err, manager.ErrTemplate)
	assert.Regexp(t, `^c\.json: the config is \d+ bytes, over the limit of 1048576 \(WithMaxFileBytes\)$`, err.Error())
}

// A config or template on disk is read as a set's files are: a sparse
// giant is refused before it is read, a FIFO without blocking.
func TestOpenChatTemplateFiles(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "tokenizer_config.json")
	require.NoError(t, os.WriteFile(good, tokenizerConfig(t, "{{ bos_token }}{% for m in messages %}{{ m.content }}{% endfor %}"), 0o644))
	ct, err := manager.OpenChatTemplateConfig(good, "")
	require.NoError(t, err)
	out, err := ct.Apply(context.Background(), manager.ChatInput{MessagesJSON: json.RawMessage(`[{"role": "user", "content": "hi"}]`)})
	require.NoError(t, err)
	assert.Equal(t, "<s>hi", out)

	sparse := filepath.Join(dir, "sparse.json")
	f, err := os.Create(sparse)
	require.NoError(t, err)
	require.NoError(t, f.Truncate(50<<30))
	require.NoError(t, f.Close())
	fifo := filepath.Join(dir, "fifo.jinja")
	require.NoError(t, syscall.Mkfifo(fifo, 0o644))

	start := time.Now()
	_, err = manager.OpenChatTemplateConfig(sparse, "")
	require.ErrorIs(t, err, manager.ErrTemplate)
	assert.Contains(t, err.Error(), "cannot read the config: file too large: 53687091200 bytes, over the limit of 16777216 (WithMaxFileBytes)")
	_, err = manager.OpenChatTemplate(sparse)
	assert.Contains(t, err.Error(), "over the limit of 4194304")
	_, err = manager.OpenChatTemplate(fifo)
	require.ErrorIs(t, err, manager.ErrTemplate)
	assert.Contains(t, err.Error(), "cannot read the template: not a regular file (a named pipe)")
	_, err = manager.OpenChatTemplateConfig(filepath.Join(dir, "missing.json"), "")
	require.ErrorIs(t, err, os.ErrNotExist)
	assert.Less(t, time.Since(start), hangBound)
}

// The conversation, tools, documents and settings are at most the
// render's memory budget of JSON, refused before they are decoded.
func TestChatTemplateInputLimit(t *testing.T) {
	ct, err := manager.ParseChatTemplate("t.jinja", "{{ messages | length }}", manager.WithMaxMemory(1<<20))
	require.NoError(t, err)
	msg := `{"role": "user", "content": "` + strings.Repeat("x", 1000) + `"}`
	msgs := "[" + strings.TrimSuffix(strings.Repeat(msg+",", 1100), ",") + "]"
	_, err = ct.Apply(context.Background(), manager.ChatInput{MessagesJSON: json.RawMessage(msgs)})
	require.ErrorIs(t, err, manager.ErrOutputLimit)
	assert.Regexp(t, `^t\.jinja: template "t\.jinja": the input is \d+ bytes of JSON, over the render's memory limit of 1048576 \(WithMaxMemory\)$`, err.Error())

	out, err := ct.Apply(context.Background(), manager.ChatInput{MessagesJSON: json.RawMessage("[" + msg + "]")})
	require.NoError(t, err)
	assert.Equal(t, "1", out)
}

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
	_, err = manager.DecodeChatValue([]byte(`{"n": 1,}`))
	assert.ErrorContains(t, err, "invalid character '}' looking for beginning of object key string (line 1, column 9)")
	// Integers beyond 64 bits are Python's ints, decoded or given as JSON.
	big, err := manager.DecodeChatValue([]byte(`[{"role": "user", "content": 123456789012345678901234}]`))
	require.NoError(t, err)
	sum, err := manager.ParseChatTemplate("t.jinja", "{{ messages[0].content + 1 }}")
	require.NoError(t, err)
	for _, in := range []manager.ChatInput{{MessagesValue: big}, {MessagesJSON: []byte(`[{"role": "user", "content": 123456789012345678901234}]`)}} {
		got, err := sum.Apply(context.Background(), in)
		require.NoError(t, err)
		assert.Equal(t, "123456789012345678901235", got)
	}
}

// TestApplyUnreadInputsChecked: tools and documents a template never
// reads (Phi-3.5 reads no tools) are checked, not decoded, and refused
// with the same error as by a template that reads them.
func TestApplyUnreadInputsChecked(t *testing.T) {
	reads, err := manager.ParseChatTemplate("t.jinja", "{{ messages | length }} {{ tools is none }} {{ documents is none }}")
	require.NoError(t, err)
	ignores, err := manager.ParseChatTemplate("t.jinja", "{{ messages | length }}")
	require.NoError(t, err)
	require.Equal(t, []string{"messages"}, ignores.Variables())
	msgs := json.RawMessage(`[{"role": "user", "content": "hi"}]`)
	deep := strings.Repeat("[", 1002) + strings.Repeat("]", 1002)
	for i, in := range []manager.ChatInput{
		{ToolsJSON: []byte(`[{"type": "function",}]`)},
		{ToolsJSON: []byte(`["\u12G4"]`)},
		{ToolsJSON: []byte(`["a` + "\n" + `"]`)},
		{ToolsJSON: []byte(`[] x`)},
		{ToolsJSON: []byte(deep)},
		{Documents: []byte(`[{"title": "a" "text": "b"}]`)},
		{Documents: []byte(`[{"title": "\x"}]`)},
		{Tools: []message.Tool{{Name: "f", Parameters: []byte(`{"type": }`)}}},
		{Tools: []message.Tool{{Name: "f", Parameters: []byte(`{"a": ` + strings.Repeat("[", 1000) + strings.Repeat("]", 1000) + `}`)}}},
		{Tools: []message.Tool{{Name: "", Parameters: []byte(`{}`)}}},
		{Tools: []message.Tool{}, ToolsJSON: []byte(`[]`)},
	} {
		in.MessagesJSON = msgs
		_, want := reads.Apply(context.Background(), in)
		require.Error(t, want, i)
		_, got := ignores.Apply(context.Background(), in)
		require.Error(t, got, i)
		assert.Equal(t, want.Error(), got.Error(), i)
		var we, ge *manager.Error
		require.ErrorAs(t, want, &we)
		require.ErrorAs(t, got, &ge)
		assert.Equal(t, we.Kind, ge.Kind)
		assert.Equal(t, we.Variables, ge.Variables)
	}
	// As deep as the limit is fine, in a typed tool's parameters too.
	for _, in := range []manager.ChatInput{
		{ToolsJSON: []byte(`[{"type": "function", "function": {"name": "f", "description": "\ud83d\ude00 \u00e9\n"}}]`), Documents: []byte(`[{"n": 1.5e3, "big": 123456789012345678901234}]`)},
		{Tools: []message.Tool{{Name: "f", Parameters: []byte(`{"a": ` + strings.Repeat("[", 990) + strings.Repeat("]", 990) + `}`)}}},
	} {
		in.MessagesJSON = msgs
		_, err := reads.Apply(context.Background(), in)
		require.NoError(t, err)
		out, err := ignores.Apply(context.Background(), in)
		require.NoError(t, err)
		assert.Equal(t, "1", out)
	}
}
