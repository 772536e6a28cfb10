package termsafe_test

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/seed-e7d2830f/promptkit/internal/termsafe"
)

func TestLine(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"plain text, 中文, emoji 👍, U+FFFD \ufffd", "plain text, 中文, emoji 👍, U+FFFD \ufffd"},
		{"\x1b]52;c;ZWNobyBwd25lZA==\x07 clipboard", `\x1b]52;c;ZWNobyBwd25lZA==\x07 clipboard`},
		{"\x1b[2J\x1b[31mred", `\x1b[2J\x1b[31mred`},
		{"C1 CSI \u009b31m, NEL \u0085", `C1 CSI \u009b31m, NEL \u0085`},
		{"over\rwrite", `over\x0dwrite`},
		{"two\nlines\ttab", `two\x0alines\x09tab`},
		{"bidi \u202egnp.exe\u202c isolate \u2066x\u2069 zw\u200bsp", `bidi \u202egnp.exe\u202c isolate \u2066x\u2069 zw\u200bsp`},
		{"line sep \u2028 tag \U000e0041", `line sep \u2028 tag \U000e0041`},
		{"raw byte \x9b31m and \xff", `raw byte \x9b31m and \xff`},
		{"DEL \x7f", `DEL \x7f`},
	} {
		assert.Equal(t, tc.want, termsafe.Line(tc.in), "%q", tc.in)
	}
	assert.Equal(t, "a\nb\tc \\x1b[0m \\x0d", termsafe.Text("a\nb\tc \x1b[0m \r"), "Text keeps lines and tabs")
}

func TestJSON(t *testing.T) {
	v := map[string]string{"m": "\x1b[31m \u009b \u202e \u2028 \U000e0041 ok 中文"}
	b, err := json.Marshal(v)
	require.NoError(t, err)
	safe := termsafe.JSON(b)
	assert.Equal(t, `{"m":"\u001b[31m \u009b \u202e \u2028 \udb40\udc41 ok 中文"}`, string(safe))
	var back map[string]string
	require.NoError(t, json.Unmarshal(safe, &back))
	assert.Equal(t, v, back, "the same values")
	plain := []byte(`{"a":"b"}`)
	assert.Equal(t, plain, termsafe.JSON(plain))
}
