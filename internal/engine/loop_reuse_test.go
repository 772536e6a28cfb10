package engine_test

import (
	"runtime"
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

// After one large output, the small ones that follow are not kept in
// buffers sized for it: twenty results held at once hold their bytes,
// not twenty megabytes.
func TestSmallOutputAfterLargeIsNotOversized(t *testing.T) {
	m, err := manager.New(fstest.MapFS{
		"index.json": {Data: []byte(`{"version": 1, "templates": {"t": {"path": "t.md", "variables": ["n"]}}}`)},
		"t.md":       {Data: []byte(`{% for i in range(n) %}0123456789{% endfor %}`)},
	})
	require.NoError(t, err)
	big, err := m.Render("t", map[string]any{"n": 100000})
	require.NoError(t, err)
	require.Len(t, big, 1_000_000)
	big = ""
	var ms runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&ms)
	before := ms.HeapAlloc
	kept := make([]string, 20)
	for i := range kept {
		kept[i], err = m.Render("t", map[string]any{"n": 1})
		require.NoError(t, err)
		require.Equal(t, "0123456789", kept[i])
	}
	runtime.GC()
	runtime.ReadMemStats(&ms)
	assert.Less(t, int64(ms.HeapAlloc)-int64(before), int64(1_000_000), "the 20 small results keep large buffers alive")
	runtime.KeepAlive(kept)
}

// An output of a variable, or of an attribute of one, that is a string
// is written without building its value; every other value, a missing
// key, a dict method's name and a host struct take the evaluator, and
// all print as Jinja2 prints them.
func TestDirectPrints(t *testing.T) {
	type host struct{ A string }
	vars := map[string]any{
		"d": map[string]any{"a": "x", "n": 3, "l": []any{"p"}},
		"s": "y", "n": 2, "h": host{A: "z"}, "m": map[string]string{"a": "w"},
	}
	for _, tc := range []struct{ src, want string }{
		{`{{ d.a }}|{{ d.n }}|{{ d.missing }}|{{ d.l }}|{{ s }}|{{ n }}`, `x|3||['p']|y|2`},
		{`{{ h.A }}{{ m.a }}`, `zw`},
		{`{% set c %}{{ d.a }}{{ s }}{% endset %}[{{ c }}]`, `[xy]`},
		{`{% for d in [{"a": "i"}, {"a": 1}] %}{{ d.a }};{% endfor %}{{ d.a }}`, `i;1;x`},
		{`{{ d.items is callable }}`, `True`},
	} {
		got, err := renderStock(tc.src, vars)
		require.NoError(t, err, tc.src)
		assert.Equal(t, tc.want, got, tc.src)
	}
}
