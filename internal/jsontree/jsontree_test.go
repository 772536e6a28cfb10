package jsontree

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestParseKeepsOffsets(t *testing.T) {
	data := []byte(`{"a": [1, {"b~/c": "x"}], "d": true}`)
	n, err := Parse(data)
	require.NoError(t, err)
	assert.Equal(t, byte('{'), n.Kind)
	assert.Equal(t, 1, n.KeyOffset("a"))
	assert.Equal(t, `[1, {"b~/c": "x"}]`, string(n.Get("a").Raw(data)))
	v, ok := n.Pointer("/a/1/b~0~1c")
	require.True(t, ok)
	assert.Equal(t, "x", v.Text())
	for _, bad := range []string{"/a/2", "/a/01", "/d/x", "a", "/z"} {
		_, ok := n.Pointer(bad)
		assert.False(t, ok, bad)
	}
	root, ok := n.Pointer("")
	assert.True(t, ok)
	assert.Same(t, n, root)
	assert.Equal(t, "", n.Get("nothing").Get("deeper").Text(), "lookups chain through nil")

	_, err = Parse([]byte(`{"a": 1, "a": 2}`))
	var se *SyntaxError
	require.ErrorAs(t, err, &se)
	assert.Equal(t, 9, se.Off)
	assert.Equal(t, `key "a" twice in one object`, se.Msg)
}
