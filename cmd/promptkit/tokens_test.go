package main

import (
	"fmt"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/seed-e7d2830f/promptkit/tokens"
)

// --tokens counts on stderr and leaves stdout the prompt, byte for byte.
func TestRenderTokens(t *testing.T) {
	code, plain, _ := runCLI(t, "", "render", "title", "--var", "intent=查询明天北京的天气")
	require.Equal(t, 0, code)
	o200k, err := tokens.Encoding("o200k_base")
	require.NoError(t, err)

	code, out, errOut := runCLI(t, "", "render", "title", "--var", "intent=查询明天北京的天气", "--tokens", "o200k_base")
	require.Equal(t, 0, code, errOut)
	require.Equal(t, plain, out)
	require.Equal(t, fmt.Sprintf("%d tokens (o200k_base), %d bytes\n", o200k.Count(plain), len(plain)), errOut)

	// Flags before arguments; a tokenizer.json by its path.
	qwen := "../../tokens/testdata/tokenizers/qwen3/tokenizer.json.gz"
	code, out, errOut = runCLI(t, "", "render", "--tokens", qwen, "title", "--var", "intent=查询明天北京的天气")
	require.Equal(t, 0, code, errOut)
	require.Equal(t, plain, out)
	tok, err := tokens.Open(qwen)
	require.NoError(t, err)
	require.Equal(t, fmt.Sprintf("%d tokens (%s), %d bytes\n", tok.Count(plain), qwen, len(plain)), errOut)
}

func TestTokensFlagErrors(t *testing.T) {
	code, out, errOut := runCLI(t, "", "render", "title", "--var", "intent=x", "--tokens", "o200k")
	require.Equal(t, 2, code)
	require.Empty(t, out)
	require.Contains(t, errOut, `promptkit render: --tokens o200k: tokens: unknown encoding "o200k"; did you mean "o200k_base"?`)

	code, _, errOut = runCLI(t, "", "check", "--tokens", "testdata/missing/tokenizer.json")
	require.Equal(t, 2, code)
	require.Contains(t, errOut, "promptkit check: --tokens testdata/missing/tokenizer.json:")
}

func TestRenderMessagesTokens(t *testing.T) {
	dir := writeSet(t, `{"version": 1, "templates": {"qa": {"path": "qa.md", "variables": ["q"]}}}`, map[string]string{
		"qa.md": "{% chat role=\"system\" %}只用中文回答。{% endchat %}{% chat role=\"user\" %}{{ q }}{% endchat %}",
	})
	code, _, errOut := runCLI(t, "", "render", "--messages", "qa", "--dir", dir, "--var", "q=明天北京的天气怎么样？", "--tokens", "cl100k_base")
	require.Equal(t, 0, code, errOut)
	cl, err := tokens.Encoding("cl100k_base")
	require.NoError(t, err)
	a, b := cl.Count("只用中文回答。"), cl.Count("明天北京的天气怎么样？")
	require.Equal(t, fmt.Sprintf("message 1 (system): %d tokens\nmessage 2 (user): %d tokens\n%d tokens (cl100k_base) in the messages' text, without the tokens a model's chat format adds\n", a, b, a+b), errOut)
}

func TestCheckTokens(t *testing.T) {
	dir := writeSet(t, `{"version": 1, "templates": {"t": {"path": "t.md", "variables": ["x"]}}}`, map[string]string{
		"t.md": "Hello {{ x }}!\n{% if x %}yes{% endif %}\n{% for i in x %}[{{ i }}]{% endfor %}",
	})
	code, out, errOut := runCLI(t, "", "check", dir, "--tokens", "o200k_base")
	require.Equal(t, 0, code, errOut)
	o, err := tokens.Encoding("o200k_base")
	require.NoError(t, err)
	all, top := o.Count("Hello !\nyes\n[]"), o.Count("Hello !\n\n")
	require.Contains(t, out, fmt.Sprintf("t.md: template \"t\": %d tokens (o200k_base) of fixed text, %d of them printed by every render; "+
		"no bound on a render: t.md:1:10: x, which has no schema; t.md:3:1: a loop whose length has no bound; t.md:3:13: an item of a list the bound cannot follow\n", all, top))
	require.Regexp(t, regexp.MustCompile(`(?m)^ok: 1 template, digest sha256:`), out)

	// With schemas that bound it, the most a render prints: a bound in
	// bytes, so in tokens of an OpenAI encoding (each token a byte at
	// least), in bytes for a tokenizer.json; every unbounded place, three
	// at most and a count.
	dir = writeSet(t, `{"version": 1, "templates": {
		"b": {"path": "b.md", "variables": [{"name": "xs", "schema": {"type": "array", "maxItems": 3, "items": {"type": "string", "maxLength": 2}}}]},
		"u": {"path": "u.md", "variables": ["a", "b", "c", "d"]}}}`, map[string]string{
		"b.md": "{% for x in xs %}<{{ x }}>{% endfor %}",
		"u.md": "{{ a }}{{ b }}{{ c }}{{ d }}",
	})
	code, out, errOut = runCLI(t, "", "check", dir, "--tokens", "o200k_base")
	require.Equal(t, 0, code, errOut)
	assert.Contains(t, out, "of them printed by every render; a render prints at most 30 tokens after every allowed cut (a bound in bytes)\n")
	assert.Contains(t, out, "no bound on a render: u.md:1:4: a, which has no schema; u.md:1:11: b, which has no schema; u.md:1:18: c, which has no schema; and 1 more\n")
	code, out, errOut = runCLI(t, "", "check", dir, "--tokens", "../../tokens/testdata/tokenizers/qwen3/tokenizer.json.gz")
	require.Equal(t, 0, code, errOut)
	assert.Contains(t, out, "a render prints at most 30 bytes after every allowed cut\n")
}

