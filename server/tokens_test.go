package server

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
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

// ?budget=N renders within N tokens: the prompt that fits, its count and
// each cut in headers; 422 over_budget when it cannot fit.
func TestRenderBudget(t *testing.T) {
	const set = "../manager/testdata/budget/"
	files := map[string]string{}
	for _, f := range []string{"index.json", "templates/research.md", "templates/support.md", "templates/plain.md"} {
		data, err := os.ReadFile(set + f)
		require.NoError(t, err)
		files[f] = string(data)
	}
	dir := t.TempDir()
	writeSet(t, dir, files)
	srv, err := New(Dir(dir)) // the default output limit: the prompts are longer than newDirServer's
	require.NoError(t, err)
	ts := httptest.NewServer(srv)
	t.Cleanup(func() {
		ts.Close()
		require.NoError(t, srv.Close())
	})
	research, err := os.ReadFile(set + "vars/research.json")
	require.NoError(t, err)
	want, err := os.ReadFile(set + "golden/research-80.txt")
	require.NoError(t, err)
	// research's contract names gpt-4o: o200k_base, with or without ?tokens.
	for _, q := range []string{"?budget=80", "?budget=80&tokens=o200k_base"} {
		r := call(t, ts, "POST", "/v1/templates/research:render"+q, string(research))
		require.Equal(t, http.StatusOK, r.code, r.body)
		require.Equal(t, string(want), r.body)
		require.Equal(t, "80", r.header.Get(HeaderTokens))
		require.Equal(t, "o200k_base", r.header.Get(HeaderTokenizer))
		require.Equal(t, []string{
			"templates/research.md:8:1: block (priority 1): dropped, 17 tokens",
			"templates/research.md:5:1: items (priority 1): 1 cut from the end, 20 tokens",
		}, r.header.Values(HeaderCut))
	}

	support, err := os.ReadFile(set + "vars/support.json")
	require.NoError(t, err)
	want, err = os.ReadFile(set + "golden/support-36.json")
	require.NoError(t, err)
	r := call(t, ts, "POST", "/v1/templates/support:messages?budget=40&tokens=o200k_base", string(support))
	require.Equal(t, http.StatusOK, r.code, r.body)
	require.JSONEq(t, string(want), r.body)
	require.Equal(t, "36", r.header.Get(HeaderTokens))
	require.Len(t, r.header.Values(HeaderCut), 2)

	for q, w := range map[string]struct {
		code       int
		kind, text string
	}{
		"research:render?budget=30":  {422, "over_budget", `needs 40 tokens (o200k_base) with every cut its marks allow (3 cuts), 10 over the budget of 30`},
		"research:render?budget=0":   {400, "bad_request", "?budget=0: want a number of tokens, 1 or more"},
		"research:request?budget=80": {400, "bad_request", "?budget= renders within a token budget on :render and :messages, not :request"},
	} {
		r := call(t, ts, "POST", "/v1/templates/"+q, string(research))
		require.Equal(t, w.code, r.code, r.body)
		var p struct{ Kind, Error string }
		require.NoError(t, json.Unmarshal([]byte(r.body), &p))
		require.Equal(t, w.kind, p.Kind, q)
		require.Contains(t, p.Error, w.text, q)
		require.Empty(t, r.header.Values(HeaderCut))
	}
}
