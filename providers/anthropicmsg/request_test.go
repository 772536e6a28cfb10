package anthropicmsg_test

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/seed-e7d2830f/promptkit/message"
	"github.com/seed-e7d2830f/promptkit/providers/anthropicmsg"
	"github.com/seed-e7d2830f/promptkit/providers/internal/sdktest"
)

// TestRequestGolden: each provider-neutral request of testdata/requests
// that the Messages API can take, converted and sent by the SDK, is the
// request in testdata/anthropic/requests (go test -update rewrites
// them); the others are refused, naming what it cannot take.
func TestRequestGolden(t *testing.T) {
	refused := map[string]string{
		"sampling": "anthropicmsg: a request without max_output_tokens: the Messages API requires max_tokens (declare it in the model settings): anthropicmsg: no Messages API form",
	}
	for _, name := range sdktest.Requests(t) {
		t.Run(name, func(t *testing.T) {
			params, err := anthropicmsg.Request(sdktest.Request(t, name))
			if want, ok := refused[name]; ok {
				assert.EqualError(t, err, want)
				return
			}
			require.NoError(t, err)
			sdktest.Golden(t, filepath.Join("..", "testdata", "anthropic", "requests", name+".json"), send(t, params))
		})
	}
}

// Every known setting that Anthropic takes is written to the field the
// settings' table names for it; the others are refused.
func TestRequestSettingsTable(t *testing.T) {
	for _, k := range message.SettingKeys() {
		t.Run(k.Key, func(t *testing.T) {
			settings := `{"max_output_tokens": 10, "` + k.Key + `": ` + sdktest.Sample(k) + `}`
			if k.Key == "max_output_tokens" {
				settings = `{"max_output_tokens": 10}`
			}
			s, err := message.DecodeSettings([]byte(settings))
			require.NoError(t, err)
			params, err := anthropicmsg.Request(message.Request{Model: s, Messages: []message.Message{message.Text(message.RoleUser, "x")}})
			field, ok := k.Fields["anthropic"]
			if !ok {
				assert.ErrorIs(t, err, anthropicmsg.ErrUnsupported)
				assert.ErrorContains(t, err, k.Key+": the Messages API takes none")
				return
			}
			require.NoError(t, err)
			var body map[string]any
			require.NoError(t, json.Unmarshal(send(t, params), &body))
			assert.True(t, sdktest.Has(body, strings.Split(field, ".")), "%s is written to %s: %v", k.Key, field, body)
		})
	}
}

func TestRequestChoices(t *testing.T) {
	for choice, want := range map[string]string{
		"auto": `{"type": "auto"}`, "none": `{"type": "none"}`, "required": `{"type": "any"}`, "f": `{"type": "tool", "name": "f"}`,
	} {
		tokens := int64(10)
		params, err := anthropicmsg.Request(message.Request{Model: message.Settings{MaxOutputTokens: &tokens, ToolChoice: choice},
			Messages: []message.Message{message.Text(message.RoleUser, "x")}})
		require.NoError(t, err)
		got, err := json.Marshal(params.ToolChoice)
		require.NoError(t, err)
		assert.JSONEq(t, want, string(got), choice)
	}
}
