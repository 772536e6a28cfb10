package einoprompt_test

import (
	"context"
	"testing"

	"github.com/cloudwego/eino/compose"
	"github.com/cloudwego/eino/schema"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/seed-e7d2830f/promptkit/frameworks/einoprompt"
	"github.com/seed-e7d2830f/promptkit/manager"
	"github.com/seed-e7d2830f/promptkit/message"
)

// renders are templates of the test set and variables, rendered through
// Eino's own API in the tests.
var renders = []struct {
	name, template string
	vars           map[string]any
}{
	{"text template", "title", map[string]any{"intent": "查询明天北京的天气"}},
	{"chat template", "support", map[string]any{"product": "麦麦", "question": "这个报错是什么意思？",
		"examples":   []any{map[string]any{"q": "怎么退货？", "a": "在订单页点“退货”。"}},
		"screenshot": "data:image/png;base64,iVBORw0KGgo="}},
	{"an image by URL", "support", map[string]any{"product": "麦麦", "question": "看图", "screenshot": "https://example.com/a.png"}},
	{"typed", "digest", map[string]any{"days": int64(7), "level": int64(2)}},
}

func openSet(t *testing.T) *manager.Manager {
	t.Helper()
	m, err := manager.Open("../../mcpserver/testdata/set")
	require.NoError(t, err)
	t.Cleanup(func() { m.Close() })
	return m
}

// chain compiles an Eino chain of one step, the template.
func chain(t *testing.T, tmpl *einoprompt.Template) compose.Runnable[map[string]any, []*schema.Message] {
	t.Helper()
	c := compose.NewChain[map[string]any, []*schema.Message]()
	c.AppendChatTemplate(tmpl)
	r, err := c.Compile(context.Background())
	require.NoError(t, err)
	return r
}

// What an Eino chain gets from the template is exactly what
// RenderMessages gives, converted.
func TestChainGivesRenderMessages(t *testing.T) {
	ctx := context.Background()
	m := openSet(t)
	for _, tc := range renders {
		t.Run(tc.name, func(t *testing.T) {
			tmpl, err := einoprompt.New(m, tc.template)
			require.NoError(t, err)
			got, err := chain(t, tmpl).Invoke(ctx, tc.vars)
			require.NoError(t, err)
			msgs, err := m.RenderMessages(tc.template, tc.vars)
			require.NoError(t, err)
			want, err := einoprompt.Messages(msgs)
			require.NoError(t, err)
			assert.Equal(t, want, got)
		})
	}
}

// The chat template's messages, written out as Eino has them.
func TestChatTemplateMessages(t *testing.T) {
	tmpl, err := einoprompt.New(openSet(t), "support")
	require.NoError(t, err)
	got, err := chain(t, tmpl).Invoke(context.Background(), renders[1].vars)
	require.NoError(t, err)
	data, mime := "iVBORw0KGgo=", "image/png"
	assert.Equal(t, []*schema.Message{
		{Role: schema.System, Content: "你是麦麦的客服，只根据已知信息回答。"},
		{Role: schema.User, Content: "怎么退货？"},
		{Role: schema.Assistant, Content: "在订单页点“退货”。"},
		{Role: schema.User, UserInputMultiContent: []schema.MessageInputPart{
			{Type: schema.ChatMessagePartTypeText, Text: "这个报错是什么意思？"},
			{Type: schema.ChatMessagePartTypeImageURL, Image: &schema.MessageInputImage{MessagePartCommon: schema.MessagePartCommon{Base64Data: &data, MIMEType: mime}}},
			{Type: schema.ChatMessagePartTypeText, Text: "请看截图。"},
		}},
	}, got)
}

// The strict checks reach the chain: a misspelt variable is an error that
// names it, with a did-you-mean.
func TestStrictThroughTheChain(t *testing.T) {
	tmpl, err := einoprompt.New(openSet(t), "title")
	require.NoError(t, err)
	_, err = chain(t, tmpl).Invoke(context.Background(), map[string]any{"intent": "查天气", "tnoe": "正式"})
	require.ErrorIs(t, err, manager.ErrExtraVariables)
	assert.ErrorContains(t, err, `extra variables not declared in index.json: tnoe; did you mean "tone"?`)

	_, err = einoprompt.New(openSet(t), "titel")
	assert.ErrorIs(t, err, manager.ErrUnknownTemplate)
	assert.Equal(t, "Promptkit", tmpl.GetType())
}

func TestMessages(t *testing.T) {
	url := "https://example.com/a.png"
	got, err := einoprompt.Messages([]message.Message{
		{Role: message.RoleAssistant, ToolCalls: []message.ToolCall{{ID: "call_1", Name: "get_weather", Arguments: `{"city": "北京"}`}}, ReasoningContent: "先查天气"},
		message.ToolResult(message.ToolCall{ID: "call_1", Name: "get_weather"}, "晴"),
		{Role: message.RoleAssistant, Parts: []message.Part{{Type: message.PartText, Text: "图："}, {Type: message.PartImage, URL: url}}},
		{Role: message.RoleUser, Parts: []message.Part{{Type: message.PartImage, URL: url, Detail: "low"}}},
		{Role: message.RoleUser},
	})
	require.NoError(t, err)
	assert.Equal(t, []*schema.Message{
		{Role: schema.Assistant, ReasoningContent: "先查天气", ToolCalls: []schema.ToolCall{{ID: "call_1", Type: "function",
			Function: schema.FunctionCall{Name: "get_weather", Arguments: `{"city": "北京"}`}}}},
		{Role: schema.Tool, Content: "晴", ToolCallID: "call_1", ToolName: "get_weather"},
		{Role: schema.Assistant, AssistantGenMultiContent: []schema.MessageOutputPart{{Type: schema.ChatMessagePartTypeText, Text: "图："},
			{Type: schema.ChatMessagePartTypeImageURL, Image: &schema.MessageOutputImage{MessagePartCommon: schema.MessagePartCommon{URL: &url}}}}},
		{Role: schema.User, UserInputMultiContent: []schema.MessageInputPart{{Type: schema.ChatMessagePartTypeImageURL,
			Image: &schema.MessageInputImage{MessagePartCommon: schema.MessagePartCommon{URL: &url}, Detail: schema.ImageURLDetailLow}}}},
		{Role: schema.User},
	}, got)

	for _, tc := range []struct {
		msg  message.Message
		want string
	}{
		{message.Message{Role: message.RoleSystem, Parts: []message.Part{{Type: message.PartImage, URL: url}}}, "einoprompt: message 0: part 0: an Eino system message has no place for a part of type image_url"},
		{message.Message{Role: message.RoleUser, CacheControl: &message.CacheControl{}}, "einoprompt: message 0: an Eino message has no cache mark"},
		{message.Message{Role: message.RoleDeveloper}, `einoprompt: message 0: role "developer" is not an Eino role`},
		{message.Message{Role: message.RoleUser, Parts: []message.Part{{Type: message.PartImage, URL: "data:image/png,xyz"}}}, "einoprompt: message 0: part 0: an image data: URL must be data:TYPE;base64,…"},
		{message.Message{Role: message.RoleUser, Parts: []message.Part{{Type: message.PartText, Text: "x", CacheControl: &message.CacheControl{}}}}, "part 0: an Eino message part has no cache mark"},
	} {
		_, err := einoprompt.Messages([]message.Message{tc.msg})
		assert.ErrorContains(t, err, tc.want)
	}
}
