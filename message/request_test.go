package message_test

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/seed-e7d2830f/promptkit/message"
)

func TestRequestJSON(t *testing.T) {
	const in = `{"model":{"name":"gpt-4o","temperature":0.2},` +
		`"messages":[{"role":"system","content":"你是天气助手。"},{"role":"user","content":[{"type":"text","text":"北京？","cache_control":{"type":"ephemeral"}}]}],` +
		`"tools":[{"type":"function","function":{"name":"get_weather","description":"查询天气。","parameters":{"type":"object","properties":{"city":{"type":"string"}}}}}],` +
		`"output":{"name":"weather","schema":{"type":"object"},"strict":false}}`
	r, err := message.DecodeRequest([]byte(in))
	require.NoError(t, err)
	assert.Equal(t, "gpt-4o", r.Model.Name)
	require.Len(t, r.Messages, 2)
	assert.NotNil(t, r.Messages[1].Parts[0].CacheControl)
	require.Len(t, r.Tools, 1)
	assert.Equal(t, "weather", r.Output.Name)
	out, err := json.Marshal(r)
	require.NoError(t, err)
	assert.Equal(t, in, string(out), "a request writes back the JSON it was read from")

	// Nothing set, no tools, no output: only the messages.
	plain, err := json.Marshal(message.Request{Messages: []message.Message{message.Text(message.RoleUser, "hi")}})
	require.NoError(t, err)
	assert.Equal(t, `{"messages":[{"role":"user","content":"hi"}]}`, string(plain))
}

func TestDecodeRequestProblems(t *testing.T) {
	_, err := message.DecodeRequest([]byte(`{"model": {"temperature": 3}, "tols": [], "output": {"name": "a b", "schema": {}, "strict": true}}`))
	require.Error(t, err)
	assert.Equal(t, "model.temperature: 3 is out of its bounds (a number from 0 to 2)\n"+
		"tols: unknown field; did you mean \"tools\"?\n"+
		"output.name: \"a b\" is not a schema name (^[A-Za-z0-9_-]{1,64}$)\n"+
		"messages: missing: a request has messages", err.Error())
	assert.ErrorIs(t, err, message.ErrUnknownField)

	_, err = message.DecodeRequest([]byte(`{"messages": [{"role": "user", "contnet": "x"}]}`))
	assert.EqualError(t, err, `messages[0].contnet: unknown field; did you mean "content"?`)
}
