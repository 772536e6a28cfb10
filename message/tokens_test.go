package message_test

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/seed-e7d2830f/promptkit/message"
)

// textTokens writes the tokens it receives as JSON text, so that the
// tokens WriteMessages gives can be held to the text EncodeMessages
// writes.
type textTokens struct {
	b     []byte
	first []bool // per open container: no item written yet
	key   bool   // a key was written: its value follows
}

func (w *textTokens) item() {
	if w.key {
		w.key = false
		return
	}
	if n := len(w.first); n > 0 {
		if !w.first[n-1] {
			w.b = append(w.b, ',')
		}
		w.first[n-1] = false
	}
}

func (w *textTokens) open(c byte) { w.item(); w.b = append(w.b, c); w.first = append(w.first, true) }
func (w *textTokens) close(c byte) {
	w.b = append(w.b, c)
	w.first = w.first[:len(w.first)-1]
}
func (w *textTokens) BeginObject() { w.open('{') }
func (w *textTokens) EndObject()   { w.close('}') }
func (w *textTokens) BeginList()   { w.open('[') }
func (w *textTokens) EndList()     { w.close(']') }
func (w *textTokens) Key(name string) {
	w.item()
	w.b = strconv.AppendQuote(w.b, name)
	w.b = append(w.b, ':')
	w.key = true
}
func (w *textTokens) String(s string) { w.item(); w.b, _ = appendJSON(w.b, s) }
func (w *textTokens) Bool(b bool)     { w.item(); w.b = strconv.AppendBool(w.b, b) }
func (w *textTokens) Null()           { w.item(); w.b = append(w.b, "null"...) }
func (w *textTokens) JSON(text string) error {
	if !json.Valid([]byte(text)) {
		return errors.New("invalid JSON")
	}
	w.item()
	w.b = append(w.b, text...)
	return nil
}

func appendJSON(b []byte, v any) ([]byte, error) {
	data, err := json.Marshal(v)
	return append(b, data...), err
}

// TestWriteMessages: the tokens WriteMessages and WriteTools give are the
// JSON EncodeMessages and EncodeTools write, for every conversation of
// testdata, keys read in any order, nulls and empty values included.
func TestWriteMessages(t *testing.T) {
	files, err := filepath.Glob("testdata/conversations/*.json")
	require.NoError(t, err)
	files = append(files, "testdata/key_order/in.json")
	for _, f := range files {
		data, err := os.ReadFile(f)
		require.NoError(t, err)
		msgs, err := message.DecodeMessages(data)
		require.NoError(t, err, f)
		text, err := message.EncodeMessages(msgs)
		require.NoError(t, err)
		var tw textTokens
		require.NoError(t, message.WriteMessages(&tw, msgs))
		assert.Equal(t, tree(t, text), tree(t, tw.b), f)
	}
	data, err := os.ReadFile("testdata/tools/weather.json")
	require.NoError(t, err)
	tools, err := message.DecodeTools(data)
	require.NoError(t, err)
	var tw textTokens
	require.NoError(t, message.WriteTools(&tw, tools))
	assert.Equal(t, tree(t, data), tree(t, tw.b))
}

// TestWriteMessagesErrors: what EncodeMessages refuses, WriteMessages
// refuses with the same path.
func TestWriteMessagesErrors(t *testing.T) {
	for _, c := range []struct {
		msg message.Message
		err string
	}{
		{message.Message{Parts: []message.Part{{Type: message.PartText, Text: "a"}}}, `messages[0].role: empty`},
		{message.Message{Role: "assistant", ToolCalls: []message.ToolCall{{Name: "f", Arguments: "[1]", ObjectArguments: true}}},
			`messages[0].tool_calls[0].function.arguments: not a JSON object`},
		{message.Message{Role: "assistant", ToolCalls: []message.ToolCall{{Name: "f", Arguments: `{"a":`, ObjectArguments: true}}},
			`messages[0].tool_calls[0].function.arguments: not a JSON object: invalid JSON`},
	} {
		err := message.WriteMessages(&textTokens{}, []message.Message{c.msg})
		require.Error(t, err)
		assert.Equal(t, c.err, err.Error())
		assert.ErrorIs(t, err, message.ErrInvalid)
	}
}
