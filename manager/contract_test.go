package manager_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/seed-e7d2830f/promptkit/manager"
	"github.com/seed-e7d2830f/promptkit/message"
)

// The set testdata/contract/good declares a call contract of each kind:
// model settings inline and from a file, tools inline and from a file,
// schemas with $refs into the set's files, an output schema and cache
// breakpoints after fixed text.
func TestContractLoads(t *testing.T) {
	m, err := manager.Open("testdata/contract/good")
	require.NoError(t, err)
	defer m.Close()

	w, ok := m.Lookup("weather")
	require.True(t, ok)
	c := w.Contract
	assert.Equal(t, "gpt-4o", c.Model.Name)
	assert.Equal(t, 0.2, *c.Model.Temperature)
	assert.Equal(t, int64(512), *c.Model.MaxOutputTokens)
	assert.Equal(t, "auto", c.Model.ToolChoice)
	assert.JSONEq(t, `{"presence_penalty": 0.5}`, string(c.Model.Provider["openai"]))

	require.Len(t, c.Tools, 2)
	assert.Equal(t, "get_weather", c.Tools[0].Name, "from tools/get_weather.json")
	assert.Equal(t, "查询城市未来几天的天气预报；城市不存在时返回错误。", c.Tools[0].Description)
	require.NotNil(t, c.Tools[0].Strict)
	assert.True(t, *c.Tools[0].Strict)
	// The $ref to ../schemas/city.json, relative to the tool's file, is
	// inside the parameters now: a provider cannot read the set.
	assert.Equal(t, `{"type":"object","properties":{"city":{"$ref":"#/$defs/city"},"days":{"type":"integer","minimum":1,"maximum":7}},`+
		`"required":["city","days"],"additionalProperties":false,"$defs":{"city":{"type":"string","minLength":1}}}`, string(c.Tools[0].Parameters))
	assert.Equal(t, "get_time", c.Tools[1].Name, "inline, its $ref relative to the set's root")
	assert.Contains(t, string(c.Tools[1].Parameters), `"$defs":{"city":{"type":"string","minLength":1}}`)

	require.NotNil(t, c.Output)
	assert.Equal(t, "weather", c.Output.Name)
	assert.True(t, c.Output.Strict, "every object closed, every property required")
	assert.Equal(t, `{"title":"WeatherAnswer","type":"object","properties":{"city":{"$ref":"#/$defs/city"},"days":{"type":"array","items":{"$ref":"#/$defs/day"}}},`+
		`"required":["city","days"],"additionalProperties":false,"$defs":{"day":{"type":"object","properties":{"date":{"type":"string"},"temp":{"type":"number"}},`+
		`"required":["date","temp"],"additionalProperties":false},"city":{"type":"string","minLength":1}}}`, string(c.Output.Schema))
	assert.Equal(t, &manager.Cache{Message: 0, TTL: "1h"}, c.Cache)

	s, _ := m.Lookup("summary")
	assert.Equal(t, "gpt-4o-mini", s.Contract.Model.Name, "from models/fast.json")
	assert.Equal(t, &manager.Cache{}, s.Contract.Cache, "a prefix of a fixed local")
	p, _ := m.Lookup("plain")
	assert.True(t, p.Contract.IsZero())

	// What Lookup returns is a copy.
	w.Contract.Tools[0].Name = "changed"
	again, _ := m.Lookup("weather")
	assert.Equal(t, "get_weather", again.Contract.Tools[0].Name)
}

