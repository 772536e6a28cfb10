package main

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestBuildersCommand(t *testing.T) {
	code, stdout, stderr := runCLI(t, "", "builders")
	assert.Equal(t, exitOK, code, stderr)
	assert.Empty(t, stderr)
	lines := strings.Split(strings.TrimSuffix(stdout, "\n"), "\n")
	assert.Len(t, lines, 8)
	var names []string
	for _, l := range lines {
		f := strings.Fields(l)
		names = append(names, f[0])
		if f[0] != "rag_answer" {
			assert.Equal(t, f[0], f[1], "each scene builder renders the template of its name")
		}
	}
	assert.Equal(t, []string{"agent_system", "context_note", "injection", "planner_board", "polish", "rag_answer", "subagent_system", "title"}, names)
	assert.Contains(t, stdout, "rag_answer       rag_user         documents history intents question sub_questions tools\n", "the default set serves the RAG builder too")
	assert.Contains(t, stdout, "polish           polish           bot_name context jargon personality reply_style requester result\n")
	assert.Contains(t, stdout, "title            title            intent\n")

	code, _, stderr = runCLI(t, "", "builders", "extra")
	assert.Equal(t, exitUsage, code)
	assert.Contains(t, stderr, "builders takes no arguments")

	code, stdout, _ = runCLI(t, "", "builders", "--help")
	assert.Equal(t, exitOK, code)
	assert.Contains(t, stdout, "Example:")

	dir := writeSet(t, `{"version":1,"templates":{"t":{"path":"t.md","variables":["x"]}}}`, map[string]string{"t.md": "{{ x }}"})
	code, _, stderr = runCLI(t, "", "builders", "--dir", dir)
	assert.Equal(t, exitPrompt, code)
	assert.Contains(t, stderr, "which the template set does not have")
}
