package langchainprompt_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/tmc/langchaingo/chains"
	"github.com/tmc/langchaingo/llms"
	"github.com/tmc/langchaingo/prompts"

	"github.com/seed-e7d2830f/promptkit/frameworks/langchainprompt"
	"github.com/seed-e7d2830f/promptkit/manager"
	"github.com/seed-e7d2830f/promptkit/message"
)

var renders = []struct {
	name, template string
	vars           map[string]any
	images         bool // FormatMessages refuses it: FormatMessageContents only
}{
	{"text template", "title", map[string]any{"intent": "查询明天北京的天气"}, false},
	{"chat template", "support", map[string]any{"product": "麦麦", "question": "这个报错是什么意思？",
		"examples": []any{map[string]any{"q": "怎么退货？", "a": "在订单页点“退货”。"}}}, false},
	{"an image", "support", map[string]any{"product": "麦麦", "question": "看图", "screenshot": "data:image/png;base64,iVBORw0KGgo="}, true},
	{"typed", "digest", map[string]any{"days": int64(7), "level": int64(2)}, false},
}

func openSet(t *testing.T) *manager.Manager {
	t.Helper()
	m, err := manager.Open("../../mcpserver/testdata/set")
	require.NoError(t, err)
	t.Cleanup(func() { m.Close() })
	return m
}

// Through LangChainGo's interfaces, the messages are exactly what
// RenderMessages gives, converted.
func TestFormatGivesRenderMessages(t *testing.T) {
	m := openSet(t)
	for _, tc := range renders {
		t.Run(tc.name, func(t *testing.T) {
			tmpl, err := langchainprompt.New(m, tc.template)
			require.NoError(t, err)
			msgs, err := m.RenderMessages(tc.template, tc.vars)
			require.NoError(t, err)

			want, err := langchainprompt.MessageContents(msgs)
			require.NoError(t, err)
			got, err := tmpl.FormatMessageContents(context.Background(), tc.vars)
			require.NoError(t, err)
			assert.Equal(t, want, got)

			var formatter prompts.MessageFormatter = tmpl
			chat, err := formatter.FormatMessages(tc.vars)
			if tc.images {
				assert.ErrorContains(t, err, "a ChatMessage holds text only, not a part of type image_url: use FormatMessageContents")
				return
			}
			require.NoError(t, err)
			wantChat, err := langchainprompt.ChatMessages(msgs)
			require.NoError(t, err)
			assert.Equal(t, wantChat, chat)
		})
	}
}

// The chat template's messages, written out as LangChainGo has them.
func TestChatTemplateMessages(t *testing.T) {
	tmpl, err := langchainprompt.New(openSet(t), "support")
	require.NoError(t, err)
	var fp prompts.FormatPrompter = tmpl
	value, err := fp.FormatPrompt(renders[1].vars)
	require.NoError(t, err)
	assert.Equal(t, []llms.ChatMessage{
		llms.SystemChatMessage{Content: "你是麦麦的客服，只根据已知信息回答。"},
		llms.HumanChatMessage{Content: "怎么退货？"},
		llms.AIChatMessage{Content: "在订单页点“退货”。"},
		llms.HumanChatMessage{Content: "这个报错是什么意思？"},
	}, value.Messages())
	assert.Equal(t, []string{"product", "question"}, fp.GetInputVariables(), "the required ones")

	contents, err := tmpl.FormatMessageContents(context.Background(), renders[2].vars)
	require.NoError(t, err)
	assert.Equal(t, llms.MessageContent{Role: llms.ChatMessageTypeHuman, Parts: []llms.ContentPart{
		llms.TextContent{Text: "看图"}, llms.ImageURLContent{URL: "data:image/png;base64,iVBORw0KGgo="}, llms.TextContent{Text: "请看截图。"},
	}}, contents[1])
}

// recorder is an llms.Model that keeps what it was sent.
type recorder struct{ got [][]llms.MessageContent }

func (r *recorder) GenerateContent(_ context.Context, msgs []llms.MessageContent, _ ...llms.CallOption) (*llms.ContentResponse, error) {
	r.got = append(r.got, msgs)
	return &llms.ContentResponse{Choices: []*llms.ContentChoice{{Content: "明天北京天气查询"}}}, nil
}

