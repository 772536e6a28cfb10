package tokens

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"errors"
	"os"
	"testing"
	"testing/fstest"

	"github.com/stretchr/testify/require"
)

// tiny is a small SentencePiece-style tokenizer.json to vary part by part.
func tiny() map[string]any {
	return map[string]any{
		"version": "1.0",
		"added_tokens": []any{
			map[string]any{"id": 0, "content": "<unk>", "special": true, "normalized": false},
			map[string]any{"id": 1, "content": "<s>", "special": true, "normalized": false},
			map[string]any{"id": 2, "content": "[X]", "special": false, "normalized": false, "lstrip": true, "rstrip": true},
		},
		"normalizer": map[string]any{"type": "Sequence", "normalizers": []any{
			map[string]any{"type": "Prepend", "prepend": "▁"},
			map[string]any{"type": "Replace", "pattern": map[string]any{"String": " "}, "content": "▁"},
		}},
		"pre_tokenizer":  nil,
		"post_processor": nil,
		"decoder":        nil,
		"model": map[string]any{
			"type": "BPE", "unk_token": "<unk>", "byte_fallback": true, "fuse_unk": true,
			"vocab": map[string]any{
				"<unk>": 0, "<s>": 1, "[X]": 2, "▁": 3, "a": 4, "b": 5, "c": 6, "▁a": 7, "ab": 8, "bc": 9, "abc": 10, "▁ab": 11,
				"<0xE2>": 12, "<0x82>": 13, "<0xAC>": 14,
			},
			// "abc" is in the vocabulary but no merge makes it: merges rank
			// pairs of tokens, so ▁abc is ▁a + bc.
			"merges": []any{"▁ a", "b c", "a b", "▁a b"},
		},
	}
}

func parse(t *testing.T, m map[string]any) (*Tokenizer, error) {
	t.Helper()
	data, err := json.Marshal(m)
	require.NoError(t, err)
	return ParseJSON("tiny.json", data)
}

func TestTokenizerJSONTiny(t *testing.T) {
	tok, err := parse(t, tiny())
	require.NoError(t, err)
	require.Equal(t, "tiny.json", tok.Name())
	for text, want := range map[string][]int{
		"abc":      {7, 9},             // ▁a bc
		"ab":       {11},               // ▁a b
		"a €":      {7, 3, 12, 13, 14}, // € is not in the vocabulary: its bytes
		"<s>abc":   {1, 7, 9},          // an added token, then the rest normalized on its own (▁ prepended)
		"a [X] bc": {7, 2, 3, 9},       // [X] takes the spaces beside it (lstrip, rstrip)
		"":         {},
	} {
		got := tok.Encode(text)
		if len(want) == 0 {
			require.Empty(t, got, "%q", text)
			continue
		}
		require.Equal(t, want, got, "%q", text)
		require.Equal(t, len(want), tok.Count(text))
	}
	// Without byte fallback, what is not in the vocabulary is <unk>.
	m := tiny()
	m["model"].(map[string]any)["byte_fallback"] = false
	tok, err = parse(t, m)
	require.NoError(t, err)
	require.Equal(t, []int{7, 3, 0}, tok.Encode("a €"))
	// A long piece merges through the heap (bpe_test.go holds it to the
	// scan): ▁a, then bc, then a bc 199 times.
	long := bytes.Repeat([]byte("abc"), 200)
	require.Equal(t, 2+2*199, tok.Count(string(long)))
}

