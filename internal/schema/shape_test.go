package schema_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/seed-e7d2830f/promptkit/internal/schema"
)

// nestedCombinators is the schema of the reproducer: levels of anyOf,
// oneOf and allOf, each over the same next level twice. About 1.7 KB,
// it applies 2^levels subschemas to one value.
func nestedCombinators(levels int) string {
	kws := []string{"anyOf", "oneOf", "allOf"}
	defs := make([]string, 0, levels+1)
	for i := range levels {
		next := fmt.Sprintf(`{"$ref": "#/$defs/l%d"}`, i+1)
		defs = append(defs, fmt.Sprintf(`"l%d": {%q: [%s, %s]}`, i, kws[i%3], next, next))
	}
	defs = append(defs, fmt.Sprintf(`"l%d": {"type": "string", "minLength": 20}`, levels))
	return `{"$defs": {` + strings.Join(defs, ", ") + `}, "$ref": "#/$defs/l0"}`
}

func compileErr(raw string, files map[string]string) error {
	c := schema.NewCompiler(func(p string) ([]byte, error) {
		if s, ok := files[p]; ok {
			return []byte(s), nil
		}
		return nil, errors.New("no such file")
	})
	_, err := c.Compile("t", "v", json.RawMessage(raw))
	return err
}

// Schemas whose shape makes validating a value cost beyond any budget are
// refused at load, naming the file and the JSON pointer of the subschema.
func TestShapeRefusals(t *testing.T) {
	wide := make([]string, schema.MaxAlternatives+1)
	for i := range wide {
		wide[i] = fmt.Sprintf(`{"const": %d}`, i)
	}
	deep := strings.Repeat(`{"items": `, schema.MaxNesting) + `{"type": "string"}` + strings.Repeat(`}`, schema.MaxNesting)
	for _, tt := range []struct {
		name, raw string
		files     map[string]string
		file, ptr string
		msg       string
	}{
		{"nested combinators in a file", `{"$ref": "schemas/n.json"}`, map[string]string{"schemas/n.json": nestedCombinators(40)},
			"schemas/n.json", "/$defs/l28", "written out with every $ref replaced by its target, the schema has more than 10000 subschemas"},
		{"nested combinators inline", nestedCombinators(40), nil,
			"", "/$defs/l28", "more than 10000 subschemas"},
		{"one wide anyOf", `{"properties": {"a": {"anyOf": [` + strings.Join(wide, ", ") + `]}}}`, nil,
			"", "/properties/a", "anyOf lists 129 subschemas, over the limit of 128"},
		{"deep nesting", deep, nil,
			"", "", "subschemas nest deeper than 64 levels"},
		{"a $ref cycle at one place", `{"$defs": {"a": {"anyOf": [{"type": "string"}, {"$ref": "#/$defs/b"}]}, "b": {"allOf": [{"$ref": "#/$defs/a"}]}}, "$ref": "#/$defs/a"}`, nil,
			"", "/$defs/a", "a $ref cycle that never moves into the value (#/$defs/a -> #/$defs/a/anyOf/1 -> #/$defs/b -> #/$defs/b/allOf/0 -> #/$defs/a) would validate the same value forever"},
		{"a long pattern", `{"type": "string", "pattern": "` + strings.Repeat("a", schema.MaxPatternBytes+1) + `"}`, nil,
			"", "", `not a valid JSON Schema: #/pattern: "` + strings.Repeat("a", 36) + `… is not a valid regex: a regular expression of 1025 bytes, over the limit of 1024`},
		{"a complex pattern", `{"patternProperties": {"[a-z]{1,1000}[a-z]{1,1000}[a-z]{1,1000}": {}}}`, nil,
			"", "", `not a valid JSON Schema: #/patternProperties: "[a-z]{1,1000}[a-z]{1,1000}[a-z]{1,10… is not a valid regex: a regular expression of 5999 instructions once compiled, over the limit of 4096`},
		{"a dynamic reference", `{"$dynamicAnchor": "n", "properties": {"k": {"$dynamicRef": "#n"}}}`, nil,
			"", "/properties/k", "$dynamicRef to a $dynamicAnchor resolves only while validating"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			err := compileErr(tt.raw, tt.files)
			require.Error(t, err)
			assert.Contains(t, err.Error(), tt.msg)
			assert.NotContains(t, err.Error(), "set:///")
			var se *schema.ShapeError
			if errors.As(err, &se) {
				assert.Equal(t, tt.file, se.File)
				assert.Equal(t, tt.ptr, se.Pointer)
				return
			}
			assert.Contains(t, []string{"a long pattern", "a complex pattern"}, tt.name, "the library refuses patterns, through our engine: %v", err)
		})
	}
}

// What the limits leave: recursive schemas, shared subschemas, patterns
// and every schema the repository ships.
func TestShapeAccepts(t *testing.T) {
	for name, raw := range map[string]string{
		"recursive tree":     `{"$defs": {"n": {"type": "object", "properties": {"name": {"type": "string"}, "children": {"type": "array", "items": {"$ref": "#/$defs/n"}}}}}, "$ref": "#/$defs/n"}`,
		"mutual recursion":   `{"$defs": {"a": {"properties": {"b": {"$ref": "#/$defs/b"}}}, "b": {"items": {"$ref": "#/$defs/a"}}}, "$ref": "#/$defs/a"}`,
		"shared subschema":   `{"$defs": {"s": {"type": "string", "pattern": "^[a-z]{1,64}$"}}, "properties": {"a": {"$ref": "#/$defs/s"}, "b": {"$ref": "#/$defs/s"}, "c": {"anyOf": [{"$ref": "#/$defs/s"}, {"type": "null"}]}}}`,
		"a few nested anyOf": nestedCombinators(8),
		"a bare recursion":   `{"type": "array", "items": {"$ref": "#"}}`,
	} {
		assert.NoError(t, compileErr(raw, nil), name)
	}
	// The variable schemas the repository ships (index.schema.json is
	// index.json's own, compiled by CompileIndex).
	files, err := filepath.Glob(filepath.Join("..", "..", "schemas", "*.json"))
	require.NoError(t, err)
	require.NotEmpty(t, files)
	c := schema.NewCompiler(func(p string) ([]byte, error) { return os.ReadFile(filepath.Join("..", "..", filepath.FromSlash(p))) })
	for _, f := range files {
		if filepath.Base(f) == "index.schema.json" {
			continue
		}
		_, err := c.Compile("t", f, json.RawMessage(`{"$ref": "schemas/`+filepath.Base(f)+`"}`))
		assert.NoError(t, err, f)
	}
}
