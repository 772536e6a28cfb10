package manager

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"strings"
	"testing"
	"testing/fstest"
	"text/template"
)

// The benchmarks of issue 2 and 8. The workload lives in testdata/bench
// (the bench/ module reads the same files): prompt.jinja is a ~1.6 KB
// Chinese prompt with three scalar variables and a loop over five
// XML-escaped documents, tiny.jinja a one-line template with two
// variables; *_chat.jinja are the same text in {% chat %} blocks (for
// RenderMessages: the system message is the text before <documents>, the
// user message the rest), *.tmpl the text/template equivalents, vars.json
// the inputs and *.golden the output Python's Jinja2 gives. Every
// engine's output is checked against the golden file before it is timed.
//
//	go test -run '^$' -bench . -benchmem ./manager

// benchWorkload is one template of testdata/bench.
type benchWorkload struct {
	name   string
	jinja  string
	chat   string // the same text in {% chat %} blocks
	tmpl   string
	golden string
	vars   map[string]any
}

func loadBenchWorkloads(tb testing.TB) []benchWorkload {
	tb.Helper()
	dir := filepath.Join("testdata", "bench")
	read := func(name string) string {
		data, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			tb.Fatal(err)
		}
		return string(data)
	}
	all, err := DecodeJSON([]byte(read("vars.json")))
	if err != nil {
		tb.Fatal(err)
	}
	var out []benchWorkload
	for _, name := range []string{"prompt", "tiny"} {
		vars, ok := all.(map[string]any)[name].(map[string]any)
		if !ok {
			tb.Fatalf("vars.json has no object %q", name)
		}
		out = append(out, benchWorkload{name: name, jinja: read(name + ".jinja"), chat: read(name + "_chat.jinja"),
			tmpl: read(name + ".tmpl"), golden: read(name + ".golden"), vars: vars})
	}
	return out
}

// benchManager loads a set holding the workloads (and their chat
// variants as NAME_chat), each declaring exactly the variables it is
// given.
func benchManager(tb testing.TB, ws []benchWorkload) *Manager {
	tb.Helper()
	fsys := fstest.MapFS{}
	entries := map[string]any{}
	for _, w := range ws {
		var vars []string
		for k := range w.vars {
			vars = append(vars, k)
		}
		entries[w.name] = map[string]any{"path": w.name + ".md", "variables": vars}
		fsys[w.name+".md"] = &fstest.MapFile{Data: []byte(w.jinja)}
		entries[w.name+"_chat"] = map[string]any{"path": w.name + "_chat.md", "variables": vars}
		fsys[w.name+"_chat.md"] = &fstest.MapFile{Data: []byte(w.chat)}
	}
	return loadBenchSet(tb, entries, fsys)
}

// loadBenchSet loads fsys with an index.json of entries.
func loadBenchSet(tb testing.TB, entries map[string]any, fsys fstest.MapFS) *Manager {
	tb.Helper()
	index, err := json.Marshal(map[string]any{"version": 1, "templates": entries})
	if err != nil {
		tb.Fatal(err)
	}
	fsys[IndexFile] = &fstest.MapFile{Data: index}
	m, err := New(fsys)
	if err != nil {
		tb.Fatal(err)
	}
	return m
}

func benchTextTemplate(tb testing.TB, w benchWorkload) *template.Template {
	tb.Helper()
	t, err := template.New(w.name).Funcs(template.FuncMap{"inc": func(i int) int { return i + 1 }}).Option("missingkey=error").Parse(w.tmpl)
	if err != nil {
		tb.Fatal(err)
	}
	return t
}

// benchWantMessages is what RenderMessages of a chat variant gives: the
// golden text split before <documents> (a system and a user message),
// or one user message when there is no such split, each trimmed.
func benchWantMessages(w benchWorkload) []Message {
	text := func(s string) []Part { return []Part{{Type: PartText, Text: strings.TrimSpace(s)}} }
	if i := strings.Index(w.golden, "<documents>"); i > 0 {
		return []Message{{Role: RoleSystem, Parts: text(w.golden[:i])}, {Role: RoleUser, Parts: text(w.golden[i:])}}
	}
	return []Message{{Role: RoleUser, Parts: text(w.golden)}}
}

