package manager_test

import (
	"testing"
	"testing/fstest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/seed-e7d2830f/promptkit/manager"
)

func TestTextForm(t *testing.T) {
	m, err := manager.New(fstest.MapFS{
		"index.json": {Data: []byte(`{"version": 1, "templates": {"t": {"path": "t.md", "variables": [
		  "plain",
		  {"name": "tone", "schema": {"$ref": "tone.json"}},
		  {"name": "n", "schema": {"type": "integer", "enum": [1, 2]}},
		  {"name": "maybe", "schema": {"type": ["string", "null"]}},
		  {"name": "user", "schema": {"type": "object", "properties": {"name": {"type": "string"}}}},
		  {"name": "anything", "schema": {"description": "any value"}}]}}}`)},
		"tone.json": {Data: []byte(`{"enum": ["亲切", "正式"]}`)},
		"t.md":      {Data: []byte(`{{ plain }}{{ tone }}{{ n }}{{ maybe }}{{ user.name }}{{ anything }}`)},
	})
	require.NoError(t, err)
	for _, tc := range []struct {
		variable string
		want     manager.TextForm
	}{
		{"plain", manager.TextForm{}},
		{"tone", manager.TextForm{Want: "a string", Choices: []any{"亲切", "正式"}}},
		{"n", manager.TextForm{JSON: true, Want: "an integer", Choices: []any{int64(1), int64(2)}}},
		{"maybe", manager.TextForm{Want: "a string or null"}},
		{"user", manager.TextForm{JSON: true, Want: "an object"}},
		{"anything", manager.TextForm{}},
	} {
		t.Run(tc.variable, func(t *testing.T) {
			got, ok := m.TextForm("t", tc.variable)
			require.True(t, ok)
			assert.Equal(t, tc.want, got)
		})
	}
	_, ok := m.TextForm("t", "usr")
	assert.False(t, ok, "an undeclared variable")
	_, ok = m.TextForm("nope", "plain")
	assert.False(t, ok, "an unknown template")

	// Values: text as it is, or JSON; the render validates.
	n, _ := m.TextForm("t", "n")
	v, err := n.Value("2")
	require.NoError(t, err)
	assert.Equal(t, int64(2), v)
	_, err = n.Value("two")
	assert.ErrorContains(t, err, `want an integer written as JSON, got "two": invalid character`)
	user, _ := m.TextForm("t", "user")
	userValue, err := user.Value(`{"name": "李雷"}`)
	require.NoError(t, err)
	assert.Equal(t, map[string]any{"name": "李雷"}, userValue)
	maybe, _ := m.TextForm("t", "maybe")
	v, err = maybe.Value("42")
	require.NoError(t, err)
	assert.Equal(t, "42", v, "a schema that allows a string takes the text itself")
	out, err := m.Render("t", map[string]any{"plain": "p", "tone": "正式", "n": int64(2), "maybe": "m", "user": userValue, "anything": 1})
	require.NoError(t, err)
	assert.Equal(t, "p正式2m李雷1", out)
}
