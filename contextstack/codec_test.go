package contextstack

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// everyKind is one layer of each kind, with every field set.
func everyKind() []Layer {
	git := Skill{Name: "git", Description: "版本控制", Location: "skills/git", Resources: []string{"SKILL.md", "ref.md"}}
	return []Layer{
		{Source: "request", Content: UserInstructions{Text: "只依据文档回答。\n<b>&</b>"}},
		{Source: "loop", Priority: 150, Content: RuntimeInstructions{Text: "注意省点 token"}},
		{Source: "skills", Content: SkillCatalog{Skills: []Skill{git, {Name: "web"}}}},
		{Source: "skill:git", Content: SkillBody{Skill: git, Body: "先运行 git status。"}},
		{Source: "platform", Priority: -3, Content: ToolInstructions{Tool: "search", Text: "引用编号"}},
		{Content: ContextPrompt{Text: "上下文"}},
		{Source: "rag", Content: ToolDefinitions{Tools: []ToolSpec{tool("search"), {Name: "bare"}}}},
		{Source: "citations", Content: Document{ID: "d1", ShorterID: "1", Title: "标题", URL: "https://example.com/d1", Text: "片段", Metadata: map[string]string{"lang": "zh"}}},
		{Source: "skill:git", Priority: 9, Content: ContentBundles{Bundles: []Bundle{{Name: "git", Files: []BundleFile{{Path: "SKILL.md", MediaType: "text/markdown", Content: "# git"}}}}}},
	}
}

func TestLayerRoundTrip(t *testing.T) {
	layers := everyKind()
	require.Len(t, layers, len(LayerTypes()), "one layer of each kind")
	for _, l := range layers {
		t.Run(string(l.Type()), func(t *testing.T) {
			data, err := json.Marshal(l)
			require.NoError(t, err)
			var back Layer
			require.NoError(t, json.Unmarshal(data, &back), "%s", data)
			assert.Equal(t, l, back)
			again, err := json.Marshal(back)
			require.NoError(t, err)
			assert.Equal(t, string(data), string(again), "encoding is stable")
		})
	}
}

func TestStackRoundTrip(t *testing.T) {
	s := NewStack(everyKind()...)
	data, err := json.Marshal(s)
	require.NoError(t, err)
	var back Stack
	require.NoError(t, json.Unmarshal(data, &back))
	assert.Equal(t, s.Layers(), back.Layers())

	// What the stack is for survives too.
	r := &fakeRenderer{}
	want, err := s.SystemPromptText(r)
	require.NoError(t, err)
	got, err := back.SystemPromptText(r)
	require.NoError(t, err)
	assert.Equal(t, want, got)
	assert.Equal(t, s.AllTools(), back.AllTools())
	assert.Equal(t, s.AllDocuments(), back.AllDocuments())
	assert.Equal(t, s.AllBundles(), back.AllBundles())
}

func TestLayerJSONShape(t *testing.T) {
	tests := []struct {
		layer Layer
		json  string
	}{
		{
			Layer{Source: "platform", Content: ToolInstructions{Tool: "search", Text: "cite"}},
			`{"type":"tool_instructions","source":"platform","tool":"search","text":"cite"}`,
		},
		{
			Layer{Priority: 5, Content: UserInstructions{Text: "u"}},
			`{"type":"user_instructions","priority":5,"text":"u"}`,
		},
		{
			Layer{Source: "c", Content: Document{ID: "d1"}},
			`{"type":"document","source":"c","id":"d1"}`,
		},
		{
			Layer{Source: "s", Content: SkillCatalog{}},
			`{"type":"skill_catalog","source":"s"}`,
		},
		{
			Layer{Source: "rag", Content: ToolDefinitions{Tools: []ToolSpec{{Name: "a", InputSchema: Schema(`{"type":"object"}`)}}}},
			`{"type":"tool_definitions","source":"rag","tools":[{"name":"a","input_schema":{"type":"object"}}]}`,
		},
	}
	for _, tt := range tests {
		t.Run(string(tt.layer.Type()), func(t *testing.T) {
			got, err := json.Marshal(tt.layer)
			require.NoError(t, err)
			assert.Equal(t, tt.json, string(got))
		})
	}
	got, err := json.Marshal(Stack{})
	require.NoError(t, err)
	assert.Equal(t, `{"layers":[]}`, string(got))
}

