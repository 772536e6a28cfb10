package builders

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestAgentSystem(t *testing.T) {
	task := Task{ID: "t-1", Title: "查天气", Intent: "查明天北京的天气"}
	runCases(t, func(r Renderer) Builder { return NewAgentSystem(r, testBot) }, []buildCase{
		{
			name: "title and intent from the task, bot name from data",
			task: task, data: map[string]any{"bot_name": "小爱"},
			vars: map[string]any{"title": "查天气", "intent": "查明天北京的天气", "bot_name": "小爱"},
		},
		{
			name: "default bot name when bot_name is absent",
			task: task,
			vars: map[string]any{"title": "查天气", "intent": "查明天北京的天气", "bot_name": testBot},
		},
		{
			name: "default bot name when bot_name is empty",
			task: task, data: map[string]any{"bot_name": ""},
			vars: map[string]any{"title": "查天气", "intent": "查明天北京的天气", "bot_name": testBot},
		},
		{
			name: "default bot name when bot_name is null",
			task: task, data: map[string]any{"bot_name": nil},
			vars: map[string]any{"title": "查天气", "intent": "查明天北京的天气", "bot_name": testBot},
		},
		{
			name: "an empty title is passed for the template to omit",
			task: Task{Intent: "i"},
			vars: map[string]any{"title": "", "intent": "i", "bot_name": testBot},
		},
		{
			name: "every field escaped",
			task: Task{Title: hostile, Intent: hostile}, data: map[string]any{"bot_name": hostile},
			vars: map[string]any{"title": hostileEscaped, "intent": hostileEscaped, "bot_name": hostileEscaped},
		},
		{
			name: "a typo is an error, not a fallback",
			task: task, data: map[string]any{"bot_nmae": "小爱"},
			err: ErrUnknownKey, key: "bot_nmae",
		},
		{
			name: "title and intent are not data keys",
			task: task, data: map[string]any{"intent": "x"},
			err: ErrUnknownKey, key: "intent",
		},
		{
			name: "bot_name of the wrong type",
			task: task, data: map[string]any{"bot_name": 7},
			err: ErrInvalidValue, key: "bot_name",
		},
		{
			name: "a task without an intent",
			task: Task{Title: "t"},
			err:  ErrMissingValue, key: "task.intent",
		},
	})
}

func TestAgentSystemNoDefaultBotName(t *testing.T) {
	b := NewAgentSystem(&spy{}, "")
	_, err := b.Build(NewContext(Task{Intent: "i"}, nil))
	requireErrorKind(t, err, ErrMissingValue, "bot_name")
	out, err := b.Build(NewContext(Task{Intent: "i"}, map[string]any{"bot_name": "x"}))
	require.NoError(t, err)
	assert.Empty(t, out)
}

func TestAgentSystemRender(t *testing.T) {
	b := NewAgentSystem(defaultSet(t), testBot)

	out, err := b.Build(NewContext(Task{Title: "查天气", Intent: "查明天北京的天气"}, nil))
	require.NoError(t, err)
	assert.True(t, strings.HasPrefix(out, "你是麦麦，"), out)
	assert.Contains(t, out, "<title>查天气</title>\n<intent>查明天北京的天气</intent>")

	out, err = b.Build(NewContext(Task{Intent: "查明天北京的天气"}, map[string]any{"bot_name": "小爱"}))
	require.NoError(t, err)
	assert.NotContains(t, out, "<title>", "no title element without a title")
	assert.Contains(t, out, "<task>\n<intent>查明天北京的天气</intent>\n</task>")
	assert.NotContains(t, out, "麦麦")

	out, err = b.Build(NewContext(Task{Title: hostile, Intent: hostile}, map[string]any{"bot_name": hostile}))
	require.NoError(t, err)
	assert.NotContains(t, out, "<system")
	assert.Equal(t, 1, strings.Count(out, "</intent>"), "the intent cannot close its tag")
	assert.Equal(t, 1, strings.Count(out, "</title>"))
	assert.Contains(t, out, "<intent>"+hostileEscaped+"</intent>")
}
