package server

import (
	"encoding/json"
	"net/http"
	"os"
	"strconv"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/seed-e7d2830f/promptkit/tokens"
)

func TestRenderTokens(t *testing.T) {
	qwen, err := tokens.ReadFile(os.DirFS("../tokens/testdata/tokenizers/qwen3"), "tokenizer.json.gz")
	require.NoError(t, err)
	_, _, ts := newDirServer(t, map[string]string{
		"index.json": `{"version": 1, "templates": {
			"t": {"path": "t.md", "variables": ["x"]},
			"c": {"path": "c.md", "variables": ["x"]}}}`,
		"t.md": "查询{{ x }}的天气",
		"c.md": `{% chat role="system" %}只用中文。{% endchat %}{% chat role="user" %}{{ x }}{% endchat %}`,
	}, WithTokenizer("qwen3", qwen))
	o200k, err := tokens.Encoding("o200k_base")
	require.NoError(t, err)

	// Without ?tokens, no count.
	r := call(t, ts, "POST", "/v1/templates/t:render", `{"x": "北京"}`)
	require.Equal(t, http.StatusOK, r.code, r.body)
	require.Equal(t, "查询北京的天气", r.body)
	require.Empty(t, r.header.Get(HeaderTokens))

	for name, tok := range map[string]*tokens.Tokenizer{"o200k_base": o200k, "qwen3": qwen} {
		r = call(t, ts, "POST", "/v1/templates/t:render?tokens="+name, `{"x": "北京"}`)
		require.Equal(t, http.StatusOK, r.code, r.body)
		require.Equal(t, "查询北京的天气", r.body, "the body stays the prompt")
		require.Equal(t, strconv.Itoa(tok.Count("查询北京的天气")), r.header.Get(HeaderTokens), name)
		require.Equal(t, name, r.header.Get(HeaderTokenizer))
	}

	r = call(t, ts, "POST", "/v1/templates/c:messages?tokens=o200k_base", `{"x": "明天呢？"}`)
	require.Equal(t, http.StatusOK, r.code, r.body)
	require.Equal(t, strconv.Itoa(o200k.Count("只用中文。")+o200k.Count("明天呢？")), r.header.Get(HeaderTokens))

	// An unknown name is the request's problem, with a suggestion; a
	// client cannot name a file.
	for q, want := range map[string]string{
		"o200k":                     `server: ?tokens=o200k: no such tokenizer; did you mean "o200k_base"? (GET /v1/tokenizers lists them)`,
		"../tokens/testdata/x.json": `server: ?tokens=../tokens/testdata/x.json: no such tokenizer (GET /v1/tokenizers lists them)`,
		"qwen3/tokenizer.json":      `server: ?tokens=qwen3/tokenizer.json: no such tokenizer (GET /v1/tokenizers lists them)`,
	} {
		r = call(t, ts, "POST", "/v1/templates/t:render?tokens="+q, `{"x": "北京"}`)
		require.Equal(t, http.StatusBadRequest, r.code, r.body)
		var p struct {
			Kind, Error string
		}
		require.NoError(t, json.Unmarshal([]byte(r.body), &p))
		require.Equal(t, "bad_request", p.Kind)
		require.Equal(t, want, p.Error)
	}

	// A failed render has no count.
	r = call(t, ts, "POST", "/v1/templates/t:render?tokens=o200k_base", `{}`)
	require.Equal(t, 422, r.code, r.body)
	require.Empty(t, r.header.Get(HeaderTokens))

	r = call(t, ts, "GET", "/v1/tokenizers", "")
	require.Equal(t, http.StatusOK, r.code)
	require.JSONEq(t, `{"tokenizers": ["cl100k_base", "o200k_base", "p50k_base", "p50k_edit", "qwen3", "r50k_base"]}`, r.body)
}

func TestWithTokenizerRefused(t *testing.T) {
	o, err := tokens.Encoding("o200k_base")
	require.NoError(t, err)
	for _, opt := range []Option{WithTokenizer("", o), WithTokenizer("x", nil), WithTokenizer("cl100k_base", o)} {
		_, err := New(Dir(t.TempDir()), opt)
		require.Error(t, err)
	}
}
