package message_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/seed-e7d2830f/promptkit/message"
)

// compact is data without insignificant whitespace.
func compact(t testing.TB, data []byte) string {
	t.Helper()
	var b bytes.Buffer
	require.NoError(t, json.Compact(&b, data))
	return b.String()
}

// marshalNoEscape is encoding/json's Marshal without HTML escaping, as a
// host's own encoder writes a value holding messages.
func marshalNoEscape(t testing.TB, v any) string {
	t.Helper()
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	require.NoError(t, enc.Encode(v))
	return compact(t, b.Bytes())
}

// TestConversationsRoundTrip: every conversation of testdata/conversations
// decodes and encodes to the same JSON, through DecodeMessages and
// EncodeMessages and through encoding/json; and decoding what was written
// gives the same messages.
func TestConversationsRoundTrip(t *testing.T) {
	files, err := filepath.Glob("testdata/conversations/*.json")
	require.NoError(t, err)
	require.GreaterOrEqual(t, len(files), 7)
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			data, err := os.ReadFile(f)
			require.NoError(t, err)
			want := compact(t, data)

			msgs, err := message.DecodeMessages(data)
			require.NoError(t, err)
			out, err := message.EncodeMessages(msgs)
			require.NoError(t, err)
			assert.Equal(t, want, compact(t, out), "EncodeMessages")

			var viaStd []message.Message
			require.NoError(t, json.Unmarshal(data, &viaStd))
			assert.Equal(t, msgs, viaStd, "json.Unmarshal reads what DecodeMessages reads")
			assert.Equal(t, want, marshalNoEscape(t, viaStd), "encoding/json")

			again, err := message.DecodeMessages(out)
			require.NoError(t, err)
			assert.Equal(t, msgs, again)
		})
	}
}

// TestKeyOrder: keys are written in the order of the API's documentation,
// whatever order they were read in, so messages that differ only in the
// order of their keys are equal; what they hold (nulls, empty values) is
// kept.
func TestKeyOrder(t *testing.T) {
	in, err := os.ReadFile("testdata/key_order/in.json")
	require.NoError(t, err)
	want, err := os.ReadFile("testdata/key_order/out.json")
	require.NoError(t, err)
	msgs, err := message.DecodeMessages(in)
	require.NoError(t, err)
	out, err := message.EncodeMessages(msgs)
	require.NoError(t, err)
	assert.Equal(t, compact(t, want), string(out))
	canonical, err := message.DecodeMessages(want)
	require.NoError(t, err)
	assert.Equal(t, canonical, msgs)
}

func TestToolsRoundTrip(t *testing.T) {
	data, err := os.ReadFile("testdata/tools/weather.json")
	require.NoError(t, err)
	tools, err := message.DecodeTools(data)
	require.NoError(t, err)
	require.Len(t, tools, 3)
	assert.Equal(t, "get_weather", tools[0].Name)
	assert.Equal(t, "查询城市未来三天的天气预报；城市不存在时返回错误。", tools[0].Description)
	assert.True(t, *tools[1].Strict)
	assert.NotNil(t, tools[1].CacheControl)
	assert.Equal(t, `{"type": "object", "properties": {}}`, string(tools[2].Parameters), "the schema's text, as it was")

	out, err := message.EncodeTools(tools)
	require.NoError(t, err)
	assert.Equal(t, compact(t, data), compact(t, out))
	var viaStd []message.Tool
	require.NoError(t, json.Unmarshal(data, &viaStd))
	assert.Equal(t, compact(t, data), marshalNoEscape(t, viaStd))
}

