package service

import (
	"errors"
	"testing"

	"github.com/seed-e7d2830f/promptkit/builders"
	"github.com/seed-e7d2830f/promptkit/manager"
	"github.com/seed-e7d2830f/promptkit/rag"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// rag.Builder is what BuildMessages serves.
var _ MessageBuilder = (*rag.Builder)(nil)

// failing is a message builder whose builds fail with err.
type failing struct {
	echo
	err error
}

func (f failing) BuildMessages(builders.Context) ([]manager.Message, error) { return nil, f.err }

func TestBuildMessages(t *testing.T) {
	m := defaultSet(t)
	s, err := New(m, WithDefaultBuilders())
	require.NoError(t, err)

	data := map[string]any{
		"question":  "年假可以跨年用吗？",
		"history":   []any{map[string]any{"role": "system", "content": "对话摘要：员工在问休假制度。"}},
		"documents": []any{map[string]any{"chunks": []any{map[string]any{"text": "未休年假可顺延至次年 3 月 31 日。"}}}},
	}
	msgs, err := s.BuildMessages(rag.Name, builders.Task{}, data)
	require.NoError(t, err)
	require.Len(t, msgs, 3)
	assert.Equal(t, []string{"system", "system", "user"}, []string{msgs[0].Role, msgs[1].Role, msgs[2].Role})
	assert.Equal(t, "对话摘要：员工在问休假制度。", msgs[1].Text())
	assert.Contains(t, msgs[2].Text(), "<question>年假可以跨年用吗？</question>")

	// Build serves the same builder as JSON.
	out, err := s.Build(rag.Name, builders.Task{}, data)
	require.NoError(t, err)
	assert.Contains(t, out, `"role": "system"`)

	tests := []struct {
		name    string
		builder string
		data    map[string]any
		is      error
	}{
		{"unknown builder", "rag", data, ErrUnknownBuilder},
		{"a text builder", "title", map[string]any{"intent": "i"}, ErrNotMessageBuilder},
		{"unknown key", rag.Name, map[string]any{"question": "q", "docs": nil}, builders.ErrUnknownKey},
		{"no evidence", rag.Name, map[string]any{"question": "q"}, rag.ErrNoEvidence},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			msgs, err := s.BuildMessages(tc.builder, builders.Task{}, tc.data)
			require.ErrorIs(t, err, tc.is)
			assert.Nil(t, msgs)
		})
	}
}

func TestBuildMessagesWrapsHostErrors(t *testing.T) {
	cause := errors.New("index offline")
	s, err := New(defaultSet(t), WithBuilders(failing{echo: echo{name: "mine"}, err: cause}))
	require.NoError(t, err)
	_, err = s.BuildMessages("mine", builders.Task{}, nil)
	require.ErrorIs(t, err, cause)
	assert.Equal(t, `service: builder "mine": index offline`, err.Error())
}
