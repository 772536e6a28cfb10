package engine_test

import (
	"strings"
	"testing"
	"testing/fstest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/seed-e7d2830f/promptkit/manager"
)

// Chains of + and ~ build their result once and give what the operators
// one at a time give: the expected outputs are Jinja2's, markup's
// escaping and the errors of a step that fails included.
func TestConcatenationChains(t *testing.T) {
	for _, tc := range []struct {
		src  string
		vars map[string]any
		want string
		err  string
	}{
		{src: `{{ 'a' + 'b' + 'c' + 'd' }}`, want: `abcd`},
		{src: `{{ 1 + 2 + 3 }}`, want: `6`},
		{src: `{{ 'a' + x + 'c' }}`, vars: map[string]any{"x": "b"}, want: `abc`},
		{src: `{{ ('<' | safe) + 'a' + '>' + 'b' }}`, want: `<a&gt;b`},
		{src: `{{ 'a' + ('<' | safe) + '>' }}`, want: `a<&gt;`},
		{src: `{{ [1] + [2] + [3] }}`, want: `[1, 2, 3]`},
		{src: `{{ 'x' + 'y' ~ 1 ~ none ~ 'z' }}`, want: `xy1Nonez`},
		{src: `{{ ('<' | safe) ~ '>' ~ 2 }}`, want: `<>2`},
		{src: `{{ 'a' ~ [1, 'b'] ~ {'k': 2.0} }}`, want: `a[1, 'b']{'k': 2.0}`},
		{src: `{% set c %}{{ 'a' + x + 'c' }}{% endset %}[{{ c }}]{{ x + x }}`, vars: map[string]any{"x": "b"}, want: `[abc]bb`},
		{src: `{% for i in [1, 2] %}{{ '<' + x + '>' }}{{ i }}{% endfor %}`, vars: map[string]any{"x": "b"}, want: `<b>1<b>2`},
		{src: `{{ 1 + 2 + 'a' }}`, err: `t.md:1:4: template "t": render failed: unsupported operand types for +: integer and string`},
		{src: `{{ 'a' + 'b' + 1 }}`, err: `t.md:1:4: template "t": render failed: unsupported operand types for +: string and integer`},
	} {
		got, err := renderStock(tc.src, tc.vars)
		if tc.err != "" {
			require.Error(t, err, tc.src)
			assert.Contains(t, err.Error(), tc.err, tc.src)
			continue
		}
		require.NoError(t, err, tc.src)
		assert.Equal(t, tc.want, got, tc.src)
	}
}

// A chain beyond the memory budget is refused, as each step would be.
func TestConcatenationChainBudget(t *testing.T) {
	big := strings.Repeat("x", 40<<20)
	for _, src := range []string{`{{ x + x + 'a' }}`, `{{ x ~ x ~ 'a' }}`} {
		_, err := renderStock(src, map[string]any{"x": big})
		require.Error(t, err, src)
		assert.Contains(t, err.Error(), "beyond the render's memory limit", src)
	}
}

// A printed chain writes its strings one after another: beyond the
// output limit it is refused as the joined string would be.
func TestConcatenationChainOutputLimit(t *testing.T) {
	set := `{"version": 1, "undefined": "lenient", "templates": {"t": {"path": "t.md", "variables": ["x"]}}}`
	fsys := fstest.MapFS{"index.json": {Data: []byte(set)}, "t.md": {Data: []byte(`{{ x + x + 'a' }}`)}}
	m, err := manager.New(fsys, manager.WithMaxOutputBytes(1000))
	require.NoError(t, err)
	out, err := m.Render("t", map[string]any{"x": strings.Repeat("x", 499)})
	require.NoError(t, err)
	assert.Len(t, out, 999)
	_, err = m.Render("t", map[string]any{"x": strings.Repeat("x", 500)})
	require.ErrorIs(t, err, manager.ErrOutputLimit)
	assert.Contains(t, err.Error(), "the output would exceed 1000 bytes")
}
