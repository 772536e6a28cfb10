package otelpromptkit

import (
	"context"
	"testing"

	"go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace/noop"

	"github.com/seed-e7d2830f/promptkit"
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

// BenchmarkRender renders the default set's title template with no
// observer, a no-op observer, this package's observer over OpenTelemetry's
// no-op provider (tracing off), and over the SDK sampling every span into
// a batch processor (tracing on).
func BenchmarkRender(b *testing.B) {
	sdk := trace.NewTracerProvider(trace.WithBatcher(discard{}), trace.WithSampler(trace.AlwaysSample()))
	b.Cleanup(func() { sdk.Shutdown(context.Background()) })
	cases := []struct {
		name string
		opts []manager.Option
	}{
		{"none", nil},
		{"nop", []manager.Option{manager.WithObserver(nopObserver{})}},
		{"otel-noop", []manager.Option{manager.WithObserver(New(WithTracerProvider(noop.NewTracerProvider())))}},
		{"otel-sdk", []manager.Option{manager.WithObserver(New(WithTracerProvider(sdk)))}},
	}
	vars := map[string]any{"intent": "查询明天北京的天气"}
	for _, tc := range cases {
		m, err := manager.New(promptkit.FS(), tc.opts...)
		if err != nil {
			b.Fatal(err)
		}
		b.Run(tc.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := m.Render("title", vars); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