// TestDecodedValues: what the conversations hold, field by field.
func TestDecodedValues(t *testing.T) {
	read := func(name string) []message.Message {
		data, err := os.ReadFile("testdata/conversations/" + name)
		require.NoError(t, err)
		msgs, err := message.DecodeMessages(data)
		require.NoError(t, err)
		return msgs
	}

	msgs := read("tool_call.json")
	assert.Equal(t, message.Message{Role: message.RoleAssistant, ToolCalls: []message.ToolCall{
		{ID: "call_1", Name: "get_weather", Arguments: `{"city": "北京", "date": "明天"}`},
	}}, msgs[2], "null content with tool calls is the usual form")
	assert.Equal(t, message.ToolResult(msgs[2].ToolCalls[0], "晴，25°C"), msgs[3])
	var args struct{ City, Date string }
	require.NoError(t, msgs[2].ToolCalls[0].DecodeArguments(&args))
	assert.Equal(t, "北京", args.City)

	msgs = read("reasoning.json")
	assert.Equal(t, "比较小数部分：0.11 < 0.90，所以 9.9 更大。", msgs[1].ReasoningContent)
	assert.Equal(t, message.ContentString, msgs[3].Form(), `"" with tool calls is written as "" again, not null`)

	msgs = read("transformers.json")
	assert.Equal(t, message.ContentAbsent, msgs[2].Form())
	call := msgs[2].ToolCalls[0]
	assert.True(t, call.ObjectArguments)
	assert.Equal(t, `{"location": "Paris, France", "unit": "celsius"}`, call.Arguments, "the object's text, byte for byte")
	assert.Empty(t, call.ID)

	msgs = read("multimodal.json")
	assert.Equal(t, []message.Part{
		{Type: message.PartText, Text: "这两张图有什么不同？"},
		{Type: message.PartImage, URL: "https://example.com/a.png"},
		{Type: message.PartImage, URL: "data:image/png;base64,iVBORw0KGgo=", Detail: "high"},
	}, msgs[0].Parts)
	assert.Equal(t, "wav", msgs[2].Parts[1].Audio.Format)
	assert.Equal(t, "report.pdf", msgs[2].Parts[2].File.Filename)
	assert.Equal(t, "file-abc123", msgs[2].Parts[3].File.ID)
	assert.Equal(t, message.ContentList, msgs[3].Form())

	msgs = read("cache_control.json")
	assert.Equal(t, "1h", msgs[0].Parts[1].CacheControl.TTL)
	assert.Equal(t, "", msgs[1].CacheControl.TTL)
}

