package schema

import (
	"encoding/json"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// quickSchemas are schemas of the quick path's subset, and some beyond it.
var quickSchemas = map[string]string{
	"string":      `{"type": "string"}`,
	"integer":     `{"type": "integer"}`,
	"number":      `{"type": ["number", "null"]}`,
	"enum":        `{"enum": ["正式", "亲切", null, true]}`,
	"enum number": `{"enum": [1, 2.5]}`,
	"closed":      `{"type": "object", "required": ["name"], "additionalProperties": false, "properties": {"name": {"type": "string"}, "resources": {"type": "array", "items": {"type": "string"}}}}`,
	"open":        `{"type": "object", "properties": {"x": {"type": "integer"}}, "additionalProperties": {"type": "string"}}`,
	"skills":      `{"type": "array", "items": {"$ref": "schemas/skill.json"}}`,
	"tools":       `{"type": "array", "items": {"$ref": "schemas/tool.json"}}`,
	"recursive":   `{"$defs": {"n": {"type": "object", "properties": {"name": {"type": "string"}, "children": {"type": "array", "items": {"$ref": "#/$defs/n"}}}}}, "$ref": "#/$defs/n"}`,
	"min length":  `{"type": "string", "minLength": 2}`,
	"pattern":     `{"type": "object", "patternProperties": {"^x": {"type": "string"}}}`,
	"format":      `{"type": "string", "format": "email"}`,
	"true":        `true`,
	"false":       `false`,
}

// notQuick are the schemas that must go to the library whole.
// (format is an annotation in draft 2020-12, as the library reads it: a
// schema with one stays quick, and the property below holds for it.)
var notQuick = map[string]bool{"enum number": true, "min length": true, "pattern": true, "false": true}

// plenty is a budget no test spends.
func plenty() *meter {
	m := newMeter(&Budget{Work: 1 << 62})
	return &m
}

func compileQuick(t *testing.T, raw string) *Schema {
	t.Helper()
	c := NewCompiler(func(p string) ([]byte, error) { return os.ReadFile(filepath.Join("..", "..", filepath.FromSlash(p))) })
	s, err := c.Compile("t", "v", json.RawMessage(raw))
	require.NoError(t, err)
	return s
}

// randomValue makes the kinds of values hosts pass, many of them close to
// the schemas above, some far off, some of Go types the quick path leaves
// to the library.
func randomValue(r *rand.Rand, depth int) any {
	keys := []string{"name", "description", "location", "resources", "x", "xa", "type", "input_schema", "children"}
	strs := []string{"", "正式", "亲切", "a", "skills/git", "function"}
	n := r.IntN(16)
	if depth > 3 && n >= 10 {
		n = r.IntN(10)
	}
	switch n {
	case 0:
		return nil
	case 1:
		return r.IntN(2) == 0
	case 2, 3:
		return strs[r.IntN(len(strs))]
	case 4:
		return r.IntN(5) - 1
	case 5:
		return []float64{1, 1.5, -0.0, 2.5, 1e300}[r.IntN(5)]
	case 6:
		return int64(r.IntN(3))
	case 7:
		type named string
		return named("a")
	case 8:
		var nilList []any
		return nilList
	case 9:
		return json.Number("1")
	case 10, 11:
		l := make([]any, r.IntN(4))
		for i := range l {
			l[i] = randomValue(r, depth+1)
		}
		return l
	case 12:
		if r.IntN(2) == 0 {
			l := make([]map[string]any, r.IntN(3))
			for i := range l {
				l[i], _ = randomValue(r, 4).(map[string]any)
			}
			return l
		}
		return []string{"a", "b"}[:r.IntN(3)]
	case 13:
		return map[string]string{keys[r.IntN(len(keys))]: strs[r.IntN(len(strs))]}
	default:
		m := map[string]any{}
		for range r.IntN(5) {
			m[keys[r.IntN(len(keys))]] = randomValue(r, depth+1)
		}
		return m
	}
}

// The quick path never calls a value valid that the library refuses, and
// it does take the values it is for.
func TestQuickAgreesWithTheLibrary(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for name, raw := range quickSchemas {
		t.Run(name, func(t *testing.T) {
			s := compileQuick(t, raw)
			assert.Equal(t, notQuick[name], s.quick == nil, "has a quick matcher")
			accepted := 0
			for range 20000 {
				v := randomValue(r, 0)
				if !s.quick.accepts(v, 0, plenty()) {
					continue
				}
				accepted++
				p, err := Plain(v)
				require.NoError(t, err)
				require.NoError(t, s.s.Validate(p), "quick accepted %#v", v)
			}
			if s.quick != nil {
				assert.Positive(t, accepted, "the quick path took no value")
			}
		})
	}
}

// Values the default set's renders pass take the quick path.
func TestQuickTakesTheUsualValues(t *testing.T) {
	skills := compileQuick(t, quickSchemas["skills"])
	v := []any{map[string]any{"name": "git", "description": "", "location": "skills/git", "resources": []any{"a.md"}}}
	assert.True(t, skills.quick.accepts(v, 0, plenty()))
	vs, err := skills.Validate("skills", v, &Budget{Work: 1 << 20})
	require.NoError(t, err)
	assert.Nil(t, vs)

	bad := []any{map[string]any{"name": "git", "description": "", "location": "", "resources": []any{1}}}
	assert.False(t, skills.quick.accepts(bad, 0, plenty()))
	vs, err = skills.Validate("skills", bad, &Budget{Work: 1 << 20})
	require.NoError(t, err)
	assert.Equal(t, []Violation{{Path: "skills[0].resources[0]", Msg: "want string, got number"}}, vs, "the library words it")
}
