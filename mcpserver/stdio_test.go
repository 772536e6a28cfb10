package mcpserver_test

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A client that writes its requests and closes its end, as a shell pipe
// does, still gets every answer: the end of the input waits for them.
func TestRunIOAnswersWhatItRead(t *testing.T) {
	ctx := testContext(t, 30*time.Second)
	_, s := openSet(t, "testdata/set")
	in := strings.Join([]string{
		`{"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "sh", "version": "0"}}}`,
		`{"jsonrpc": "2.0", "method": "notifications/initialized"}`,
		`{"jsonrpc": "2.0", "id": 2, "method": "prompts/get", "params": {"name": "title", "arguments": {"intnet": "查天气"}}}`,
		`{"jsonrpc": "2.0", "id": 3, "method": "prompts/get", "params": {"name": "digest", "arguments": {"days": "7", "level": "2"}}}`,
		`{"jsonrpc": "2.0", "id": 4, "method": "prompts/list"}`,
	}, "\n") + "\n"
	var out syncBuffer
	require.NoError(t, s.RunIO(ctx, strings.NewReader(in), &out))

	answers := map[string]json.RawMessage{}
	for _, line := range strings.Split(strings.TrimSpace(out.String()), "\n") {
		var a struct {
			ID     json.RawMessage
			Result json.RawMessage
			Error  json.RawMessage
		}
		require.NoError(t, json.Unmarshal([]byte(line), &a), line)
		answers[string(a.ID)] = append(a.Result, a.Error...)
	}
	require.Len(t, answers, 4, out.String())
	assert.Contains(t, string(answers["2"]), `did you mean \"intent\"?`)
	assert.Contains(t, string(answers["3"]), "汇总最近 7 天的消息，详细程度 2。")
	assert.Contains(t, string(answers["4"]), `"name":"support"`)
}