func TestLayerMarshalInvalid(t *testing.T) {
	_, err := json.Marshal(Layer{Source: "oops"})
	assert.ErrorIs(t, err, ErrInvalidLayer)
	_, err = json.Marshal(NewStack(Layer{Source: "oops"}))
	assert.ErrorIs(t, err, ErrInvalidLayer)
}

func TestStackUnmarshalErrors(t *testing.T) {
	tests := []struct {
		name    string
		json    string
		wantErr error
		wantMsg string
	}{
		{
			name:    "unknown type",
			json:    `{"layers":[{"type":"user_instructions","text":"u"},{"type":"memory","text":"x"}]}`,
			wantErr: ErrUnknownLayerType,
			wantMsg: `layer 1: contextstack: unknown layer type: "memory"`,
		},
		{
			name:    "no type",
			json:    `{"layers":[{"text":"x"}]}`,
			wantErr: ErrDecode,
			wantMsg: `layer 0: contextstack: invalid JSON: layer has no "type"`,
		},
		{
			name:    "unknown field",
			json:    `{"layers":[{"type":"user_instructions","txet":"x"}]}`,
			wantErr: ErrDecode,
			wantMsg: `layer 0: contextstack: invalid JSON: user_instructions layer: json: unknown field "txet"`,
		},
		{
			name:    "field of the wrong type",
			json:    `{"layers":[{"type":"tool_definitions","tools":"search"}]}`,
			wantErr: ErrDecode,
		},
		{
			name:    "priority of the wrong type",
			json:    `{"layers":[{"type":"context_prompt","priority":"high","text":"x"}]}`,
			wantErr: ErrDecode,
		},
		{
			name:    "a layer that is not an object",
			json:    `{"layers":["user_instructions"]}`,
			wantErr: ErrDecode,
		},
		{
			name:    "null layer",
			json:    `{"layers":[null]}`,
			wantErr: ErrDecode,
		},
		{
			name:    "unknown stack field",
			json:    `{"layers":[],"version":2}`,
			wantErr: ErrDecode,
		},
		{
			name:    "not an object",
			json:    `[]`,
			wantErr: ErrDecode,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var s Stack
			err := json.Unmarshal([]byte(tt.json), &s)
			require.ErrorIs(t, err, tt.wantErr)
			if tt.wantMsg != "" {
				assert.Equal(t, tt.wantMsg, err.Error())
			}
			assert.Equal(t, 0, s.Len(), "a failed decode leaves the stack as it was")
		})
	}
}

func TestEncodeToolSpecs(t *testing.T) {
	got, err := EncodeToolSpecs([]ToolSpec{
		{Name: "search", Type: "function", Description: "搜索文档", InputSchema: Schema(`{"type": "object"}`)},
		{Name: "bare"},
	})
	require.NoError(t, err)
	assert.Equal(t, `[{"name":"search","type":"function","description":"搜索文档","input_schema":{"type":"object"}},{"name":"bare"}]`, string(got))

	got, err = EncodeToolSpecs(nil)
	require.NoError(t, err)
	assert.Equal(t, `[]`, string(got))
}

func TestDecodeToolSpecs(t *testing.T) {
	tests := []struct {
		name string
		json string
		want []ToolSpec
	}{
		{
			name: "round trip of the encoded form",
			json: `[{"name":"search","type":"function","description":"d","input_schema":{"type":"object","properties":{"q":{"type":"string"}}}}]`,
			want: []ToolSpec{{Name: "search", Type: "function", Description: "d", InputSchema: Schema(`{"type":"object","properties":{"q":{"type":"string"}}}`)}},
		},
		{
			name: "entries that are not objects are skipped",
			json: `[1, "search", null, [], {"name":"a"}, true]`,
			want: []ToolSpec{{Name: "a", InputSchema: EmptyObjectSchema}},
		},
		{
			name: "a missing or null schema becomes an empty object schema",
			json: `[{"name":"a"},{"name":"b","input_schema":null}]`,
			want: []ToolSpec{
				{Name: "a", InputSchema: EmptyObjectSchema},
				{Name: "b", InputSchema: EmptyObjectSchema},
			},
		},
		{
			name: "other fields are ignored",
			json: `[{"name":"a","async_fn":"<function>","strict":true,"input_schema":{}}]`,
			want: []ToolSpec{{Name: "a", InputSchema: Schema(`{}`)}},
		},
		{
			name: "empty list",
			json: `[]`,
			want: []ToolSpec{},
		},
		{
			name: "OpenAI's tool form",
			json: `[{"type":"function","function":{"name":"search","description":"d","parameters":{"type":"object"},"strict":true}}]`,
			want: []ToolSpec{{Name: "search", Type: "function", Description: "d", InputSchema: Schema(`{"type":"object"}`)}},
		},
		{
			name: "under a tools key, as in a request",
			json: `{"model":"m","tools":[{"type":"function","function":{"name":"a"}},{"name":"b","description":"d","input_schema":{}}]}`,
			want: []ToolSpec{
				{Name: "a", Type: "function", InputSchema: EmptyObjectSchema},
				{Name: "b", Description: "d", InputSchema: Schema(`{}`)},
			},
		},
		{
			name: "the bare form with parameters",
			json: `[{"name":"a","description":"d","parameters":{"type":"object","properties":{}}}]`,
			want: []ToolSpec{{Name: "a", Description: "d", InputSchema: Schema(`{"type":"object","properties":{}}`)}},
		},
		{
			name: "MCP's inputSchema",
			json: `{"tools":[{"name":"a","description":"d","inputSchema":{"type":"object"}}]}`,
			want: []ToolSpec{{Name: "a", Description: "d", InputSchema: Schema(`{"type":"object"}`)}},
		},
		{
			name: "one tool alone",
			json: `{"name":"a"}`,
			want: []ToolSpec{{Name: "a", InputSchema: EmptyObjectSchema}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := DecodeToolSpecs([]byte(tt.json))
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
		})
	}
}