func benchCheckMessages(tb testing.TB, w benchWorkload, got []Message, err error) {
	tb.Helper()
	if err != nil {
		tb.Fatalf("RenderMessages %s: %v", w.name, err)
	}
	if want := benchWantMessages(w); !reflect.DeepEqual(got, want) {
		tb.Fatalf("RenderMessages %s: got %+v, want %+v", w.name, got, want)
	}
}

func benchCheck(tb testing.TB, engine string, w benchWorkload, got string, err error) {
	tb.Helper()
	if err != nil {
		tb.Fatalf("%s %s: %v", engine, w.name, err)
	}
	if got != w.golden {
		tb.Fatalf("%s %s: output differs from %s.golden (Jinja2)\n got: %q\nwant: %q", engine, w.name, w.name, got, w.golden)
	}
}

// BenchmarkRender measures promptkit's Render (and RenderMessages of the
// chat variant) beside raw pongo2 executing the same compiled template and
// beside text/template, in one run.
func BenchmarkRender(b *testing.B) {
	ws := loadBenchWorkloads(b)
	m := benchManager(b, ws)
	for _, w := range ws {
		tt := benchTextTemplate(b, w)
		b.Run(w.name+"/promptkit", func(b *testing.B) {
			got, err := m.Render(w.name, w.vars)
			benchCheck(b, "promptkit", w, got, err)
			b.ReportAllocs()
			for b.Loop() {
				if _, err := m.Render(w.name, w.vars); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(w.name+"/promptkit_messages", func(b *testing.B) {
			chat := w.name + "_chat"
			got, err := m.RenderMessages(chat, w.vars)
			benchCheckMessages(b, w, got, err)
			b.ReportAllocs()
			for b.Loop() {
				if _, err := m.RenderMessages(chat, w.vars); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(w.name+"/text_template", func(b *testing.B) {
			render := func() (string, error) {
				var sb strings.Builder
				err := tt.Execute(&sb, w.vars)
				return sb.String(), err
			}
			got, err := render()
			benchCheck(b, "text/template", w, got, err)
			b.ReportAllocs()
			for b.Loop() {
				if _, err := render(); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// benchSetSizes are the sizes of the generated template sets.
var benchSetSizes = []int{10, 1000, 10000}

// benchSetFS generates a set of n distinct templates of about 400 bytes,
// each with two variables, a loop and a condition.
func benchSetFS(n int) fstest.MapFS {
	fsys := fstest.MapFS{}
	var idx strings.Builder
	idx.WriteString(`{"version": 1, "templates": {`)
	for i := range n {
		name := fmt.Sprintf("t%05d", i)
		if i > 0 {
			idx.WriteString(",")
		}
		fmt.Fprintf(&idx, `"%s": {"path": "templates/%s.md", "description": "generated template %d", "variables": ["name", {"name": "items", "required": false, "default": []}]}`, name, name, i)
		src := fmt.Sprintf("第 %d 号模板。你好，{{ name }}！请根据下面的条目回答，不要编造条目中没有的内容。\n"+
			"{%% for item in items %%}{{ loop.index }}. {{ item }}\n{%% else %%}（没有条目）\n{%% endfor %%}"+
			"{%% if items | length > 3 %%}条目较多，请先归纳再回答。{%% endif %%}\n以上是第 %d 号模板的全部内容。\n", i, i)
		fsys["templates/"+name+".md"] = &fstest.MapFile{Data: []byte(src)}
	}
	idx.WriteString("}}")
	fsys[IndexFile] = &fstest.MapFile{Data: []byte(idx.String())}
	return fsys
}

// BenchmarkLoad measures loading (reading, checking and compiling) sets of
// 10, 1,000 and 10,000 templates; heap-MB is the live heap the loaded set
// holds.
func BenchmarkLoad(b *testing.B) {
	for _, n := range benchSetSizes {
		fsys := benchSetFS(n)
		b.Run(fmt.Sprintf("templates=%d", n), func(b *testing.B) {
			b.ReportAllocs()
			var before, after runtime.MemStats
			var m *Manager
			for b.Loop() {
				m = nil
				runtime.GC()
				runtime.ReadMemStats(&before)
				var err error
				if m, err = New(fsys); err != nil {
					b.Fatal(err)
				}
			}
			b.StopTimer()
			runtime.GC()
			runtime.ReadMemStats(&after)
			b.ReportMetric(float64(after.HeapAlloc-before.HeapAlloc)/(1<<20), "heap-MB")
			runtime.KeepAlive(m)
		})
	}
}

// BenchmarkRenderInSet renders one template of a loaded set of 10, 1,000
// and 10,000 templates: the time must not grow with the set.
func BenchmarkRenderInSet(b *testing.B) {
	vars := map[string]any{"name": "李雷", "items": []any{"差旅标准", "审批流程", "发票要求"}}
	for _, n := range benchSetSizes {
		m, err := New(benchSetFS(n))
		if err != nil {
			b.Fatal(err)
		}
		name := fmt.Sprintf("t%05d", n/2)
		b.Run(fmt.Sprintf("templates=%d", n), func(b *testing.B) {
			want := fmt.Sprintf("第 %d 号模板。你好，李雷！请根据下面的条目回答，不要编造条目中没有的内容。\n1. 差旅标准\n2. 审批流程\n3. 发票要求\n\n以上是第 %d 号模板的全部内容。", n/2, n/2)
			if got, err := m.Render(name, vars); err != nil || got != want {
				b.Fatalf("Render = %q, %v; want %q", got, err, want)
			}
			b.ReportAllocs()
			for b.Loop() {
				if _, err := m.Render(name, vars); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

type nopObserver struct{}

func (nopObserver) ObserveRender(RenderEvent) {}
func (nopObserver) ObserveReload(ReloadEvent) {}

// BenchmarkRenderObserver measures what an observer costs: the same
// render with none and with one that does nothing, in one run.
func BenchmarkRenderObserver(b *testing.B) {
	ws := loadBenchWorkloads(b)
	plain := benchManager(b, ws)
	observed := benchManager(b, ws)
	observed.cfg.observer = nopObserver{}
	for _, w := range ws {
		for _, tc := range []struct {
			name string
			m    *Manager
		}{{"none", plain}, {"nop", observed}} {
			b.Run(w.name+"/"+tc.name, func(b *testing.B) {
				got, err := tc.m.Render(w.name, w.vars)
				benchCheck(b, "promptkit", w, got, err)
				b.ReportAllocs()
				for b.Loop() {
					if _, err := tc.m.Render(w.name, w.vars); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

// BenchmarkLoadLarge loads one template of about 4 MB in each of the
// shapes that made loading quadratic once: loading is linear in a
// template's size, whatever its shape.
func BenchmarkLoadLarge(b *testing.B) {
	for name, src := range map[string]string{
		"adjacent_strings": "{{ " + strings.Repeat(`"a" `, 1_000_000) + "}}",
		"one_long_line":    strings.Repeat("文字 {{ x }} ", 270_000),
		"many_lines":       strings.Repeat("line {{ x }}\n", 310_000),
		"many_tags":        strings.Repeat("{% if x %}a{% endif %}", 180_000),
	} {
		fsys := fstest.MapFS{
			IndexFile: {Data: []byte(`{"version":1,"templates":{"t":{"path":"t.md","variables":["x"]}}}`)},
			"t.md":    {Data: []byte(src)},
		}
		b.Run(name, func(b *testing.B) {
			b.SetBytes(int64(len(src)))
			for b.Loop() {
				if _, err := New(fsys); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
