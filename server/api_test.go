package server

import (
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"

	"github.com/seed-e7d2830f/promptkit"
	"github.com/seed-e7d2830f/promptkit/builders"
	"github.com/seed-e7d2830f/promptkit/manager"
	"github.com/seed-e7d2830f/promptkit/message"
	"github.com/seed-e7d2830f/promptkit/service"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestRender(t *testing.T) {
	dir, _, ts := newDirServer(t, testFiles)
	m, err := manager.Open(dir) // the oracle: the Go API on the same files
	require.NoError(t, err)
	defer m.Close()
	hashes := map[string]string{}
	for _, tpl := range m.Templates() {
		hashes[tpl.Name] = tpl.Hash
	}

	cases := []struct {
		name, path, body string
		vars             map[string]any
		want             string
	}{
		{"text", "/v1/templates/greet:render", `{"name": "Ada"}`, map[string]any{"name": "Ada"}, ""},
		{"default overridden", "/v1/templates/greet:render", `{"name": "Ada", "tone": "dry"}`, map[string]any{"name": "Ada", "tone": "dry"}, ""},
		{"unicode and markup unescaped", "/v1/templates/greet:render", `{"name": "<b>麦麦</b> & co"}`, map[string]any{"name": "<b>麦麦</b> & co"}, ""},
		{"dots and dashes, defaults, None", "/v1/templates/notes.v2-beta:render", ``, nil, "- a\n- 1\nNone"},
		{"numbers keep their form", "/v1/templates/notes.v2-beta:render", `{"items": [30, 1.5, true, null]}`, nil, "- 30\n- 1.5\n- True\n- None\nNone"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := call(t, ts, "POST", tc.path, tc.body)
			require.Equal(t, http.StatusOK, r.code, r.body)
			assert.Equal(t, "text/plain; charset=utf-8", r.header.Get("Content-Type"))
			want := tc.want
			if tc.vars != nil {
				name, _, _ := splitCall(strings.TrimPrefix(tc.path, "/v1/templates/"))
				want, err = m.Render(name, tc.vars)
				require.NoError(t, err)
			}
			assert.Equal(t, want, r.body)
			assert.Equal(t, m.Digest(), r.header.Get(HeaderDigest))
			assert.Equal(t, "1", r.header.Get(HeaderGeneration))
			name, _, _ := splitCall(strings.TrimPrefix(tc.path, "/v1/templates/"))
			assert.Equal(t, hashes[name], r.header.Get(HeaderTemplateHash))
		})
	}
}

func TestMessages(t *testing.T) {
	dir, _, ts := newDirServer(t, testFiles)
	m, err := manager.Open(dir)
	require.NoError(t, err)
	defer m.Close()

	for _, tc := range []struct {
		name, path, body string
		vars             map[string]any
	}{
		{"chat template", "/v1/templates/chat.v1-x:messages", `{"bot": "Mai", "q": "hi"}`, map[string]any{"bot": "Mai", "q": "hi"}},
		{"image part", "/v1/templates/chat.v1-x:messages", `{"bot": "Mai", "q": "look", "pic": "https://example.com/a.png"}`,
			map[string]any{"bot": "Mai", "q": "look", "pic": "https://example.com/a.png"}},
		{"text template as one user message", "/v1/templates/greet:messages", `{"name": "Ada"}`, map[string]any{"name": "Ada"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := call(t, ts, "POST", tc.path, tc.body)
			require.Equal(t, http.StatusOK, r.code, r.body)
			assert.Equal(t, "application/json", r.header.Get("Content-Type"))
			name, _, _ := splitCall(strings.TrimPrefix(tc.path, "/v1/templates/"))
			msgs, err := m.RenderMessages(name, tc.vars)
			require.NoError(t, err)
			want, err := json.Marshal(msgs)
			require.NoError(t, err)
			assert.JSONEq(t, string(want), r.body)
			var back []manager.Message
			require.NoError(t, json.Unmarshal([]byte(r.body), &back))
			assert.Equal(t, msgs, back)
		})
	}
}

