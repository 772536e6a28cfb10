package manager

import (
	"encoding/json"
	"testing"
	"testing/fstest"

	"github.com/flosch/pongo2/v6"
)

// The render path runs a template's body itself instead of through
// pongo2's Execute. These tests hold it to what pongo2 gives.

// TestRenderMatchesPongo2Execute renders templates through Render (the
// body run directly, with pooled state) and through pongo2's Execute of
// the same compiled template: the outputs must be the same, also when
// renders reuse pooled state one after another.
func TestRenderMatchesPongo2Execute(t *testing.T) {
	templates := map[string]string{
		"scalars":  "你好，{{ name }}！{{ n }} {{ f }} {{ ok }} {{ nothing }}",
		"loop":     "{% for d in docs %}{{ loop.index }}/{{ loop.length }} {{ d.title }}: {{ d.body | upper }}{% if not loop.last %}, {% endif %}{% else %}空{% endfor %}",
		"set":      "{% set greeting = '您好' ~ name %}{{ greeting }} {% for k, v in meta.items() %}{{ k }}={{ v }};{% endfor %}",
		"defined":  "{% if opt is defined %}有 {{ opt }}{% else %}无{% endif %}|{{ opt | default('默认') }}",
		"nested":   "{% for d in docs %}{% for t in d.tags %}{{ d.title }}#{{ t }}{% set last = t %} {% endfor %}{% endfor %}",
		"with":     "{% with x = name %}{{ x }}{% endwith %}{{ meta.k1 }}",
		"exprs":    "{{ n + 1 }} {{ name ~ '!' }} {{ docs | length }} {{ [1, 2] }} {{ {'a': 1} }} {{ none_var }}",
		"brace":    "{ {{ '{' }} {{ name }} %} }}",
		"percent":  "{{ name ~ '%}' }}{{ name | default('50%}') }}",
		"constant": "{{ 'x' }}{{ 1.0 }}{{ none }}{{ true }}",
	}
	vars := map[string]any{
		"name": "李雷", "n": int64(3), "f": 1.5, "ok": true, "nothing": nil, "opt": "o", "none_var": nil,
		"docs": []any{
			map[string]any{"title": "甲", "body": "a &lt;b&gt;", "tags": []any{"x", "y"}},
			map[string]any{"title": "乙", "body": "c", "tags": []any{}},
		},
		"meta": map[string]any{"k2": "v2", "k1": "v1"},
	}
	index := map[string]any{}
	fsys := fstest.MapFS{}
	for name, src := range templates {
		index[name] = map[string]any{"path": name + ".md", "variables": []any{
			map[string]any{"name": "name", "required": false}, map[string]any{"name": "n", "required": false},
			map[string]any{"name": "f", "required": false}, map[string]any{"name": "ok", "required": false},
			map[string]any{"name": "nothing", "required": false}, map[string]any{"name": "opt", "required": false},
			map[string]any{"name": "none_var", "required": false}, map[string]any{"name": "docs", "required": false},
			map[string]any{"name": "meta", "required": false},
		}}
		fsys[name+".md"] = &fstest.MapFile{Data: []byte(src)}
	}
	data, err := json.Marshal(map[string]any{"version": 1, "templates": index})
	if err != nil {
		t.Fatal(err)
	}
	fsys[IndexFile] = &fstest.MapFile{Data: data}
	m, err := New(fsys)
	if err != nil {
		t.Fatal(err)
	}
	for round := range 3 {
		for name := range templates {
			c := m.cur.Load().templates[name]
			bound, err := c.bind(vars)
			if err != nil {
				t.Fatal(err)
			}
			want, err := c.pt.Execute(pongo2.Context(bound))
			if err != nil {
				t.Fatalf("%s: pongo2: %v", name, err)
			}
			got, err := m.Render(name, vars)
			if err != nil {
				t.Fatalf("%s: Render: %v", name, err)
			}
			if got != want {
				t.Errorf("round %d, %s: Render %q, pongo2 Execute %q", round, name, got, want)
			}
		}
	}
}