// TestBuiltMessagesJSON: messages a program builds are written in the
// usual form.
func TestBuiltMessagesJSON(t *testing.T) {
	call := message.ToolCall{ID: "call_1", Name: "get_weather", Arguments: `{"city": "北京"}`}
	yes := true
	tests := []struct {
		name string
		msg  message.Message
		json string
	}{
		{"text", message.Text(message.RoleSystem, "Be brief."), `{"role":"system","content":"Be brief."}`},
		{"empty", message.Message{Role: "user"}, `{"role":"user","content":""}`},
		{"image only", message.Message{Role: "user", Parts: []message.Part{{Type: message.PartImage, URL: "https://e.x/a.png"}}},
			`{"role":"user","content":[{"type":"image_url","image_url":{"url":"https://e.x/a.png"}}]}`},
		{"two text parts", message.Message{Role: "user", Parts: []message.Part{{Type: message.PartText, Text: "a"}, {Type: message.PartText, Text: "b"}}},
			`{"role":"user","content":[{"type":"text","text":"a"},{"type":"text","text":"b"}]}`},
		{"empty text part", message.Message{Role: "user", Parts: []message.Part{{Type: message.PartText}, {Type: message.PartImage, URL: "https://e.x/a.png", Detail: "low"}}},
			`{"role":"user","content":[{"type":"text","text":""},{"type":"image_url","image_url":{"url":"https://e.x/a.png","detail":"low"}}]}`},
		{"tool calls", message.Message{Role: message.RoleAssistant, ToolCalls: []message.ToolCall{call}},
			`{"role":"assistant","content":null,"tool_calls":[{"id":"call_1","type":"function","function":{"name":"get_weather","arguments":"{\"city\": \"北京\"}"}}]}`},
		{"tool calls as objects", message.Message{Role: message.RoleAssistant, ToolCalls: []message.ToolCall{{Name: "f", Arguments: `{"a": [1, 2]}`, ObjectArguments: true}}},
			`{"role":"assistant","content":null,"tool_calls":[{"type":"function","function":{"name":"f","arguments":{"a": [1, 2]}}}]}`},
		{"tool result", message.ToolResult(call, "晴"), `{"role":"tool","tool_call_id":"call_1","name":"get_weather","content":"晴"}`},
		{"reasoning", message.Message{Role: message.RoleAssistant, ReasoningContent: "想一想", Parts: []message.Part{{Type: message.PartText, Text: "好"}}},
			`{"role":"assistant","content":"好","reasoning_content":"想一想"}`},
		{"cached text part", message.Message{Role: "system", Parts: []message.Part{{Type: message.PartText, Text: "long", CacheControl: &message.CacheControl{}}}},
			`{"role":"system","content":[{"type":"text","text":"long","cache_control":{"type":"ephemeral"}}]}`},
		{"cached message", message.Message{Role: "user", Parts: []message.Part{{Type: message.PartText, Text: "q"}}, CacheControl: &message.CacheControl{TTL: "1h"}},
			`{"role":"user","content":"q","cache_control":{"type":"ephemeral","ttl":"1h"}}`},
		{"list of one text part", withForm(message.Message{Role: "user", Parts: []message.Part{{Type: message.PartText, Text: "q"}}}, message.ContentList),
			`{"role":"user","content":[{"type":"text","text":"q"}]}`},
		{"absent content", withForm(message.Message{Role: "assistant", ToolCalls: []message.ToolCall{call}}, message.ContentAbsent),
			`{"role":"assistant","tool_calls":[{"id":"call_1","type":"function","function":{"name":"get_weather","arguments":"{\"city\": \"北京\"}"}}]}`},
		{"audio and file", message.Message{Role: "user", Parts: []message.Part{
			{Type: message.PartAudio, Audio: &message.Audio{Data: "AAAA", Format: "mp3"}},
			{Type: message.PartFile, File: &message.File{Filename: "a.pdf", Data: "data:application/pdf;base64,JVBE"}},
		}}, `{"role":"user","content":[{"type":"input_audio","input_audio":{"data":"AAAA","format":"mp3"}},{"type":"file","file":{"filename":"a.pdf","file_data":"data:application/pdf;base64,JVBE"}}]}`},
		{"html stays readable", message.Text("user", `<a href="x">&</a>`), `{"role":"user","content":"<a href=\"x\">&</a>"}`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			data, err := json.Marshal(tc.msg)
			require.NoError(t, err)
			assert.JSONEq(t, tc.json, string(data))
			data, err = tc.msg.MarshalJSON()
			require.NoError(t, err)
			assert.Equal(t, tc.json, string(data))
			var back message.Message
			require.NoError(t, json.Unmarshal(data, &back))
			assert.Equal(t, tc.msg, back)
		})
	}

	tool := message.Tool{Name: "compare", Description: "Compare two numbers.", Strict: &yes,
		Parameters: json.RawMessage(`{"type":"object"}`), CacheControl: &message.CacheControl{}}
	data, err := tool.MarshalJSON()
	require.NoError(t, err)
	assert.Equal(t, `{"type":"function","function":{"name":"compare","description":"Compare two numbers.","parameters":{"type":"object"},"strict":true},"cache_control":{"type":"ephemeral"}}`, string(data))
}

