package message_test

import (
	"bytes"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/seed-e7d2830f/promptkit/message"
)

// tree is data decoded as encoding/json decodes it into any, numbers
// kept as written: the same tree is the same JSON, whitespace, the
// escaping of strings and the order of keys aside.
func tree(t *testing.T, data []byte) any {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var v any
	require.NoError(t, dec.Decode(&v))
	_, err := dec.Token()
	require.ErrorIs(t, err, io.EOF)
	return v
}

// FuzzDecodeMessages: whatever decodes encodes, to the same JSON (as
// text and as WriteMessages' tokens), and decodes again to the same
// messages; whatever does not is a *FieldError.
func FuzzDecodeMessages(f *testing.F) {
	files, _ := filepath.Glob("testdata/conversations/*.json")
	for _, file := range files {
		data, err := os.ReadFile(file)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Add([]byte(`[{"role":"user","content":"a\u2028b\u0000<&>","name":null,"tool_calls":null}]`))
	f.Add([]byte(`[{"role":"assistant","content":[],"tool_calls":[{"function":{"arguments":{ "a" : 1 },"name":"f"}}]}]`))
	f.Fuzz(func(t *testing.T, data []byte) {
		msgs, err := message.DecodeMessages(data)
		if err != nil {
			var fe *message.FieldError
			require.ErrorAs(t, err, &fe)
			return
		}
		out, err := message.EncodeMessages(msgs)
		require.NoError(t, err, "a decoded conversation encodes")
		require.Equal(t, tree(t, data), tree(t, out), "the same JSON")
		var tw textTokens
		require.NoError(t, message.WriteMessages(&tw, msgs))
		require.Equal(t, tree(t, out), tree(t, tw.b), "WriteMessages gives the same JSON as tokens")
		again, err := message.DecodeMessages(out)
		require.NoError(t, err)
		require.Equal(t, msgs, again)
	})
}
