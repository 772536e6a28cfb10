package manager_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/seed-e7d2830f/promptkit/manager"
)

// Each budget option bounds what it names, and is validated when the
// manager is built.
func TestLimitOptions(t *testing.T) {
	fsys := set(`{"version":1,"templates":{
		"rec":{"path":"rec.md"},
		"mem":{"path":"mem.md"},
		"inc":{"path":"inc.md"}}}`, map[string]string{
		"rec.md":  `{% macro down(n) %}{{ n }}{% if n > 0 %},{{ down(n - 1) }}{% endif %}{% endmacro %}{{ down(30) }}`,
		"mem.md":  `{% set s = "x" * 5000 %}{{ s | length }}`,
		"inc.md":  `{% include "part.md" %}{% include "part.md" %}`,
		"part.md": strings.Repeat("p", 3000),
	})

	m, err := manager.New(fsys)
	require.NoError(t, err)
	out, err := m.Render("rec", nil)
	require.NoError(t, err)
	assert.True(t, strings.HasPrefix(out, "30,29,"))

	m, err = manager.New(fsys, manager.WithMaxCallDepth(10))
	require.NoError(t, err)
	_, err = m.Render("rec", nil)
	assert.ErrorIs(t, err, manager.ErrOutputLimit)
	assert.Contains(t, err.Error(), "deeper than 10")

	m, err = manager.New(fsys, manager.WithMaxMemory(4096))
	require.NoError(t, err)
	_, err = m.Render("mem", nil)
	assert.ErrorIs(t, err, manager.ErrOutputLimit)
	assert.Contains(t, err.Error(), "(WithMaxMemory)")

	_, err = manager.New(fsys, manager.WithMaxInlined(5000))
	assert.ErrorIs(t, err, manager.ErrTemplate)
	assert.Contains(t, err.Error(), "part.md")

	for _, o := range []manager.Option{manager.WithMaxCallDepth(0), manager.WithMaxMemory(-1), manager.WithMaxInlined(0)} {
		_, err := manager.New(fsys, o)
		assert.ErrorIs(t, err, manager.ErrTemplate)
	}
}

// A chat template says which names it reads: the conventional ones and
// its own settings.
func TestChatTemplateVariables(t *testing.T) {
	ct, err := manager.ParseChatTemplate("t", `{% for m in messages %}{{ m.content }}{% endfor %}{% if enable_thinking %}<think>{% endif %}{{ bos_token }}`)
	require.NoError(t, err)
	assert.Equal(t, []string{"bos_token", "enable_thinking", "messages"}, ct.Variables())
}