// TestDecodeErrors: every problem is a *FieldError naming its path.
func TestDecodeErrors(t *testing.T) {
	const user = `{"role":"user","content":"hi"}`
	call := func(fn string) string {
		return `[` + user + `,` + user + `,` + user + `,{"role":"assistant","content":null,"tool_calls":[{"id":"c1","type":"function","function":` + fn + `}]}]`
	}
	tests := []struct {
		name, json, err string
		sentinel        error
	}{
		{"misspelt arguments", call(`{"name":"f","argumnets":"{}"}`),
			`messages[3].tool_calls[0].function.argumnets: unknown field; did you mean "arguments"?`, message.ErrUnknownField},
		{"unknown field far from any", `[{"role":"user","content":"hi","priority":1}]`,
			`messages[0].priority: unknown field (a message has: role, tool_call_id, name, content, reasoning_content, tool_calls, cache_control)`, message.ErrUnknownField},
		{"misspelt message field", `[{"role":"user","contnet":"hi"}]`, `messages[0].contnet: unknown field; did you mean "content"?`, message.ErrUnknownField},
		{"a key that is not a name", `[{"role":"user","content":"hi","a.b":1}]`,
			`messages[0]["a.b"]: unknown field (a message has: role, tool_call_id, name, content, reasoning_content, tool_calls, cache_control)`, message.ErrUnknownField},
		{"misspelt tool_calls", `[{"role":"assistant","tool_call":[]}]`, `messages[0].tool_call: unknown field; did you mean "tool_calls"?`, message.ErrUnknownField},
		{"misspelt part field", `[{"role":"user","content":[{"type":"image_url","image_ur":{"url":"https://e.x/a.png"}}]}]`,
			`messages[0].content[0].image_ur: unknown field; did you mean "image_url"?`, message.ErrUnknownField},
		{"refusal is not in the model", `[{"role":"assistant","content":"no","refusal":null}]`,
			`messages[0].refusal: unknown field (a message has: role, tool_call_id, name, content, reasoning_content, tool_calls, cache_control)`, message.ErrUnknownField},
		{"missing arguments", call(`{"name":"f"}`), `messages[3].tool_calls[0].function: missing field "arguments"`, message.ErrInvalid},
		{"missing role", `[{"content":"hi"}]`, `messages[0]: missing field "role"`, message.ErrInvalid},
		{"empty role", `[{"role":"","content":"hi"}]`, `messages[0].role: empty`, message.ErrInvalid},
		{"null role", `[{"role":null,"content":"hi"}]`, `messages[0].role: want a value, got null`, message.ErrInvalid},
		{"duplicate key", `[{"role":"user","content":"a","content":"b"}]`, `messages[0].content: duplicate field`, message.ErrInvalid},
		{"content a number", `[{"role":"user","content":5}]`, `messages[0].content: want a string, a list of parts or null, got a number`, message.ErrInvalid},
		{"tool_calls an object", `[{"role":"assistant","tool_calls":{}}]`, `messages[0].tool_calls: want a list of tool calls, got an object`, message.ErrInvalid},
		{"arguments a number", call(`{"name":"f","arguments":5}`), `messages[3].tool_calls[0].function.arguments: want a string or an object, got a number`, message.ErrInvalid},
		{"custom tool call", `[{"role":"assistant","tool_calls":[{"id":"c","type":"custom","function":{"name":"f","arguments":"{}"}}]}]`,
			`messages[0].tool_calls[0].type: "custom" is not supported (want "function")`, message.ErrInvalid},
		{"unknown part type", `[{"role":"user","content":[{"type":"video","video":{}}]}]`,
			`messages[0].content[0].type: "video" is not a part type (want text, image_url, input_audio, file)`, message.ErrInvalid},
		{"misspelt part type", `[{"role":"user","content":[{"type":"txet","text":"a"}]}]`,
			`messages[0].content[0].type: "txet" is not a part type; did you mean "text"?`, message.ErrInvalid},
		{"text part without text", `[{"role":"user","content":[{"type":"text"}]}]`, `messages[0].content[0]: a text part needs "text"`, message.ErrInvalid},
		{"field of another part type", `[{"role":"user","content":[{"type":"text","text":"a","image_url":{"url":"https://e.x"}}]}]`,
			`messages[0].content[0].image_url: not a field of a text part`, message.ErrInvalid},
		{"image detail", `[{"role":"user","content":[{"type":"image_url","image_url":{"url":"https://e.x/a.png","detail":"hgih"}}]}]`,
			`messages[0].content[0].image_url.detail: "hgih" is not an image detail (want auto, low, high, original)`, message.ErrInvalid},
		{"image from a file", `[{"role":"user","content":[{"type":"image_url","image_url":{"url":"/etc/passwd"}}]}]`,
			`messages[0].content[0].image_url.url: "/etc/passwd" is not an http(s) or data: URL`, message.ErrInvalid},
		{"image_url null", `[{"role":"user","content":[{"type":"image_url","image_url":null}]}]`,
			`messages[0].content[0].image_url: want a value, got null`, message.ErrInvalid},
		{"a part's null", `[{"role":"user","content":[{"type":"text","text":"a","cache_control":null}]}]`,
			`messages[0].content[0].cache_control: want a value, got null`, message.ErrInvalid},
		{"file without data", `[{"role":"user","content":[{"type":"file","file":{"filename":"a.pdf"}}]}]`,
			`messages[0].content[0].file: a file needs file_data or file_id`, message.ErrInvalid},
		{"audio without format", `[{"role":"user","content":[{"type":"input_audio","input_audio":{"data":"AAAA"}}]}]`,
			`messages[0].content[0].input_audio: missing field "format"`, message.ErrInvalid},
		{"cache type", `[{"role":"user","content":"a","cache_control":{"type":"persistent"}}]`,
			`messages[0].cache_control.type: "persistent" is not supported (want "ephemeral")`, message.ErrInvalid},
		{"cache ttl", `[{"role":"user","content":"a","cache_control":{"type":"ephemeral","ttl":"10m"}}]`,
			`messages[0].cache_control.ttl: "10m" is not a cache TTL (want 5m or 1h)`, message.ErrInvalid},
		{"a message that is a string", `["hi"]`, `messages[0]: want a message (a JSON object), got a string`, message.ErrInvalid},
		{"not a list", `{"role":"user"}`, `messages: want a list of messages, got an object`, message.ErrInvalid},
		{"invalid JSON", `[{"role":"user",}]`, `messages: invalid JSON at byte 16: invalid character '}' looking for beginning of object key string`, message.ErrInvalid},
		{"trailing data", `[] []`, `messages: unexpected data after the JSON value`, message.ErrInvalid},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := message.DecodeMessages([]byte(tc.json))
			require.Error(t, err)
			assert.Equal(t, tc.err, err.Error())
			assert.ErrorIs(t, err, tc.sentinel)
			var fe *message.FieldError
			require.ErrorAs(t, err, &fe)
		})
	}

	// One message through encoding/json: the path starts at the message.
	var m message.Message
	err := json.Unmarshal([]byte(`{"role":"assistant","tool_calls":[{"id":"c","function":{"name":"f","argumnets":"{}"}}]}`), &m)
	require.Error(t, err)
	assert.Equal(t, `tool_calls[0].function.argumnets: unknown field; did you mean "arguments"?`, err.Error())
	err = json.Unmarshal([]byte(`"hi"`), &m)
	assert.EqualError(t, err, `message: want a message (a JSON object), got a string`)

	_, err = message.DecodeTools([]byte(`[{"type":"function","function":{"name":"f","parametres":{}}}]`))
	assert.EqualError(t, err, `tools[0].function.parametres: unknown field; did you mean "parameters"?`)
	_, err = message.DecodeTools([]byte(`[{"type":"function","function":{"name":"f","parameters":[]}}]`))
	assert.EqualError(t, err, `tools[0].function.parameters: want a JSON Schema object, got a list`)
}