func TestErrorKinds(t *testing.T) {
	_, _, ts := newDirServer(t, testFiles, WithMaxBodyBytes(64))
	cases := []struct {
		name, method, path, body string
		code                     int
		kind, template, tpath    string
		line                     int
		vars                     []string
	}{
		{"unknown template", "POST", "/v1/templates/nope:render", `{}`, 404, "unknown_template", "nope", "", 0, nil},
		{"unknown template, GET", "GET", "/v1/templates/nope", ``, 404, "unknown_template", "nope", "", 0, nil},
		{"missing variables", "POST", "/v1/templates/chat.v1-x:messages", `{}`, 422, "missing_variables", "chat.v1-x", "chat.md", 0, []string{"bot", "q"}},
		{"extra variables", "POST", "/v1/templates/greet:render", `{"name": "a", "nmae": "b"}`, 422, "extra_variables", "greet", "greet.md", 0, []string{"nmae"}},
		{"chat template as text", "POST", "/v1/templates/chat.v1-x:render", `{"bot": "a", "q": "b"}`, 409, "chat_template", "chat.v1-x", "chat.md", 0, nil},
		{"output limit", "POST", "/v1/templates/big:render", `{"n": 20}`, 422, "output_limit", "big", "big.md", 1, nil},
		{"render-time error", "POST", "/v1/templates/attr:render", `{"n": 1}`, 422, "template", "attr", "attr.md", 2, nil},
		{"invalid JSON", "POST", "/v1/templates/greet:render", `{"name": `, 400, "bad_request", "", "", 0, nil},
		{"not an object", "POST", "/v1/templates/greet:render", `["name"]`, 400, "bad_request", "", "", 0, nil},
		{"two values", "POST", "/v1/templates/greet:render", `{} {}`, 400, "bad_request", "", "", 0, nil},
		{"body too large", "POST", "/v1/templates/greet:render", `{"name": "` + strings.Repeat("x", 100) + `"}`, 413, "request_too_large", "", "", 0, nil},
		{"unknown action", "POST", "/v1/templates/greet:frobnicate", `{}`, 404, "not_found", "", "", 0, nil},
		{"no action", "POST", "/v1/templates/greet", `{}`, 404, "not_found", "", "", 0, nil},
		{"empty name", "POST", "/v1/templates/:render", `{}`, 404, "not_found", "", "", 0, nil},
		{"unknown endpoint", "GET", "/v2/nothing", ``, 404, "not_found", "", "", 0, nil},
		{"preview off", "GET", "/", ``, 404, "not_found", "", "", 0, nil},
		{"wrong method", "DELETE", "/v1/templates", ``, 405, "method_not_allowed", "", "", 0, nil},
		{"GET of a call", "GET", "/v1/templates/greet:render", ``, 405, "method_not_allowed", "", "", 0, nil},
		{"no service for this set", "GET", "/v1/builders", ``, 503, "no_service", "", "", 0, nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := call(t, ts, tc.method, tc.path, tc.body)
			require.Equal(t, tc.code, r.code, r.body)
			p := r.problem(t)
			assert.Equal(t, tc.kind, p.Kind)
			assert.Equal(t, tc.template, p.Template)
			assert.Equal(t, tc.tpath, p.Path)
			assert.Equal(t, tc.line, p.Line)
			if tc.vars != nil {
				assert.Equal(t, tc.vars, p.Variables)
			}
			assert.NotEmpty(t, p.Message)
			assert.Equal(t, "1", r.header.Get(HeaderGeneration), "errors name the set too")
			assert.NotEmpty(t, r.header.Get(HeaderDigest))
			if tc.code == 405 {
				assert.NotEmpty(t, r.header.Get("Allow"))
			}
		})
	}
}

func TestErrorFieldsMatchGo(t *testing.T) {
	// The JSON of an error carries the fields of the Go *manager.Error.
	dir, _, ts := newDirServer(t, testFiles)
	m, err := manager.Open(dir, manager.WithMaxOutputBytes(100))
	require.NoError(t, err)
	defer m.Close()
	_, goErr := m.Render("attr", map[string]any{"n": int64(1)})
	var me *manager.Error
	require.True(t, errors.As(goErr, &me))

	p := call(t, ts, "POST", "/v1/templates/attr:render", `{"n": 1}`).problem(t)
	assert.Equal(t, manager.ErrorKind(goErr), p.Kind)
	assert.Equal(t, me.Template, p.Template)
	assert.Equal(t, me.Path, p.Path)
	assert.Equal(t, me.Line, p.Line)
	assert.Equal(t, me.Col, p.Column)
	assert.Equal(t, me.Msg, p.Message)
	assert.Equal(t, me.Error(), p.Error)
}

