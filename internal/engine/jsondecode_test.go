package engine

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"math/big"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/seed-e7d2830f/promptkit/message"
)

func TestDecodeJSON(t *testing.T) {
	for _, c := range []struct{ in, repr string }{
		{`{"z": 1, "a": 2, "m": {"y": [], "b": {}}}`, `{'z': 1, 'a': 2, 'm': {'y': [], 'b': {}}}`},
		{`{"a": 1, "b": 2, "a": 3}`, `{'a': 3, 'b': 2}`}, // a repeated key: first place, last value
		{`[154.0, 154, -0, -0.0, 1e2, 1E+2, 0.5e-1, 12345678901234567]`, `[154.0, 154, 0, -0.0, 100.0, 100.0, 0.05, 12345678901234567]`},
		{`[9223372036854775807, -9223372036854775808]`, `[9223372036854775807, -9223372036854775808]`},
		{`{"n": 123456789012345678901234, "m": -9223372036854775809}`, `{'n': 123456789012345678901234, 'm': -9223372036854775809}`}, // Python's ints
		{`[1e400, -1e400, 1e-400]`, `[inf, -inf, 0.0]`},                                                                              // as float() reads them
		{`[true, false, null]`, `[True, False, None]`},
		{` "a\"b\\c\/d\b\f\n\r\t\u00e9\u4e2d" `, `'a"b\\c/d\x08\x0c\n\r\té中'`},
		{`"\ud83d\ude00 \ud83d x \ude00 \ud83d\u0041"`, "'😀 \ufffd x \ufffd \ufffdA'"}, // lone halves are U+FFFD
		{"\"caf\xe9 \xff ok 中\"", "'caf\ufffd \ufffd ok 中'"},                           // invalid UTF-8 too
		{`{"中文": "值", "k": "line\nbreak"}`, `{'中文': '值', 'k': 'line\nbreak'}`},
	} {
		v, err := DecodeJSON([]byte(c.in))
		require.NoError(t, err, c.in)
		require.NoError(t, CheckJSON([]byte(c.in)), c.in)
		got, err := reprString(v)
		require.NoError(t, err)
		assert.Equal(t, c.repr, got, c.in)
	}
}

func TestDecodeJSONErrors(t *testing.T) {
	for _, c := range []struct{ in, msg string }{
		{``, "unexpected end of JSON input (line 1, column 1)"},
		{`{"a": 1,}`, `invalid character '}' looking for beginning of object key string (line 1, column 9)`},
		{"[1,\n 2 3]", "invalid character '3' after array element (line 2, column 4)"},
		{`[01]`, "invalid character '1' after array element (line 1, column 3)"},
		{`{"a" 1}`, "invalid character '1' after object key (line 1, column 6)"},
		{`[1.]`, "invalid character ']' after decimal point in numeric literal (line 1, column 4)"},
		{`[NaN]`, "invalid character 'N' looking for beginning of value (line 1, column 2)"},
		{`tru`, "unexpected end of JSON input (line 1, column 4)"},
		{`"a` + "\n" + `"`, `invalid character '\n' in string literal (line 1, column 3)`},
		{`"\x"`, `invalid character 'x' in string escape code (line 1, column 3)`},
		{`"\u12G4"`, `invalid character 'G' in \u hexadecimal character escape (line 1, column 6)`},
		{`{} {}`, "unexpected data after the JSON value (line 1, column 4)"},
		{"\xef\xbb\xbf{}", "invalid character byte 0xef looking for beginning of value (line 1, column 1)"},
		{strings.Repeat("[", 1002) + strings.Repeat("]", 1002), "JSON nested deeper than 1000 levels (line 1, column 1002)"},
	} {
		_, err := DecodeJSON([]byte(c.in))
		require.Error(t, err, c.in)
		assert.Equal(t, c.msg, err.Error(), c.in)
		var se *SyntaxError
		assert.True(t, errors.As(err, &se), c.in)
		assert.EqualError(t, CheckJSON([]byte(c.in)), c.msg, "CheckJSON of %s", c.in)
	}
	// As deep as the limit is fine.
	_, err := DecodeJSON([]byte(strings.Repeat("[", 1001) + strings.Repeat("]", 1001)))
	assert.NoError(t, err)
	assert.NoError(t, CheckJSON([]byte(strings.Repeat("[", 1001)+strings.Repeat("]", 1001))))
}

