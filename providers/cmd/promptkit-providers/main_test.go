package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/seed-e7d2830f/promptkit/manager"
	"github.com/seed-e7d2830f/promptkit/server"
)

// normalized is JSON with its keys sorted and no spaces.
func normalized(t *testing.T, data []byte) string {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var v any
	require.NoError(t, dec.Decode(&v))
	out, err := json.Marshal(v)
	require.NoError(t, err)
	return string(out)
}

// convert prints what each SDK sends for a request: the golden bodies the
// adapters' tests captured from the SDKs' clients.
func TestConvert(t *testing.T) {
	in, err := os.ReadFile("../../testdata/requests/weather.json")
	require.NoError(t, err)
	for _, provider := range []string{"openai", "anthropic"} {
		var out, errb bytes.Buffer
		code := run(context.Background(), []string{"convert", "-", "--provider", provider}, bytes.NewReader(in), &out, &errb)
		require.Equal(t, 0, code, errb.String())
		want, err := os.ReadFile(filepath.Join("../../testdata", provider, "requests", "weather.json"))
		require.NoError(t, err)
		assert.Equal(t, normalized(t, want), normalized(t, out.Bytes()), provider)
	}
}

func TestConvertErrors(t *testing.T) {
	for _, tc := range []struct {
		args  []string
		stdin string
		code  int
		msg   string
	}{
		{[]string{"convert", "--provider", "gemini"}, `{"messages": []}`, 2, `unknown provider "gemini" (known: anthropic, openai)`},
		{[]string{"convert"}, `{"messages": []}`, 2, "want --provider NAME"},
		{[]string{"convert", "--provider", "openai"}, `{"mesages": []}`, 2, `mesages: unknown field; did you mean "messages"?`},
		{[]string{"convert", "--provider", "anthropic"}, `{"messages": [{"role": "user", "content": "x"}]}`, 1, "requires max_tokens"},
		{[]string{"frobnicate"}, ``, 2, `unknown command "frobnicate"`},
		{[]string{"serve", "extra"}, ``, 2, "serve takes no arguments"},
	} {
		var out, errb bytes.Buffer
		code := run(context.Background(), tc.args, strings.NewReader(tc.stdin), &out, &errb)
		assert.Equal(t, tc.code, code, tc.args)
		assert.Contains(t, errb.String(), tc.msg, tc.args)
		assert.True(t, strings.HasPrefix(errb.String(), "promptkit-providers "), errb.String())
	}
	var out bytes.Buffer
	assert.Equal(t, 0, run(context.Background(), []string{"--help"}, nil, &out, io.Discard))
	assert.Contains(t, out.String(), "Usage: promptkit-providers convert")
}

// serve's server answers ?provider=openai and ?provider=anthropic with
// what the adapters make of the template's request.
func TestServeProviders(t *testing.T) {
	s, err := server.New(server.Dir("../../testdata/set"), serverOptions()...)
	require.NoError(t, err)
	defer s.Close()
	ts := httptest.NewServer(s)
	defer ts.Close()
	m, err := manager.Open("../../testdata/set")
	require.NoError(t, err)
	defer m.Close()
	for provider, name := range map[string]string{"openai": "weather", "anthropic": "weather_claude"} {
		resp, err := http.Post(ts.URL+"/v1/templates/"+name+":request?provider="+provider, "application/json", strings.NewReader(`{"city": "北京"}`))
		require.NoError(t, err)
		body, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		require.NoError(t, err)
		require.Equal(t, http.StatusOK, resp.StatusCode, string(body))

		req, err := m.Request(context.Background(), name, map[string]any{"city": "北京"})
		require.NoError(t, err)
		data, err := json.Marshal(req)
		require.NoError(t, err)
		var want bytes.Buffer
		require.Equal(t, 0, run(context.Background(), []string{"convert", "--provider", provider}, bytes.NewReader(data), &want, io.Discard))
		assert.Equal(t, normalized(t, want.Bytes()), normalized(t, body), provider)
	}
}