// TestEncodeErrors: a message that has no JSON form is an error naming
// where, never JSON a provider would refuse.
func TestEncodeErrors(t *testing.T) {
	text := message.Part{Type: message.PartText, Text: "a"}
	image := message.Part{Type: message.PartImage, URL: "https://e.x/a.png"}
	tests := []struct {
		name string
		msg  message.Message
		err  string
	}{
		{"no role", message.Message{Parts: []message.Part{text}}, `messages[0].role: empty`},
		{"unknown part type", message.Message{Role: "user", Parts: []message.Part{{Type: "video"}}},
			`messages[0].content[0].type: "video" is not a part type (want text, image_url, input_audio, file)`},
		{"a text part with a URL", message.Message{Role: "user", Parts: []message.Part{{Type: message.PartText, Text: "a", URL: "https://e.x"}}},
			`messages[0].content[0].image_url: not a field of a text part`},
		{"an image without URL", message.Message{Role: "user", Parts: []message.Part{{Type: message.PartImage}}},
			`messages[0].content[0].image_url.url: "" is not an http(s) or data: URL`},
		{"an audio part without audio", message.Message{Role: "user", Parts: []message.Part{{Type: message.PartAudio}}},
			`messages[0].content[0]: an input_audio part needs its Audio`},
		{"null content with parts", withForm(message.Message{Role: "user", Parts: []message.Part{text}}, message.ContentNull),
			`messages[0].content: content that is null has no parts, not a text part`},
		{"string content with an image", withForm(message.Message{Role: "user", Parts: []message.Part{image}}, message.ContentString),
			`messages[0].content: a string holds one text part without a cache mark, not a image_url part`},
		{"object arguments that are not an object", message.Message{Role: "assistant", ToolCalls: []message.ToolCall{{Name: "f", Arguments: "[1]", ObjectArguments: true}}},
			`messages[0].tool_calls[0].function.arguments: not a JSON object`},
		{"a call without name", message.Message{Role: "assistant", ToolCalls: []message.ToolCall{{ID: "c", Arguments: "{}"}}},
			`messages[0].tool_calls[0].function.name: empty`},
		{"cache ttl", message.Message{Role: "user", Parts: []message.Part{text}, CacheControl: &message.CacheControl{TTL: "1d"}},
			`messages[0].cache_control.ttl: "1d" is not a cache TTL (want 5m or 1h)`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := message.EncodeMessages([]message.Message{tc.msg})
			require.Error(t, err)
			assert.Equal(t, tc.err, err.Error())
			assert.ErrorIs(t, err, message.ErrInvalid)
			_, err = json.Marshal(tc.msg)
			assert.ErrorIs(t, err, message.ErrInvalid, "through encoding/json too")
		})
	}
	_, err := message.EncodeTools([]message.Tool{{Name: "f", Parameters: json.RawMessage(`{"type":`)}})
	assert.EqualError(t, err, `tools[0].function.parameters: not a JSON object`)
}