func TestChatTemplateTokens(t *testing.T) {
	dir := "../../tokens/testdata/tokenizers/qwen3/"
	code, out, errOut := runCLI(t, "", "chat-template", "--config", dir+"tokenizer_config.json",
		"--messages", "../../tokens/testdata/chat/messages.json", "--add-generation-prompt", "--tokens", dir+"tokenizer.json.gz")
	require.Equal(t, 0, code, errOut)
	require.True(t, strings.HasPrefix(out, "<|im_start|>system\n"))
	// The ids the reference gives for this chat are in the vectors (case
	// chat-qwen3): 63 of them, the special tokens one id each.
	require.Equal(t, fmt.Sprintf("63 tokens (%stokenizer.json.gz), %d bytes\n", dir, len(out)), errOut)
}

// render --budget: the prompt that fits on stdout, exactly; each cut and
// the count on stderr; exit 1 when even every cut is not enough.
func TestRenderBudget(t *testing.T) {
	const set = "../../manager/testdata/budget"
	want, err := os.ReadFile(set + "/golden/research-80.txt")
	require.NoError(t, err)
	// research's contract names gpt-4o: o200k_base, as --tokens says.
	for _, args := range [][]string{
		{"render", "research", "--dir", set, "--vars", set + "/vars/research.json", "--budget", "80"},
		{"render", "--budget", "80", "--tokens", "o200k_base", "--dir", set, "research", "--vars", set + "/vars/research.json"},
	} {
		code, out, errOut := runCLI(t, "", args...)
		require.Equal(t, 0, code, errOut)
		require.Equal(t, string(want), out)
		require.Equal(t, "cut templates/research.md:8:1: block (priority 1): dropped, 17 tokens\n"+
			"cut templates/research.md:5:1: items (priority 1): 1 cut from the end, 20 tokens\n"+
			fmt.Sprintf("80 tokens (o200k_base), within the budget of 80, %d bytes\n", len(want)), errOut)
	}

	code, out, errOut := runCLI(t, "", "render", "research", "--dir", set, "--vars", set+"/vars/research.json", "--budget", "30")
	require.Equal(t, 1, code)
	require.Empty(t, out)
	require.Equal(t, "promptkit render: templates/research.md: template \"research\": needs 40 tokens (o200k_base) with every cut its marks allow (3 cuts), 10 over the budget of 30\n", errOut)

	want, err = os.ReadFile(set + "/golden/support-36.json")
	require.NoError(t, err)
	code, out, errOut = runCLI(t, "", "render", "--messages", "support", "--dir", set, "--vars", set+"/vars/support.json", "--budget", "40", "--tokens", "o200k_base")
	require.Equal(t, 0, code, errOut)
	require.Equal(t, string(want), out)
	require.Equal(t, "cut templates/support.md:2:16: message (priority 0): dropped, 22 tokens\n"+
		"cut templates/support.md:3:1: items (priority 1): 1 cut from the start, 9 tokens\n"+
		"36 tokens (o200k_base) in the messages' text, within the budget of 40; without the tokens a model's chat format adds\n", errOut)

	// support's contract names no model: --tokens is needed.
	code, _, errOut = runCLI(t, "", "render", "--messages", "support", "--dir", set, "--vars", set+"/vars/support.json", "--budget", "40")
	require.Equal(t, 1, code)
	require.Contains(t, errOut, "a token budget needs a tokenizer: none was given and the call contract names no model")
	code, _, errOut = runCLI(t, "", "render", "research", "--dir", set, "--vars", set+"/vars/research.json", "--budget", "-1")
	require.Equal(t, 2, code)
	require.Contains(t, errOut, "promptkit render: --budget -1: want a number of tokens, 1 or more")
}

// check proves each declared budget, or reports the template that may
// exceed it (exit 1).
func TestCheckBudget(t *testing.T) {
	code, out, errOut := runCLI(t, "", "check", "../../manager/testdata/budgetcheck")
	require.Equal(t, 1, code, errOut)
	require.Contains(t, out+errOut, `templates/research.md: template "research_small": budget: a render may need 10806 tokens (cl100k_base) after every allowed cut, over the budget of 2000 by 8806: docs up to 8718, question up to 2000`)
	require.Contains(t, out+errOut, `template "loose": budget: cannot prove that every render fits 4000 tokens (o200k_base)`)
	require.NotContains(t, out+errOut, `template "research":`)
}
