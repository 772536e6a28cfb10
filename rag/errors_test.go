package rag

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/seed-e7d2830f/promptkit/builders"
	"github.com/seed-e7d2830f/promptkit/manager"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestErrorContract goes through every kind of error the package returns:
// each is a *builders.Error of the builder rag_answer naming the key, its
// Kind is ErrNoEvidence or a sentinel of package builders, and a failed
// render still holds the manager's *manager.Error.
func TestErrorContract(t *testing.T) {
	b := New(defaultSet(t))
	other, err := manager.New(fstest.MapFS{
		"index.json": {Data: []byte(`{"version": 1, "templates": {"other": {"path": "other.md"}}}`)},
		"other.md":   {Data: []byte("x")},
	})
	require.NoError(t, err)
	t.Cleanup(func() { other.Close() })
	docs := []Retrieved{kb("", "x")}
	messages := func(b *Builder, in Input) func() error {
		return func() error { _, err := b.Messages(in); return err }
	}
	data := func(d map[string]any) func() error {
		return func() error { _, err := b.BuildMessages(builders.NewContext(builders.Task{}, d)); return err }
	}
	tests := []struct {
		name     string
		err      func() error
		kind     error
		key      string
		template string // the template of the *manager.Error inside, if any
		msg      string // the message, or its start when it ends in "…"
	}{
		{"no evidence", messages(b, Input{Question: "q", Documents: []Retrieved{kb("", "  ")}}), ErrNoEvidence, "",
			"", "builders: rag_answer: no knowledge-base chunk and no tool result to answer from"},
		{"no question", messages(b, Input{Documents: docs}), builders.ErrMissingValue, "question", "", `builders: rag_answer: key "question": absent or blank`},
		{"an intent without an id", messages(b, Input{Question: "q", Documents: docs, Intents: []Intent{{Name: "n"}}}),
			builders.ErrMissingValue, "intents[0].id", "", `builders: rag_answer: key "intents[0].id": absent or empty`},
		{"an intent twice", messages(b, Input{Question: "q", Documents: docs, Intents: []Intent{{ID: "a"}, {ID: "a"}}}),
			builders.ErrInvalidValue, "intents[1].id", "", `builders: rag_answer: key "intents[1].id": intent "a" is listed twice`},
		{"an unknown intent", messages(b, Input{Question: "q", Documents: []Retrieved{kb("hr", "x")}}),
			builders.ErrInvalidValue, "documents[0].intent", "", `builders: rag_answer: key "documents[0].intent": intent "hr" is not in intents`},
		{"a tool without a name", messages(b, Input{Question: "q", Tools: []ToolResult{{Data: 1}}}),
			builders.ErrMissingValue, "tools[0].tool", "", `builders: rag_answer: key "tools[0].tool": absent or blank`},
		{"a tool with data and an error", messages(b, Input{Question: "q", Tools: []ToolResult{{Tool: "t", Data: 1, Error: "e"}}}),
			builders.ErrInvalidValue, "tools[0]", "", `builders: rag_answer: key "tools[0]": has both data and an error`},
		{"tool data that does not encode", messages(b, Input{Question: "q", Tools: []ToolResult{{Tool: "t", Data: func() {}}}}),
			builders.ErrInvalidValue, "tools[0].data", "", `builders: rag_answer: key "tools[0].data": cannot encode as JSON: …`},
		{"a history role", messages(b, Input{Question: "q", Documents: docs, History: []manager.Message{{Role: "function"}}}),
			builders.ErrInvalidValue, "history[0].role", "", `builders: rag_answer: key "history[0].role": "function" is not a role …`},
		{"an unknown data key", data(map[string]any{"questoin": "q"}), builders.ErrUnknownKey, "questoin", "",
			`builders: rag_answer: key "questoin": not a data key of this builder …`},
		{"an unknown field", data(map[string]any{"question": "q", "documents": []any{map[string]any{"chunks": []any{map[string]any{"sorce": "s"}}}}}),
			builders.ErrInvalidValue, "documents[0].chunks[0].sorce", "", `builders: rag_answer: key "documents[0].chunks[0].sorce": unknown field (known: source, text)`},
		{"no renderer", messages(New(nil), Input{Question: "q", Documents: docs}), builders.ErrNoRenderer, "", "",
			"builders: rag_answer: made without a renderer; construct it with rag.New(manager)"},
		{"a set without the templates", messages(New(other), Input{Question: "q", Documents: docs}), builders.ErrRender, "", "rag_system_kb",
			`builders: rag_answer: template "rag_system_kb": …`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.err()
			require.Error(t, err)
			assert.ErrorIs(t, err, tc.kind)
			assert.ErrorIs(t, fmt.Errorf("host: %w", err), tc.kind)
			var be *builders.Error
			require.ErrorAs(t, err, &be)
			assert.Equal(t, Name, be.Builder)
			assert.Equal(t, tc.key, be.Key)
			assert.Equal(t, tc.kind, be.Kind)
			var me *manager.Error
			if assert.Equal(t, tc.template != "", errors.As(err, &me), "errors.As *manager.Error") && tc.template != "" {
				assert.Equal(t, tc.template, me.Template)
				assert.ErrorIs(t, err, manager.ErrUnknownTemplate)
			}
			if start, ok := strings.CutSuffix(tc.msg, "…"); ok {
				assert.True(t, strings.HasPrefix(err.Error(), start), "%q does not start with %q", err, start)
			} else {
				assert.Equal(t, tc.msg, err.Error())
			}
		})
	}
}