// TestEditedAfterDecoding: a decoded message changed by the program
// writes what it now holds, and keeps the nulls and empty values it was
// read with where it holds nothing.
func TestEditedAfterDecoding(t *testing.T) {
	msgs, err := message.DecodeMessages([]byte(`[{"role":"user","content":"hi","name":"","reasoning_content":null}]`))
	require.NoError(t, err)
	m := msgs[0]
	out, err := json.Marshal(m)
	require.NoError(t, err)
	assert.Equal(t, `{"role":"user","name":"","content":"hi","reasoning_content":null}`, string(out))

	m.Name = "ada"
	m.CacheControl = &message.CacheControl{}
	out, err = json.Marshal(m)
	require.NoError(t, err)
	assert.Equal(t, `{"role":"user","name":"ada","content":"hi","reasoning_content":null,"cache_control":{"type":"ephemeral"}}`, string(out))

	m.Parts, m.ReasoningContent = nil, "先想想"
	out, err = json.Marshal(m)
	require.NoError(t, err)
	assert.Equal(t, `{"role":"user","name":"ada","content":"","reasoning_content":"先想想","cache_control":{"type":"ephemeral"}}`, string(out))
}

func TestFieldErrorIsAs(t *testing.T) {
	_, err := message.DecodeMessages([]byte(`[{"role":"user","nmae":"x"}]`))
	var fe *message.FieldError
	require.True(t, errors.As(err, &fe))
	assert.Equal(t, "messages[0].nmae", fe.Path)
	assert.Equal(t, `unknown field; did you mean "name"?`, fe.Msg)
}

func withForm(m message.Message, f message.ContentForm) message.Message {
	m.SetForm(f)
	return m
}

// Around a list, only JSON's whitespace is whitespace: a form feed or
// U+00A0 makes the text not JSON, as encoding/json says.
func TestDecodeListWhitespace(t *testing.T) {
	for _, in := range []string{" \t\r\n[] \n", "[]"} {
		msgs, err := message.DecodeMessages([]byte(in))
		require.NoError(t, err, "%q", in)
		assert.Empty(t, msgs)
	}
	for _, in := range []string{"[]\f", "\f[]", "[]\u00a0", "\v[]"} {
		_, err := message.DecodeMessages([]byte(in))
		var fe *message.FieldError
		require.ErrorAs(t, err, &fe, "%q", in)
		_, err = message.DecodeTools([]byte(in))
		require.ErrorAs(t, err, &fe, "%q", in)
	}
}
