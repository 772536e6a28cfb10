package builders

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestTitle(t *testing.T) {
	runCases(t, func(r Renderer) Builder { return NewTitle(r) }, []buildCase{
		{
			name: "intent from data",
			task: Task{Intent: "task intent"}, data: map[string]any{"intent": "data intent"},
			vars: map[string]any{"intent": "data intent"},
		},
		{
			name: "the task's intent when data has none",
			task: Task{Intent: "task intent"},
			vars: map[string]any{"intent": "task intent"},
		},
		{
			name: "escaped",
			data: map[string]any{"intent": hostile},
			vars: map[string]any{"intent": hostileEscaped},
		},
		{name: "no intent anywhere", data: map[string]any{"intent": ""}, err: ErrMissingValue, key: "intent"},
		{name: "intent of the wrong type", data: map[string]any{"intent": []any{"x"}}, err: ErrInvalidValue, key: "intent"},
		{name: "unknown key", data: map[string]any{"intent": "x", "title": "y"}, err: ErrUnknownKey, key: "title"},
	})
}

func TestTitleRender(t *testing.T) {
	b := NewTitle(defaultSet(t))
	out, err := b.Build(NewContext(Task{}, map[string]any{"intent": "帮我查明天北京的天气"}))
	require.NoError(t, err)
	assert.Contains(t, out, "<intent>帮我查明天北京的天气</intent>")
	assert.Contains(t, out, "15")

	out, err = b.Build(NewContext(Task{}, map[string]any{"intent": hostile}))
	require.NoError(t, err)
	assert.Equal(t, 1, strings.Count(out, "</intent>"))
	assert.NotContains(t, out, "<system")
}
