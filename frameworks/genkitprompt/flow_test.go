package genkitprompt_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/firebase/genkit/go/ai"
	"github.com/firebase/genkit/go/core"
	"github.com/firebase/genkit/go/genkit"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/seed-e7d2830f/promptkit/frameworks/genkitprompt"
	"github.com/seed-e7d2830f/promptkit/manager"
	"github.com/seed-e7d2830f/promptkit/message"
)

var renders = []struct {
	name, template string
	vars           genkitprompt.Vars
	json           string // the same variables as the Developer UI sends them
}{
	{"text template", "title", genkitprompt.Vars{"intent": "查询明天北京的天气"}, `{"intent": "查询明天北京的天气"}`},
	{"chat template", "support", genkitprompt.Vars{"product": "麦麦", "question": "这个报错是什么意思？",
		"examples":   []any{map[string]any{"q": "怎么退货？", "a": "在订单页点“退货”。"}},
		"screenshot": "data:image/png;base64,iVBORw0KGgo="},
		`{"product": "麦麦", "question": "这个报错是什么意思？", "examples": [{"q": "怎么退货？", "a": "在订单页点“退货”。"}], "screenshot": "data:image/png;base64,iVBORw0KGgo="}`},
	{"an image by URL", "support", genkitprompt.Vars{"product": "麦麦", "question": "看图", "screenshot": "https://example.com/a.png"},
		`{"product": "麦麦", "question": "看图", "screenshot": "https://example.com/a.png"}`},
	{"typed", "digest", genkitprompt.Vars{"days": int64(7), "level": int64(2)}, `{"days": 7, "level": 2}`},
}

func openSet(t *testing.T) *manager.Manager {
	t.Helper()
	m, err := manager.Open("../../mcpserver/testdata/set")
	require.NoError(t, err)
	t.Cleanup(func() { m.Close() })
	return m
}

// recorder is a Genkit model that keeps the messages it is sent.
func recorder(g *genkit.Genkit, got *[][]*ai.Message) ai.Model {
	return genkit.DefineModel(g, "test/recorder", &ai.ModelOptions{Supports: &ai.ModelSupports{Multiturn: true, SystemRole: true, Media: true}},
		func(_ context.Context, req *ai.ModelRequest, _ ai.ModelStreamCallback) (*ai.ModelResponse, error) {
			*got = append(*got, req.Messages)
			return &ai.ModelResponse{Message: ai.NewModelTextMessage("好的")}, nil
		})
}

// Run through Genkit — the flow from Go values and from JSON, and its
// messages through Generate to a model — the messages are exactly what
// RenderMessages gives, converted.
func TestFlowGivesRenderMessages(t *testing.T) {
	ctx := context.Background()
	g := genkit.Init(ctx)
	m := openSet(t)
	var sent [][]*ai.Message
	model := recorder(g, &sent)
	flows := map[string]*core.Flow[genkitprompt.Vars, []*ai.Message, struct{}]{}
	for _, name := range []string{"title", "support", "digest"} {
		f, err := genkitprompt.Define(g, m, name)
		require.NoError(t, err)
		flows[name] = f
	}
	for _, tc := range renders {
		t.Run(tc.name, func(t *testing.T) {
			msgs, err := m.RenderMessages(tc.template, tc.vars)
			require.NoError(t, err)
			want, err := genkitprompt.Messages(msgs)
			require.NoError(t, err)

			got, err := flows[tc.template].Run(ctx, tc.vars)
			require.NoError(t, err)
			assert.Equal(t, want, got)

			raw, err := flows[tc.template].RunJSON(ctx, json.RawMessage(tc.json), nil)
			require.NoError(t, err)
			wantJSON, err := json.Marshal(want)
			require.NoError(t, err)
			assert.JSONEq(t, string(wantJSON), string(raw), "from JSON, as the Developer UI runs it")

			resp, err := genkit.Generate(ctx, g, ai.WithModel(model), ai.WithMessages(got...))
			require.NoError(t, err)
			assert.Equal(t, "好的", resp.Text())
			assert.Equal(t, want, sent[len(sent)-1], "what the model was sent")
		})
	}
}

// The chat template's messages, written out as Genkit has them.
func TestChatTemplateMessages(t *testing.T) {
	ctx := context.Background()
	g := genkit.Init(ctx)
	flow, err := genkitprompt.Define(g, openSet(t), "support")
	require.NoError(t, err)
	got, err := flow.Run(ctx, renders[1].vars)
	require.NoError(t, err)
	assert.Equal(t, []*ai.Message{
		{Role: ai.RoleSystem, Content: []*ai.Part{ai.NewTextPart("你是麦麦的客服，只根据已知信息回答。")}},
		{Role: ai.RoleUser, Content: []*ai.Part{ai.NewTextPart("怎么退货？")}},
		{Role: ai.RoleModel, Content: []*ai.Part{ai.NewTextPart("在订单页点“退货”。")}},
		{Role: ai.RoleUser, Content: []*ai.Part{ai.NewTextPart("这个报错是什么意思？"),
			ai.NewMediaPart("image/png", "data:image/png;base64,iVBORw0KGgo="), ai.NewTextPart("请看截图。")}},
	}, got)
}

// The strict checks reach the flow: a misspelt variable is an error that
// names it, with a did-you-mean.
func TestStrictThroughTheFlow(t *testing.T) {
	ctx := context.Background()
	g := genkit.Init(ctx)
	m := openSet(t)
	flow, err := genkitprompt.Define(g, m, "title")
	require.NoError(t, err)
	_, err = flow.Run(ctx, genkitprompt.Vars{"intent": "查天气", "tnoe": "正式"})
	require.ErrorIs(t, err, manager.ErrExtraVariables)
	assert.ErrorContains(t, err, `extra variables not declared in index.json: tnoe; did you mean "tone"?`)
	_, err = genkitprompt.Define(g, m, "titel")
	assert.ErrorIs(t, err, manager.ErrUnknownTemplate)
}

func TestRefusals(t *testing.T) {
	for _, tc := range []struct {
		msg  message.Message
		want string
	}{
		{message.Message{Role: message.RoleDeveloper}, `genkitprompt: message 0: role "developer" has no Genkit prompt message`},
		{message.Message{Role: message.RoleAssistant, ReasoningContent: "…"}, "genkitprompt: message 0: tool calls, tool results, reasoning, names and cache marks are not prompt messages"},
		{message.Message{Role: message.RoleUser, Parts: []message.Part{{Type: message.PartImage, URL: "https://example.com/a.png", Detail: "low"}}}, "message 0, part 0: a Genkit part has no cache mark or detail"},
		{message.Message{Role: message.RoleUser, Parts: []message.Part{{Type: message.PartFile, File: &message.File{ID: "f"}}}}, "message 0, part 0: a part of type file has no Genkit form here"},
	} {
		_, err := genkitprompt.Messages([]message.Message{tc.msg})
		assert.ErrorContains(t, err, tc.want)
	}
	var v genkitprompt.Vars
	assert.ErrorContains(t, json.Unmarshal([]byte(`[1]`), &v), "genkitprompt: the variables are a JSON object, not []interface {}")
}
