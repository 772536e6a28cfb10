package contextstack

import (
	"errors"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestToolNameConflictError(t *testing.T) {
	tests := []struct {
		name string
		err  *ToolNameConflictError
		msg  string
	}{
		{
			name: "two layers",
			err:  &ToolNameConflictError{Name: "search", FirstSource: "rag", SecondSource: "platform", FirstLayer: 0, SecondLayer: 3},
			msg:  `contextstack: tool name conflict: "search" in layer 3 (source "platform") is already defined in layer 0 (source "rag")`,
		},
		{
			name: "one layer",
			err:  &ToolNameConflictError{Name: "search", FirstSource: "rag", SecondSource: "rag", FirstLayer: 2, SecondLayer: 2},
			msg:  `contextstack: tool name conflict: "search" is defined twice in layer 2 (source "rag")`,
		},
		{
			name: "names are quoted",
			err:  &ToolNameConflictError{Name: "a\"b", FirstSource: "", SecondSource: "skill:git", FirstLayer: 0, SecondLayer: 1},
			msg:  `contextstack: tool name conflict: "a\"b" in layer 1 (source "skill:git") is already defined in layer 0 (source "")`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.msg, tt.err.Error())
			assert.Equal(t, "TOOL_NAME_CONFLICT", tt.err.Code())
			assert.Equal(t, CodeToolNameConflict, tt.err.Code())

			wrapped := fmt.Errorf("turn 2: %w", tt.err)
			assert.ErrorIs(t, wrapped, ErrToolNameConflict)
			assert.NotErrorIs(t, wrapped, ErrInvalidLayer)
			var got *ToolNameConflictError
			require.ErrorAs(t, wrapped, &got)
			assert.Same(t, tt.err, got)

			// Hosts that report codes across a process boundary find it
			// through an interface, too.
			var coded interface{ Code() string }
			require.ErrorAs(t, wrapped, &coded)
			assert.Equal(t, "TOOL_NAME_CONFLICT", coded.Code())
		})
	}
}

func TestRenderError(t *testing.T) {
	cause := errors.New("manager: missing variables")
	err := fmt.Errorf("derive: %w", &RenderError{Layer: 4, Type: TypeSkillBody, Source: "skill:git", Template: TemplateSkillBody, Err: cause})
	assert.ErrorIs(t, err, ErrRender)
	assert.ErrorIs(t, err, cause)
	assert.Equal(t, `derive: contextstack: render failed: layer 4 (skill_body, source "skill:git"), template "contextstack_skill_body": manager: missing variables`, err.Error())
	var re *RenderError
	require.ErrorAs(t, err, &re)
	assert.Equal(t, 4, re.Layer)
}

func TestSentinelsArePrefixed(t *testing.T) {
	for _, err := range []error{
		ErrToolNameConflict, ErrInvalidLayer, ErrUnknownLayerType, ErrDecode,
		ErrIndexOutOfRange, ErrRender, ErrInvalidToolChoice,
	} {
		assert.Regexp(t, `^contextstack: [a-zA-Z ]+$`, err.Error())
	}
}
