package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func writeToolsFile(t *testing.T, name, content string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	require.NoError(t, os.WriteFile(path, []byte(content), 0o644))
	return path
}

const goodTools = `[
  {"name": "search_users", "type": "function",
   "description": "搜索用户：按昵称/名字/ID 搜索已知用户与群，返回其 user_id（QQ号）、昵称、群信息，用于确定 send_message 的发送目标。",
   "input_schema": {"type": "object", "properties": {"keyword": {"type": "string"}}, "required": ["keyword"]}},
  "not a tool, skipped",
  {"name": "recent_history", "description": "获取最近聊天历史：拉取指定聊天流的最近消息记录。"}
]`

const badTools = `[
  {"name": "search_users",
   "description": "调用 MaibaChat API 的 /v1/user/search 端点\n参数：\n- keyword: 搜索词",
   "input_schema": {"type": "object", "properties": {"keyword": {"type": "string"}}}},
  {"name": "recent_history", "description": "从 chat_records 表查询最近 N 条消息"},
  {"name": "noop"}
]`

// openAITools is badTools' first two tools in OpenAI's request form.
const openAITools = `{"model": "m", "tools": [
  {"type": "function", "function": {"name": "search_users",
   "description": "搜索用户\n参数：\n- keyword: 搜索词",
   "parameters": {"type": "object", "properties": {"keyword": {"type": "string"}}}}},
  {"type": "function", "function": {"name": "recent_history", "description": "从 chat_records 表查询最近 N 条消息"}}
]}`

func TestLintToolsCommand(t *testing.T) {
	good := writeToolsFile(t, "good.json", goodTools)
	bad := writeToolsFile(t, "bad.json", badTools)
	notTools := writeToolsFile(t, "object.json", `{"title":"x"}`)
	openAI := writeToolsFile(t, "openai.json", openAITools)

	tests := []struct {
		name   string
		stdin  string
		args   []string
		code   int
		stdout string
		stderr string
	}{
		{"clean file", "", []string{"lint-tools", good}, exitOK, "", ""},
		{"problems, one a line", "", []string{"lint-tools", bad}, exitPrompt,
			bad + `: tool "search_users": description has a parameters section ("参数："); the input schema carries the parameters` + "\n" +
				bad + `: tool "search_users": description lists parameters already in the input schema: "keyword"; keep names, types, required flags and defaults in the schema` + "\n" +
				bad + `: tool "search_users": description describes implementation (calls an API: "调用 MaibaChat API"); say when and why to use the tool, not how it works` + "\n" +
				bad + `: tool "search_users": description describes implementation (names an endpoint: "/v1/user/search"); say when and why to use the tool, not how it works` + "\n" +
				bad + `: tool "recent_history": description describes implementation (reads a table: "从 chat_records 表"); say when and why to use the tool, not how it works` + "\n" +
				bad + `: tool "noop": description is empty; say when and why to use the tool and how it fails` + "\n",
			""},
		{"stdin", badTools, []string{"lint-tools", "-"}, exitPrompt, "", ""},
		{"stdin clean", goodTools, []string{"lint-tools", "-"}, exitOK, "", ""},
		{"empty list: no tools is bad usage", "[]", []string{"lint-tools", "-"}, exitUsage, "", "-: holds no tools"},
		{"no tools under tools", `{"tools": []}`, []string{"lint-tools", "-"}, exitUsage, "", "-: holds no tools"},
		{"neither tool form", "", []string{"lint-tools", notTools}, exitUsage, "",
			notTools + `: contextstack: invalid JSON: tool spec 0: no name: not a tool (each {"name", "description", "input_schema" or "parameters"}, or {"type": "function", "function": {"name", "description", "parameters"}})`},
		{"not a tool list", `"search"`, []string{"lint-tools", "-"}, exitUsage, "", "-: contextstack: invalid JSON: not a tool list"},
		{"invalid JSON, as render --vars", "[{", []string{"lint-tools", "-"}, exitUsage, "", "-: contextstack: invalid JSON: unexpected end of JSON input"},
		{"missing file", "", []string{"lint-tools", filepath.Join(t.TempDir(), "nope.json")}, exitUsage, "", "no such file"},
		{"OpenAI's tool format, under tools", "", []string{"lint-tools", openAI}, exitPrompt,
			openAI + `: tool "search_users": description has a parameters section ("参数："); the input schema carries the parameters` + "\n" +
				openAI + `: tool "search_users": description lists parameters already in the input schema: "keyword"; keep names, types, required flags and defaults in the schema` + "\n" +
				openAI + `: tool "recent_history": description describes implementation (reads a table: "从 chat_records 表"); say when and why to use the tool, not how it works` + "\n",
			""},
		{"OpenAI's tool format, in a list", `[{"type": "function", "function": {"name": "noop", "parameters": {"type": "object"}}}]`, []string{"lint-tools", "-"}, exitPrompt,
			`-: tool "noop": description is empty; say when and why to use the tool and how it fails` + "\n", ""},
		{"the bare form", `[{"name": "recent_history", "description": "从 chat_records 表查询最近 N 条消息", "parameters": {}}]`, []string{"lint-tools", "-"}, exitPrompt,
			`-: tool "recent_history": description describes implementation (reads a table: "从 chat_records 表"); say when and why to use the tool, not how it works` + "\n", ""},
		{"no file", "", []string{"lint-tools"}, exitUsage, "", "exactly one FILE.json"},
		{"two files", "", []string{"lint-tools", good, bad}, exitUsage, "", "exactly one FILE.json"},
		{"unknown flag", "", []string{"lint-tools", good, "--dir", "x"}, exitUsage, "", "unknown flag --dir"},
		{"help", "", []string{"lint-tools", "--help"}, exitOK, "", ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			code, stdout, stderr := runCLI(t, tc.stdin, tc.args...)
			assert.Equal(t, tc.code, code, "stdout: %s\nstderr: %s", stdout, stderr)
			if tc.stdout != "" || tc.code == exitOK && tc.name != "help" {
				assert.Equal(t, tc.stdout, stdout)
			}
			if tc.stderr != "" {
				assert.Contains(t, stderr, tc.stderr)
			} else {
				assert.Empty(t, stderr)
			}
		})
	}
}

func TestLintToolsCommandStdinNamesDash(t *testing.T) {
	code, stdout, _ := runCLI(t, `[{"name":"noop"}]`, "lint-tools", "-")
	assert.Equal(t, exitPrompt, code)
	assert.Equal(t, `-: tool "noop": description is empty; say when and why to use the tool and how it fails`+"\n", stdout)
}

func TestLintToolsHelp(t *testing.T) {
	code, stdout, _ := runCLI(t, "", "lint-tools", "--help")
	assert.Equal(t, exitOK, code)
	assert.Contains(t, stdout, "Usage: promptkit lint-tools FILE.json")
	assert.Contains(t, stdout, "Example:")

	_, stdout, _ = runCLI(t, "", "--help")
	assert.Contains(t, stdout, "lint-tools")
}

// TestLintToolsBadJSONExitsAsRenderVars: bad JSON is the same mistake in
// both commands, so it has the same exit code.
func TestLintToolsBadJSONExitsAsRenderVars(t *testing.T) {
	for _, in := range []string{"{", "[1,", "not json"} {
		vars, _, _ := runCLI(t, in, "render", "title", "--vars", "-")
		tools, _, _ := runCLI(t, in, "lint-tools", "-")
		assert.Equal(t, vars, tools, in)
		assert.Equal(t, exitUsage, tools, in)
	}
}
