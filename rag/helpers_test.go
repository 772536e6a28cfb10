package rag

import (
	"testing"

	"github.com/seed-e7d2830f/promptkit"
	"github.com/seed-e7d2830f/promptkit/manager"
	"github.com/stretchr/testify/require"
)

// defaultSet loads the embedded default template set.
func defaultSet(t testing.TB) *manager.Manager {
	t.Helper()
	m, err := manager.New(promptkit.FS())
	require.NoError(t, err)
	t.Cleanup(func() { m.Close() })
	return m
}

// msg makes a text message.
func msg(role, content string) manager.Message {
	return text(role, content)
}

// spy is a Renderer that records every render and returns the template's
// name as its output.
type spy struct {
	calls []call
	err   error
}

type call struct {
	name string
	vars map[string]any
}

func (s *spy) Render(name string, vars map[string]any) (string, error) {
	s.calls = append(s.calls, call{name, vars})
	return name, s.err
}

// kb is a one-chunk knowledge-base group for intent.
func kb(intent, text string) Retrieved {
	return Retrieved{Intent: intent, Chunks: []Chunk{{Text: text}}}
}

// tool is a successful tool result for intent.
func tool(name, intent string, data any) ToolResult {
	return ToolResult{Tool: name, Intent: intent, Data: data}
}