// TestDecodeJSONSmallDicts: a dict of up to smallDict keys has no index,
// a larger one has, and both find every key.
func TestDecodeJSONSmallDicts(t *testing.T) {
	for _, n := range []int{0, 1, smallDict, smallDict + 1, 40} {
		members := []string{}
		for i := range n {
			members = append(members, fmt.Sprintf(`"k%d": %d`, i, i))
		}
		if n > 0 { // k0 again: it keeps its place and takes -1
			members = append(members, `"k0": -1`)
		}
		src := "{" + strings.Join(members, ", ") + "}"
		v, err := DecodeJSON([]byte(src))
		require.NoError(t, err, src)
		d := v.ref.(*OrderedDict)
		assert.Equal(t, n, d.Len())
		assert.Equal(t, n > smallDict, d.index != nil, n)
		for i := range n {
			want := int64(i)
			if i == 0 {
				want = -1
			}
			got, ok := d.getString(fmt.Sprintf("k%d", i))
			require.True(t, ok)
			assert.Equal(t, want, got.n)
			got, ok = d.get(strValue(fmt.Sprintf("k%d", i)))
			require.True(t, ok)
			assert.Equal(t, want, got.n)
		}
		_, ok := d.getString("absent")
		assert.False(t, ok)
	}
}

// FuzzDecodeJSON holds the decoder to encoding/json (what it accepts,
// and the values, order aside), CheckJSON to the decoder (the same
// error, or none), and the decoder to the token-at-a-time decoder it
// replaced (the same values, in the same order, integers and floats
// apart). Two differences are deliberate: an integer beyond 64 bits is
// Python's int where the old decoder failed, and a float beyond the range
// is ±inf (as Python reads it) where the old one made a string.
func FuzzDecodeJSON(f *testing.F) {
	for _, s := range []string{
		`{"role": "user", "content": "你好\n", "n": [1, 2.5, -0, 1e3, true, null]}`,
		`[{"a": 1, "b": {"c": [[], {}]}, "a": 2}]`, `"\ud83d\ude00\ud83d"`, "\"\xff\"", `1e400`,
		`12345678901234567890`, `[1,]`, `{"a":1}x`, ` 0 `, `-`, `"\u00"`, `{"a":"\u0000"}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		got, err := DecodeJSON(data)
		if cerr := CheckJSON(data); err == nil {
			require.NoError(t, cerr, "%q", data)
		} else {
			require.EqualError(t, cerr, err.Error(), "%q", data)
		}
		if !json.Valid(data) {
			require.Error(t, err, "encoding/json refuses %q", data)
			return
		}
		var se *SyntaxError
		if err != nil {
			require.True(t, errors.As(err, &se))
			if strings.Contains(se.Msg, "nested deeper") {
				return
			}
			t.Fatalf("encoding/json accepts %q, DecodeJSON refuses it: %v", data, err)
		}
		dec := json.NewDecoder(bytes.NewReader(data))
		dec.UseNumber()
		var plain any
		require.NoError(t, dec.Decode(&plain))
		require.Equal(t, plainOf(t, plain), valueAsPlain(got), "%q", data)

		old, oerr := tokenDecode(data)
		require.NoError(t, oerr)
		want, err1 := reprString(old)
		have, err2 := reprString(got)
		if err1 != nil || err2 != nil { // deeper than repr prints
			require.Equal(t, err1 != nil, err2 != nil)
			return
		}
		require.Equal(t, want, have, "%q", data)
	})
}

// plainOf reads encoding/json's numbers as float64s.
func plainOf(t *testing.T, v any) any {
	switch x := v.(type) {
	case json.Number:
		f, err := strconv.ParseFloat(string(x), 64)
		if err != nil && !errors.Is(err, strconv.ErrRange) {
			t.Fatal(err)
		}
		return f
	case []any:
		for i := range x {
			x[i] = plainOf(t, x[i])
		}
	case map[string]any:
		for k := range x {
			x[k] = plainOf(t, x[k])
		}
	}
	return v
}

func valueAsPlain(v Value) any {
	switch v.k {
	case None:
		return nil
	case Bool:
		return v.n != 0
	case Int:
		return float64(v.n)
	case BigInt:
		f, _ := new(big.Float).SetInt(v.ref.(*big.Int)).Float64()
		return f
	case Float:
		return v.float()
	case String:
		return v.s
	case List:
		out := []any{}
		for _, x := range v.ref.(*seqData).items {
			out = append(out, valueAsPlain(x))
		}
		return out
	case Dict:
		d := v.ref.(*OrderedDict)
		out := map[string]any{}
		for i, k := range d.keys {
			out[k.s] = valueAsPlain(d.vals[i])
		}
		return out
	}
	panic(fmt.Sprintf("not a JSON value: %v", v))
}

// tokenDecode is the decoder DecodeJSON replaced (json.Decoder.Token a
// token at a time), with its two faults mended as described at
// FuzzDecodeJSON.
func tokenDecode(data []byte) (Value, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	v, err := tokenValue(dec, 0)
	if err != nil {
		return Value{}, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return Value{}, fmt.Errorf("unexpected data after the JSON value")
	}
	return v, nil
}

func tokenValue(dec *json.Decoder, depth int) (Value, error) {
	if depth > 1000 {
		return Value{}, fmt.Errorf("JSON nested deeper than 1000 levels")
	}
	t, err := dec.Token()
	if err != nil {
		return Value{}, err
	}
	switch t := t.(type) {
	case json.Delim:
		switch t {
		case '[':
			var items []Value
			for dec.More() {
				v, err := tokenValue(dec, depth+1)
				if err != nil {
					return Value{}, err
				}
				items = append(items, v)
			}
			if _, err := dec.Token(); err != nil {
				return Value{}, err
			}
			return listValue(orEmptyValues(items)), nil
		case '{':
			d := NewOrderedDict()
			for dec.More() {
				kt, err := dec.Token()
				if err != nil {
					return Value{}, err
				}
				v, err := tokenValue(dec, depth+1)
				if err != nil {
					return Value{}, err
				}
				d.SetString(kt.(string), v)
			}
			if _, err := dec.Token(); err != nil {
				return Value{}, err
			}
			return DictValue(d), nil
		}
	case string:
		return strValue(t), nil
	case json.Number:
		if !strings.ContainsAny(t.String(), ".eE") {
			i, err := t.Int64()
			if err != nil {
				b, ok := new(big.Int).SetString(t.String(), 10)
				if !ok {
					return Value{}, err
				}
				return bigValue(b), nil
			}
			return intValue(i), nil
		}
		f, err := strconv.ParseFloat(t.String(), 64)
		if err != nil && !errors.Is(err, strconv.ErrRange) {
			return Value{}, err
		}
		if math.IsNaN(f) {
			return Value{}, fmt.Errorf("NaN")
		}
		return floatValue(f), nil
	case bool:
		return boolValue(t), nil
	case nil:
		return none, nil
	}
	return Value{}, fmt.Errorf("unexpected JSON token %v", t)
}

// TestValueWriterCorpus: every conversation and list of function tools of
// the corpus, as typed messages and tools, reads through ValueWriter as
// the same values as the JSON EncodeMessages and EncodeTools write for
// it, keys in their order.
func TestValueWriterCorpus(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("..", "..", "testdata", "corpus", "chat", "*", "*.json"))
	require.NoError(t, err)
	require.NotEmpty(t, files)
	n := 0
	for _, f := range files {
		var cf struct {
			Cases []struct{ Messages, Tools json.RawMessage }
		}
		data, err := os.ReadFile(f)
		require.NoError(t, err)
		require.NoError(t, json.Unmarshal(data, &cf))
		for _, c := range cf.Cases {
			msgs, err := message.DecodeMessages(c.Messages)
			require.NoError(t, err, f)
			sameAsJSON(t, f, msgs, message.EncodeMessages, message.WriteMessages)
			n++
			if len(c.Tools) > 0 && string(c.Tools) != "null" && !bytes.Contains(c.Tools, []byte("parameter_definitions")) {
				tools, err := message.DecodeTools(c.Tools)
				require.NoError(t, err, f)
				sameAsJSON(t, f, tools, message.EncodeTools, message.WriteTools)
			}
		}
	}
	assert.Greater(t, n, 700)
}

func sameAsJSON[T any](t *testing.T, f string, items []T, encode func([]T) ([]byte, error), write func(message.TokenWriter, []T) error) {
	t.Helper()
	text, err := encode(items)
	require.NoError(t, err, f)
	want, err := DecodeJSON(text)
	require.NoError(t, err, f)
	var w ValueWriter
	require.NoError(t, write(&w, items), f)
	wr, err := reprString(want)
	require.NoError(t, err)
	gr, err := reprString(w.Value())
	require.NoError(t, err)
	require.Equal(t, wr, gr, f)
}