// Every mistake of testdata/contract/bad is reported at once, each with
// its file, line and column.
func TestContractProblems(t *testing.T) {
	_, err := manager.Open("testdata/contract/bad")
	require.Error(t, err)
	var got []string
	for _, p := range manager.Problems(err) {
		line, _, _ := strings.Cut(p.Error(), "\n")
		got = append(got, manager.ErrorKind(p)+" "+line)
	}
	assert.Equal(t, []string{
		`contract index.json:4:32: template "weather": model: temprature: not a setting; did you mean "temperature"?`,
		`contract index.json:4:91: template "weather": model: openai.messages: promptkit fills openai's "messages" itself (from the template's messages, tools, output or settings)`,
		`contract index.json:8:25: template "weather": unknown key "descripton" of a tool; did you mean "description"?`,
		`contract index.json:9:25: template "weather": tool "search": description has a parameters section ("参数："); the input schema carries the parameters (parameter-section)`,
		`contract index.json:9:25: template "weather": tool "search": description lists parameters already in the input schema: "query"; keep names, types, required flags and defaults in the schema (parameter-listed)`,
		`schema index.json:10:79: template "weather": tool "broken": parameters: schema: not a valid JSON Schema: #/type: value must be one of 'array', 'boolean', 'integer', 'null', 'number', 'object', 'string'; #/type: got string, want array`,
		`contract index.json:11:77: template "weather": tool "scalar": parameters must be an object schema ("type": "object"): a model passes a tool its arguments as one JSON object`,
		`contract index.json:12:6: template "weather": a tool without a "name"`,
		`contract index.json:7:15: template "weather": tool "get_weather" is declared twice: first at tools/weather.json:1:10 (contextstack: tool name conflict)`,
		`schema index.json:14:14: template "weather": output: schema: cannot read schemas/missing.json: no such file (paths are relative to the template set's root)`,
		`contract index.json:15:35: template "weather": cache.ttl: want "5m" or "1h", got "2h"`,
		`contract index.json:4:51: template "weather": model: tool_choice: "get_wether" is not a tool of the template; did you mean "get_weather"?`,
		`contract templates/greet.md:1:31: template "greet": cache: the cache breakpoint after message 0 needs the prefix before it to be the same for every render, and it depends on the variable "name"`,
	}, got)
	assert.ErrorIs(t, err, manager.ErrContract)
	assert.ErrorIs(t, err, manager.ErrSchema)
	assert.ErrorIs(t, err, manager.ErrTemplate, "a contract problem is a kind of template problem")
	for _, p := range manager.Problems(err) {
		if p.Template == "greet" {
			assert.Equal(t, []string{"name"}, p.Variables, "the variable that breaks the prefix")
		}
	}
}

// A cache breakpoint after a variable is refused at load; one after only
// fixed text is accepted; an override is held to the same proof.
func TestCacheBreakpoint(t *testing.T) {
	set := func(tmpl string) fstest.MapFS {
		return fstest.MapFS{
			"index.json": {Data: []byte(`{"version": 1, "templates": {"t": {"path": "t.md", "variables": ["q"], "cache": {"message": 0}}}}`)},
			"t.md":       {Data: []byte(tmpl)},
		}
	}
	m, err := manager.New(set(`{% chat role="system" %}固定的说明。{% endchat %}{% chat role="user" %}{{ q }}{% endchat %}`))
	require.NoError(t, err)
	_, err = manager.New(set(`{% chat role="system" %}说明：{{ q }}{% endchat %}`))
	require.ErrorIs(t, err, manager.ErrContract)
	assert.EqualError(t, err, `t.md:1:31: template "t": cache: the cache breakpoint after message 0 needs the prefix before it to be the same for every render, and it depends on the variable "q"`)

	err = m.Override("t", `{% chat role="system" %}{% if q %}说明{% endif %}{% endchat %}{% chat role="user" %}{{ q }}{% endchat %}`)
	require.ErrorIs(t, err, manager.ErrContract)
	assert.Contains(t, err.Error(), `t.md (override):1:31: template "t": cache: the cache breakpoint after message 0`)
	require.NoError(t, m.Override("t", `{% chat role="system" %}另一段固定的说明。{% endchat %}{% chat role="user" %}{{ q }}{% endchat %}`))
}

func TestRequest(t *testing.T) {
	m, err := manager.Open("testdata/contract/good")
	require.NoError(t, err)
	defer m.Close()
	req, err := m.Request(context.Background(), "weather", map[string]any{"city": "北京"})
	require.NoError(t, err)
	require.Len(t, req.Messages, 2)
	assert.Equal(t, message.RoleSystem, req.Messages[0].Role)
	assert.Equal(t, &message.CacheControl{TTL: "1h"}, req.Messages[0].CacheControl, "the breakpoint's message")
	assert.Nil(t, req.Messages[1].CacheControl)
	assert.Equal(t, "北京未来 3 天的天气如何？", req.Messages[1].Text())
	assert.Len(t, req.Tools, 2)
	assert.Equal(t, "gpt-4o", req.Model.Name)
	assert.Equal(t, "weather", req.Output.Name)

	// The request is a copy: changing it changes no later request.
	req.Tools[0].Name = "x"
	again, err := m.Request(context.Background(), "weather", map[string]any{"city": "上海"})
	require.NoError(t, err)
	assert.Equal(t, "get_weather", again.Tools[0].Name)

	// A text template is one user message, as RenderMessages makes it.
	plain, err := m.Request(context.Background(), "plain", map[string]any{"text": "一段文字"})
	require.NoError(t, err)
	assert.Equal(t, message.Request{Messages: []message.Message{message.Text(message.RoleUser, "请用三句话总结下面的文字。\n\n一段文字")}}, plain)

	_, err = m.Request(context.Background(), "weather", nil)
	assert.ErrorIs(t, err, manager.ErrMissingVariables)
	_, err = m.Request(context.Background(), "wether", nil)
	assert.ErrorIs(t, err, manager.ErrUnknownTemplate)
}

