package schema_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestChoices(t *testing.T) {
	files := map[string]string{"schemas/tone.json": `{"enum": ["亲切", "正式"]}`}
	for _, tc := range []struct {
		name, schema string
		want         []any
	}{
		{"enum", `{"enum": ["亲切", "正式"]}`, []any{"亲切", "正式"}},
		{"const", `{"const": "zh"}`, []any{"zh"}},
		{"numbers", `{"enum": [1, 2.5, 1]}`, []any{int64(1), 2.5}},
		{"through a file's $ref", `{"$ref": "schemas/tone.json"}`, []any{"亲切", "正式"}},
		{"anyOf", `{"anyOf": [{"const": "a"}, {"enum": ["b", "c"]}]}`, []any{"a", "b", "c"}},
		{"only those the whole schema accepts", `{"type": "string", "enum": ["a", 1, null]}`, []any{"a"}},
		{"allOf narrows", `{"allOf": [{"enum": ["a", "b"]}, {"enum": ["b", "c"]}]}`, []any{"b"}},
		{"no list", `{"type": "string"}`, nil},
		{"object", `{"type": "object", "properties": {"k": {"enum": ["x"]}}}`, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, compile(t, tc.schema, files).Choices())
		})
	}
}
