package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/seed-e7d2830f/promptkit"
	"github.com/seed-e7d2830f/promptkit/builders"
	"github.com/seed-e7d2830f/promptkit/manager"
	"github.com/seed-e7d2830f/promptkit/service"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// jsonFile writes content into a temporary file and returns its path.
func jsonFile(t *testing.T, name, content string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	require.NoError(t, os.WriteFile(path, []byte(content), 0o644))
	return path
}

// libraryBuild is what a host gets from the library for the same input.
func libraryBuild(t *testing.T, name string, task builders.Task, data map[string]any) string {
	t.Helper()
	m, err := manager.New(promptkit.FS())
	require.NoError(t, err)
	defer m.Close()
	svc, err := service.New(m, service.WithDefaultBuilders())
	require.NoError(t, err)
	out, err := svc.Build(name, task, data)
	require.NoError(t, err)
	return out
}

func TestBuildCommand(t *testing.T) {
	task := jsonFile(t, "task.json", `{"id": "t-42", "title": "明天北京天气", "intent": "帮我查明天北京会不会下雨"}`)
	data := jsonFile(t, "data.json", `{"instruction": "改查上海"}`)
	agent := libraryBuild(t, "agent_system", builders.Task{ID: "t-42", Title: "明天北京天气", Intent: "帮我查明天北京会不会下雨"}, nil)
	injection := libraryBuild(t, "injection", builders.Task{ID: "t-42"}, map[string]any{"instruction": "改查上海"})

	tests := []cliCase{
		{"task file, output exactly the library's", "", []string{"build", "agent_system", "--task", task}, exitOK, agent, ""},
		{"flags before the name", "", []string{"build", "--task", task, "agent_system"}, exitOK, agent, ""},
		{"data from stdin", `{"instruction": "改查上海"}`, []string{"build", "injection", "--data", "-", "--task", task}, exitOK, injection, ""},
		{"task from stdin, data from a file", `{"id": "t-42"}`, []string{"build", "injection", "--task", "-", "--data", data}, exitOK, injection, ""},
		{"an empty board prints nothing", `{"session_id": "s"}`, []string{"build", "planner_board", "--data", "-"}, exitOK, "", ""},
		{"unknown builder", "", []string{"build", "agent"}, exitPrompt, "",
			`service: unknown builder "agent" (known: agent_system, context_note`},
		{"typo in a data key", `{"intent": "x", "intnet": "y"}`, []string{"build", "title", "--data", "-"}, exitPrompt, "",
			`builders: title: key "intnet": not a data key of this builder`},
		{"invalid kind", `{"kind": "memo", "content": "c"}`, []string{"build", "context_note", "--data", "-"}, exitPrompt, "",
			"sent-message, task-reply, task-waiting-input"},
		{"a task without an intent", "", []string{"build", "agent_system"}, exitPrompt, "", `key "task.intent": absent or empty`},
		{"no name", "", []string{"build"}, exitUsage, "", "exactly one builder name"},
		{"two names", "", []string{"build", "title", "polish"}, exitUsage, "", "exactly one builder name"},
		{"both from stdin", "", []string{"build", "title", "--task", "-", "--data", "-"}, exitUsage, "", "cannot both read standard input"},
		{"task with an unknown field", `{"id": "1", "name": "x"}`, []string{"build", "agent_system", "--task", "-"}, exitUsage, "", `unknown field "name"`},
		{"data not an object", `["x"]`, []string{"build", "title", "--data", "-"}, exitUsage, "", "want a JSON object"},
		{"data not JSON", `{`, []string{"build", "title", "--data", "-"}, exitUsage, "", "invalid JSON"},
		{"missing file", "", []string{"build", "title", "--data", filepath.Join(t.TempDir(), "none.json")}, exitUsage, "", "no such file"},
		{"bad note prefix", `{"instruction": "i"}`, []string{"build", "injection", "--data", "-", "--note-prefix", "a b"}, exitUsage, "", `--note-prefix "a b": builders: invalid value`},
	}
	runCases(t, tests)
}

func TestBuildCommandOptions(t *testing.T) {
	code, stdout, stderr := runCLI(t, `{"intent": "查天气"}`, "build", "agent_system", "--task", "-", "--bot-name", "小爱")
	require.Equal(t, exitOK, code, stderr)
	assert.True(t, strings.HasPrefix(stdout, "你是小爱，"), stdout)

	code, stdout, stderr = runCLI(t, `{"instruction": "i"}`, "build", "injection", "--data", "-", "--note-prefix", "inj-")
	require.Equal(t, exitOK, code, stderr)
	assert.Regexp(t, regexp.MustCompile(`<instruction id="inj-[0-9a-f]{16}">i</instruction>`), stdout)
}

func TestBuildCommandDir(t *testing.T) {
	// A set without the default builders' templates cannot serve them.
	dir := writeSet(t, `{"version":1,"templates":{"t":{"path":"t.md","variables":["x"]}}}`, map[string]string{"t.md": "{{ x }}"})
	code, stdout, stderr := runCLI(t, "", "build", "title", "--dir", dir)
	assert.Equal(t, exitPrompt, code)
	assert.Empty(t, stdout)
	assert.Contains(t, stderr, `builder "title" renders template "title", which the template set does not have`)

	// A broken set is reported problem by problem.
	dir = writeSet(t, `{"version":1,"templates":{"t":{"path":"t.md","variables":[]}}}`, map[string]string{"t.md": "{{ y }}"})
	code, _, stderr = runCLI(t, "", "build", "title", "--dir", dir)
	assert.Equal(t, exitPrompt, code)
	assert.Contains(t, stderr, "t.md:1:")
}

func TestBuildHelp(t *testing.T) {
	code, stdout, _ := runCLI(t, "", "build", "--help")
	assert.Equal(t, exitOK, code)
	assert.Contains(t, stdout, "Usage: promptkit build NAME")
	assert.Contains(t, stdout, "Example:")
}
