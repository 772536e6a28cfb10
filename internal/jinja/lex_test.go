package jinja

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// lexVals lexes src and returns "type:value" of each item but the EOF.
func lexVals(t *testing.T, src string, opt Options) []string {
	t.Helper()
	items, err := lex(src, opt)
	require.Nil(t, err)
	var out []string
	names := map[itemType]string{itemText: "text", itemVarBegin: "{{", itemVarEnd: "}}", itemBlockBegin: "{%",
		itemBlockEnd: "%}", itemName: "name", itemString: "str", itemInt: "int", itemFloat: "float", itemOp: "op"}
	for _, it := range items[:len(items)-1] {
		out = append(out, names[it.typ]+":"+it.val)
	}
	return out
}

// TestLexNumbersAsJinja: after a dot a number is an integer index (x.0.1
// is x[0][1], not x[0.1]), and a decimal integer does not start with 0.
func TestLexNumbersAsJinja(t *testing.T) {
	assert.Equal(t, []string{"{{:{{", "name:x", "op:.", "int:0", "op:.", "int:1", "}}:}}"}, lexVals(t, "{{ x.0.1 }}", Options{}))
	assert.Equal(t, []string{"{{:{{", "name:x", "op:.", "int:1", "name:e5", "}}:}}"}, lexVals(t, "{{ x.1e5 }}", Options{}))
	assert.Equal(t, []string{"{{:{{", "int:0", "int:12", "float:07.5", "int:00", "}}:}}"}, lexVals(t, "{{ 012 07.5 00 }}", Options{}))
	tr, err := Parse("t.md", "{{ x.0.1 }}", Options{})
	require.NoError(t, err)
	assert.Equal(t, "{{ x[0][1] }}", tr.Root[0].String())
}

// TestLexPythonWhitespace: Jinja's whitespace is Python's, which counts
// the separators U+001C to U+001F as whitespace (Go's unicode.IsSpace
// does not).
func TestLexPythonWhitespace(t *testing.T) {
	assert.Equal(t, []string{"text:a", "{{:{{", "name:x", "}}:}}", "text:b"}, lexVals(t, "a\x1c\x1f{{- x -}}\x1d\x1eb", Options{}))
	assert.Equal(t, []string{"{{:{{", "name:x", "name:y", "}}:}}"}, lexVals(t, "{{\x1cx\x1fy }}", Options{}))
	assert.Equal(t, []string{"text:a\n", "{%:{%", "name:if", "name:x", "%}:%}"}, lexVals(t, "a\n\x1c {% if x %}", Options{LStripBlocks: true}))
}

// TestLexEscapesPythonRefuses: an escape Python's unicode_escape codec
// refuses is refused (it was kept as written, where Jinja fails).
func TestLexEscapesPythonRefuses(t *testing.T) {
	for src, want := range map[string]string{
		`{{ "ab\x4g" }}`:     `t.md:1:7: bad escape \x4 in string: \x takes 2 hex digits`,
		`{{ "\u12" }}`:       `t.md:1:5: bad escape \u12 in string: \u takes 4 hex digits`,
		`{{ "\U00110000" }}`: `t.md:1:5: bad escape \U00110000 in string: U+110000 is not a character`,
		`{{ "\ud800" }}`:     `t.md:1:5: bad escape \ud800 in string: U+D800 is not a character`,
		`{{ "\N{BULLET}" }}`: `t.md:1:5: escapes by character name (\N{…}) are not supported; write the character itself, or \u with its code`,
	} {
		_, err := Parse("t.md", src, Options{})
		assert.EqualError(t, err, want, src)
	}
	assert.Equal(t, []string{"{{:{{", `str:A中😀\q`, "}}:}}"}, lexVals(t, `{{ "\x41\u4e2d\U0001F600\q" }}`, Options{}))
}