func TestValidateOutput(t *testing.T) {
	m, err := manager.Open("testdata/contract/good")
	require.NoError(t, err)
	defer m.Close()
	ctx := context.Background()
	require.NoError(t, m.ValidateOutput(ctx, "weather", []byte(`{"city": "北京", "days": [{"date": "2026-12-02", "temp": 3.5}]}`)))

	err = m.ValidateOutput(ctx, "weather", []byte(`{"city": "", "days": [{"date": "2026-12-02", "temp": "冷"}, {"date": 1}], "wind": 3}`))
	require.ErrorIs(t, err, manager.ErrInvalidOutput)
	assert.EqualError(t, err, `templates/weather.md: template "weather": invalid output: answer.city: minLength: got 0, want 1; `+
		`answer.days[0].temp: want number, got string; answer.days[1].date: want string, got number; answer.days[1].temp: missing, and the schema requires it; `+
		`answer.wind: not in the schema, which allows no other properties`)

	for _, bad := range []string{`{"city": "a", "city": "b", "days": []}`, `{"city": `, ``} {
		err := m.ValidateOutput(ctx, "weather", []byte(bad))
		assert.ErrorIs(t, err, manager.ErrInvalidOutput, bad)
		assert.Contains(t, err.Error(), "the answer is not JSON", bad)
	}
	assert.ErrorIs(t, m.ValidateOutput(ctx, "plain", []byte(`{}`)), manager.ErrContract, "no output schema")
	assert.ErrorIs(t, m.ValidateOutput(ctx, "nope", []byte(`{}`)), manager.ErrUnknownTemplate)
	canceled, cancel := context.WithCancel(ctx)
	cancel()
	assert.ErrorIs(t, m.ValidateOutput(canceled, "weather", []byte(`{}`)), manager.ErrCanceled)
}

// The digest covers the contract: the files it reads are files of the
// set, and a change of the contract alone — in index.json or in a tool's
// file — is another set.
func TestDigestCoversTheContract(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.CopyFS(dir, os.DirFS("testdata/contract/good")))
	m, err := manager.Open(dir)
	require.NoError(t, err)
	defer m.Close()
	before := m.Digest()
	tmplHash := func() string { w, _ := m.Lookup("weather"); return w.Hash }
	hash := tmplHash()

	edit := func(file, old, new string) {
		t.Helper()
		p := filepath.Join(dir, file)
		data, err := os.ReadFile(p)
		require.NoError(t, err)
		require.Contains(t, string(data), old)
		require.NoError(t, os.WriteFile(p, []byte(strings.Replace(string(data), old, new, 1)), 0o644))
		require.NoError(t, m.Reload(context.Background()))
	}
	edit("tools/get_weather.json", `"maximum": 7`, `"maximum": 14`)
	afterTool := m.Digest()
	assert.NotEqual(t, before, afterTool, "a tool's file changed")
	w, _ := m.Lookup("weather")
	assert.Contains(t, string(w.Contract.Tools[0].Parameters), `"maximum":14`)

	edit("index.json", `"temperature": 0.2`, `"temperature": 0.3`)
	assert.NotEqual(t, afterTool, m.Digest(), "a setting in index.json changed")
	edit("schemas/answer.json", `"temp": {"type": "number"}`, `"temp": {"type": "integer"}`)
	afterSchema := m.Digest()
	edit("models/fast.json", `"temperature": 0`, `"temperature": 1`)
	assert.NotEqual(t, afterSchema, m.Digest(), "a model file changed")
	assert.Equal(t, hash, tmplHash(), "the template's own files did not change")
}

