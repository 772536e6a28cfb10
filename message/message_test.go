package message_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/seed-e7d2830f/promptkit/message"
)

func TestMessageText(t *testing.T) {
	assert.Equal(t, "", message.Message{}.Text())
	assert.Equal(t, "hi", message.Text("user", "hi").Text())
	assert.Equal(t, message.Message{Role: "user"}, message.Text("user", ""), "no part for no text")
	assert.Equal(t, "a\nb", message.Message{Parts: []message.Part{
		{Type: message.PartText, Text: "a"}, {Type: message.PartImage, URL: "https://e.x/i.png"}, {Type: message.PartText, Text: "b"},
	}}.Text())
}

func TestToolResult(t *testing.T) {
	call := message.ToolCall{ID: "call_1", Name: "get_weather", Arguments: `{}`}
	assert.Equal(t, message.Message{Role: message.RoleTool, ToolCallID: "call_1", Name: "get_weather",
		Parts: []message.Part{{Type: message.PartText, Text: "晴"}}}, message.ToolResult(call, "晴"))
}

func TestDecodeArguments(t *testing.T) {
	type weather struct {
		City string `json:"city"`
		Days int    `json:"days"`
	}
	var w weather
	call := message.ToolCall{ID: "call_1", Name: "get_weather", Arguments: `{"city": "北京", "days": 3}`}
	require.NoError(t, call.DecodeArguments(&w))
	assert.Equal(t, weather{City: "北京", Days: 3}, w)

	object := call
	object.ObjectArguments = true
	require.NoError(t, object.DecodeArguments(&w), "the same text, whichever way it is written")

	for _, tc := range []struct{ args, err string }{
		{`{"city": "北京", "dayz": 3}`, `message: invalid: the arguments of tool call "call_1" (get_weather): json: unknown field "dayz"`},
		{`{"city": "北京"`, `message: invalid: the arguments of tool call "call_1" (get_weather): unexpected EOF`},
		{`{"city": 1}`, `message: invalid: the arguments of tool call "call_1" (get_weather): json: cannot unmarshal number into Go struct field weather.city of type string`},
		{`{} {}`, `message: invalid: the arguments of tool call "call_1" (get_weather): data after the arguments`},
	} {
		call.Arguments = tc.args
		err := call.DecodeArguments(&w)
		assert.EqualError(t, err, tc.err)
		assert.ErrorIs(t, err, message.ErrInvalid)
	}
}
