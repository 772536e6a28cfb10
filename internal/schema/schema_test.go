package schema_test

import (
	"encoding/json"
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/seed-e7d2830f/promptkit/internal/jinja"
	"github.com/seed-e7d2830f/promptkit/internal/schema"
)

// validate validates under a budget no test spends.
func validate(t *testing.T, s *schema.Schema, name string, v any) []schema.Violation {
	t.Helper()
	vs, err := s.Validate(name, v, &schema.Budget{Work: 1 << 40})
	require.NoError(t, err)
	return vs
}

func compile(t *testing.T, raw string, files map[string]string) *schema.Schema {
	t.Helper()
	c := schema.NewCompiler(func(p string) ([]byte, error) {
		if s, ok := files[p]; ok {
			return []byte(s), nil
		}
		return nil, errors.New("no such file")
	})
	s, err := c.Compile("t", "v", json.RawMessage(raw))
	require.NoError(t, err)
	return s
}

type inner struct {
	A string `json:"a"`
}

type host struct {
	Name   string            `json:"name"`
	Hidden string            `json:"-"`
	Skip   string            `json:"skip,omitempty"`
	Zero   inner             `json:"zero,omitzero"`
	Ptr    *inner            `json:"ptr"`
	Map    map[int]string    `json:"map"`
	Bytes  []byte            `json:"bytes"`
	When   time.Time         `json:"when"`
	Raw    json.RawMessage   `json:"raw"`
	Any    any               `json:"any"`
	Items  [2]int            `json:"items"`
	Nested map[string][]bool `json:"nested"`
	inner
	private int
}

func TestPlain(t *testing.T) {
	native := map[string]any{"a": []any{"x", int64(1), 2.5, nil, true, json.Number("3")}}
	got, err := schema.Plain(native)
	require.NoError(t, err)
	assert.Equal(t, native, got)

	when := time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC)
	got, err = schema.Plain(host{Name: "n", Hidden: "h", Ptr: &inner{"p"}, Map: map[int]string{1: "one"}, Bytes: []byte("hi"),
		When: when, Raw: json.RawMessage(`{"k": [1]}`), Items: [2]int{1, 2}, Nested: map[string][]bool{"b": {true}}, inner: inner{"e"}})
	require.NoError(t, err)
	assert.Equal(t, map[string]any{
		"name": "n", "ptr": map[string]any{"a": "p"}, "map": map[string]any{"1": "one"}, "bytes": "aGk=",
		"when": "2025-01-02T03:04:05Z", "raw": map[string]any{"k": []any{json.Number("1")}}, "any": nil,
		"items": []any{int64(1), int64(2)}, "nested": map[string]any{"b": []any{true}}, "a": "e",
	}, got)

	type loop struct{ Next *loop }
	l := &loop{}
	l.Next = l
	_, err = schema.Plain(l)
	require.ErrorContains(t, err, "nested deeper than 64 levels")
}

func TestValidatePaths(t *testing.T) {
	s := compile(t, `{"type": "object", "properties": {
		"tags": {"type": "array", "items": {"type": "string"}},
		"m": {"type": "object", "additionalProperties": {"type": "integer"}},
		"kind": {"enum": ["a", "b"]}}, "additionalProperties": false, "required": ["tags"]}`, nil)
	tags := make([]any, 12)
	for i := range tags {
		tags[i] = "x"
	}
	tags[2], tags[10] = 2, false
	got := validate(t, s, "user", map[string]any{"tags": tags, "m": map[string]any{"ok": 1, "not ident": "s"}, "kind": "c", "extra": 1})
	var lines []string
	for _, v := range got {
		lines = append(lines, v.String())
	}
	assert.Equal(t, []string{
		"user.extra: not in the schema, which allows no other properties",
		`user.kind: want one of "a", "b", got "c"`,
		`user.m["not ident"]: want integer, got string`,
		"user.tags[2]: want string, got number",
		"user.tags[10]: want string, got boolean",
	}, lines)
	assert.Nil(t, validate(t, s, "user", map[string]any{"tags": []string{"a"}}))
	assert.Equal(t, []schema.Violation{{Path: "user.tags", Msg: "missing, and the schema requires it"}}, validate(t, s, "user", map[string]any{}))
	assert.Equal(t, []schema.Violation{{Path: "user.tags", Msg: "a Go func() is not a JSON value"}}, validate(t, s, "user", map[string]any{"tags": func() {}}))
}

func TestType(t *testing.T) {
	s := compile(t, `{"$ref": "schemas/u.json"}`, map[string]string{
		"schemas/u.json":   `{"type": "object", "properties": {"tags": {"type": "array", "items": {"$ref": "tag.json"}}}}`,
		"schemas/tag.json": `{"type": ["string", "null"]}`,
	})
	typ := s.Type()
	assert.Equal(t, jinja.KindObject, typ.Kinds)
	assert.False(t, typ.Open)
	assert.Equal(t, jinja.KindArray, typ.Props["tags"].Kinds)
	assert.Equal(t, jinja.KindString|jinja.KindNull, typ.Props["tags"].Items.Kinds)
}

func TestCompileRefusals(t *testing.T) {
	c := schema.NewCompiler(func(p string) ([]byte, error) { return []byte(`{"type": "object"`), nil })
	for raw, want := range map[string]string{
		`"string"`:                 "a schema is a JSON object (or true/false), not a string",
		`{"type": 3}`:              "not a valid JSON Schema: #/type: value must be one of 'array', 'boolean'",
		`{"$ref": "bad.json"}`:     "bad.json: invalid JSON",
		`{"$ref": "http://x/y"}`:   "schemas are read only from files of the template set",
		`{"type": "object"`:        "invalid JSON",
		`{"$ref": "#/$defs/none"}`: "index.json",
	} {
		_, err := c.Compile("t", raw, json.RawMessage(raw))
		require.Error(t, err, raw)
		assert.Contains(t, err.Error(), want, raw)
		assert.NotContains(t, err.Error(), "set:///", raw)
	}
}
