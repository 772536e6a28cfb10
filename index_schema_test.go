package promptkit_test

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/seed-e7d2830f/promptkit"
	"github.com/seed-e7d2830f/promptkit/internal/schema"
	"github.com/seed-e7d2830f/promptkit/manager"
	"github.com/seed-e7d2830f/promptkit/message"
)

// The index schema and the manager agree: every index.json of the
// repository that the manager loads passes the schema, and indexes the
// manager refuses for their form are refused by the schema too (a test
// set of mistakes, in a testdata directory named bad, by both).
func TestIndexSchemaAgreesWithTheManager(t *testing.T) {
	ix, err := schema.CompileIndex(promptkit.IndexSchema())
	require.NoError(t, err)

	out, err := exec.Command("git", "ls-files", "*index.json").Output()
	if err != nil {
		t.Skip("not a git checkout")
	}
	files := strings.Fields(string(out))
	require.NotEmpty(t, files)
	for _, f := range files {
		if filepath.Base(f) != manager.IndexFile {
			continue // a corpus file whose name ends so, not a set's index
		}
		data, err := os.ReadFile(f)
		require.NoError(t, err)
		_, loadErr := manager.Open(filepath.Dir(f))
		if loadErr != nil && !strings.Contains(f, "testdata") {
			t.Fatalf("%s does not load: %v", f, loadErr)
		}
		vs, err := ix.Validate(data)
		require.NoError(t, err, f)
		if strings.Contains(f, "/bad/") {
			// A set of mistakes, made to be refused: by both.
			assert.Error(t, loadErr, f)
			assert.NotEmpty(t, vs, f)
			continue
		}
		assert.Empty(t, vs, f)
	}

	refused := map[string]string{
		"unknown top-level key": `{"version": 1, "templates": {}, "extra": 1}`,
		"wrong version":         `{"version": 2, "templates": {}}`,
		"no templates":          `{"version": 1}`,
		"bad template name":     `{"version": 1, "templates": {"a b": {"path": "t.md"}}}`,
		"no path":               `{"version": 1, "templates": {"t": {}}}`,
		"absolute path":         `{"version": 1, "templates": {"t": {"path": "/etc/passwd"}}}`,
		"path leaving the root": `{"version": 1, "templates": {"t": {"path": "a/../../t.md"}}}`,
		"unknown entry key":     `{"version": 1, "templates": {"t": {"path": "t.md", "pth": "x"}}}`,
		"bad variable name":     `{"version": 1, "templates": {"t": {"path": "t.md", "variables": ["1x"]}}}`,
		"reserved name":         `{"version": 1, "templates": {"t": {"path": "t.md", "variables": ["loop"]}}}`,
		"default on required":   `{"version": 1, "templates": {"t": {"path": "t.md", "variables": [{"name": "x", "default": 1}]}}}`,
		"unknown variable key":  `{"version": 1, "templates": {"t": {"path": "t.md", "variables": [{"name": "x", "requred": false}]}}}`,
		"variable without name": `{"version": 1, "templates": {"t": {"path": "t.md", "variables": [{"required": false}]}}}`,
		"schema not a schema":   `{"version": 1, "templates": {"t": {"path": "t.md", "variables": [{"name": "x", "schema": {"type": "strnig"}}]}}}`,
		"bad undefined mode":    `{"version": 1, "undefined": "loose", "templates": {}}`,
		"bad entry undefined":   `{"version": 1, "templates": {"t": {"path": "t.md", "undefined": false}}}`,
		// The call contract.
		"unknown setting":          `{"version": 1, "templates": {"t": {"path": "t.md", "model": {"temprature": 1}}}}`,
		"setting out of bounds":    `{"version": 1, "templates": {"t": {"path": "t.md", "model": {"temperature": 3}}}}`,
		"a provider's key taken":   `{"version": 1, "templates": {"t": {"path": "t.md", "model": {"openai": {"messages": []}}}}}`,
		"model file beside keys":   `{"version": 1, "templates": {"t": {"path": "t.md", "model": {"$ref": "m.json", "name": "x"}}}}`,
		"model file leaving root":  `{"version": 1, "templates": {"t": {"path": "t.md", "model": {"$ref": "../m.json"}}}}`,
		"tool without name":        `{"version": 1, "templates": {"t": {"path": "t.md", "tools": [{"description": "x"}]}}}`,
		"tool name with a space":   `{"version": 1, "templates": {"t": {"path": "t.md", "tools": [{"name": "get weather"}]}}}`,
		"unknown tool key":         `{"version": 1, "templates": {"t": {"path": "t.md", "tools": [{"name": "f", "descripton": "x"}]}}}`,
		"tool parameters not json": `{"version": 1, "templates": {"t": {"path": "t.md", "tools": [{"name": "f", "parameters": {"type": 1}}]}}}`,
		"output not a schema":      `{"version": 1, "templates": {"t": {"path": "t.md", "output": {"type": "strnig"}}}}`,
		"cache without message":    `{"version": 1, "templates": {"t": {"path": "t.md", "cache": {"ttl": "1h"}}}}`,
		"cache ttl":                `{"version": 1, "templates": {"t": {"path": "t.md", "cache": {"message": 0, "ttl": "2h"}}}}`,
		"cache negative":           `{"version": 1, "templates": {"t": {"path": "t.md", "cache": {"message": -1}}}}`,
	}
	lenient := `{"version": 1, "undefined": "lenient", "templates": {"t": {"path": "t.md", "undefined": "strict", "variables": ["x"]}}}`
	vs, err := ix.Validate([]byte(lenient))
	require.NoError(t, err)
	assert.Empty(t, vs, "the undefined modes")
	_, err = manager.New(fstest.MapFS{"index.json": {Data: []byte(lenient)}, "t.md": {Data: []byte("{{ x }}")}})
	require.NoError(t, err)
	for name, index := range refused {
		t.Run(name, func(t *testing.T) {
			vs, err := ix.Validate([]byte(index))
			require.NoError(t, err)
			assert.NotEmpty(t, vs, "the schema accepts it")
			_, err = manager.New(fstest.MapFS{"index.json": {Data: []byte(index)}, "t.md": {Data: []byte("{{ x }}")}})
			assert.Error(t, err, "the manager accepts it")
		})
	}
}

// The index schema's model settings are the settings' own table, as
// message.SettingsSchema makes it from the table.
func TestIndexSchemaSettingsAreTheTable(t *testing.T) {
	var ix struct {
		Defs map[string]json.RawMessage `json:"$defs"`
	}
	require.NoError(t, json.Unmarshal(promptkit.IndexSchema(), &ix))
	assert.JSONEq(t, string(message.SettingsSchema()), string(ix.Defs["settings"]),
		"schemas/index.schema.json's $defs.settings is message.SettingsSchema(): copy it there")
}

// The default set names the index schema for editors.
func TestDefaultIndexNamesItsSchema(t *testing.T) {
	data, err := os.ReadFile("index.json")
	require.NoError(t, err)
	assert.Contains(t, string(data), `"$schema": "`+promptkit.IndexSchemaPath+`"`)
}
