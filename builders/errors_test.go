package builders

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/seed-e7d2830f/promptkit/manager"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestErrorContract goes through every kind of error the package returns
// and checks how a host inspects it: the sentinels errors.Is finds, the
// *Error (builder and key) errors.As finds, and, through a failed render,
// the renderer's *manager.Error.
func TestErrorContract(t *testing.T) {
	m := defaultSet(t)
	wants, err := manager.New(os.DirFS("testdata/missing_var"))
	require.NoError(t, err)
	t.Cleanup(func() { wants.Close() })
	ids := defaultIDs()
	build := func(b Builder, task Task, data map[string]any) func() error {
		return func() error { _, err := b.Build(NewContext(task, data)); return err }
	}
	tests := []struct {
		name     string
		err      func() error
		is       []error
		builder  string // the *Error's builder; "" when the error is not an *Error
		key      string
		template string // the template of the *manager.Error inside, if any
		msg      string // the message, or its start when it ends in "…"
	}{
		{"unknown key", build(NewTitle(m), Task{}, map[string]any{"intent": "i", "titel": "t"}),
			[]error{ErrUnknownKey}, "title", "titel", "", `builders: title: key "titel": not a data key of this builder (it reads: intent)`},
		{"unknown key of a builder that reads nothing", func() error { return checkKeys("x", nil, NewContext(Task{}, map[string]any{"a": 1})) },
			[]error{ErrUnknownKey}, "x", "a", "", `builders: x: key "a": not a data key of this builder (it reads: nothing)`},
		{"missing value", build(NewTitle(m), Task{}, nil),
			[]error{ErrMissingValue}, "title", "intent", "", `builders: title: key "intent": absent or empty in the data and in task.intent`},
		{"missing task field", build(NewAgentSystem(m, testBot), Task{}, nil),
			[]error{ErrMissingValue}, "agent_system", "task.intent", "", `builders: agent_system: key "task.intent": …`},
		{"missing field of a list item", build(NewPolish(m, testBot), Task{}, map[string]any{"result": "r", "jargon": []Jargon{
			{Content: "c"},
		}}),
			[]error{ErrMissingValue}, "polish", "jargon[0].meaning", "", `builders: polish: key "jargon[0].meaning": absent or empty`},
		{"invalid value", build(NewTitle(m), Task{}, map[string]any{"intent": 1}),
			[]error{ErrInvalidValue}, "title", "intent", "", `builders: title: key "intent": want a string, got int`},
		{"invalid value deep in a list", build(NewSubAgentSystem(m, testBot), Task{}, map[string]any{"intent": "i", "tool_list": []any{map[string]any{"name": 1}}}),
			[]error{ErrInvalidValue}, "subagent_system", "tool_list[0].name", "", `builders: subagent_system: key "tool_list[0].name": want a string, got a number`},
		{"invalid kind", build(NewContextNote(m, testBot, ids), Task{}, map[string]any{"kind": "memo", "content": "c"}),
			[]error{ErrInvalidKind}, "context_note", "kind", "", `builders: context_note: key "kind": "memo" is not a note kind …`},
		{"no renderer", build(NewTitle(nil), Task{Intent: "i"}, nil),
			[]error{ErrNoRenderer}, "title", "", "", `builders: title: made without a renderer; construct it with a manager`},
		{"failed render", build(NewTitle(wants), Task{Intent: "i"}, nil),
			[]error{ErrRender, manager.ErrMissingVariables}, "title", "", "title", `builders: title: template "title": …`},
		{"defaults without a renderer", func() error { _, err := Defaults(nil, Config{BotName: "b"}); return err },
			[]error{ErrNoRenderer}, "", "", "", "builders: no renderer: Defaults needs a renderer"},
		{"defaults without a bot name", func() error { _, err := Defaults(m, Config{}); return err },
			[]error{ErrMissingValue}, "", "", "", "builders: missing value: Config.BotName is empty"},
		{"a bad note prefix", func() error { _, err := NoteIDs("a b"); return err },
			[]error{ErrInvalidValue}, "", "", "", `builders: invalid value: note id prefix "a b": …`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.err()
			require.Error(t, err)
			for _, s := range tc.is {
				assert.ErrorIs(t, err, s)
				assert.ErrorIs(t, fmt.Errorf("host: %w", err), s, "still found when the host wraps it")
			}
			var be *Error
			if assert.Equal(t, tc.builder != "", errors.As(err, &be), "errors.As *Error") && tc.builder != "" {
				assert.Equal(t, tc.builder, be.Builder)
				assert.Equal(t, tc.key, be.Key)
				assert.ErrorIs(t, be.Kind, tc.is[0], "Kind is the sentinel")
			}
			var me *manager.Error
			if assert.Equal(t, tc.template != "", errors.As(err, &me), "errors.As *manager.Error") && tc.template != "" {
				assert.Equal(t, tc.template, me.Template)
				assert.Equal(t, []string{"tone"}, me.Variables)
			}
			if start, ok := strings.CutSuffix(tc.msg, "…"); ok {
				assert.True(t, strings.HasPrefix(err.Error(), start), "%q does not start with %q", err, start)
			} else {
				assert.Equal(t, tc.msg, err.Error())
			}
		})
	}
}
