package otelpromptkit

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"testing/fstest"

	"go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace/noop"

	"github.com/seed-e7d2830f/promptkit/manager"
)

type nopObserver struct{}

func (nopObserver) ObserveRender(manager.RenderEvent) {}
func (nopObserver) ObserveReload(manager.ReloadEvent) {}

// discard is an exporter that drops every batch: the cost measured is the
// span's, not an exporter's.
type discard struct{}

func (discard) ExportSpans(context.Context, []trace.ReadOnlySpan) error { return nil }
func (discard) Shutdown(context.Context) error                          { return nil }

// workloads are the manager's benchmark workloads (manager/testdata/bench:
// a ~1.6 KB Chinese prompt with a 5-document loop, and a one-line
// template), so the numbers compare with BenchmarkRenderObserver there.
func workloads(b *testing.B) (fstest.MapFS, map[string]map[string]any, map[string]string) {
	dir := filepath.Join("..", "manager", "testdata", "bench")
	read := func(name string) []byte {
		data, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			b.Fatal(err)
		}
		return data
	}
	all, err := manager.DecodeJSON(read("vars.json"))
	if err != nil {
		b.Fatal(err)
	}
	fsys, vars, golden := fstest.MapFS{}, map[string]map[string]any{}, map[string]string{}
	entries := map[string]any{}
	for _, name := range []string{"prompt", "tiny"} {
		vars[name] = all.(map[string]any)[name].(map[string]any)
		var names []string
		for k := range vars[name] {
			names = append(names, k)
		}
		slices.Sort(names)
		entries[name] = map[string]any{"path": name + ".md", "variables": names}
		fsys[name+".md"] = &fstest.MapFile{Data: read(name + ".jinja")}
		golden[name] = string(read(name + ".golden"))
	}
	index, err := json.Marshal(map[string]any{"version": 1, "templates": entries})
	if err != nil {
		b.Fatal(err)
	}
	fsys[manager.IndexFile] = &fstest.MapFile{Data: index}
	return fsys, vars, golden
}

// BenchmarkRender renders with no observer, a no-op observer, this
// package's observer over OpenTelemetry's no-op provider (tracing off),
// and over the SDK sampling every span into a batch processor (tracing
// on). Run with -count=6 or more: the rounds interleave the cases.
func BenchmarkRender(b *testing.B) {
	sdk := trace.NewTracerProvider(trace.WithBatcher(discard{}), trace.WithSampler(trace.AlwaysSample()))
	b.Cleanup(func() { sdk.Shutdown(context.Background()) })
	fsys, vars, golden := workloads(b)
	cases := []struct {
		name string
		opts []manager.Option
	}{
		{"none", nil},
		{"nop", []manager.Option{manager.WithObserver(nopObserver{})}},
		{"otel-noop", []manager.Option{manager.WithObserver(New(WithTracerProvider(noop.NewTracerProvider())))}},
		{"otel-sdk", []manager.Option{manager.WithObserver(New(WithTracerProvider(sdk)))}},
	}
	for _, w := range []string{"prompt", "tiny"} {
		for _, tc := range cases {
			m, err := manager.New(fsys, tc.opts...)
			if err != nil {
				b.Fatal(err)
			}
			b.Run(w+"/"+tc.name, func(b *testing.B) {
				if out, err := m.Render(w, vars[w]); err != nil || out != golden[w] {
					b.Fatalf("render %s: %v (output differs from the golden file: %v)", w, err, out != golden[w])
				}
				b.ReportAllocs()
				for b.Loop() {
					if _, err := m.Render(w, vars[w]); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}
