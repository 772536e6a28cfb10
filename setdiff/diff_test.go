package setdiff

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var update = flag.Bool("update", false, "rewrite the golden files of the tests")

func openDir(t *testing.T, dir string) *Set {
	t.Helper()
	s, err := Open(dir, os.DirFS(dir))
	require.NoError(t, err)
	t.Cleanup(func() { s.Close() })
	return s
}

// runes counts characters: a real, if simple, counter of a text's size.
func runes(s string) (int, error) { return len([]rune(s)), nil }

// golden compares got with testdata/name, or rewrites it with -update.
func golden(t *testing.T, name, got string) {
	t.Helper()
	p := filepath.Join("testdata", name)
	if *update {
		require.NoError(t, os.WriteFile(p, []byte(got), 0o644))
	}
	want, err := os.ReadFile(p)
	require.NoError(t, err)
	assert.Equal(t, string(want), got)
}

// Two versions of a set: a template removed and one added, a required
// variable added, a default changed, an optional variable added, a schema
// file narrowed, an included file changed; fixtures before and after.
func TestCompare(t *testing.T) {
	a, b := openDir(t, "testdata/v1"), openDir(t, "testdata/v2")
	r, err := Compare(context.Background(), a, b, WithCount(runes))
	require.NoError(t, err)

	var text bytes.Buffer
	require.NoError(t, r.WriteText(&text))
	golden(t, "v1-v2.txt", text.String())
	assert.Equal(t, 6, r.Breaking())

	var byRule []string
	for _, c := range r.Changes {
		byRule = append(byRule, c.Rule+" "+c.Template+" "+c.Path)
	}
	assert.Equal(t, []string{
		"VARIABLE_DEFAULT_CHANGED faq tone",
		"VARIABLE_OPTIONAL_ADDED faq style",
		"TEMPLATE_REMOVED legacy ",
		"TEMPLATE_ADDED summary ",
		"VARIABLE_REQUIRED_ADDED title lang",
		"SCHEMA_ADDITIONAL_PROPERTIES_CLOSED welcome user",
		"SCHEMA_CONSTRAINT_TIGHTENED welcome user.name",
		"SCHEMA_CONSTRAINT_TIGHTENED welcome user.tags",
	}, byRule)

	var doc map[string]any
	var js bytes.Buffer
	require.NoError(t, r.WriteJSON(&js))
	require.NoError(t, json.Unmarshal(js.Bytes(), &doc))
	assert.Equal(t, "testdata/v2", doc["b"].(map[string]any)["name"])
	rendered := doc["rendered"].([]any)
	require.Len(t, rendered, 5)
	weather := rendered[4].(map[string]any)
	assert.Equal(t, "title/weather", weather["fixture"])
	assert.Equal(t, "changed", weather["status"])
	assert.Equal(t, true, weather["input_changed"])
	assert.Equal(t, map[string]any{"intent": "查明天北京的天气"}, weather["input_before"])
	assert.Contains(t, weather["before"].(map[string]any)["text"], "不超过 15 个字的标题。")
	assert.Contains(t, weather["after"].(map[string]any)["text"], "用 zh 书写")
	assert.EqualValues(t, map[string]any{"before": 53.0, "after": 61.0, "delta": 8.0}, weather["tokens"])
}

// A set compared with itself has no change.
func TestCompareSame(t *testing.T) {
	a, b := openDir(t, "testdata/v1"), openDir(t, "testdata/v1")
	r, err := Compare(context.Background(), a, b)
	require.NoError(t, err)
	assert.Empty(t, r.Templates)
	assert.Empty(t, r.Files)
	assert.Empty(t, r.Changes)
	for _, rd := range r.Rendered {
		assert.Equal(t, Unchanged, rd.Status, rd.Fixture)
		assert.Empty(t, rd.Diff)
		assert.Nil(t, rd.Tokens, "no counter, no tokens")
	}
	var text bytes.Buffer
	require.NoError(t, r.WriteText(&text))
	assert.True(t, strings.Contains(text.String(), "contract: 0 breaking, 0 compatible\n"), text.String())
}