func TestTemplatesList(t *testing.T) {
	dir, _, ts := newDirServer(t, testFiles)
	m, err := manager.Open(dir)
	require.NoError(t, err)
	defer m.Close()

	r := call(t, ts, "GET", "/v1/templates", "")
	require.Equal(t, http.StatusOK, r.code)
	var list struct {
		Digest     string `json:"digest"`
		Generation uint64 `json:"generation"`
		Templates  []struct {
			Name, Path, Description, Hash string
			Variables                     []map[string]any
		} `json:"templates"`
	}
	require.NoError(t, json.Unmarshal([]byte(r.body), &list))
	assert.Equal(t, m.Digest(), list.Digest)
	assert.Equal(t, m.Digest(), r.header.Get(HeaderDigest))
	assert.Equal(t, uint64(1), list.Generation)
	require.Len(t, list.Templates, len(m.Templates()))
	for i, tpl := range m.Templates() {
		got := list.Templates[i]
		assert.Equal(t, tpl.Name, got.Name)
		assert.Equal(t, tpl.Path, got.Path)
		assert.Equal(t, tpl.Description, got.Description)
		assert.Equal(t, tpl.Hash, got.Hash)
		require.Len(t, got.Variables, len(tpl.Variables))
		for j, v := range tpl.Variables {
			assert.Equal(t, v.Name, got.Variables[j]["name"])
			assert.Equal(t, v.Required, got.Variables[j]["required"])
			assert.Equal(t, v.HasDefault, got.Variables[j]["has_default"])
			_, present := got.Variables[j]["default"]
			assert.Equal(t, v.HasDefault, present, "default is there exactly when declared: %s.%s", tpl.Name, v.Name)
		}
	}
	// Defaults come back as the JSON they were declared as, null included.
	r = call(t, ts, "GET", "/v1/templates/notes.v2-beta", "")
	require.Equal(t, http.StatusOK, r.code, r.body)
	assert.JSONEq(t, `{"name": "notes.v2-beta", "path": "parts/notes.md", "description": "", "hash": "`+hashOf(m, "notes.v2-beta")+`",
	  "variables": [
	    {"name": "items", "required": false, "has_default": true, "default": ["a", 1], "description": ""},
	    {"name": "nothing", "required": false, "has_default": true, "default": null, "description": ""}]}`, r.body)
	r = call(t, ts, "GET", "/v1/templates/greet", "")
	assert.Contains(t, r.body, `{"name":"tone","required":false,"has_default":true,"default":"warm","description":"how to greet"}`)
	assert.Contains(t, r.body, `{"name":"name","required":true,"has_default":false,"description":""}`)
}

func hashOf(m *manager.Manager, name string) string {
	t, _ := m.Lookup(name)
	return t.Hash
}

// cliService is the service cmd/promptkit builds: the scene builders and rag_answer.
func cliService(m *manager.Manager) (*service.Service, error) {
	return service.New(m, service.WithDefaultBuilders())
}

