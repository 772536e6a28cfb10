package openaichat_test

import (
	"encoding/json"

	"path/filepath"
	"strings"
	"testing"

	"github.com/openai/openai-go/v3"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/seed-e7d2830f/promptkit/message"
	"github.com/seed-e7d2830f/promptkit/providers/internal/sdktest"
	"github.com/seed-e7d2830f/promptkit/providers/openaichat"
)

// TestRequestGolden: each provider-neutral request of testdata/requests,
// converted and sent by the SDK, is the request in
// testdata/openai/requests (go test -update rewrites them).
func TestRequestGolden(t *testing.T) {
	for _, name := range sdktest.Requests(t) {
		t.Run(name, func(t *testing.T) {
			params, err := openaichat.Request(sdktest.Request(t, name))
			require.NoError(t, err)
			sdktest.Golden(t, filepath.Join("..", "testdata", "openai", "requests", name+".json"), send(t, params))
		})
	}
}

// Every known setting that OpenAI takes is written to the field the
// settings' table names for it.
func TestRequestSettingsTable(t *testing.T) {
	for _, k := range message.SettingKeys() {
		field, ok := k.Fields["openai"]
		if !ok {
			continue
		}
		t.Run(k.Key, func(t *testing.T) {
			s, err := message.DecodeSettings([]byte(`{"` + k.Key + `": ` + sdktest.Sample(k) + `}`))
			require.NoError(t, err)
			params, err := openaichat.Request(message.Request{Model: s, Messages: []message.Message{message.Text(message.RoleUser, "x")}})
			require.NoError(t, err)
			var body map[string]any
			require.NoError(t, json.Unmarshal(send(t, params), &body))
			assert.True(t, sdktest.Has(body, strings.Split(field, ".")), "%s is written to %s: %v", k.Key, field, body)
		})
	}
}

func TestRequestWithoutOutputOrTools(t *testing.T) {
	params, err := openaichat.Request(message.Request{Messages: []message.Message{message.Text(message.RoleUser, "x")}})
	require.NoError(t, err)
	params.Model = openai.ChatModelGPT4o
	assert.JSONEq(t, `{"model": "gpt-4o", "messages": [{"role": "user", "content": "x"}]}`, string(send(t, params)))
}

func TestRequestErrors(t *testing.T) {
	_, err := openaichat.Request(message.Request{Messages: []message.Message{message.Text("ipython", "x")}})
	assert.ErrorIs(t, err, openaichat.ErrUnsupported)
	_, err = openaichat.Request(message.Request{Messages: []message.Message{message.Text(message.RoleUser, "x")},
		Model: message.Settings{Provider: map[string]json.RawMessage{"openai": json.RawMessage(`[]`)}}})
	assert.ErrorIs(t, err, openaichat.ErrUnsupported)
}
