package server

import (
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/seed-e7d2830f/promptkit/message"
)

// contractServer serves manager/testdata/contract/good: templates with
// call contracts.
func contractServer(t *testing.T, opts ...Option) *httptest.Server {
	t.Helper()
	s, err := New(FS(os.DirFS("../manager/testdata/contract/good")), opts...)
	require.NoError(t, err)
	ts := httptest.NewServer(s)
	t.Cleanup(func() {
		ts.Close()
		require.NoError(t, s.Close())
	})
	return ts
}

// GET /v1/templates/{name} shows the template's call contract.
func TestTemplateShowsItsContract(t *testing.T) {
	ts := contractServer(t)
	r := call(t, ts, http.MethodGet, "/v1/templates/summary", "")
	require.Equal(t, http.StatusOK, r.code, r.body)
	var got struct {
		Contract json.RawMessage `json:"contract"`
	}
	require.NoError(t, json.Unmarshal([]byte(r.body), &got))
	assert.JSONEq(t, `{"model": {"name": "gpt-4o-mini", "temperature": 0}, "cache": {"message": 0}}`, string(got.Contract))

	r = call(t, ts, http.MethodGet, "/v1/templates/plain", "")
	assert.NotContains(t, r.body, `"contract"`, "a template without a contract shows none")

	r = call(t, ts, http.MethodGet, "/v1/templates", "")
	assert.Contains(t, r.body, `"tools":[{"type":"function","function":{"name":"get_weather"`)
}

func TestRequestEndpoint(t *testing.T) {
	ts := contractServer(t)
	r := call(t, ts, http.MethodPost, "/v1/templates/weather:request", `{"city": "北京"}`)
	require.Equal(t, http.StatusOK, r.code, r.body)
	assert.NotEmpty(t, r.header.Get(HeaderTemplateHash))
	req, err := message.DecodeRequest([]byte(r.body))
	require.NoError(t, err, "the answer is a provider-neutral request")
	require.Len(t, req.Messages, 2)
	assert.Equal(t, &message.CacheControl{TTL: "1h"}, req.Messages[0].CacheControl)
	assert.Equal(t, "weather", req.Output.Name)
	assert.Len(t, req.Tools, 2)

	// Variables are checked as for :render.
	p := call(t, ts, http.MethodPost, "/v1/templates/weather:request", `{}`).problem(t)
	assert.Equal(t, "missing_variables", p.Kind)

	// This server was given no provider: ?provider says where one is.
	r = call(t, ts, http.MethodPost, "/v1/templates/weather:request?provider=openai", `{"city": "北京"}`)
	assert.Equal(t, http.StatusBadRequest, r.code)
	p = r.problem(t)
	assert.Equal(t, "unknown_provider", p.Kind)
	assert.Contains(t, p.Message, "promptkit-providers")
	r = call(t, ts, http.MethodPost, "/v1/templates/weather:render?provider=openai", `{"city": "北京"}`)
	assert.Equal(t, http.StatusBadRequest, r.code)
}

// With WithProvider, ?provider answers the provider's request; what it
// cannot take is a 422 naming it.
func TestRequestEndpointWithProvider(t *testing.T) {
	ts := contractServer(t,
		WithProvider("echo", func(req message.Request) (any, error) {
			return map[string]any{"model": req.Model.Name, "messages": len(req.Messages)}, nil
		}),
		WithProvider("picky", func(message.Request) (any, error) { return nil, errors.New("picky: no tools, please") }))
	r := call(t, ts, http.MethodPost, "/v1/templates/weather:request?provider=echo", `{"city": "北京"}`)
	require.Equal(t, http.StatusOK, r.code, r.body)
	assert.JSONEq(t, `{"model": "gpt-4o", "messages": 2}`, r.body)

	r = call(t, ts, http.MethodPost, "/v1/templates/weather:request?provider=picky", `{"city": "北京"}`)
	assert.Equal(t, http.StatusUnprocessableEntity, r.code)
	assert.Equal(t, "picky: no tools, please", r.problem(t).Message)

	p := call(t, ts, http.MethodPost, "/v1/templates/weather:request?provider=claude", `{"city": "北京"}`).problem(t)
	assert.Equal(t, `unknown provider "claude" (this server converts for: echo, picky)`, p.Message)

	_, err := New(FS(os.DirFS("../manager/testdata/contract/good")), WithProvider("Echo", nil))
	assert.Error(t, err)
}
