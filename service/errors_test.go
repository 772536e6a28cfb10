package service

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/seed-e7d2830f/promptkit/builders"
	"github.com/seed-e7d2830f/promptkit/manager"
	"github.com/seed-e7d2830f/promptkit/rag"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestErrorContract goes through every kind of error the service returns
// and checks how a host inspects it: the sentinels errors.Is finds, the
// *builders.Error (builder and key) and *manager.Error (template and path)
// errors.As finds, and the package prefix of the message.
func TestErrorContract(t *testing.T) {
	m := defaultSet(t)
	svc := newService(t, WithBuilders(panicky{}, echo{name: "failing", err: errors.New("index offline")}))
	own, err := manager.Open("testdata/only_greeting")
	require.NoError(t, err)
	t.Cleanup(func() { own.Close() })
	tone, err := manager.Open("testdata/title_wants_tone")
	require.NoError(t, err)
	t.Cleanup(func() { tone.Close() })
	toneSvc, err := New(tone, WithBuilders(builders.NewTitle(tone)))
	require.NoError(t, err)

	type builderErr struct{ builder, key string }
	tests := []struct {
		name     string
		err      func() error
		is       []error     // sentinels errors.Is finds
		builder  *builderErr // the *builders.Error errors.As finds, if any
		template string      // the template of the *manager.Error errors.As finds, if any
		prefix   string      // how the message starts
	}{
		// New
		{"no manager", func() error { _, err := New(nil, WithDefaultBuilders()); return err },
			[]error{builders.ErrNoRenderer}, nil, "", "builders: no renderer: service.New needs a manager"},
		{"no builders", func() error { _, err := New(m); return err }, []error{ErrNoBuilders}, nil, "", "service: no builders: "},
		{"an invalid option", func() error { _, err := New(m, WithDefaultBuilders(), WithBotName("")); return err },
			[]error{ErrInvalidOption}, nil, "", "service: invalid option: WithBotName: empty name"},
		{"a bad note prefix", func() error { _, err := New(m, WithDefaultBuilders(), WithNotePrefix("a b")); return err },
			[]error{ErrInvalidOption, builders.ErrInvalidValue}, nil, "", "service: invalid option: WithNotePrefix: "},
		{"contradictory options", func() error { _, err := New(m, WithBotName("x"), WithBuilders(echo{name: "e", r: m})); return err },
			[]error{ErrInvalidOption}, nil, "", "service: invalid option: WithBotName configures the default builders"},
		{"a duplicate name", func() error {
			_, err := New(m, WithDefaultBuilders(), WithBuilders(echo{name: "title", r: m}))
			return err
		},
			[]error{ErrDuplicateBuilder}, nil, "", `service: duplicate builder: "title" is registered twice`},
		{"a template the set lacks", func() error { _, err := New(own, WithDefaultBuilders()); return err },
			[]error{manager.ErrUnknownTemplate}, nil, "", `manager: unknown template: builder "agent_system" renders template "agent_system"`},
		// Build
		{"an unknown builder", func() error { _, err := svc.Build("agent", builders.Task{}, nil); return err },
			[]error{ErrUnknownBuilder}, nil, "", `service: unknown builder "agent" (known: agent_system,`},
		{"an unknown data key", func() error { _, err := svc.Build("title", builders.Task{}, map[string]any{"intnet": "x"}); return err },
			[]error{builders.ErrUnknownKey}, &builderErr{"title", "intnet"}, "", `builders: title: key "intnet"`},
		{"a missing value", func() error { _, err := svc.Build("polish", builders.Task{}, nil); return err },
			[]error{builders.ErrMissingValue}, &builderErr{"polish", "result"}, "", `builders: polish: key "result"`},
		{"an invalid value deep in the data", func() error {
			_, err := svc.Build("polish", builders.Task{}, map[string]any{"result": "r", "jargon": []any{map[string]any{"content": "c", "meening": "m"}}})
			return err
		}, []error{builders.ErrInvalidValue}, &builderErr{"polish", "jargon[0].meening"}, "", `builders: polish: key "jargon[0].meening": unknown field`},
		{"an invalid kind", func() error {
			_, err := svc.Build("context_note", builders.Task{}, map[string]any{"kind": "memo", "content": "c"})
			return err
		}, []error{builders.ErrInvalidKind}, &builderErr{"context_note", "kind"}, "", `builders: context_note: key "kind"`},
		{"a failed render", func() error { _, err := toneSvc.Build("title", builders.Task{Intent: "i"}, nil); return err },
			[]error{builders.ErrRender, manager.ErrMissingVariables}, &builderErr{"title", ""}, "title", `builders: title: template "title": `},
		{"no evidence for rag_answer", func() error {
			_, err := svc.Build(rag.Name, builders.Task{}, map[string]any{"question": "q"})
			return err
		},
			[]error{rag.ErrNoEvidence}, &builderErr{rag.Name, ""}, "", "builders: rag_answer: no knowledge-base chunk"},
		{"a host builder's error", func() error { _, err := svc.Build("failing", builders.Task{}, nil); return err },
			nil, nil, "", `service: builder "failing": index offline`},
		{"a panicking builder", func() error { _, err := svc.Build("panicky", builders.Task{}, nil); return err },
			[]error{ErrBuilderPanicked}, nil, "", `service: builder panicked: builder "panicky": index out of range in host code`},
		// BuildMessages
		{"messages of a text builder", func() error { _, err := svc.BuildMessages("title", builders.Task{}, nil); return err },
			[]error{ErrNotMessageBuilder}, nil, "", `service: not a message builder: builder "title" makes a text prompt; use Build`},
		{"messages of an unknown builder", func() error { _, err := svc.BuildMessages("rag", builders.Task{}, nil); return err },
			[]error{ErrUnknownBuilder}, nil, "", `service: unknown builder "rag"`},
		{"messages with an unknown key", func() error {
			_, err := svc.BuildMessages(rag.Name, builders.Task{}, map[string]any{"docs": nil})
			return err
		},
			[]error{builders.ErrUnknownKey}, &builderErr{rag.Name, "docs"}, "", `builders: rag_answer: key "docs"`},
		{"messages of a panicking builder", func() error { _, err := svc.BuildMessages("panicky", builders.Task{}, nil); return err },
			[]error{ErrBuilderPanicked}, nil, "", `service: builder panicked: builder "panicky": `},
		// UpdatePrompts and RestorePrompts
		{"an unknown prompt", func() error { return svc.UpdatePrompts(map[string]string{"title:tilte": "x"}) },
			[]error{ErrUnknownPrompt}, nil, "", `service: unknown prompt "title:tilte" (known: `},
		{"two sources for one template", func() error {
			return svc.UpdatePrompts(map[string]string{"failing:title": "a {{ intent }}", "title:title": "b {{ intent }}"})
		}, []error{ErrConflictingPrompts}, nil, "", `service: conflicting prompts: "failing:title" and "title:title"`},
		{"a replacement the manager refuses", func() error { return svc.UpdatePrompts(map[string]string{"title:title": "{{ nope }}"}) },
			[]error{manager.ErrUndeclaredVariable}, nil, "title", "service: update prompts: "},
		{"restoring an unknown prompt", func() error { return svc.RestorePrompts("title") },
			[]error{ErrUnknownPrompt}, nil, "", `service: unknown prompt "title"`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.err()
			require.Error(t, err)
			for _, s := range tc.is {
				assert.ErrorIs(t, err, s)
			}
			var be *builders.Error
			if assert.Equal(t, tc.builder != nil, errors.As(err, &be), "errors.As *builders.Error") && tc.builder != nil {
				assert.Equal(t, tc.builder.builder, be.Builder)
				assert.Equal(t, tc.builder.key, be.Key)
			}
			var me *manager.Error
			if assert.Equal(t, tc.template != "", errors.As(err, &me), "errors.As *manager.Error") && tc.template != "" {
				assert.Equal(t, tc.template, me.Template)
				assert.NotEmpty(t, me.Path)
			}
			assert.True(t, strings.HasPrefix(err.Error(), tc.prefix), "%q does not start with %q", err, tc.prefix)
			// Wrapped once more, by a host, the error is still inspectable.
			wrapped := fmt.Errorf("plugin start: %w", err)
			for _, s := range tc.is {
				assert.ErrorIs(t, wrapped, s)
			}
		})
	}
}
