package strictjson

import (
	"encoding/json"
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

type chunk struct {
	Source string `json:"source,omitempty"`
	Text   string `json:"text"`
}

type group struct {
	Intent string  `json:"intent,omitempty"`
	Chunks []chunk `json:"chunks"`
	Skip   string  `json:"-"`
}

type counted struct {
	N    int         `json:"n"`
	U    uint8       `json:"u"`
	F    float32     `json:"f"`
	Num  json.Number `json:"num"`
	On   bool        `json:"on"`
	Any  any         `json:"any"`
	Tags map[string]string
	Raw  json.RawMessage `json:"raw"`
	Pair [2]string       `json:"pair"`
}

// self decodes itself and refuses the string "bad".
type self string

func (s *self) UnmarshalJSON(b []byte) error {
	if string(b) == `"bad"` {
		return errors.New("self: bad value")
	}
	return json.Unmarshal(b, (*string)(s))
}

func TestDecode(t *testing.T) {
	var gs []group
	require.NoError(t, Decode([]any{
		map[string]any{"intent": "a", "chunks": []any{map[string]any{"text": "t", "source": "s"}}},
		map[string]any{"chunks": nil},
	}, &gs))
	assert.Equal(t, []group{{Intent: "a", Chunks: []chunk{{Source: "s", Text: "t"}}}, {}}, gs)

	// Go values travel through JSON.
	var again []group
	require.NoError(t, Decode(gs, &again))
	assert.Equal(t, gs, again)

	var c counted
	require.NoError(t, Decode(map[string]any{
		"n": 3, "u": 255, "f": 1.5, "num": json.Number("12345678901234567890.5"), "on": true,
		"any": []any{1, "x"}, "Tags": map[string]any{"k": "v"}, "raw": map[string]any{"a": 1}, "pair": []any{"x", "y"},
	}, &c))
	assert.Equal(t, json.Number("12345678901234567890.5"), c.Num)
	assert.Equal(t, []any{json.Number("1"), "x"}, c.Any, "numbers keep their form")
	assert.JSONEq(t, `{"a":1}`, string(c.Raw))
}

func TestDecodeErrors(t *testing.T) {
	tests := []struct {
		name string
		v    any
		dst  any
		path string
		msg  string
	}{
		{"unknown field in a list item", []any{map[string]any{"chunks": []any{map[string]any{"text": "t"}, map[string]any{"sorce": "s"}}}},
			new([]group), "[0].chunks[1].sorce", "unknown field (known: source, text)"},
		{"names match exactly", []any{map[string]any{"Intent": "a"}}, new([]group), "[0].Intent", "unknown field (known: chunks, intent)"},
		{"a field tagged - is unknown", map[string]any{"Skip": "x"}, new(group), ".Skip", "unknown field (known: chunks, intent)"},
		{"wrong type of a nested field", []any{map[string]any{"chunks": []any{map[string]any{"text": 1}}}}, new([]group),
			"[0].chunks[0].text", "want a string, got a number"},
		{"an object where a list goes", map[string]any{"chunks": map[string]any{}}, new(group), ".chunks", "want a list, got an object"},
		{"a list where an object goes", []any{[]any{}}, new([]group), "[0]", "want an object, got a list"},
		{"the root", "x", new([]group), "", "want a list, got a string"},
		{"an integer", map[string]any{"n": 1.5}, new(counted), ".n", "1.5 does not fit a Go int"},
		{"out of range", map[string]any{"u": 256}, new(counted), ".u", "256 does not fit a Go uint8"},
		{"a boolean", map[string]any{"on": "yes"}, new(counted), ".on", "want true or false, got a string"},
		{"a number", map[string]any{"num": "1"}, new(counted), ".num", "want a number, got a string"},
		{"a map value", map[string]any{"Tags": map[string]any{"k": 1}}, new(counted), ".Tags.k", "want a string, got a number"},
		{"an array too long", map[string]any{"pair": []any{"a", "b", "c"}}, new(counted), ".pair", "want at most 2 items, got 3"},
		{"a self-decoding type names its path", []any{"ok", "bad"}, new([]self), "[1]", "self: bad value"},
		{"a value that does not encode", func() {}, new(any), "", "cannot encode as JSON: json: unsupported type: func()"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := Decode(tc.v, tc.dst)
			var pe *PathError
			require.ErrorAs(t, err, &pe)
			assert.Equal(t, tc.path, pe.Path)
			assert.Equal(t, tc.msg, pe.Msg)
		})
	}
	err := Decode([]any{map[string]any{"sorce": 1}}, new([]chunk))
	assert.EqualError(t, err, "[0].sorce: unknown field (known: source, text)")
	assert.EqualError(t, Decode(map[string]any{"on": 1}, new(counted)), "on: want true or false, got a number")
}

func TestDecodeNeedsAPointer(t *testing.T) {
	var pe *PathError
	require.ErrorAs(t, Decode(1, nil), &pe)
	require.ErrorAs(t, Decode(1, 0), &pe)
	assert.Equal(t, "cannot decode into int", pe.Msg)
}
