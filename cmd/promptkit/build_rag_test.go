package main

import (
	"encoding/json"
	"os"
	"testing"

	"github.com/seed-e7d2830f/promptkit"
	"github.com/seed-e7d2830f/promptkit/builders"
	"github.com/seed-e7d2830f/promptkit/manager"
	"github.com/seed-e7d2830f/promptkit/rag"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestBuildRAGAnswer(t *testing.T) {
	input := "../../rag/testdata/golden/mixed.input.json"
	raw, err := os.ReadFile(input)
	require.NoError(t, err)

	code, out, stderr := runCLI(t, "", "build", "rag_answer", "--data", input)
	require.Equal(t, exitOK, code, stderr)
	var got []manager.Message
	require.NoError(t, json.Unmarshal([]byte(out), &got))

	// The CLI prints what the library builds for the same data.
	m, err := manager.New(promptkit.FS())
	require.NoError(t, err)
	defer m.Close()
	v, err := manager.DecodeJSON(raw)
	require.NoError(t, err)
	want, err := rag.New(m).BuildMessages(builders.NewContext(builders.Task{}, v.(map[string]any)))
	require.NoError(t, err)
	assert.Equal(t, want, got)

	// No evidence is a prompt error.
	code, out, stderr = runCLI(t, `{"question": "q"}`, "build", "rag_answer", "--data", "-")
	assert.Equal(t, exitPrompt, code)
	assert.Empty(t, out)
	assert.Contains(t, stderr, "no knowledge-base chunk and no tool result")
}
