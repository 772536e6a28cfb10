package main

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/seed-e7d2830f/promptkit/manager"
	"github.com/seed-e7d2830f/promptkit/message"
)

const contractSet = "../../manager/testdata/contract/good"

func TestRequestCommand(t *testing.T) {
	code, stdout, stderr := runCLI(t, "", "request", "weather", "--dir", contractSet, "--var", "city=北京")
	require.Equal(t, exitOK, code, stderr)
	got, err := message.DecodeRequest([]byte(stdout))
	require.NoError(t, err, "it prints a provider-neutral request")
	m, err := manager.Open(contractSet)
	require.NoError(t, err)
	defer m.Close()
	want, err := m.Request(context.Background(), "weather", map[string]any{"city": "北京"})
	require.NoError(t, err)
	wantJSON, err := json.Marshal(want)
	require.NoError(t, err)
	gotJSON, err := json.Marshal(got)
	require.NoError(t, err)
	assert.JSONEq(t, string(wantJSON), string(gotJSON), "what Manager.Request makes")
	assert.Contains(t, stdout, `"cache_control"`)

	runCases(t, []cliCase{
		{"a missing variable", "", []string{"request", "weather", "--dir", contractSet}, exitPrompt, "", "missing variables: city"},
		{"no name", "", []string{"request", "--dir", contractSet}, exitUsage, "", "request takes exactly one template name"},
		{"variables from stdin, flags after", `{"text": "一段文字"}`, []string{"request", "plain", "--vars", "-", "--dir", contractSet}, exitOK,
			`{
  "messages": [
    {
      "role": "user",
      "content": "请用三句话总结下面的文字。\n\n一段文字"
    }
  ]
}
`, ""},
	})
}

func TestListAndCheckShowTheContract(t *testing.T) {
	code, stdout, stderr := runCLI(t, "", "list", "--dir", contractSet)
	require.Equal(t, exitOK, code, stderr)
	assert.Contains(t, stdout, "[model gpt-4o; tools get_weather,get_time; output weather (strict); cache after message 0]")
	code, stdout, stderr = runCLI(t, "", "check", contractSet)
	require.Equal(t, exitOK, code, stderr)
	assert.Contains(t, stdout, `templates/summary.md: template "summary": contract: model gpt-4o-mini; cache after message 0`+"\n")

	// A set of contract mistakes: check names every one, with its place.
	code, stdout, _ = runCLI(t, "", "check", "../../manager/testdata/contract/bad")
	assert.Equal(t, exitPrompt, code)
	for _, want := range []string{
		`index.json:4:32: template "weather": model: temprature: not a setting; did you mean "temperature"?`,
		`index.json:7:15: template "weather": tool "get_weather" is declared twice: first at tools/weather.json:1:10`,
		`templates/greet.md:1:31: template "greet": cache: the cache breakpoint after message 0 needs the prefix before it to be the same for every render, and it depends on the variable "name"`,
		`index.json: templates.weather.cache.ttl: want one of "5m", "1h", got "2h" (schemas/index.schema.json)`,
	} {
		assert.Contains(t, stdout, want)
	}
	assert.False(t, strings.Contains(stdout, "ok: "), "a set with problems is not ok")
}
