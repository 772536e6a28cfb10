package manager

import (
	"testing"
	"testing/fstest"
)

// BenchmarkRenderTyped measures what typed variables cost a render: the
// workloads of BenchmarkRender rendered from a set whose every variable
// has a schema (strings; the documents an array of {source, content}
// objects), with the values as decoded from JSON (validated in place) and
// as the host's own Go structs (converted to JSON values first), beside
// the same set without schemas and the same values — in one run.
//
//	go test -run '^$' -bench RenderTyped -benchmem -count 8 ./manager
func BenchmarkRenderTyped(b *testing.B) {
	ws := loadBenchWorkloads(b)
	untyped := benchManager(b, ws)
	typed := benchTypedManager(b, ws)
	type doc struct {
		Source  string `json:"source"`
		Content string `json:"content"`
	}
	for _, w := range ws {
		goVars := map[string]any{}
		for k, v := range w.vars {
			if list, ok := v.([]any); ok {
				docs := make([]doc, len(list))
				for i, d := range list {
					m := d.(map[string]any)
					docs[i] = doc{Source: m["source"].(string), Content: m["content"].(string)}
				}
				v = docs
			}
			goVars[k] = v
		}
		for _, c := range []struct {
			name string
			m    *Manager
			vars map[string]any
		}{
			{"untyped", untyped, w.vars},
			{"untyped_go_values", untyped, goVars},
			{"typed", typed, w.vars},
			{"typed_go_values", typed, goVars},
		} {
			b.Run(w.name+"/"+c.name, func(b *testing.B) {
				got, err := c.m.Render(w.name, c.vars)
				benchCheck(b, c.name, w, got, err)
				b.ReportAllocs()
				for b.Loop() {
					if _, err := c.m.Render(w.name, c.vars); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

// benchTypedManager is benchManager with a schema for every variable.
func benchTypedManager(tb testing.TB, ws []benchWorkload) *Manager {
	tb.Helper()
	str := map[string]any{"type": "string"}
	docs := map[string]any{"type": "array", "items": map[string]any{"type": "object", "required": []string{"source", "content"},
		"additionalProperties": false, "properties": map[string]any{"source": str, "content": str}}}
	fsys := fstest.MapFS{}
	entries := map[string]any{}
	for _, w := range ws {
		var vars []any
		for k, v := range w.vars {
			s := str
			if _, ok := v.([]any); ok {
				s = docs
			}
			vars = append(vars, map[string]any{"name": k, "schema": s})
		}
		entries[w.name] = map[string]any{"path": w.name + ".md", "variables": vars}
		fsys[w.name+".md"] = &fstest.MapFile{Data: []byte(w.jinja)}
	}
	return loadBenchSet(tb, entries, fsys)
}
