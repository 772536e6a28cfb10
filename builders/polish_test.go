package builders

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/seed-e7d2830f/promptkit/prompts"
)

func TestPolish(t *testing.T) {
	full := map[string]any{
		"context": "小明：明天出门吗",
		"jargon": []Jargon{
			{Content: "yyds", Meaning: "永远的神"},
		},
		"result":      `{"weather": "rain"}`,
		"requester":   "小明",
		"personality": "活泼",
		"reply_style": "简短",
		"bot_name":    "小爱",
	}
	runCases(t, func(r Renderer) Builder { return NewPolish(r, testBot) }, []buildCase{
		{
			name: "everything given",
			data: full,
			vars: map[string]any{
				"context": "小明：明天出门吗",
				"jargon": []prompts.Jargon{
					{Content: "yyds", Meaning: "永远的神"},
				},
				"result":      "{&quot;weather&quot;: &quot;rain&quot;}",
				"requester":   "小明",
				"personality": "活泼",
				"reply_style": "简短",
				"bot_name":    "小爱",
			},
		},
		{
			name: "only the result: empty context and jargon, optional ones not passed",
			data: map[string]any{"result": "晴"},
			vars: map[string]any{"context": "", "jargon": []prompts.Jargon{}, "result": "晴", "bot_name": testBot},
		},
		{
			name: "empty optional strings are not passed",
			data: map[string]any{"result": "晴", "requester": "", "personality": "", "reply_style": nil, "context": ""},
			vars: map[string]any{"context": "", "jargon": []prompts.Jargon{}, "result": "晴", "bot_name": testBot},
		},
		{
			name: "jargon as decoded from JSON",
			data: map[string]any{"result": "r", "jargon": []any{
				map[string]any{"content": "a", "meaning": "b"},
				map[string]any{"content": "c", "meaning": "d"},
			}},
			vars: map[string]any{"context": "", "result": "r", "bot_name": testBot, "jargon": []prompts.Jargon{
				{Content: "a", Meaning: "b"}, {Content: "c", Meaning: "d"},
			}},
		},
		{
			name: "every field escaped",
			data: map[string]any{
				"context": hostile, "jargon": []Jargon{
					{Content: hostile, Meaning: hostile},
				}, "result": hostile,
				"requester": hostile, "personality": hostile, "reply_style": hostile, "bot_name": hostile,
			},
			vars: map[string]any{
				"context": hostileEscaped, "jargon": []prompts.Jargon{
					{Content: hostileEscaped, Meaning: hostileEscaped},
				},
				"result": hostileEscaped, "requester": hostileEscaped, "personality": hostileEscaped,
				"reply_style": hostileEscaped, "bot_name": hostileEscaped,
			},
		},
		{name: "no result", data: map[string]any{"context": "c"}, err: ErrMissingValue, key: "result"},
		{name: "unknown key", data: map[string]any{"result": "r", "style": "x"}, err: ErrUnknownKey, key: "style"},
		{name: "context of the wrong type", data: map[string]any{"result": "r", "context": []any{"a"}}, err: ErrInvalidValue, key: "context"},
		{name: "jargon not a list", data: map[string]any{"result": "r", "jargon": "yyds"}, err: ErrInvalidValue, key: "jargon"},
		{name: "jargon item not an object", data: map[string]any{"result": "r", "jargon": []any{map[string]any{"content": "a", "meaning": "b"}, "yyds"}}, err: ErrInvalidValue, key: "jargon[1]"},
		{name: "jargon field of the wrong type", data: map[string]any{"result": "r", "jargon": []any{map[string]any{"content": "a", "meaning": 2}}}, err: ErrInvalidValue, key: "jargon[0].meaning"},
		{name: "jargon field names are exact", data: map[string]any{"result": "r", "jargon": []any{map[string]any{"Content": "a", "meaning": "b"}}}, err: ErrInvalidValue, key: "jargon[0].Content"},
		{
			name: "jargon item with an unknown field",
			data: map[string]any{"result": "r", "jargon": []any{map[string]any{"content": "a", "meaning": "b", "mean": "c"}}},
			err:  ErrInvalidValue, key: "jargon[0].mean",
		},
		{
			name: "jargon item without a meaning",
			data: map[string]any{"result": "r", "jargon": []Jargon{
				{Content: "a", Meaning: "b"}, {Content: "c"},
			}},
			err: ErrMissingValue, key: "jargon[1].meaning",
		},
		{
			name: "requester of the wrong type",
			data: map[string]any{"result": "r", "requester": 1},
			err:  ErrInvalidValue, key: "requester",
		},
	})
}

func TestPolishRender(t *testing.T) {
	b := NewPolish(defaultSet(t), testBot)
	build := func(data map[string]any) string {
		t.Helper()
		out, err := b.Build(NewContext(Task{}, data))
		require.NoError(t, err)
		return out
	}

	minimal := build(map[string]any{"result": "明天晴"})
	assert.Contains(t, minimal, "## 最近的聊天记录\n（无）\n", "an empty context shows the placeholder")
	assert.NotContains(t, minimal, "<jargon>", "an empty jargon list leaves the section out")
	assert.NotContains(t, minimal, "黑话表")
	assert.NotContains(t, minimal, "<requester>", "an absent requester leaves the section out")
	assert.NotContains(t, minimal, "<personality>")
	assert.NotContains(t, minimal, "<reply_style>")
	assert.Contains(t, minimal, "没有额外的设定")
	assert.Contains(t, minimal, "<result>\n明天晴\n</result>")

	full := build(map[string]any{
		"context": "小明：明天出门吗", "jargon": []Jargon{
			{Content: "yyds", Meaning: "永远的神"},
		},
		"result": "明天晴", "requester": "小明", "personality": "活泼", "reply_style": "简短",
	})
	assert.Contains(t, full, "<chat_context>\n小明：明天出门吗\n</chat_context>")
	assert.NotContains(t, full, "（无）")
	assert.Contains(t, full, `<term word="yyds">永远的神</term>`)
	assert.Contains(t, full, "<requester>小明</requester>")
	assert.Contains(t, full, "<personality>活泼</personality>")
	assert.Contains(t, full, "<reply_style>简短</reply_style>")
	assert.NotContains(t, full, "没有额外的设定")

	// Each optional value changes the prompt on its own.
	for _, key := range []string{"requester", "personality", "reply_style"} {
		out := build(map[string]any{"result": "明天晴", key: "x"})
		assert.NotEqual(t, minimal, out, key)
		assert.Contains(t, out, "<"+key+">x</"+key+">")
	}

	evil := build(map[string]any{
		"context": hostile, "jargon": []Jargon{
			{Content: `a" word="b`, Meaning: hostile},
		}, "result": hostile,
		"requester": hostile, "personality": hostile, "reply_style": hostile,
	})
	assert.NotContains(t, evil, "<system")
	assert.Contains(t, evil, `<term word="a&quot; word=&quot;b">`)
	for _, tag := range []string{"</result>", "</chat_context>", "</term>", "</requester>", "</personality>", "</reply_style>"} {
		assert.Equal(t, 1, strings.Count(evil, tag), tag)
	}
}
