package tokens

import (
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// The heap merge of long pieces must give what the scan of short pieces
// gives, for both kinds of vocabulary: run both on the same short pieces.
func TestMergeHeapEqualsScan(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	alphabet := "aabbbc "
	piece := func() string {
		var b strings.Builder
		for range 1 + r.IntN(shortPiece) {
			b.WriteByte(alphabet[r.IntN(len(alphabet))])
		}
		return b.String()
	}

	o, err := Encoding("o200k_base")
	require.NoError(t, err)
	ranks := o.enc.(*tiktoken).ranks
	for range 3000 {
		p := piece()
		if _, whole := ranks.rank(p); whole {
			continue
		}
		require.Equal(t, ranks.encode(p, nil), ranks.encodeLong(p, nil), "%q", p)
	}

	tok, err := parse(t, tiny())
	require.NoError(t, err)
	m := tok.enc.(*hf).model
	ids := func(p string, long bool) []int32 {
		var syms []sym
		for i := 0; i < len(p); i++ {
			id, ok := m.vocab[p[i:i+1]]
			if !ok {
				id = -1
			}
			syms = append(syms, sym{id: id, start: int32(i)})
		}
		syms = append(syms, sym{start: int32(len(p))})
		if long {
			syms = m.merges.mergeLong(syms)
		} else {
			syms = m.merges.merge(syms)
		}
		var out []int32
		for _, s := range syms {
			out = append(out, s.id, s.start)
		}
		return out
	}
	for range 3000 {
		p := strings.ReplaceAll(piece(), " ", "▁")
		if len(p) > shortPiece {
			continue
		}
		require.Equal(t, ids(p, false), ids(p, true), "%q", p)
	}
}

// The word split of SentencePiece-style models (bpeModel.wordSplit) must
// give what merging the whole piece gives: run both on the vectors' texts
// with Llama 2's vocabulary (whose merges allow it).
func TestWordSplitEqualsWholePiece(t *testing.T) {
	tok := vectorTokenizer(t, "tokenizers/llama2/tokenizer.json.gz", nil)
	m := tok.enc.(*hf).model
	require.True(t, m.wordSplit, "Llama 2's merges never join a symbol to a ▁ after it")
	whole := *m
	whole.wordSplit = false
	for _, c := range readTexts(t, "testdata/vectors") {
		text := "\u2581" + strings.ReplaceAll(ValidUTF8(c.bytes(t)), " ", "\u2581")
		require.Equal(t, whole.appendIDs(nil, text), m.appendIDs(nil, text), c.Name)
	}
}
