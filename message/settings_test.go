package message_test

import (
	"encoding/json"
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/seed-e7d2830f/promptkit/message"
)

func TestDecodeSettings(t *testing.T) {
	s, err := message.DecodeSettings([]byte(`{"name": "gpt-4o", "temperature": 0.2, "top_p": 1, "max_output_tokens": 512,
		"stop": ["END"], "reasoning_effort": "high", "seed": 7, "tool_choice": "get_weather", "parallel_tool_calls": false,
		"openai": {"presence_penalty": 0.5, "logit_bias": {"50256": -100}}, "anthropic": {"top_k": 40}}`))
	require.NoError(t, err)
	assert.Equal(t, "gpt-4o", s.Name)
	assert.Equal(t, 0.2, *s.Temperature)
	assert.Equal(t, 1.0, *s.TopP)
	assert.Equal(t, int64(512), *s.MaxOutputTokens)
	assert.Equal(t, []string{"END"}, s.Stop)
	assert.Equal(t, "high", s.ReasoningEffort)
	assert.Equal(t, int64(7), *s.Seed)
	assert.Equal(t, "get_weather", s.ToolChoice)
	assert.False(t, *s.ParallelToolCalls)
	assert.JSONEq(t, `{"presence_penalty": 0.5, "logit_bias": {"50256": -100}}`, string(s.Provider["openai"]))
	assert.JSONEq(t, `{"top_k": 40}`, string(s.Provider["anthropic"]))

	// It writes itself back: the known keys in the table's order, then
	// each provider.
	data, err := json.Marshal(s)
	require.NoError(t, err)
	assert.Equal(t, `{"name":"gpt-4o","temperature":0.2,"top_p":1,"max_output_tokens":512,"stop":["END"],"reasoning_effort":"high",`+
		`"seed":7,"tool_choice":"get_weather","parallel_tool_calls":false,"anthropic":{"top_k":40},`+
		`"openai":{"presence_penalty":0.5,"logit_bias":{"50256":-100}}}`, string(data))
	var back message.Settings
	require.NoError(t, json.Unmarshal(data, &back))
	assert.Equal(t, s, back)

	zero, err := json.Marshal(message.Settings{})
	require.NoError(t, err)
	assert.Equal(t, "{}", string(zero))
	assert.True(t, message.Settings{}.IsZero())
}

// Every problem of a settings object is reported, each naming its key.
func TestDecodeSettingsProblems(t *testing.T) {
	_, err := message.DecodeSettings([]byte(`{"name": "", "temprature": 0.2, "top_p": 2, "max_output_tokens": 1.5,
		"stop": ["a", "b", "c", "d", "e"], "reasoning_effort": "minimal", "seed": "7", "tool_choice": "get weather",
		"parallel_tool_calls": 1, "openai": {"messages": [], "max_completion_tokens": 5}, "anthropic": [], "gemini": {}}`))
	require.Error(t, err)
	require.ErrorIs(t, err, message.ErrSettings)
	want := []string{
		`name: empty: leave the setting out instead`,
		`temprature: not a setting; did you mean "temperature"?`,
		`top_p: 2 is out of its bounds (a number from 0 to 1)`,
		`max_output_tokens: want an integer, got 1.5`,
		`stop: 5 items, at most 4`,
		`reasoning_effort: "minimal" is not one of low, medium, high, xhigh, max`,
		`seed: want an integer, got a string`,
		`tool_choice: "get weather" is not a tool name (^[A-Za-z0-9_-]{1,64}$)`,
		`parallel_tool_calls: want true or false, got a number`,
		`openai.messages: promptkit fills openai's "messages" itself (from the template's messages, tools, output or settings)`,
		`openai.max_completion_tokens: "max_completion_tokens" is the setting "max_output_tokens": set it there, for every provider`,
		`anthropic: want the JSON object of anthropic's own settings, got a list`,
		`gemini: not a setting (settings: name, temperature, top_p, max_output_tokens, stop, reasoning_effort, seed, tool_choice, parallel_tool_calls; a provider's own go under its key: anthropic, openai)`,
	}
	var got []string
	for _, e := range err.(interface{ Unwrap() []error }).Unwrap() {
		var fe *message.FieldError
		require.True(t, errors.As(e, &fe))
		got = append(got, fe.Error())
	}
	assert.Equal(t, want, got)

	for _, bad := range []string{`[]`, `{"name": "a", "name": "b"}`, `{`} {
		_, err := message.DecodeSettings([]byte(bad))
		assert.ErrorIs(t, err, message.ErrSettings, bad)
	}
}

// The schema is made from the table: every setting, its type and bounds,
// and each provider's key refusing the fields promptkit fills.
func TestSettingsSchema(t *testing.T) {
	var s struct {
		Properties map[string]map[string]any `json:"properties"`
	}
	require.NoError(t, json.Unmarshal(message.SettingsSchema(), &s))
	for _, k := range message.SettingKeys() {
		require.Contains(t, s.Properties, k.Key)
		assert.Equal(t, k.Type, s.Properties[k.Key]["type"], k.Key)
	}
	assert.Equal(t, 2.0, s.Properties["temperature"]["maximum"])
	refused := s.Properties["openai"]["properties"].(map[string]any)
	assert.Equal(t, false, refused["max_completion_tokens"])
	assert.Equal(t, false, refused["messages"])
	assert.Len(t, s.Properties, len(message.SettingKeys())+len(message.ProviderKeys()))
}
