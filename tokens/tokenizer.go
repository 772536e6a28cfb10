package tokens

import (
	"strings"
	"unicode/utf8"
)

// A Tokenizer encodes text into a model's token ids, exactly as the
// model's reference tokenizer does. It is immutable and safe for
// concurrent use.
type Tokenizer struct {
	name string
	enc  encoder
}

// encoder is one family of tokenizers: OpenAI's encodings (tiktoken) or
// a tokenizer.json (Hugging Face).
type encoder interface {
	// appendIDs appends the ids of text, which is valid UTF-8, to dst.
	appendIDs(dst []int32, text string) []int32
	// count returns the number of ids of text, which is valid UTF-8.
	count(text string) int
}

// Name is the encoding's name (o200k_base) or the name the tokenizer.json
// was read under.
func (t *Tokenizer) Name() string { return t.name }

// Count returns the number of tokens of text: len(t.Encode(text)),
// without building the list.
func (t *Tokenizer) Count(text string) int { return t.enc.count(ValidUTF8(text)) }

// Encode returns the token ids of text.
//
// Text that is not valid UTF-8 is encoded as ValidUTF8 makes it: each
// maximal invalid sequence becomes U+FFFD, as a reference tokenizer sees it
// when the bytes are decoded into its string (TextDecoder in JavaScript,
// errors="replace" in Python).
func (t *Tokenizer) Encode(text string) []int {
	ids := t.enc.appendIDs(nil, ValidUTF8(text))
	out := make([]int, len(ids))
	for i, id := range ids {
		out[i] = int(id)
	}
	return out
}

// ValidUTF8 returns s with each maximal subpart of an ill-formed UTF-8
// sequence replaced by U+FFFD (Unicode's recommended practice, as
// JavaScript's TextDecoder, Python's bytes.decode(errors="replace") and
// tiktoken's decode do), and s itself when it is valid. Note that Go's
// encoding/json replaces each invalid byte instead, so a host that sends
// invalid UTF-8 through it gives the model more U+FFFD than this counts.
func ValidUTF8(s string) string {
	if utf8.ValidString(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 8)
	for len(s) > 0 {
		r, n := utf8.DecodeRuneInString(s)
		if r == utf8.RuneError && n == 1 {
			b.WriteRune(utf8.RuneError)
			n = maximalSubpart(s)
		} else {
			b.WriteString(s[:n])
		}
		s = s[n:]
	}
	return b.String()
}

// maximalSubpart returns the length of the maximal subpart of an ill-formed
// sequence at the start of s (at least 1): the longest prefix of a
// well-formed sequence (Unicode 15, table 3-7).
func maximalSubpart(s string) int {
	need, lo, hi := 0, byte(0x80), byte(0xBF)
	switch c := s[0]; {
	case c >= 0xC2 && c <= 0xDF:
		need = 1
	case c == 0xE0:
		need, lo = 2, 0xA0
	case c == 0xED:
		need, hi = 2, 0x9F
	case c >= 0xE1 && c <= 0xEF:
		need = 2
	case c == 0xF0:
		need, lo = 3, 0x90
	case c >= 0xF1 && c <= 0xF3:
		need = 3
	case c == 0xF4:
		need, hi = 3, 0x8F
	default:
		return 1
	}
	i := 1
	for ; i <= need && i < len(s); i++ {
		c := s[i]
		if i == 1 && (c < lo || c > hi) || i > 1 && (c < 0x80 || c > 0xBF) {
			break
		}
	}
	return i
}