func TestBuilders(t *testing.T) {
	s, err := New(FS(promptkit.FS()), WithService(cliService))
	require.NoError(t, err)
	defer s.Close()
	ts := httptest.NewServer(s)
	defer ts.Close()
	m, err := manager.New(promptkit.FS())
	require.NoError(t, err)
	svc, err := cliService(m)
	require.NoError(t, err)

	r := call(t, ts, "GET", "/v1/builders", "")
	require.Equal(t, http.StatusOK, r.code, r.body)
	var list struct {
		Builders []struct {
			Name, Template string
			Keys           []string
		}
	}
	require.NoError(t, json.Unmarshal([]byte(r.body), &list))
	require.Len(t, list.Builders, len(svc.Builders()))
	for i, b := range svc.Builders() {
		assert.Equal(t, b.Name, list.Builders[i].Name)
		assert.Equal(t, b.Template, list.Builders[i].Template)
	}

	task := builders.Task{ID: "t-1", Title: "天气", Intent: "查明天北京的天气"}
	want, err := svc.Build("title", builders.Task{}, map[string]any{"intent": "帮我查一下明天北京会不会下雨"})
	require.NoError(t, err)
	r = call(t, ts, "POST", "/v1/builders/title:build", `{"data": {"intent": "帮我查一下明天北京会不会下雨"}}`)
	require.Equal(t, http.StatusOK, r.code, r.body)
	assert.Equal(t, "text/plain; charset=utf-8", r.header.Get("Content-Type"))
	assert.Equal(t, want, r.body)
	assert.Equal(t, m.Digest(), r.header.Get(HeaderDigest))

	want, err = svc.Build("agent_system", task, map[string]any{"bot_name": "小爱"})
	require.NoError(t, err)
	r = call(t, ts, "POST", "/v1/builders/agent_system:build",
		`{"task": {"id": "t-1", "title": "天气", "intent": "查明天北京的天气"}, "data": {"bot_name": "小爱"}}`)
	require.Equal(t, http.StatusOK, r.code, r.body)
	assert.Equal(t, want, r.body)

	// A builder of messages answers with their JSON, as :messages does.
	input, err := os.ReadFile("../rag/testdata/golden/kb_only.input.json")
	require.NoError(t, err)
	v, err := manager.DecodeJSON(input)
	require.NoError(t, err)
	msgs, err := svc.BuildMessages("rag_answer", builders.Task{}, v.(map[string]any))
	require.NoError(t, err)
	wantJSON, err := json.Marshal(msgs)
	require.NoError(t, err)
	r = call(t, ts, "POST", "/v1/builders/rag_answer:build", `{"data": `+string(input)+`}`)
	require.Equal(t, http.StatusOK, r.code, r.body)
	assert.Equal(t, "application/json", r.header.Get("Content-Type"))
	assert.JSONEq(t, string(wantJSON), r.body)

	// A history with tool calls, tool results and reasoning comes back
	// whole, in the messages' own JSON.
	history := `[{"role":"user","content":"北京明天天气如何？"},` +
		`{"role":"assistant","content":null,"reasoning_content":"查天气","tool_calls":[{"id":"call_1","type":"function","function":{"name":"get_weather","arguments":"{\"city\": \"北京\"}"}}]},` +
		`{"role":"tool","tool_call_id":"call_1","name":"get_weather","content":"晴"}]`
	r = call(t, ts, "POST", "/v1/builders/rag_answer:build",
		`{"data": {"question": "后天呢？", "documents": [{"chunks": [{"text": "预报每天更新"}]}], "history": `+history+`}}`)
	require.Equal(t, http.StatusOK, r.code, r.body)
	got, err := message.DecodeMessages([]byte(r.body))
	require.NoError(t, err)
	require.Len(t, got, 5)
	kept, err := message.EncodeMessages(got[1:4])
	require.NoError(t, err)
	assert.Equal(t, history, string(kept))
	r = call(t, ts, "POST", "/v1/builders/rag_answer:build",
		`{"data": {"question": "q", "documents": [{"chunks": [{"text": "x"}]}], "history": [{"role": "assistant", "tool_calls": [{"id": "c", "function": {"name": "f", "argumnets": "{}"}}]}]}}`)
	assert.Equal(t, http.StatusUnprocessableEntity, r.code)
	assert.Contains(t, r.body, `"key":"history[0]"`)
	assert.Contains(t, r.body, `"message":"tool_calls[0].function.argumnets: unknown field; did you mean \"arguments\"?"`)

	for _, tc := range []struct {
		name, path, body string
		code             int
		kind, key        string
	}{
		{"unknown builder", "/v1/builders/agent:build", `{}`, 404, "unknown_builder", ""},
		{"unknown key", "/v1/builders/agent_system:build", `{"task": {"intent": "x"}, "data": {"bot_nmae": "x"}}`, 422, "unknown_key", "bot_nmae"},
		{"missing value", "/v1/builders/injection:build", `{}`, 422, "missing_value", "instruction"},
		{"invalid value", "/v1/builders/title:build", `{"data": {"intent": 3}}`, 422, "invalid_value", "intent"},
		{"invalid note kind", "/v1/builders/context_note:build", `{"data": {"kind": "note", "content": "x"}}`, 422, "invalid_kind", "kind"},
		{"no evidence", "/v1/builders/rag_answer:build", `{"data": {"question": "q"}}`, 422, "no_evidence", ""},
		{"unknown task field", "/v1/builders/title:build", `{"task": {"intnet": "x"}}`, 400, "bad_request", ""},
		{"unknown body key", "/v1/builders/title:build", `{"dat": {}}`, 400, "bad_request", ""},
		{"data not an object", "/v1/builders/title:build", `{"data": [1]}`, 400, "bad_request", ""},
		{"wrong action", "/v1/builders/title:render", `{}`, 404, "not_found", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := call(t, ts, "POST", tc.path, tc.body)
			require.Equal(t, tc.code, r.code, r.body)
			p := r.problem(t)
			assert.Equal(t, tc.kind, p.Kind, p.Error)
			assert.Equal(t, tc.key, p.Key)
			if tc.code == 422 && tc.kind != "no_evidence" {
				assert.NotEmpty(t, p.Builder)
			}
		})
	}
}

