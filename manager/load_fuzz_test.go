package manager_test

import (
	"errors"
	"runtime/metrics"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/seed-e7d2830f/promptkit/manager"
)

// FuzzLoadTemplate loads a set from arbitrary template source (t.md,
// which may include inc.md, also fuzzed). Every input ends in a set or an
// error wrapping one of the package's sentinels — never a panic, a hang or
// a runaway allocation; a set that loads renders with a few values without
// panicking, and a failed render is an *Error naming the template.
func FuzzLoadTemplate(f *testing.F) {
	for _, s := range [][2]string{
		{"Hello {{ a }}!", ""},
		{"{% for x in xs %}{{ loop.index }}. {{ x|upper }}{% else %}none{% endfor %}", ""},
		{"{% if a is defined and n > 2 %}{{ a ~ n }}{% elif not xs %}{{ xs|length }}{% endif %}", ""},
		{`{% include "inc.md" %}{{ d.items()|list|tojson }}`, "{{ a|default('x')|trim }}{% set y = [1, 2]|join(', ') %}{{ y }}"},
		{`{% set s = "ab" * 3 %}{{ s[1:4] }}{{ s.replace("a", "z") }}{{ 2 ** 10 // 3 % 5 }}`, ""},
		{`{% for k, v in d.items() %}{{ k }}={{ v }}{% endfor %}{{ range(3)|sum }}{{ {"a": [1, none]}|tojson(2) }}`, ""},
		{`{% raw %}{{ not code }}{% endraw %}{# c #}{%- with z = a -%} {{ z if z else "none" }} {%- endwith %}`, ""},
		{`{% include "inc.md" %}`, `{% include "t.md" %}`},
		{`{{ (((a))) }}{{ -n }}{{ xs[-1] }}{{ a.b.c }}{{ n|abs|string|indent(2) }}`, ""},
		{"{% macro m() %}{{ m() }}{% endmacro %}{{ m() }}", ""},
		{`{% chat "system" %}be brief{% endchat %}{% chat "user" %}{{ a }}{% endchat %}`, ""},
	} {
		f.Add(s[0], s[1])
	}
	values := []map[string]any{
		nil,
		{"a": "{{ a }}{% for x in xs %}", "xs": []any{"<x>", int64(2), nil}, "n": int64(3), "d": map[string]any{"k": "v", "n": 1.5}},
		{"a": 0, "xs": "abc", "n": -1.5, "d": []int{1, 2}},
		{"a": nil, "xs": map[string]int{"b": 2, "a": 1}, "n": "9", "d": nil},
	}
	f.Fuzz(func(t *testing.T, src, inc string) {
		if len(src)+len(inc) > 32<<10 {
			return
		}
		before := allocated()
		done := make(chan struct{})
		go func() {
			defer close(done)
			fsys := set(`{"version":1,"templates":{"t":{"path":"t.md","variables":[
			  {"name":"a","required":false},{"name":"xs","required":false},
			  {"name":"n","required":false},{"name":"d","required":false}]}}}`,
				map[string]string{"t.md": src, "inc.md": inc})
			m, err := manager.New(fsys, manager.WithMaxOutputBytes(1<<16), manager.WithMaxIterations(10000), manager.WithWorstCase())
			if err != nil {
				requireKnownError(t, err)
				return
			}
			for _, v := range values {
				if _, err := m.Render("t", v); err != nil {
					requireKnownError(t, err)
					var e *manager.Error
					require.ErrorAs(t, err, &e)
					require.Equal(t, "t", e.Template)
				}
			}
		}()
		select {
		case <-done:
		case <-time.After(20 * time.Second):
			t.Fatalf("loading or rendering hangs: %q / %q", src, inc)
		}
		require.Less(t, allocated()-before, uint64(512<<20), "runaway allocation: %q / %q", src, inc)
	})
}

func requireKnownError(t *testing.T, err error) {
	t.Helper()
	for _, s := range []error{manager.ErrTemplate, manager.ErrUndeclaredVariable, manager.ErrUnsupported,
		manager.ErrSandbox, manager.ErrOutputLimit, manager.ErrIndex, manager.ErrMissingVariables, manager.ErrExtraVariables} {
		if errors.Is(err, s) {
			return
		}
	}
	t.Fatalf("error wraps no sentinel: %v", err)
}

// allocated is the bytes the process has allocated on the heap so far.
func allocated() uint64 {
	s := []metrics.Sample{{Name: "/gc/heap/allocs:bytes"}}
	metrics.Read(s)
	return s[0].Value.Uint64()
}
