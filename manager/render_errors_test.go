package manager_test

import (
	"context"
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/seed-e7d2830f/promptkit/internal/jinja"
	"github.com/seed-e7d2830f/promptkit/manager"
)

// Every render error says where: template, file, line and column of the
// construct that failed — in the entry's file or in a part it includes —
// and is a kind of ErrTemplate.
func TestRenderErrorsSayWhere(t *testing.T) {
	m, err := manager.New(set(`{"version":1,"templates":{
		"div":{"path":"div.md","variables":["x"]},
		"inc":{"path":"inc.md","variables":["x"]},
		"attr":{"path":"attr.md","variables":["x"]},
		"raise":{"path":"raise.md","variables":["x"]},
		"loop":{"path":"loop.md","variables":["x"]}}}`, map[string]string{
		"div.md":     "第一行\n结果：{{ x / 0 }}",
		"inc.md":     "前言\n{% include \"parts/p.md\" %}",
		"parts/p.md": "\n\n  {{ x.missing.deeper }}",
		"attr.md":    "{% if x %}\n{{ x | int + [] }}{% endif %}",
		"raise.md":   "{{ raise_exception('不支持：' ~ x) if x }}",
		"loop.md":    "{% for i in x %}{{ i }}{% endfor %}",
	}))
	require.NoError(t, err)
	for _, tc := range []struct {
		name      string
		x         any
		want      string
		kind      error
		file      string
		line, col int
	}{
		{"div", 1, `div.md:2:7: template "div": render failed: division by zero`, manager.ErrTemplate, "div.md", 2, 7},
		{"inc", map[string]any{}, `parts/p.md:3:6: template "inc": x.missing is undefined, so it cannot be looked into for its attribute "deeper": x is an empty dict`, manager.ErrUndefined, "parts/p.md", 3, 6},
		{"attr", "7", `attr.md:2:4: template "attr": render failed: unsupported operand types for +: integer and list`, manager.ErrTemplate, "attr.md", 2, 4},
		{"raise", "图片", `raise.md:1:4: template "raise": raise_exception: 不支持：图片`, manager.ErrRaised, "raise.md", 1, 4},
		{"loop", 3, `loop.md:1:1: template "loop": render failed: integer is not iterable`, manager.ErrTemplate, "loop.md", 1, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := m.Render(tc.name, map[string]any{"x": tc.x})
			require.Error(t, err)
			assert.Equal(t, tc.want, err.Error())
			assert.ErrorIs(t, err, tc.kind)
			assert.ErrorIs(t, err, manager.ErrTemplate)
			var e *manager.Error
			require.True(t, errors.As(err, &e))
			assert.Equal(t, tc.name, e.Template)
			assert.Equal(t, tc.file, e.Path)
			assert.Equal(t, [2]int{tc.line, tc.col}, [2]int{e.Line, e.Col})
		})
	}
}

// Each kind of a render's problem reaches the host as its sentinel, with
// the engine's position.
func TestRenderErrorKinds(t *testing.T) {
	m, err := manager.New(set(`{"version":1,"templates":{
		"div":{"path":"div.md","variables":["n"]},
		"raise":{"path":"raise.md"},
		"big":{"path":"big.md"}}}`, map[string]string{
		"div.md":   "a\n  {{ 1 // n }}",
		"raise.md": `{{ raise_exception("不行") }}`,
		"big.md":   `{% for i in range(100000) %}{{ "x" * 100 }}{% endfor %}`,
	}), manager.WithMaxOutputBytes(1000))
	require.NoError(t, err)
	_, err = m.Render("div", map[string]any{"n": 0})
	var e *manager.Error
	require.ErrorAs(t, err, &e)
	assert.ErrorIs(t, err, manager.ErrTemplate)
	assert.Equal(t, "template", manager.ErrorKind(err))
	assert.Equal(t, []int{2, 6}, []int{e.Line, e.Col})
	var je *jinja.Error
	assert.False(t, errors.As(err, &je), "the engine's error is the manager's Error, not its cause")

	_, err = m.Render("raise", nil)
	assert.ErrorIs(t, err, manager.ErrRaised)
	assert.Contains(t, err.Error(), "raise_exception: 不行")

	_, err = m.Render("big", nil)
	assert.ErrorIs(t, err, manager.ErrOutputLimit)

	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err = m.RenderContext(ctx, "big", nil)
	assert.ErrorIs(t, err, manager.ErrCanceled)
	assert.ErrorIs(t, err, context.Canceled)
	s, _ := manager.KindStatus(manager.ErrorKind(err))
	assert.Equal(t, 422, s)
}