// A contract's JSON: Template marshals with encoding/json as hosts see it.
func TestContractJSON(t *testing.T) {
	m, err := manager.Open("testdata/contract/good")
	require.NoError(t, err)
	defer m.Close()
	s, _ := m.Lookup("summary")
	data, err := json.Marshal(s.Contract)
	require.NoError(t, err)
	assert.JSONEq(t, `{"model": {"name": "gpt-4o-mini", "temperature": 0}, "cache": {"message": 0}}`, string(data))
	data, err = json.Marshal(manager.Contract{})
	require.NoError(t, err)
	assert.Equal(t, `{}`, string(data))
}

// A file may hold a list of tools, and several templates may list one
// file: it is read and checked once.
func TestToolsFileShared(t *testing.T) {
	set := fstest.MapFS{
		"index.json": {Data: []byte(`{"version": 1, "templates": {
			"a": {"path": "t.md", "tools": [{"$ref": "tools/all.json"}]},
			"b": {"path": "t.md", "tools": [{"$ref": "tools/all.json"}], "model": {"tool_choice": "get_time"}}}}`)},
		"t.md": {Data: []byte("固定的说明。")},
		"tools/all.json": {Data: []byte(`[
			{"name": "get_weather", "description": "查询城市的天气预报；城市不存在时返回错误。", "parameters": {"$ref": "../schemas/city_args.json"}},
			{"name": "get_time", "description": "查询城市此刻的当地时间；城市不存在时返回错误。"}]`)},
		"schemas/city_args.json": {Data: []byte(`{"type": "object", "properties": {"city": {"type": "string"}}}`)},
	}
	m, err := manager.New(set)
	require.NoError(t, err)
	for _, name := range []string{"a", "b"} {
		tpl, _ := m.Lookup(name)
		require.Len(t, tpl.Contract.Tools, 2, name)
		assert.Equal(t, `{"type":"object","properties":{"city":{"type":"string"}}}`, string(tpl.Contract.Tools[0].Parameters), "a root $ref is its file")
		assert.Equal(t, `{"type":"object","properties":{}}`, string(tpl.Contract.Tools[1].Parameters), "no parameters: an empty object")
	}

	// The same file's mistake is reported once, at its place in the file.
	set["tools/all.json"] = &fstest.MapFile{Data: []byte(`[{"name": "get_weather", "description": "查询天气。", "parameters": {"type": "strnig"}}]`)}
	_, err = manager.New(set)
	require.Error(t, err)
	problems := manager.Problems(err)
	require.Len(t, problems, 2)
	assert.Contains(t, problems[0].Error(), `tools/all.json:1:64: template "a": tool "get_weather": parameters: schema:`)
	assert.Equal(t, `index.json:3:75: template "b": model: tool_choice: "get_time" names a tool, and the template has none that loads`, problems[1].Error())
}

// Requests and answers from many goroutines share the set's contracts
// and change none of them (run under -race by CI).
func TestConcurrentRequests(t *testing.T) {
	m, err := manager.Open("testdata/contract/good")
	require.NoError(t, err)
	defer m.Close()
	want, err := m.Request(context.Background(), "weather", map[string]any{"city": "北京"})
	require.NoError(t, err)
	wantJSON, err := json.Marshal(want)
	require.NoError(t, err)
	done := make(chan string, 8)
	for range 8 {
		go func() {
			req, err := m.Request(context.Background(), "weather", map[string]any{"city": "北京"})
			assert.NoError(t, err)
			// A caller's copy: changing it changes no other request.
			req.Tools[0].Name, req.Messages[0].CacheControl.TTL = "changed", "5m"
			*req.Tools[0].Strict, *req.Model.Temperature = false, 2
			req.Output.Schema[0], req.Model.Provider["openai"][0] = ' ', ' '

			assert.NoError(t, m.ValidateOutput(context.Background(), "weather", []byte(`{"city": "北京", "days": []}`)))
			again, err := m.Request(context.Background(), "weather", map[string]any{"city": "北京"})
			assert.NoError(t, err)
			b, _ := json.Marshal(again)
			done <- string(b)
		}()
	}
	for range 8 {
		assert.JSONEq(t, string(wantJSON), <-done)
	}
}
