package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

// The expected prompt (testdata/chattemplate/expected.txt) was made by
// transformers' environment in Python's Jinja2 (see the README of
// testdata/corpus for the environment).
func TestChatTemplateCommand(t *testing.T) {
	dir := filepath.Join("testdata", "chattemplate")
	want, err := os.ReadFile(filepath.Join(dir, "expected.txt"))
	require.NoError(t, err)
	cfg := filepath.Join(dir, "tokenizer_config.json")
	msgs := filepath.Join(dir, "chat.json")
	tools := filepath.Join(dir, "tools.json")
	chat, err := os.ReadFile(msgs)
	require.NoError(t, err)
	// Sparse files far over the limits: refused from their size, not read.
	tmp := t.TempDir()
	hugeCfg, hugeMsgs := filepath.Join(tmp, "tokenizer_config.json"), filepath.Join(tmp, "chat.json")
	for _, p := range []string{hugeCfg, hugeMsgs} {
		f, err := os.Create(p)
		require.NoError(t, err)
		require.NoError(t, f.Truncate(50<<30))
		require.NoError(t, f.Close())
	}
	runCases(t, []cliCase{
		{"a config over the file limit", "", []string{"chat-template", "--config", hugeCfg, "--messages", msgs}, exitPrompt, "",
			"cannot read the config: file too large: 53687091200 bytes, over the limit of 16777216 (WithMaxFileBytes)"},
		{"a template over the source limit", "", []string{"chat-template", "--template", hugeCfg, "--messages", msgs}, exitPrompt, "",
			"cannot read the template: file too large: 53687091200 bytes, over the limit of 4194304"},
		{"messages over the memory limit", "", []string{"chat-template", "--config", cfg, "--messages", hugeMsgs}, exitUsage, "",
			"--messages " + hugeMsgs + ": 53687091200 bytes, over the limit of 67108864"},
		{"a missing config", "", []string{"chat-template", "--config", filepath.Join(tmp, "none.json"), "--messages", msgs}, exitUsage, "",
			"--config: " + filepath.Join(tmp, "none.json") + ": cannot read the config: no such file or directory"},
		{"config, messages, tools", "", []string{"chat-template", "--config", cfg, "--messages", msgs, "--tools", tools, "--add-generation-prompt"}, exitOK, string(want), ""},
		{"flags after the command in any order, messages on stdin", string(chat), []string{"chat-template", "--add-generation-prompt", "--tools", tools, "--messages", "-", "--config", cfg}, exitOK, string(want), ""},
		{"the template raises", "", []string{"chat-template", "--config", cfg, "--messages", filepath.Join(dir, "bad_order.json")}, exitPrompt, "",
			"raise_exception: a system message must come first"},
		{"no template", "", []string{"chat-template", "--messages", msgs}, exitUsage, "", "needs --config or --template"},
		{"no messages", "", []string{"chat-template", "--config", cfg}, exitUsage, "", "needs --messages"},
		{"bad JSON", "[", []string{"chat-template", "--config", cfg, "--messages", "-"}, exitUsage, "", "--messages -: invalid JSON"},
		{"bad --set", "", []string{"chat-template", "--config", cfg, "--messages", msgs, "--set", "x=notjson"}, exitUsage, "", "want KEY=JSON"},
		{"bad --now", "", []string{"chat-template", "--config", cfg, "--messages", msgs, "--now", "today"}, exitUsage, "", "RFC 3339"},
		{"a template with a syntax error", "", []string{"chat-template", "--template", filepath.Join(dir, "broken.jinja"), "--messages", msgs}, exitPrompt, "",
			"broken.jinja:2:"},
	})
}

// A --set the template never reads is a mistake, named with the setting
// it may mean; --allow-unused passes it anyway (transformers ignores it).
func TestChatTemplateUnusedSetting(t *testing.T) {
	dir := t.TempDir()
	tmpl := filepath.Join(dir, "t.jinja")
	require.NoError(t, os.WriteFile(tmpl, []byte("{% if enable_thinking %}think {% endif %}{{ messages | length }}"), 0o644))
	msgs := filepath.Join("testdata", "chattemplate", "chat.json")
	runCases(t, []cliCase{
		{"a setting it reads", "", []string{"chat-template", "--template", tmpl, "--messages", msgs, "--set", "enable_thinking=true"}, exitOK, "think 3", ""},
		{"a misspelled setting", "", []string{"chat-template", "--template", tmpl, "--messages", msgs, "--set", "enable_thinkng=true"}, exitUsage, "",
			`promptkit chat-template: --set enable_thinkng: the template never reads "enable_thinkng"; did you mean "enable_thinking"? (it reads: enable_thinking, messages; --allow-unused passes it anyway)`},
		{"--allow-unused", "", []string{"chat-template", "--template", tmpl, "--messages", msgs, "--set", "enable_thinkng=true", "--allow-unused"}, exitOK, "3", ""},
	})
}
