package message

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"
)

// FuzzWriterString: strings are written as encoding/json writes them
// without HTML escaping.
func FuzzWriterString(f *testing.F) {
	for _, s := range []string{"", "plain", `"quoted" \ back`, "<a>&amp;", "tab\tnl\ncr\rbs\bff\f", "\x00\x1f\x7f", "\u2028\u2029", "北京", "bad \xff utf8", "\xed\xa0\x80"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		var b bytes.Buffer
		enc := json.NewEncoder(&b)
		enc.SetEscapeHTML(false)
		require.NoError(t, enc.Encode(s))
		var w writer
		w.str(s)
		require.Equal(t, string(bytes.TrimSuffix(b.Bytes(), []byte("\n"))), string(w.b))
	})
}
