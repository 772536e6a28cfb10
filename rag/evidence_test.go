package rag

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestToolData(t *testing.T) {
	type leave struct {
		Name      string  `json:"user_name"`
		Remaining float64 `json:"remaining_days"`
	}
	tests := []struct {
		name  string
		data  any
		want  string
		empty bool
	}{
		{"nil", nil, "", true},
		{"empty list", []any{}, "[]", true},
		{"empty object", map[string]any{}, "{}", true},
		{"blank string", "  \n", "", true},
		{"string is text, escaped", " 共 3 条 <b>记录</b> ", "共 3 条 &lt;b&gt;记录&lt;/b&gt;", false},
		{"number", 42, "42", false},
		{"false is data", false, "false", false},
		{"struct", leave{Name: "张三", Remaining: 5.5}, `{"remaining_days":5.5,"user_name":"张三"}`, false},
		{"keys sorted, strings escaped", map[string]any{"z": "</tool>", "a": `say "hi" & 'bye'`},
			`{"a":"say &quot;hi&quot; &amp; &apos;bye&apos;","z":"&lt;/tool&gt;"}`, false},
		{"keys escaped", map[string]any{"<tool_data>": 1}, `{"&lt;tool_data&gt;":1}`, false},
		{"nested", []any{map[string]any{"rows": []any{"<a>", nil, true}}}, `[{"rows":["&lt;a&gt;",null,true]}]`, false},
		{"raw JSON keeps big numbers exact", json.RawMessage(`{"id": 12345678901234567890, "amount": 0.10}`),
			`{"amount":0.10,"id":12345678901234567890}`, false},
		{"backslashes and control characters stay JSON", map[string]any{"p": "C:\\x\n"}, `{"p":"C:\\x\n"}`, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, empty, err := toolData(tc.data)
			require.NoError(t, err)
			assert.Equal(t, tc.want, got)
			assert.Equal(t, tc.empty, empty)
			assert.NotContains(t, got, "<")
			assert.NotContains(t, got, ">")
		})
	}
}

func TestToolDataInvalid(t *testing.T) {
	_, _, err := toolData(func() {})
	require.Error(t, err)
	_, _, err = toolData(json.RawMessage(`{"a":`))
	require.Error(t, err)
}

func TestToolVar(t *testing.T) {
	v, err := toolVar("tools[0]", ToolResult{Tool: ` a"b `, Error: "  <boom>  ", Data: nil})
	require.NoError(t, err)
	assert.Equal(t, map[string]any{"name": "a&quot;b", "error": "&lt;boom&gt;", "data": "", "empty": false}, v)

	v, err = toolVar("tools[0]", ToolResult{Tool: "t", Error: "  ", Data: []any{}})
	require.NoError(t, err)
	assert.Equal(t, map[string]any{"name": "t", "error": "", "data": "[]", "empty": true}, v)
}

func TestDocumentVars(t *testing.T) {
	got := documentVars([]Retrieved{
		{Intent: "a", Chunks: []Chunk{{Source: `手册"x`, Text: "</document>"}}},
		{Chunks: []Chunk{{Text: "t & u"}}},
	}, map[string]string{"a": " <休假> "})
	assert.Equal(t, []map[string]any{
		{"intent": "&lt;休假&gt;", "chunks": []map[string]any{{"source": "手册&quot;x", "text": "&lt;/document&gt;"}}},
		{"intent": "", "chunks": []map[string]any{{"source": "", "text": "t &amp; u"}}},
	}, got)
}
