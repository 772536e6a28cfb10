package builders

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/seed-e7d2830f/promptkit/prompts"
)

func TestSubAgentSystem(t *testing.T) {
	tools := []Tool{
		{Name: "search", Description: "搜索网页"}, {Name: "weather", Description: "查询天气"},
	}
	runCases(t, func(r Renderer) Builder { return NewSubAgentSystem(r, testBot) }, []buildCase{
		{
			name: "intent and tools from data",
			task: Task{Intent: "主任务"}, data: map[string]any{"intent": "查天气", "tool_list": tools},
			vars: map[string]any{"intent": "查天气", "bot_name": testBot, "tool_list": []prompts.Tool{
				{Name: "search", Description: "搜索网页"}, {Name: "weather", Description: "查询天气"},
			}},
		},
		{
			name: "the task's intent, no tools, bot name from data",
			task: Task{Intent: "主任务"}, data: map[string]any{"bot_name": "小爱"},
			vars: map[string]any{"intent": "主任务", "bot_name": "小爱", "tool_list": []prompts.Tool{}},
		},
		{
			name: "tools as decoded from JSON",
			data: map[string]any{"intent": "i", "tool_list": []any{map[string]any{"name": "n", "description": "d"}}},
			vars: map[string]any{"intent": "i", "bot_name": testBot, "tool_list": []prompts.Tool{
				{Name: "n", Description: "d"},
			}},
		},
		{
			name: "every field escaped",
			data: map[string]any{"intent": hostile, "bot_name": hostile, "tool_list": []Tool{
				{Name: hostile, Description: hostile},
			}},
			vars: map[string]any{"intent": hostileEscaped, "bot_name": hostileEscaped, "tool_list": []prompts.Tool{
				{Name: hostileEscaped, Description: hostileEscaped},
			}},
		},
		{name: "no intent", data: map[string]any{"tool_list": tools}, err: ErrMissingValue, key: "intent"},
		{name: "tool without a name", data: map[string]any{"intent": "i", "tool_list": []Tool{
			{Description: "d"},
		}}, err: ErrMissingValue, key: "tool_list[0].name"},
		{
			name: "tool with an unknown field",
			data: map[string]any{"intent": "i", "tool_list": []any{map[string]any{"name": "n", "parameters": map[string]any{}}}},
			err:  ErrInvalidValue, key: "tool_list[0].parameters",
		},
		{name: "unknown key", data: map[string]any{"intent": "i", "tools": tools}, err: ErrUnknownKey, key: "tools"},
	})
}

func TestSubAgentSystemRender(t *testing.T) {
	b := NewSubAgentSystem(defaultSet(t), testBot)
	out, err := b.Build(NewContext(Task{}, map[string]any{
		"intent": "查天气", "tool_list": []Tool{
			{Name: "search", Description: "搜索网页"},
		},
	}))
	require.NoError(t, err)
	assert.True(t, strings.HasPrefix(out, "你是麦麦派出的子 Agent"), out)
	assert.Contains(t, out, "<intent>查天气</intent>")
	assert.Contains(t, out, "<tools>\n<tool name=\"search\">搜索网页</tool>\n</tools>")
	assert.NotContains(t, out, "（无）")

	out, err = b.Build(NewContext(Task{}, map[string]any{"intent": "查天气"}))
	require.NoError(t, err)
	assert.Contains(t, out, "## 可用工具\n（无）\n", "no tools shows the placeholder")
	assert.NotContains(t, out, "<tools>")

	out, err = b.Build(NewContext(Task{}, map[string]any{
		"intent": hostile, "tool_list": []Tool{
			{Name: `x" evil="1`, Description: hostile},
		},
	}))
	require.NoError(t, err)
	assert.Contains(t, out, `<tool name="x&quot; evil=&quot;1">`)
	assert.Equal(t, 1, strings.Count(out, "</tool>"))
	assert.Equal(t, 1, strings.Count(out, "</intent>"))
	assert.NotContains(t, out, "<system")
}
