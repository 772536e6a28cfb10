package manager

import (
	"io/fs"
	"testing"
	"testing/fstest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/seed-e7d2830f/promptkit/internal/jsontree"
)

// bundleOf bundles the schema src written inline in index.json, reading
// the set's files from files.
func bundleOf(t *testing.T, files fstest.MapFS, src string) (string, error) {
	t.Helper()
	n, err := jsontree.Parse([]byte(src))
	require.NoError(t, err)
	read := func(p string) ([]byte, error) { return fs.ReadFile(files, p) }
	out, err := bundle(read, "", []byte(src), n, n)
	return string(out), err
}

func TestBundle(t *testing.T) {
	files := fstest.MapFS{
		"schemas/a.json":      {Data: []byte(`{"type": "object", "properties": {"b": {"$ref": "b.json"}, "self": {"$ref": "#"}}}`)},
		"schemas/b.json":      {Data: []byte(`{"$defs": {"x": {"type": "integer"}}, "type": "array", "items": {"$ref": "#/$defs/x"}}`)},
		"other/b.json":        {Data: []byte(`{"type": "string"}`)},
		"schemas/anchor.json": {Data: []byte(`{"$defs": {"x": {"$anchor": "here", "type": "string"}}, "$ref": "#here"}`)},
		"schemas/id.json":     {Data: []byte(`{"$id": "https://example.com/s.json", "type": "string"}`)},
	}
	for _, tc := range []struct {
		name, src, want, err string
	}{
		{"no refs: as written, compacted", `{"type": "object",  "properties": {"z": {}, "a": {}}}`, `{"type":"object","properties":{"z":{},"a":{}}}`, ""},
		{"refs inside the schema stay", `{"$defs": {"d": {"type": "string"}}, "items": {"$ref": "#/$defs/d"}}`,
			`{"$defs": {"d": {"type": "string"}}, "items": {"$ref": "#/$defs/d"}}`, ""},
		// A root that is only a $ref is the file; the files it reaches,
		// through each other, go under $defs, named after them.
		{"a chain of files", `{"$ref": "schemas/a.json"}`,
			`{"type":"object","properties":{"b":{"$ref":"#/$defs/b"},"self":{"$ref":"#"}},"$defs":{"b":{"$defs":{"x":{"type":"integer"}},"type":"array","items":{"$ref":"#/$defs/b/$defs/x"}}}}`, ""},
		{"two files of one name", `{"properties": {"p": {"$ref": "schemas/b.json"}, "q": {"$ref": "other/b.json"}}, "$defs": {"own": {}}}`,
			`{"properties":{"p":{"$ref":"#/$defs/b"},"q":{"$ref":"#/$defs/other_b"}},"$defs":{"own":{},"b":{"$defs":{"x":{"type":"integer"}},"type":"array","items":{"$ref":"#/$defs/b/$defs/x"}},"other_b":{"type":"string"}}}`, ""},
		{"a $ref in an enum is data", `{"properties": {"p": {"$ref": "other/b.json"}}, "enum": [{"$ref": "x.json"}]}`,
			`{"properties":{"p":{"$ref":"#/$defs/b"}},"enum":[{"$ref":"x.json"}],"$defs":{"b":{"type":"string"}}}`, ""},
		{"an anchor", `{"$ref": "schemas/anchor.json"}`, "", "$ref #here: a reference to an anchor cannot be sent to a provider; use a JSON pointer (#/$defs/…)"},
		{"an $id", `{"items": {"$ref": "schemas/id.json"}}`, "", "schemas/id.json: $id changes how $refs resolve: a schema sent to a provider cannot use it"},
		{"a missing place", `{"items": {"$ref": "schemas/b.json#/$defs/y"}}`, "", "$ref schemas/b.json#/$defs/y: no such place in schemas/b.json"},
		{"a URL", `{"items": {"$ref": "https://example.com/s.json"}}`, "", "$ref https://example.com/s.json: schemas are read only from files of the template set"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := bundleOf(t, files, tc.src)
			if tc.err != "" {
				assert.EqualError(t, err, tc.err)
				return
			}
			require.NoError(t, err)
			assert.JSONEq(t, tc.want, got)
			if tc.name == "no refs: as written, compacted" {
				assert.Equal(t, tc.want, got, "keys keep their order")
			}
		})
	}
}

func TestStrictSubset(t *testing.T) {
	for schema, want := range map[string]bool{
		`{"type": "object", "properties": {"a": {"type": "string"}}, "required": ["a"], "additionalProperties": false}`:                                                                      true,
		`{"type": "object", "properties": {"a": {"type": "string"}}, "required": ["a"]}`:                                                                                                     false,
		`{"type": "object", "properties": {"a": {"type": "string"}, "b": {}}, "required": ["a"], "additionalProperties": false}`:                                                             false,
		`{"type": "object", "properties": {"a": {"type": "object", "properties": {"x": {}}}}, "required": ["a"], "additionalProperties": false}`:                                             false,
		`{"type": "array", "items": {"type": "string"}}`:                                                                                                                                     false,
		`{"type": "object", "properties": {}, "additionalProperties": false, "$defs": {"d": {"type": "object", "properties": {"x": {}}, "required": ["x"], "additionalProperties": false}}}`: true,
	} {
		assert.Equal(t, want, strictSubset([]byte(schema)), schema)
	}
}
