package message_test

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/seed-e7d2830f/promptkit/message"
)

func TestMessageJSON(t *testing.T) {
	tests := []struct {
		name string
		msg  message.Message
		json string
	}{
		{"text", text("system", "Be brief."), `{"role":"system","content":"Be brief."}`},
		{"empty", message.Message{Role: "user"}, `{"role":"user","content":""}`},
		{"image only", message.Message{Role: "user", Parts: []message.Part{{Type: message.PartImage, URL: "https://e.x/a.png"}}},
			`{"role":"user","content":[{"type":"image_url","image_url":{"url":"https://e.x/a.png"}}]}`},
		{"two text parts", message.Message{Role: "user", Parts: []message.Part{{Type: message.PartText, Text: "a"}, {Type: message.PartText, Text: "b"}}},
			`{"role":"user","content":[{"type":"text","text":"a"},{"type":"text","text":"b"}]}`},
		{"empty text part", message.Message{Role: "user", Parts: []message.Part{{Type: message.PartText, Text: ""}, {Type: message.PartImage, URL: "https://e.x/a.png"}}},
			`{"role":"user","content":[{"type":"text","text":""},{"type":"image_url","image_url":{"url":"https://e.x/a.png"}}]}`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			data, err := json.Marshal(tc.msg)
			require.NoError(t, err)
			assert.JSONEq(t, tc.json, string(data))
			var back message.Message
			require.NoError(t, json.Unmarshal(data, &back))
			assert.Equal(t, tc.msg, back)
		})
	}
}

func TestMessageUnmarshalForms(t *testing.T) {
	var m message.Message
	require.NoError(t, json.Unmarshal([]byte(`{"role":"assistant","content":null}`), &m))
	assert.Equal(t, message.Message{Role: "assistant"}, m)

	err := json.Unmarshal([]byte(`{"role":"user","content":[{"type":"audio","audio":{}}]}`), &m)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "unsupported message part")

	err = json.Unmarshal([]byte(`{"role":"user","content":[{"type":"text"}]}`), &m)
	require.Error(t, err, "a text part without text")

	_, err = json.Marshal(message.Message{Role: "user", Parts: []message.Part{{Type: "video"}, {Type: message.PartText}}})
	require.Error(t, err)
	assert.Contains(t, err.Error(), `unknown message part type "video"`)
}

func TestMessageText(t *testing.T) {
	assert.Equal(t, "", message.Message{}.Text())
	assert.Equal(t, "hi", text("user", "hi").Text())
	assert.Equal(t, "a\nb", message.Message{Parts: []message.Part{
		{Type: message.PartText, Text: "a"}, {Type: message.PartImage, URL: "https://e.x/i.png"}, {Type: message.PartText, Text: "b"},
	}}.Text())
}

func text(role, s string) message.Message { return message.Text(role, s) }

func TestToolMessageName(t *testing.T) {
	m := message.Message{Role: message.RoleTool, Name: "weather", Parts: []message.Part{{Type: message.PartText, Text: "晴"}}}
	data, err := json.Marshal(m)
	require.NoError(t, err)
	assert.JSONEq(t, `{"role":"tool","name":"weather","content":"晴"}`, string(data))
	var back message.Message
	require.NoError(t, json.Unmarshal(data, &back))
	assert.Equal(t, m, back)
}
