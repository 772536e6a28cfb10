package jsontree

import (
	"fmt"
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

// FuzzParse holds the one-pass reader of valid text to the token reader:
// the same tree, offsets included, or the same error.
func FuzzParse(f *testing.F) {
	for _, s := range []string{
		`{"a": [1, {"b~/c": "x"}], "d": true}`,
		`{"a": 1, "a": 2}`,
		` [ ] `, `{}`, `"\u00e9\ud83d\ude00\n"`, `"é"`, "\"\xff\"", `-1.5e+10`, `null`, `[false, true, null, 0]`,
		`{"k1":1,"k2":2,"k3":3,"k4":4,"k5":5,"k6":6,"k7":7,"k8":8,"k9":9,"k10":10,"k11":11,"k12":12,"k13":13,"k14":14,"k15":15,"k16":16,"k17":17,"k1":18}`,
		`{"templates": {"a": {"path": "a.md", "variables": ["x", {"name": "y", "required": true}]}, "b": {"path": "b.md"}}}`,
		`{"a\"b": 1, "a\u0022b": 2}`, `{"\u00e9": 1, "é": 2}`,
		`{"a": 1} x`, `{"a" 1}`, `[1,]`, "\ufeff{}", ``,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		slow, slowErr := parseTokens(data)
		fast, fastErr := Parse(data)
		require.Equal(t, slowErr, fastErr)
		require.Equal(t, slow, fast)
	})
}

func TestParseLargeObjectFindsRepeatedKey(t *testing.T) {
	var b []byte
	b = append(b, '{')
	for i := range 40 {
		b = append(b, fmt.Sprintf(`"k%d": %d, `, i, i)...)
	}
	b = append(b, `"k7": 0}`...)
	_, err := Parse(b)
	var se *SyntaxError
	require.ErrorAs(t, err, &se)
	assert.Equal(t, `key "k7" twice in one object`, se.Msg)
	assert.Equal(t, string(b[se.Off:se.Off+4]), `"k7"`)
}
