package main

import (
	"io/fs"
	"strings"
	"testing"

	"github.com/seed-e7d2830f/promptkit"
	"github.com/seed-e7d2830f/promptkit/builders"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
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

}

// TestBuildersOnAnySet: builders and build serve, from any set, the
// default builders whose templates it has, and say which it cannot serve.
func TestBuildersOnAnySet(t *testing.T) {
	own := writeSet(t, `{"version":1,"templates":{"t":{"path":"t.md","variables":["x"]}}}`, map[string]string{"t.md": "{{ x }}"})
	title, err := fs.ReadFile(promptkit.FS(), "templates/title.md")
	require.NoError(t, err)
	partial := writeSet(t, `{"version":1,"templates":{"title":{"path":"title.md","variables":["intent"]},
		"rag_user":{"path":"user.md","variables":["tags","tools","documents","question","sub_questions"]}}}`,
		map[string]string{"title.md": string(title), "user.md": "{{ tags }}{{ tools }}{{ documents }}{{ question }}{{ sub_questions }}"})
	const lacks = "the template set lacks the templates of "
	runCases(t, []cliCase{
		{"a set of one's own serves no default builder", "", []string{"builders", "--dir", own}, exitOK, "",
			lacks + "agent_system, context_note, injection, planner_board, polish, rag_answer, subagent_system, title; " +
				"a program serves builders of its own with service.WithBuilders"},
		{"a partial set serves what it can", "", []string{"builders", "--dir", partial}, exitOK, "title  title  intent\n",
			lacks + "agent_system, context_note, injection, planner_board, polish, rag_answer, subagent_system;"},
		{"build with a served builder", `{"intent": "查天气"}`, []string{"build", "title", "--dir", partial, "--data", "-"}, exitOK,
			libraryBuild(t, "title", builders.Task{}, map[string]any{"intent": "查天气"}), ""},
		{"build with a builder the set cannot serve", "", []string{"build", "polish", "--dir", partial}, exitPrompt, "",
			`builder "polish" renders template "polish", which the template set does not have`},
		{"every template a builder lacks is named", "", []string{"build", "rag_answer", "--dir", partial}, exitPrompt, "",
			`builder "rag_answer" renders templates "rag_system_kb", "rag_system_tool", "rag_system_mixed", "rag_system_intent", which the template set does not have`},
		{"an unknown name on a partial set", "", []string{"build", "weekly", "--dir", partial}, exitPrompt, "",
			`service: unknown builder "weekly" (known: title)`},
		{"any name on a set of one's own", "", []string{"build", "weekly", "--dir", own}, exitPrompt, "",
			`service: unknown builder "weekly": the template set has the templates of no default builder`},
	})
}
