package manager_test

import (
	"errors"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/seed-e7d2830f/promptkit/manager"
)

// FuzzTypedLoad loads a set whose variable v has an arbitrary schema and
// whose template is arbitrary source, then renders it with an arbitrary
// JSON value: every input ends in a set or an error wrapping a sentinel —
// never a panic — and a render of a set that loads either succeeds or is
// an *Error. The worst case of the template (WithWorstCase) is computed
// too, and where it has a bound, a render without marks prints no more.
func FuzzTypedLoad(f *testing.F) {
	for _, s := range [][3]string{
		{`{"type": "object", "properties": {"a": {"type": "string"}}}`, "{{ v.a }}{{ v.b }}", `{"a": "x"}`},
		{`{"type": "array", "items": {"$ref": "#"}}`, "{% for x in v %}{{ x[0] }}{% endfor %}", `[[], [[]]]`},
		{`{"anyOf": [{"type": "integer"}, {"type": "string"}]}`, "{{ v + 1 }}{{ v | upper }}", `3`},
		{`{"$defs": {"n": {"properties": {"k": {"$ref": "#/$defs/n"}}}}, "$ref": "#/$defs/n"}`, "{{ v.k.k.k.x }}", `{"k": {}}`},
		{`{"enum": [1, "a", null]}`, "{% macro m(x) %}{{ x.y }}{% endmacro %}{{ m(v) }}", `null`},
		{`true`, "{% set w = v %}{% with u = w %}{{ u.z - 1 }}{% endwith %}", `"s"`},
		{`{"prefixItems": [{"type": "string"}], "items": false}`, "{{ v[0].q }}{{ v[3] }}", `["a"]`},
		{`{"$ref": "#"}`, "{{ v.a }}", `{}`},
		{`{"$defs": {"a": {"$ref": "#/$defs/b"}, "b": {"$ref": "#/$defs/a"}}, "$ref": "#/$defs/a"}`, "{{ v.a }}", `1`},
		{`{"type": "array", "maxItems": 2, "items": {"type": "string", "maxLength": 3}}`, "{% for x in v %}[{{ x }}]{% endfor %}{{ v | join(',') }}", `["abc", "€€€"]`},
		{`{"type": "object", "properties": {"a": {"enum": ["x", "yy"]}}}`, "{{ v.a.b.c }}{{ v['a'] }}", `{"a": "yy"}`},
	} {
		f.Add(s[0], s[1], s[2])
	}
	f.Fuzz(func(t *testing.T, schema, source, value string) {
		index := `{"version": 1, "templates": {"t": {"path": "t.md", "variables": [{"name": "v", "schema": ` + schema + `}]}}}`
		m, err := manager.New(fstest.MapFS{"index.json": {Data: []byte(index)}, "t.md": {Data: []byte(source)},
			"s.json": {Data: []byte(schema)}}, manager.WithWorstCase())
		if err != nil {
			if !errors.Is(err, manager.ErrTemplate) && !errors.Is(err, manager.ErrIndex) && !errors.Is(err, manager.ErrSandbox) &&
				!errors.Is(err, manager.ErrUndeclaredVariable) && !errors.Is(err, manager.ErrSchema) {
				t.Fatalf("load error wraps no sentinel: %v", err)
			}
			return
		}
		v, err := manager.DecodeJSON([]byte(value))
		if err != nil {
			return
		}
		out, err := m.Render("t", map[string]any{"v": v})
		if err != nil {
			var e *manager.Error
			if !errors.As(err, &e) {
				t.Fatalf("render error is not an *Error: %v", err)
			}
			return
		}
		w, ok := m.WorstCase("t")
		if !ok {
			t.Fatal("WithWorstCase computed no bound")
		}
		if w.Bounded() && !strings.Contains(source, "priority") && !strings.Contains(source, "chat") && int64(len(out)) > w.Bytes {
			t.Fatalf("the render prints %d bytes, over its worst case of %d: %q with %s", len(out), w.Bytes, source, value)
		}
	})
}
