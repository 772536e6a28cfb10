package server

import (
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// typedFiles is a set whose variables have schemas: one inline, one a
// $ref to a file that $refs another (relative to itself), with a file
// beside them that no schema references.
var typedFiles = map[string]string{
	"index.json": `{"version": 1, "templates": {
	  "hello": {"path": "hello.md", "variables": [
	    {"name": "user", "schema": {"$ref": "schemas/user.json"}},
	    {"name": "n", "schema": {"type": "integer", "minimum": 1}}]}}}`,
	"hello.md":             "{{ user.name }} ({{ user.address.city }}) ×{{ n }}",
	"schemas/user.json":    `{"type": "object", "required": ["name", "address"], "properties": {"name": {"type": "string"}, "address": {"$ref": "address.json#"}}}`,
	"schemas/address.json": `{"type": "object", "required": ["city"], "properties": {"city": {"type": "string"}}, "$defs": {"self": {"$ref": "#"}}}`,
	"schemas/secret.json":  `{"not": "referenced"}`,
}

func TestTemplatesGiveSchemas(t *testing.T) {
	_, _, ts := newDirServer(t, typedFiles)

	r := call(t, ts, "GET", "/v1/templates/hello", "")
	require.Equal(t, http.StatusOK, r.code, r.body)
	assert.Contains(t, r.body, `{"name":"user","required":true,"has_default":false,"description":"","schema":{"$ref":"schemas/user.json"}}`)
	assert.Contains(t, r.body, `{"name":"n","required":true,"has_default":false,"description":"","schema":{"type":"integer","minimum":1}}`)

	// A variable without a schema has no "schema" key.
	_, _, plain := newDirServer(t, testFiles)
	r = call(t, plain, "GET", "/v1/templates/greet", "")
	require.Equal(t, http.StatusOK, r.code, r.body)
	assert.NotContains(t, r.body, `"schema"`)
}

func TestSchemaFilesServed(t *testing.T) {
	_, _, ts := newDirServer(t, typedFiles)
	for _, tc := range []struct {
		path string
		code int
		body string
	}{
		{"schemas/user.json", http.StatusOK, typedFiles["schemas/user.json"]},
		// Referenced from user.json, relative to it, with a fragment.
		{"schemas/address.json", http.StatusOK, typedFiles["schemas/address.json"]},
		// In the directory, but no schema references it.
		{"schemas/secret.json", http.StatusNotFound, ""},
		{"hello.md", http.StatusNotFound, ""},
		{"index.json", http.StatusNotFound, ""},
	} {
		t.Run(tc.path, func(t *testing.T) {
			r := call(t, ts, "GET", "/v1/schemas/"+tc.path, "")
			require.Equal(t, tc.code, r.code, r.body)
			if tc.code == http.StatusOK {
				assert.Equal(t, tc.body, r.body)
				assert.Equal(t, "application/schema+json", r.header.Get("Content-Type"))
			} else {
				assert.Equal(t, "not_found", r.problem(t).Kind)
			}
		})
	}
}
