package manager_test

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/seed-e7d2830f/promptkit/manager"
)

func TestMessageJSON(t *testing.T) {
	tests := []struct {
		name string
		msg  manager.Message
		json string
	}{
		{"text", text("system", "Be brief."), `{"role":"system","content":"Be brief."}`},
		{"empty", manager.Message{Role: "user"}, `{"role":"user","content":""}`},
		{"image only", manager.Message{Role: "user", Parts: []manager.Part{{Type: manager.PartImage, URL: "https://e.x/a.png"}}},
			`{"role":"user","content":[{"type":"image_url","image_url":{"url":"https://e.x/a.png"}}]}`},
		{"two text parts", manager.Message{Role: "user", Parts: []manager.Part{{Type: manager.PartText, Text: "a"}, {Type: manager.PartText, Text: "b"}}},
			`{"role":"user","content":[{"type":"text","text":"a"},{"type":"text","text":"b"}]}`},
		{"empty text part", manager.Message{Role: "user", Parts: []manager.Part{{Type: manager.PartText, Text: ""}, {Type: manager.PartImage, URL: "https://e.x/a.png"}}},
			`{"role":"user","content":[{"type":"text","text":""},{"type":"image_url","image_url":{"url":"https://e.x/a.png"}}]}`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			data, err := json.Marshal(tc.msg)
			require.NoError(t, err)
			assert.JSONEq(t, tc.json, string(data))
			var back manager.Message
			require.NoError(t, json.Unmarshal(data, &back))
			assert.Equal(t, tc.msg, back)
		})
	}
}

func TestMessageUnmarshalForms(t *testing.T) {
	var m manager.Message
	require.NoError(t, json.Unmarshal([]byte(`{"role":"assistant","content":null}`), &m))
	assert.Equal(t, manager.Message{Role: "assistant"}, m)

	err := json.Unmarshal([]byte(`{"role":"user","content":[{"type":"audio","audio":{}}]}`), &m)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "unsupported message part")

	err = json.Unmarshal([]byte(`{"role":"user","content":[{"type":"text"}]}`), &m)
	require.Error(t, err, "a text part without text")

	_, err = json.Marshal(manager.Message{Role: "user", Parts: []manager.Part{{Type: "video"}, {Type: manager.PartText}}})
	require.Error(t, err)
	assert.Contains(t, err.Error(), `unknown message part type "video"`)
}

func TestMessageText(t *testing.T) {
	assert.Equal(t, "", manager.Message{}.Text())
	assert.Equal(t, "hi", text("user", "hi").Text())
	assert.Equal(t, "a\nb", manager.Message{Parts: []manager.Part{
		{Type: manager.PartText, Text: "a"}, {Type: manager.PartImage, URL: "https://e.x/i.png"}, {Type: manager.PartText, Text: "b"},
	}}.Text())
}
