package service

import (
	"runtime"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/seed-e7d2830f/promptkit/builders"
	"github.com/seed-e7d2830f/promptkit/manager"
)

// panicky is a host builder with a bug: it panics while building.
type panicky struct{}

func (panicky) Name() string                           { return "panicky" }
func (panicky) Template() string                       { return "title" }
func (panicky) Keys() []string                         { return nil }
func (panicky) Build(builders.Context) (string, error) { panic("index out of range in host code") }
func (panicky) BuildMessages(builders.Context) ([]manager.Message, error) {
	var m map[string]int
	m["x"]++ // nil map write: a runtime error
	return nil, nil
}

func TestBuilderPanicIsContained(t *testing.T) {
	s := newService(t, WithBuilders(panicky{}))

	_, err := s.Build("panicky", builders.Task{}, nil)
	require.ErrorIs(t, err, ErrBuilderPanicked)
	assert.Contains(t, err.Error(), `builder "panicky"`)
	assert.Contains(t, err.Error(), "index out of range in host code")

	assert.Equal(t, `service: builder panicked: builder "panicky": index out of range in host code`, err.Error(), "the builder is named once")

	_, err = s.BuildMessages("panicky", builders.Task{}, nil)
	require.ErrorIs(t, err, ErrBuilderPanicked)
	assert.Equal(t, `service: builder panicked: builder "panicky": assignment to entry in nil map`, err.Error())
	var re runtime.Error
	require.ErrorAs(t, err, &re, "a runtime panic stays inspectable")

	// The service keeps working: the other builders still build.
	for _, in := range s.Builders() {
		if in.Name == "title" {
			out, err := s.Build("title", builders.Task{}, map[string]any{"intent": "查询明天的天气"})
			require.NoError(t, err)
			assert.NotEmpty(t, out)
		}
	}
}
