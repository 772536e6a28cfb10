package otelpromptkit

import (
	"context"
	"time"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"

	"github.com/seed-e7d2830f/promptkit/manager"
)

// The attribute keys of the spans (see the package documentation).
const (
	// PromptNameKey is OpenTelemetry's GenAI semantic-convention attribute
	// for the name of a prompt template.
	PromptNameKey = attribute.Key("gen_ai.prompt.name")
	// ErrorTypeKey is OpenTelemetry's general attribute for the class of
	// an error.
	ErrorTypeKey = attribute.Key("error.type")

	TemplateHashKey = attribute.Key("promptkit.template.hash")
	SetDigestKey    = attribute.Key("promptkit.set.digest")
	GenerationKey   = attribute.Key("promptkit.set.generation")
	BytesKey        = attribute.Key("promptkit.render.bytes")
	MessagesKey     = attribute.Key("promptkit.render.messages")
	TemplatesKey    = attribute.Key("promptkit.set.templates")
	TriggerKey      = attribute.Key("promptkit.reload.trigger")
)

// The span names: low-cardinality, the template is an attribute.
const (
	RenderSpanName = "promptkit.render"
	ReloadSpanName = "promptkit.reload"
)

const instrumentation = "github.com/seed-e7d2830f/promptkit/otelpromptkit"

// noParent is the context spans start from: the observer is called
// without the caller's context, so its spans are roots.
var noParent = context.Background()

// Observer is a manager.Observer that records spans. It is safe for
// concurrent use.
type Observer struct {
	tracer trace.Tracer
}

var _ manager.Observer = (*Observer)(nil)

// Option configures an Observer.
type Option func(*Observer)

// WithTracerProvider sets where spans go; the default is the global
// provider (otel.GetTracerProvider).
func WithTracerProvider(tp trace.TracerProvider) Option {
	return func(o *Observer) { o.tracer = tp.Tracer(instrumentation) }
}

// New returns an Observer.
func New(opts ...Option) *Observer {
	o := &Observer{}
	for _, opt := range opts {
		opt(o)
	}
	if o.tracer == nil {
		o.tracer = otel.GetTracerProvider().Tracer(instrumentation)
	}
	return o
}

// ObserveRender records one render. The attributes are set only on a
// span that records (a sampler sees none of them), so with tracing off —
// OpenTelemetry's no-op provider, or a sampler that drops the span — a
// render pays for starting and ending a span, nothing more.
func (o *Observer) ObserveRender(ev manager.RenderEvent) {
	end := time.Now()
	_, span := o.tracer.Start(noParent, RenderSpanName, trace.WithTimestamp(end.Add(-ev.Duration)))
	if !span.IsRecording() {
		span.End()
		return
	}
	span.SetAttributes(
		PromptNameKey.String(ev.Template),
		TemplateHashKey.String(ev.Hash),
		SetDigestKey.String(ev.Digest),
		GenerationKey.Int64(int64(ev.Generation)),
		BytesKey.Int(ev.Bytes),
		MessagesKey.Bool(ev.Messages),
	)
	if ev.Err != nil {
		span.SetAttributes(ErrorTypeKey.String(ev.Kind))
		span.SetStatus(codes.Error, ev.Err.Error())
	}
	span.End(trace.WithTimestamp(end))
}

// ObserveReload records one reload attempt.
func (o *Observer) ObserveReload(ev manager.ReloadEvent) {
	end := ev.Time
	if end.IsZero() {
		end = time.Now()
	}
	_, span := o.tracer.Start(noParent, ReloadSpanName, trace.WithTimestamp(end.Add(-ev.Duration)),
		trace.WithAttributes(
			SetDigestKey.String(ev.Digest),
			GenerationKey.Int64(int64(ev.Generation)),
			TemplatesKey.Int(ev.Templates),
			TriggerKey.String(ev.Trigger),
		))
	if ev.Err != nil {
		span.SetAttributes(ErrorTypeKey.String(manager.ErrorKind(ev.Err)))
		span.SetStatus(codes.Error, ev.Err.Error())
	}
	span.End(trace.WithTimestamp(end))
}