func (r *recorder) Call(ctx context.Context, prompt string, opts ...llms.CallOption) (string, error) {
	return llms.GenerateFromSinglePrompt(ctx, r, prompt, opts...)
}

// An LLMChain sends a text template's prompt exactly as Render gives it,
// and a chat template's as LangChainGo writes chat messages out; the
// strict checks reach the chain.
func TestLLMChain(t *testing.T) {
	ctx := context.Background()
	m := openSet(t)
	tmpl, err := langchainprompt.New(m, "title")
	require.NoError(t, err)
	model := &recorder{}
	chain := chains.NewLLMChain(model, tmpl)
	out, err := chains.Call(ctx, chain, map[string]any{"intent": "查询明天北京的天气"})
	require.NoError(t, err)
	assert.Equal(t, "明天北京天气查询", out["text"])
	want, err := m.Render("title", map[string]any{"intent": "查询明天北京的天气"})
	require.NoError(t, err)
	require.Len(t, model.got, 1)
	assert.Equal(t, []llms.MessageContent{llms.TextParts(llms.ChatMessageTypeHuman, want)}, model.got[0])
	text, err := tmpl.Format(map[string]any{"intent": "查询明天北京的天气"})
	require.NoError(t, err)
	assert.Equal(t, want, text)

	support, err := langchainprompt.New(m, "support")
	require.NoError(t, err)
	_, err = chains.Call(ctx, chains.NewLLMChain(model, support), map[string]any{"product": "麦麦", "question": "怎么退货？"})
	require.NoError(t, err)
	assert.Equal(t, []llms.MessageContent{llms.TextParts(llms.ChatMessageTypeHuman, "system: 你是麦麦的客服，只根据已知信息回答。\nHuman: 怎么退货？")}, model.got[1])
	_, err = support.Format(map[string]any{"product": "麦麦", "question": "怎么退货？"})
	assert.ErrorIs(t, err, manager.ErrChatTemplate)

	_, err = chains.Call(ctx, chain, map[string]any{"intent": "查天气", "tnoe": "正式"})
	require.ErrorIs(t, err, manager.ErrExtraVariables)
	assert.ErrorContains(t, err, `extra variables not declared in index.json: tnoe; did you mean "tone"?`)
	_, err = langchainprompt.New(m, "titel")
	assert.ErrorIs(t, err, manager.ErrUnknownTemplate)
}

func TestRefusals(t *testing.T) {
	for _, tc := range []struct {
		msg  message.Message
		want string
	}{
		{message.Message{Role: message.RoleTool, ToolCallID: "c1"}, `langchainprompt: message 0: role "tool" has no LangChainGo prompt message`},
		{message.Message{Role: message.RoleAssistant, ToolCalls: []message.ToolCall{{ID: "c1", Name: "f"}}}, "message 0: tool calls and results are not prompt messages"},
		{message.Message{Role: message.RoleAssistant, ReasoningContent: "…"}, "message 0: reasoning and names are not prompt messages"},
		{message.Message{Role: message.RoleUser, CacheControl: &message.CacheControl{}}, "message 0: LangChainGo has no cache mark"},
		{message.Message{Role: message.RoleUser, Parts: []message.Part{{Type: message.PartText, Text: "x", CacheControl: &message.CacheControl{}}}}, "message 0, part 0: LangChainGo has no cache mark"},
	} {
		_, err := langchainprompt.ChatMessages([]message.Message{tc.msg})
		assert.ErrorContains(t, err, tc.want)
		_, err = langchainprompt.MessageContents([]message.Message{tc.msg})
		assert.ErrorContains(t, err, tc.want)
	}
	_, err := langchainprompt.MessageContents([]message.Message{{Role: message.RoleUser, Parts: []message.Part{{Type: message.PartAudio, Audio: &message.Audio{Data: "UklGRg==", Format: "wav"}}}}})
	assert.ErrorContains(t, err, "message 0, part 0: a part of type input_audio has no LangChainGo form here")
}
