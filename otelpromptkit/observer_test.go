package otelpromptkit

import (
	"context"
	"testing"
	"testing/fstest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/seed-e7d2830f/promptkit/manager"
)

func testSet(greeting string) fstest.MapFS {
	return fstest.MapFS{
		"index.json": {Data: []byte(`{"version":1,"templates":{
			"greet":{"path":"greet.md","variables":["name"]},
			"chat":{"path":"chat.md","variables":["q"]}}}`)},
		"greet.md": {Data: []byte(greeting + ", {{ name }}")},
		"chat.md":  {Data: []byte(`{% chat role="system" %}s{% endchat %}{% chat role="user" %}{{ q }}{% endchat %}`)},
	}
}

func attrs(s sdktrace.ReadOnlySpan) map[attribute.Key]attribute.Value {
	out := map[attribute.Key]attribute.Value{}
	for _, kv := range s.Attributes() {
		out[kv.Key] = kv.Value
	}
	return out
}

func TestRenderSpans(t *testing.T) {
	rec := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(rec))
	fsys := testSet("你好")
	m, err := manager.New(fsys, manager.WithObserver(New(WithTracerProvider(tp))))
	require.NoError(t, err)
	greet, _ := m.Lookup("greet")
	chat, _ := m.Lookup("chat")

	out, err := m.Render("greet", map[string]any{"name": "Ann"})
	require.NoError(t, err)
	_, err = m.Render("greet", nil)
	require.ErrorIs(t, err, manager.ErrMissingVariables)
	_, err = m.Render("nope", nil)
	require.ErrorIs(t, err, manager.ErrUnknownTemplate)
	_, err = m.RenderMessages("chat", map[string]any{"q": "why"})
	require.NoError(t, err)

	spans := rec.Ended()
	require.Len(t, spans, 4)
	tests := []struct {
		name     string
		template string
		hash     string
		bytes    int64
		messages bool
		kind     string
	}{
		{"ok", "greet", greet.Hash, int64(len(out)), false, ""},
		{"missing variable", "greet", greet.Hash, 0, false, "missing_variables"},
		{"unknown template", "nope", "", 0, false, "unknown_template"},
		{"messages", "chat", chat.Hash, int64(len("s") + len("why")), true, ""},
	}
	for i, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := spans[i]
			a := attrs(s)
			assert.Equal(t, RenderSpanName, s.Name())
			assert.Equal(t, tc.template, a[PromptNameKey].AsString())
			assert.Equal(t, tc.hash, a[TemplateHashKey].AsString())
			assert.Equal(t, m.Digest(), a[SetDigestKey].AsString())
			assert.Equal(t, int64(1), a[GenerationKey].AsInt64())
			assert.Equal(t, tc.bytes, a[BytesKey].AsInt64())
			assert.Equal(t, tc.messages, a[MessagesKey].AsBool())
			assert.False(t, s.StartTime().After(s.EndTime()))
			assert.False(t, s.Parent().IsValid(), "a root span")
			if tc.kind == "" {
				assert.Equal(t, codes.Unset, s.Status().Code)
				_, has := a[ErrorTypeKey]
				assert.False(t, has)
				return
			}
			assert.Equal(t, codes.Error, s.Status().Code)
			assert.Contains(t, s.Status().Description, `template "`+tc.template+`"`, "the error names the template")
			assert.Equal(t, tc.kind, a[ErrorTypeKey].AsString())
		})
	}
}

func TestReloadSpans(t *testing.T) {
	rec := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(rec))
	fsys := testSet("你好")
	m, err := manager.New(fsys, manager.WithObserver(New(WithTracerProvider(tp))))
	require.NoError(t, err)
	first := m.Digest()

	fsys["greet.md"] = &fstest.MapFile{Data: []byte("嗨, {{ name }}")}
	require.NoError(t, m.Reload(context.Background()))
	second := m.Digest()
	require.NotEqual(t, first, second)
	fsys["greet.md"] = &fstest.MapFile{Data: []byte("{{ nmae }}")}
	require.Error(t, m.Reload(context.Background()))

	spans := rec.Ended()
	require.Len(t, spans, 2)
	ok, failed := attrs(spans[0]), attrs(spans[1])
	assert.Equal(t, ReloadSpanName, spans[0].Name())
	assert.Equal(t, second, ok[SetDigestKey].AsString())
	assert.Equal(t, int64(2), ok[GenerationKey].AsInt64())
	assert.Equal(t, int64(2), ok[TemplatesKey].AsInt64())
	assert.Equal(t, manager.TriggerReload, ok[TriggerKey].AsString())
	assert.Equal(t, codes.Unset, spans[0].Status().Code)
	assert.Equal(t, second, failed[SetDigestKey].AsString(), "the set still serving")
	assert.Equal(t, codes.Error, spans[1].Status().Code)
	assert.Equal(t, "undeclared_variable", failed[ErrorTypeKey].AsString())

	// A render after the reload names the new set and generation.
	_, err = m.Render("greet", map[string]any{"name": "Ann"})
	require.NoError(t, err)
	last := attrs(rec.Ended()[2])
	assert.Equal(t, second, last[SetDigestKey].AsString())
	assert.Equal(t, int64(2), last[GenerationKey].AsInt64())
}