func TestDecodeToolSpecsErrors(t *testing.T) {
	tests := []struct{ in, msg string }{
		{`"tools"`, "not a tool list: want a list of tools, or an object with one under \"tools\""},
		{`[{"name":1}]`, "tool spec 0: json: cannot unmarshal"},
		{`[{"name":"a","description":["x"]}]`, "tool spec 0: json: cannot unmarshal"},
		{`[`, "unexpected end of JSON input"},
		{``, "unexpected end of JSON input"},
		{`{"tools": {"name": "a"}}`, `"tools" is not a list of tools`},
		{`[{"title":"a"}]`, `tool spec 0: no name: not a tool (each {"name", "description", "input_schema" or "parameters"}, or {"type": "function", "function": {"name", "description", "parameters"}})`},
		{`{"description":"d"}`, "tool spec 0: no name: not a tool"},
		{`[{"type":"function","function":"search"}]`, `tool spec 0: "function" is not an object`},
		{`[{"type":"function","function":{"description":"d"}}]`, "tool spec 0: no name"},
		{`[1, "a", null]`, "none of the 3 entries is a tool"},
	}
	for _, tc := range tests {
		t.Run(tc.in, func(t *testing.T) {
			_, err := DecodeToolSpecs([]byte(tc.in))
			assert.ErrorIs(t, err, ErrDecode)
			assert.ErrorContains(t, err, tc.msg)
		})
	}
}

func TestToolSpecsCodecRoundTrip(t *testing.T) {
	in := []ToolSpec{tool("search"), tool("fetch")}
	data, err := EncodeToolSpecs(in)
	require.NoError(t, err)
	out, err := DecodeToolSpecs(data)
	require.NoError(t, err)
	assert.Equal(t, in, out)
}

func TestSchemaJSON(t *testing.T) {
	t.Run("kept as given, compacted on output", func(t *testing.T) {
		var ts ToolSpec
		require.NoError(t, json.Unmarshal([]byte(`{"name":"a","input_schema": {"type": "object"} }`), &ts))
		assert.Equal(t, Schema(`{"type": "object"}`), ts.InputSchema)
		out, err := json.Marshal(ts)
		require.NoError(t, err)
		assert.Equal(t, `{"name":"a","input_schema":{"type":"object"}}`, string(out))
	})
	t.Run("null and absent are the empty schema", func(t *testing.T) {
		for _, in := range []string{`{"name":"a","input_schema":null}`, `{"name":"a"}`} {
			var ts ToolSpec
			require.NoError(t, json.Unmarshal([]byte(in), &ts))
			assert.Equal(t, Schema(""), ts.InputSchema)
		}
		out, err := json.Marshal(Schema(""))
		require.NoError(t, err)
		assert.Equal(t, `null`, string(out))
	})
	t.Run("invalid JSON text does not encode", func(t *testing.T) {
		_, err := json.Marshal(ToolSpec{Name: "a", InputSchema: Schema(`{"type":`)})
		assert.Error(t, err)
		_, err = EncodeToolSpecs([]ToolSpec{{Name: "a", InputSchema: Schema(`nope`)}})
		assert.Error(t, err)
	})
}
