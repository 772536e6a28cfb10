package main

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/seed-e7d2830f/promptkit/manager"
)

func TestRenderMessagesCommand(t *testing.T) {
	dir := writeSet(t, `{"version":1,"templates":{
  "c":{"path":"c.md","variables":["q","img"]},
  "t":{"path":"t.md","variables":["q"]}}}`,
		map[string]string{
			"c.md": "{% chat role=\"system\" %}Be brief.{% endchat %}\n{% chat role=\"user\" %}{{ q }} {{ img | image }}{% endchat %}\n",
			"t.md": "  Answer: {{ q }}\n",
		})

	code, stdout, stderr := runCLI(t, "", "render", "--messages", "c", "--dir", dir, "--var", "q=<b>&", "--var", "img=https://e.x/a.png?a=1&b=2")
	require.Equal(t, 0, code, stderr)
	assert.JSONEq(t, `[{"role":"system","content":"Be brief."},
		{"role":"user","content":[{"type":"text","text":"<b>&"},{"type":"image_url","image_url":{"url":"https://e.x/a.png?a=1&b=2"}}]}]`, stdout)
	assert.Contains(t, stdout, `"text": "<b>&"`, "no HTML escaping in the output")
	var msgs []manager.Message
	require.NoError(t, json.Unmarshal([]byte(stdout), &msgs))
	assert.Len(t, msgs, 2)

	code, stdout, stderr = runCLI(t, "", "render", "t", "--messages", "--dir", dir, "--var", "q=x")
	require.Equal(t, 0, code, stderr)
	assert.JSONEq(t, `[{"role":"user","content":"Answer: x"}]`, stdout)

	code, stdout, stderr = runCLI(t, "", "render", "c", "--dir", dir, "--var", "q=x", "--var", "img=https://e.x/a.png")
	assert.Equal(t, 1, code)
	assert.Empty(t, stdout)
	assert.Equal(t, `promptkit render: c.md: template "c" is a chat template: it renders to messages, not text; use --messages to print them as JSON`+"\n", stderr)
	assert.NotContains(t, stderr, "RenderMessages", "the CLI speaks in flags, not Go methods")

	code, _, stderr = runCLI(t, "", "render", "--messages", "c", "--dir", dir, "--var", "q=x", "--var", "img=page.png")
	assert.Equal(t, 1, code)
	assert.Contains(t, stderr, `c.md:2:`)
	assert.Contains(t, stderr, `never reads files`)
}
