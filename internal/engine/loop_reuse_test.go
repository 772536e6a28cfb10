package engine_test

import (
	"testing"
	"testing/fstest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/seed-e7d2830f/promptkit/manager"
)

// A loop whose body only reads loop's fields uses a loop object of the
// render's state; one whose loop can outlive an iteration (kept in a
// namespace, a macro defined in the body, a call block) has its own. The
// expected outputs are Jinja2's.
func TestLoopObjectThatEscapes(t *testing.T) {
	for _, tc := range []struct{ src, want string }{
		{`{% set ns = namespace(l=none) %}{% for x in [1, 2, 3] %}{% set ns.l = loop %}{% endfor %}{{ ns.l.index }} {{ ns.l.last }}`, `3 True`},
		{`{% set ns = namespace(l=[]) %}{% for x in "ab" %}{% set ns.l = ns.l + [loop] %}{% endfor %}{{ ns.l | map(attribute="index") | join(",") }}`, `2,2`}, // one loop object, as in Jinja2
		{`{% for x in [1, 2] %}{% macro m() %}{{ loop.index }}{% endmacro %}{{ m() }}{% endfor %}`, `12`},
		{`{% macro k() %}{{ caller() }}{% endmacro %}{% for x in [1, 2] %}{% call k() %}{{ loop.revindex }}{% endcall %}{% endfor %}`, `21`},
		{`{% for a in [1, 2] %}{% for b in "xy" %}{{ loop.index }}{{ loop.depth }}{% endfor %}{{ loop.index }};{% endfor %}`, `11211;11212;`},
		{`{% for a in [1, 2, 3] %}{% if loop.index == 2 %}{% break %}{% endif %}{% for b in "xy" %}{{ loop.first }}{% endfor %}{% endfor %}`, `TrueFalse`},
	} {
		got, err := renderHFValues(tc.src, nil)
		require.NoError(t, err, tc.src)
		assert.Equal(t, tc.want, got, tc.src)
	}
}

// A render of a loop over loop's fields allocates its output only.
func TestLoopFieldsAllocateNothing(t *testing.T) {
	src := `{% for x in xs %}{{ loop.index }}/{{ loop.length }}{% if loop.last %}.{% endif %}{% endfor %}`
	vars := map[string]any{"xs": []any{"a", "b", "c"}}
	got, err := renderStock(src, vars)
	require.NoError(t, err)
	require.Equal(t, "1/32/33/3.", got)
	m, err := manager.New(fstest.MapFS{
		"index.json": {Data: []byte(`{"version": 1, "templates": {"t": {"path": "t.md", "variables": ["xs"]}}}`)},
		"t.md":       {Data: []byte(src)},
	})
	require.NoError(t, err)
	allocs := testing.AllocsPerRun(100, func() {
		if _, err := m.Render("t", vars); err != nil {
			t.Fatal(err)
		}
	})
	if raceEnabled {
		// sync.Pool drops items at random under the race detector: the
		// count is not the render's. go test without -race asserts it.
		return
	}
	assert.Equal(t, 1.0, allocs)
}