func TestTokenizerJSONRefused(t *testing.T) {
	set := func(f func(m map[string]any)) map[string]any { m := tiny(); f(m); return m }
	model := func(m map[string]any) map[string]any { return m["model"].(map[string]any) }
	for name, c := range map[string]struct {
		m    map[string]any
		want string
	}{
		"wordpiece": {set(func(m map[string]any) { model(m)["type"] = "WordPiece" }), "model WordPiece is not implemented"},
		"unigram":   {set(func(m map[string]any) { model(m)["type"] = "Unigram" }), "model Unigram is not implemented"},
		"dropout":   {set(func(m map[string]any) { model(m)["dropout"] = 0.1 }), "model.dropout 0.1 is not implemented"},
		"suffix":    {set(func(m map[string]any) { model(m)["end_of_word_suffix"] = "</w>" }), `model.end_of_word_suffix "</w>" is not implemented`},
		"lowercase": {set(func(m map[string]any) { m["normalizer"] = map[string]any{"type": "Lowercase"} }), "normalizer Lowercase is not implemented"},
		"precompiled": {set(func(m map[string]any) {
			m["normalizer"] = map[string]any{"type": "Sequence", "normalizers": []any{map[string]any{"type": "Precompiled"}}}
		}), "normalizer.normalizers[0] Precompiled is not implemented"},
		"replace regex": {set(func(m map[string]any) {
			m["normalizer"] = map[string]any{"type": "Replace", "pattern": map[string]any{"Regex": " +"}, "content": " "}
		}), "normalizer Replace with a Regex pattern is not implemented"},
		"whitespace": {set(func(m map[string]any) { m["pre_tokenizer"] = map[string]any{"type": "Whitespace"} }), "pre_tokenizer Whitespace is not implemented"},
		"split regex": {set(func(m map[string]any) {
			m["pre_tokenizer"] = map[string]any{"type": "Split", "pattern": map[string]any{"Regex": `\w+`}, "behavior": "Isolated"}
		}), `pre_tokenizer Split pattern "\\w+" is not implemented (implemented: the patterns of `},
		"split behavior": {set(func(m map[string]any) {
			m["pre_tokenizer"] = map[string]any{"type": "Split", "pattern": map[string]any{"String": " "}, "behavior": "MergedWithPrevious"}
		}), `pre_tokenizer Split with behavior "MergedWithPrevious", invert false is not implemented`},
		"bytelevel not last": {set(func(m map[string]any) {
			m["pre_tokenizer"] = map[string]any{"type": "Sequence", "pretokenizers": []any{
				map[string]any{"type": "ByteLevel"}, map[string]any{"type": "Digits"}}}
			model(m)["byte_fallback"] = false
		}), "pre_tokenizer.pretokenizers[1] Digits after ByteLevel is not implemented"},
		"metaspace legacy": {set(func(m map[string]any) {
			m["pre_tokenizer"] = map[string]any{"type": "Metaspace", "add_prefix_space": false}
		}), "pre_tokenizer Metaspace with add_prefix_space false and no prepend_scheme is not implemented (the reference implementations disagree on it)"},
		"single word": {set(func(m map[string]any) {
			m["added_tokens"] = []any{map[string]any{"id": 2, "content": "[X]", "single_word": true}}
		}), `added_tokens "[X]" with single_word true is not implemented`},
	} {
		t.Run(name, func(t *testing.T) {
			_, err := parse(t, c.m)
			require.ErrorIs(t, err, ErrUnsupported)
			var ue *UnsupportedError
			require.True(t, errors.As(err, &ue))
			require.Equal(t, "tiny.json", ue.File)
			require.Contains(t, err.Error(), "tokens: tiny.json: "+c.want)
		})
	}
}

func TestTokenizerJSONInvalid(t *testing.T) {
	for name, data := range map[string]string{
		"not json":     `{"model": `,
		"empty vocab":  `{"model": {"type": "BPE", "vocab": {}, "merges": []}}`,
		"bad merge":    `{"model": {"type": "BPE", "vocab": {"a": 0}, "merges": ["a"]}}`,
		"merge absent": `{"model": {"type": "BPE", "vocab": {"a": 0}, "merges": ["a z"]}}`,
		"huge id":      `{"model": {"type": "BPE", "vocab": {"a": 2000000000}, "merges": []}, "pre_tokenizer": {"type": "ByteLevel"}}`,
		"bad gzip":     "\x1f\x8b\x08garbage",
	} {
		_, err := ParseJSON("x.json", []byte(data))
		require.ErrorIs(t, err, ErrInvalid, name)
		require.Contains(t, err.Error(), "x.json", name)
	}
}

func TestReadFileAndOpen(t *testing.T) {
	data, err := json.Marshal(tiny())
	require.NoError(t, err)
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	_, err = zw.Write(data)
	require.NoError(t, err)
	require.NoError(t, zw.Close())
	fsys := fstest.MapFS{"m/tokenizer.json": {Data: data}, "m/tokenizer.json.gz": {Data: gz.Bytes()}}
	for _, name := range []string{"m/tokenizer.json", "m/tokenizer.json.gz"} {
		tok, err := ReadFile(fsys, name)
		require.NoError(t, err)
		require.Equal(t, []int{7, 9}, tok.Encode("abc"))
	}
	_, err = ReadFile(fsys, "m/missing.json")
	require.Error(t, err)

	dir := t.TempDir()
	require.NoError(t, os.WriteFile(dir+"/tokenizer.json", data, 0o644))
	tok, err := Open(dir + "/tokenizer.json")
	require.NoError(t, err)
	require.Equal(t, dir+"/tokenizer.json", tok.Name())
	tok, err = Open("o200k_base")
	require.NoError(t, err)
	require.Equal(t, "o200k_base", tok.Name())
}

// FuzzParseJSON: any file is a tokenizer or an error, never a panic, and a
// tokenizer counts any text.
func FuzzParseJSON(f *testing.F) {
	data, err := json.Marshal(tiny())
	require.NoError(f, err)
	f.Add(data)
	f.Add([]byte(`{"model": {"type": "BPE", "vocab": {"a": 0, "b": 1, "ab": 2}, "merges": [["a", "b"]]}, "pre_tokenizer": {"type": "ByteLevel"}}`))
	f.Add([]byte(`{"added_tokens": [{"id": 0, "content": "<s>", "lstrip": true}], "model": {"vocab": {"<s>": 0}, "merges": []}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		tok, err := ParseJSON("f.json", data)
		if err != nil {
			return
		}
		for _, s := range []string{"", "ab a b", " <s> ▁x\xff", "中文 123 👍🏽\n\n  "} {
			require.Equal(t, len(tok.Encode(s)), tok.Count(s))
		}
	})
}