// panicky is a builder that panics, as a bug would.
type panicky struct{}

func (panicky) Name() string                           { return "panicky" }
func (panicky) Template() string                       { return "title" }
func (panicky) Keys() []string                         { return nil }
func (panicky) Build(builders.Context) (string, error) { panic("a bug") }

func TestBuilderPanicIsTheOnly500(t *testing.T) {
	s, err := New(FS(promptkit.FS()), WithService(func(m *manager.Manager) (*service.Service, error) {
		return service.New(m, service.WithBuilders(panicky{}))
	}))
	require.NoError(t, err)
	defer s.Close()
	ts := httptest.NewServer(s)
	defer ts.Close()
	r := call(t, ts, "POST", "/v1/builders/panicky:build", "")
	require.Equal(t, http.StatusInternalServerError, r.code, r.body)
	assert.Equal(t, "builder_panicked", r.problem(t).Kind)
	// The rest of the API is unaffected.
	assert.Equal(t, http.StatusOK, call(t, ts, "POST", "/v1/templates/title:render", `{"intent": "x"}`).code)
}

// An undefined value used in a strict set answers 422 with the
// expression as written, what it looked into and a suggestion.
func TestRenderUndefinedSaysWhereAndWhat(t *testing.T) {
	_, _, ts := newDirServer(t, map[string]string{
		"index.json": `{"version": 1, "templates": {"card": {"path": "card.md", "variables": ["d"]}}}`,
		"card.md":    "名字：\n  {{ d.nmae }}\n",
	})
	r := call(t, ts, "POST", "/v1/templates/card:render", `{"d": {"name": "阿明", "tags": []}}`)
	require.Equal(t, http.StatusUnprocessableEntity, r.code, r.body)
	var p Problem
	require.NoError(t, json.Unmarshal([]byte(r.body), &p))
	assert.Equal(t, "undefined", p.Kind)
	assert.Equal(t, "card.md", p.Path)
	assert.Equal(t, 2, p.Line)
	assert.Equal(t, 6, p.Column)
	assert.Equal(t, "d.nmae", p.Expression)
	assert.Equal(t, "a dict with keys name, tags", p.Value)
	assert.Equal(t, "name", p.Suggestion)
	assert.Contains(t, p.Message, `did you mean "name"?`)
}

// A render's JSON keeps the order of its objects' keys, as Python's
// json.loads does: {"z": 1, "a": 2} loops as z, a.
func TestRenderKeepsJSONKeyOrder(t *testing.T) {
	_, _, ts := newDirServer(t, map[string]string{
		"index.json": `{"version": 1, "templates": {"t": {"path": "t.md", "variables": ["d"]}}}`,
		"t.md":       "{% for k, v in d.items() %}{{ k }}={{ v }} {% endfor %}{{ d }}",
	})
	r := call(t, ts, "POST", "/v1/templates/t:render", `{"d": {"z": 1, "a": [{"y": 2, "b": 3}]}}`)
	require.Equal(t, http.StatusOK, r.code, r.body)
	assert.Equal(t, "z=1 a=[{'y': 2, 'b': 3}] {'z': 1, 'a': [{'y': 2, 'b': 3}]}", r.body)
	r = call(t, ts, "POST", "/v1/templates/t:render", `[1]`)
	assert.Equal(t, http.StatusBadRequest, r.code, r.body)
}
