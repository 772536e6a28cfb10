package tokens

import (
	"fmt"
	"slices"
	"sync"

	"github.com/tiktoken-go/tokenizer"
)

// OpenAI's encodings. Their vocabularies come from
// github.com/tiktoken-go/tokenizer, which embeds them in the binary (no
// download at run time); promptkit reads each once into a table of its own
// and encodes with its own pre-tokenizer scanners and merge loop, which
// count several times faster than that library's regexp2-based Count on the
// same vocabularies (docs/performance.md) and give the same ids
// (encoding_test.go holds them to it, and both to OpenAI's tiktoken).

type encodingSpec struct {
	name  string
	lib   tokenizer.Encoding
	last  int // the highest id of an ordinary (mergeable) token
	size  int // how many ordinary tokens there are
	split matcher
}

var encodingSpecs = []encodingSpec{
	{"o200k_base", tokenizer.O200kBase, 199997, 199998, matchO200K},
	{"cl100k_base", tokenizer.Cl100kBase, 100255, 100256, matchCL100K(3)},
	{"p50k_base", tokenizer.P50kBase, 50280, 50280, matchGPT2(cSpace)},
	{"p50k_edit", tokenizer.P50kEdit, 50280, 50280, matchGPT2(cSpace)},
	{"r50k_base", tokenizer.R50kBase, 50255, 50256, matchGPT2(cSpace)},
}

// loaders reads each encoding once, the first time it is asked for: the
// tables are read-only afterwards and shared by every Tokenizer of that
// encoding.
var loaders = func() map[string]func() (*Tokenizer, error) {
	m := make(map[string]func() (*Tokenizer, error), len(encodingSpecs))
	for _, spec := range encodingSpecs {
		m[spec.name] = sync.OnceValues(func() (*Tokenizer, error) { return loadEncoding(spec) })
	}
	return m
}()

// Encodings lists the names Encoding accepts, sorted.
func Encodings() []string {
	names := make([]string, 0, len(encodingSpecs))
	for _, s := range encodingSpecs {
		names = append(names, s.name)
	}
	slices.Sort(names)
	return names
}

// Encoding returns the Tokenizer of OpenAI's encoding name: o200k_base
// (GPT-4o, GPT-4.1, GPT-5, o1, o3, o4), cl100k_base (GPT-4, GPT-3.5 Turbo,
// text-embedding-3), p50k_base, p50k_edit, r50k_base. The first call for a
// name reads its vocabulary (tens of milliseconds); later calls return the
// same Tokenizer. An unknown name is an *UnknownError wrapping
// ErrUnknownEncoding.
//
// The text is encoded as tiktoken's encode_ordinary encodes it: a special
// token's text (<|endoftext|>) is counted as the ordinary text it is, as
// OpenAI's API counts what a message says.
func Encoding(name string) (*Tokenizer, error) {
	load, ok := loaders[name]
	if !ok {
		return nil, unknown(name, Encodings())
	}
	return load()
}

func loadEncoding(spec encodingSpec) (*Tokenizer, error) {
	codec, err := tokenizer.Get(spec.lib)
	if err != nil {
		return nil, fmt.Errorf("tokens: %s: %w", spec.name, err)
	}
	ranks := make(map[string]int32, spec.size)
	for id := 0; id <= spec.last; id++ {
		b, err := codec.Decode([]uint{uint(id)})
		if err != nil {
			continue // an id between the ordinary tokens that is none (p50k's 50256)
		}
		ranks[b] = int32(id)
	}
	if len(ranks) != spec.size {
		return nil, fmt.Errorf("tokens: %s: the vocabulary of github.com/tiktoken-go/tokenizer has %d distinct tokens, want %d", spec.name, len(ranks), spec.size)
	}
	return &Tokenizer{name: spec.name, enc: &tiktoken{ranks: newRankedBytes(ranks), split: spec.split}}, nil
}

// tiktoken encodes as OpenAI's tiktoken: split by the encoding's pattern,
// then merge each piece by the ranks of its byte sequences.
type tiktoken struct {
	ranks *rankedBytes
	split matcher
}

func (e *tiktoken) appendIDs(dst []int32, text string) []int32 {
	for i := 0; i < len(text); {
		j := e.next(text, i)
		dst = e.ranks.encode(text[i:j], dst)
		i = j
	}
	return dst
}

func (e *tiktoken) count(text string) int {
	var buf [64]int32
	n := 0
	for i := 0; i < len(text); {
		j := e.next(text, i)
		if _, ok := e.ranks.rank(text[i:j]); ok {
			n++
		} else {
			n += len(e.ranks.encode(text[i:j], buf[:0]))
		}
		i = j
	}
	return n
}

// next is the end of the piece at i. The OpenAI patterns match at every
// position; a rune no alternative takes would be a piece of its own.
func (e *tiktoken) next(text string, i int) int {
	if j := e.split(text, i); j > i {
		return j
	}
	_, n := class(text, i)
	return i + n
}
