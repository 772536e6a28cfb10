package tokens

import (
	"unicode"
	"unicode/utf8"
)

// The pre-tokenizers cut a text into the pieces byte-pair encoding merges
// within. Each is a hand-written scanner equal to a regular expression that
// the reference implementations run with a backtracking engine: the
// expressions use a lookahead (\s+(?!\S)) that Go's regexp does not have,
// and a scanner is several times faster than any regexp engine.
// pretokenize_test.go holds every scanner to its expression, run by
// github.com/dlclark/regexp2, on generated texts.
//
// A scanner is a matcher: given the text and a position, it returns the end
// of the expression's match that starts there, or -1. The split loop
// (appendSplit) tries every position in turn, as a regexp's FindAll does;
// text no match covers is a piece of its own (the "Isolated" behaviour of
// Hugging Face's Split).

// matcher returns the end of the match starting at i, or -1.
type matcher func(s string, i int) int

// A character class bit set for ASCII; runes above use the unicode tables.
const (
	cLetter  = 1 << iota // \p{L}
	cNumber              // \p{N}
	cSpace               // \s as White_Space (Oniguruma's, Rust regex's, .NET's)
	cUpper               // \p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}: o200k's "upper-ish"
	cLower               // \p{Ll}\p{Lm}\p{Lo}\p{M}: o200k's "lower-ish"
	cMark                // \p{M}
	cPunct               // \p{P}
	cSymbol              // \p{S}
	cJSSpace             // \s of JavaScript: White_Space less U+0085, plus U+FEFF
)

var asciiClass = func() (t [128]uint16) {
	for c := 0; c < 128; c++ {
		t[c] = classOfRune(rune(c))
	}
	return t
}()

func classOfRune(r rune) uint16 {
	var c uint16
	switch {
	case unicode.IsLetter(r):
		c |= cLetter
		if unicode.In(r, unicode.Lu, unicode.Lt, unicode.Lm, unicode.Lo) {
			c |= cUpper
		}
		if unicode.In(r, unicode.Ll, unicode.Lm, unicode.Lo) {
			c |= cLower
		}
	case unicode.IsNumber(r):
		c |= cNumber
	case unicode.IsMark(r):
		c |= cMark | cUpper | cLower
	case unicode.IsPunct(r):
		c |= cPunct
	case unicode.IsSymbol(r):
		c |= cSymbol
	}
	if unicode.Is(unicode.White_Space, r) {
		c |= cSpace
		if r != 0x85 {
			c |= cJSSpace
		}
	}
	if r == 0xFEFF {
		c |= cJSSpace
	}
	return c
}

// class returns the classes of the rune at s[i] and its size in bytes.
func class(s string, i int) (uint16, int) {
	if b := s[i]; b < utf8.RuneSelf {
		return asciiClass[b], 1
	}
	r, n := utf8.DecodeRuneInString(s[i:])
	if r >= 0x4E00 && r <= 0x9FFF { // CJK Unified Ideographs: all Lo
		return cLetter | cUpper | cLower, n
	}
	return classOfRune(r), n
}

// run returns the end of the run of runes from i that have any of bits.
func run(s string, i int, bits uint16) int {
	for i < len(s) {
		c, n := class(s, i)
		if c&bits == 0 {
			break
		}
		i += n
	}
	return i
}

// runMax is run limited to max runes.
func runMax(s string, i int, bits uint16, max int) int {
	for k := 0; k < max && i < len(s); k++ {
		c, n := class(s, i)
		if c&bits == 0 {
			break
		}
		i += n
	}
	return i
}

// other reports a rune of [^\s\p{L}\p{N}] under the given whitespace class.
func other(c, space uint16) bool { return c&(cLetter|cNumber|space) == 0 }

// runOther is the end of the run of [^\s\p{L}\p{N}] from i.
func runOther(s string, i int, space uint16) int {
	for i < len(s) {
		c, n := class(s, i)
		if !other(c, space) {
			break
		}
		i += n
	}
	return i
}

// lineBreaks is the end of the run of \r and \n (and '/' when slash) from i.
func lineBreaks(s string, i int, slash bool) int {
	for i < len(s) && (s[i] == '\r' || s[i] == '\n' || slash && s[i] == '/') {
		i++
	}
	return i
}

// contraction matches (?i:'s|'t|'re|'ve|'m|'ll|'d) at i (ASCII case folding,
// as the JavaScript port of Hugging Face's tokenizers folds; fold false is
// GPT-2's case-sensitive form), returning its end or -1.
func contraction(s string, i int, fold bool) int {
	if i+1 >= len(s) || s[i] != '\'' {
		return -1
	}
	lower := func(b byte) byte {
		if fold && 'A' <= b && b <= 'Z' {
			return b + 'a' - 'A'
		}
		return b
	}
	switch lower(s[i+1]) {
	case 's', 't', 'm', 'd':
		return i + 2
	case 'r', 'v':
		if i+2 < len(s) && lower(s[i+2]) == 'e' {
			return i + 3
		}
	case 'l':
		if i+2 < len(s) && lower(s[i+2]) == 'l' {
			return i + 3
		}
	}
	return -1
}

// whitespace matches \s*[\r\n]+|\s+(?!\S)|\s+ at i (the three whitespace
// alternatives every pattern here ends with; newlines false leaves out the
// first, as GPT-2's pattern does). The rune at i is whitespace.
func whitespace(s string, i int, space uint16, newlines bool) int {
	end, lastBreak, lastStart := i, -1, i
	for end < len(s) {
		c, n := class(s, end)
		if c&space == 0 {
			break
		}
		if s[end] == '\r' || s[end] == '\n' {
			lastBreak = end
		}
		lastStart = end
		end += n
	}
	switch {
	case newlines && lastBreak >= 0:
		// \s* backtracks to the last line break of the run, which [\r\n]+
		// takes alone: nothing but whitespace without breaks follows it.
		return lastBreak + 1
	case end == len(s):
		return end // \s+(?!\S) at the end of the text
	case lastStart > i:
		return lastStart // \s+(?!\S): the run less its last rune
	default:
		return end // \s+: one whitespace rune before a non-space
	}
}

// matchCL100K is the split pattern of cl100k_base, Llama 3 (digits 3) and
// Qwen 2/2.5/3 (digits 1):
//
//	(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+
func matchCL100K(digits int) matcher {
	return func(s string, i int) int {
		if e := contraction(s, i, true); e >= 0 {
			return e
		}
		c, n := class(s, i)
		switch {
		case c&cLetter != 0:
			return run(s, i, cLetter)
		case c&cNumber != 0:
			return runMax(s, i, cNumber, digits)
		}
		// [^\r\n\p{L}\p{N}]\p{L}+
		if s[i] != '\r' && s[i] != '\n' && i+n < len(s) {
			if c2, _ := class(s, i+n); c2&cLetter != 0 {
				return run(s, i+n, cLetter)
			}
		}
		// ' ?[^\s\p{L}\p{N}]+[\r\n]*'
		j := i
		if s[i] == ' ' {
			j++
		}
		if j < len(s) {
			if c2, _ := class(s, j); other(c2, cSpace) {
				return lineBreaks(s, runOther(s, j, cSpace), false)
			}
		}
		if c&cSpace != 0 {
			return whitespace(s, i, cSpace, true)
		}
		return -1 // unreachable: every rune is a letter, number, space or other
	}
}

// matchO200K is the split pattern of o200k_base:
//
//	[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?
//	|[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?
//	|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n/]*|\s*[\r\n]+|\s+(?!\S)|\s+
func matchO200K(s string, i int) int {
	c, n := class(s, i)
	prefix := c&(cLetter|cNumber) == 0 && s[i] != '\r' && s[i] != '\n'
	// The first alternative, with the optional prefix taken, then without.
	if prefix {
		if e := o200kLower(s, i+n); e >= 0 {
			return e
		}
	}
	if e := o200kLower(s, i); e >= 0 {
		return e
	}
	// The second.
	if prefix {
		if e := o200kUpper(s, i+n); e >= 0 {
			return e
		}
	}
	if e := o200kUpper(s, i); e >= 0 {
		return e
	}
	if c&cNumber != 0 {
		return runMax(s, i, cNumber, 3)
	}
	j := i
	if s[i] == ' ' {
		j++
	}
	if j < len(s) {
		if c2, _ := class(s, j); other(c2, cSpace) {
			return lineBreaks(s, runOther(s, j, cSpace), true)
		}
	}
	if c&cSpace != 0 {
		return whitespace(s, i, cSpace, true)
	}
	return -1
}

// o200kLower matches [U]*[W]+ then an optional contraction at j, where U is
// cUpper and W cLower, as a backtracking engine does: U* takes its longest
// run, and gives back runes until W+ can start.
func o200kLower(s string, j int) int {
	if j >= len(s) {
		return -1
	}
	k, lastW := j, -1
	for k < len(s) {
		c, n := class(s, k)
		if c&cUpper == 0 {
			break
		}
		if c&cLower != 0 {
			lastW = k
		}
		k += n
	}
	var end int
	if c, _ := classAt(s, k); k < len(s) && c&cLower != 0 {
		end = run(s, k, cLower)
	} else if lastW >= 0 {
		_, n := class(s, lastW)
		end = lastW + n
	} else {
		return -1
	}
	if e := contraction(s, end, true); e >= 0 {
		return e
	}
	return end
}

// o200kUpper matches [U]+[W]* then an optional contraction at j.
func o200kUpper(s string, j int) int {
	if j >= len(s) {
		return -1
	}
	k := run(s, j, cUpper)
	if k == j {
		return -1
	}
	end := run(s, k, cLower)
	if e := contraction(s, end, true); e >= 0 {
		return e
	}
	return end
}

func classAt(s string, i int) (uint16, int) {
	if i >= len(s) {
		return 0, 0
	}
	return class(s, i)
}

// matchGPT2 is GPT-2's pattern (r50k_base, p50k_base, and the ByteLevel
// pre-tokenizer of tokenizer.json when it splits):
//
//	's|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+
//
// space is the class \s stands for: White_Space in OpenAI's tiktoken (Rust's
// regex), JavaScript's \s in Hugging Face's JavaScript ByteLevel, which is
// the reference for tokenizer.json.
func matchGPT2(space uint16) matcher {
	return func(s string, i int) int {
		if e := contraction(s, i, false); e >= 0 {
			return e
		}
		j := i
		if s[i] == ' ' && i+1 < len(s) {
			j++
		}
		c, _ := class(s, j)
		switch {
		case c&cLetter != 0:
			return run(s, j, cLetter)
		case c&cNumber != 0:
			return run(s, j, cNumber)
		case other(c, space):
			return runOther(s, j, space)
		}
		// What is left is whitespace at i (a space before more whitespace,
		// or at the end of the text).
		return whitespace(s, i, space, false)
	}
}

// DeepSeek V3 splits three times, each Isolated:
//
//	\p{N}{1,3}
//	[\u4e00-\u9fa5\u3040-\u309f\u30a0-\u30ff]+
//	[!"#$%&'()*+,\-./:;<=>?@\[\\\]^_`{|}~][A-Za-z]+|[^\r\n\p{L}\p{P}\p{S}]?[\p{L}\p{M}]+| ?[\p{P}\p{S}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+

func matchDigits3(s string, i int) int {
	if c, _ := class(s, i); c&cNumber != 0 {
		return runMax(s, i, cNumber, 3)
	}
	return -1
}

func matchKanaHan(s string, i int) int {
	e := i
	for e < len(s) {
		r, n := utf8.DecodeRuneInString(s[e:])
		if !(r >= 0x4E00 && r <= 0x9FA5 || r >= 0x3040 && r <= 0x309F || r >= 0x30A0 && r <= 0x30FF) {
			break
		}
		e += n
	}
	if e == i {
		return -1
	}
	return e
}

func isASCIIPunct(b byte) bool {
	return '!' <= b && b <= '/' || ':' <= b && b <= '@' || '[' <= b && b <= '`' || '{' <= b && b <= '~'
}

func isASCIILetter(b byte) bool { return 'a' <= b && b <= 'z' || 'A' <= b && b <= 'Z' }

func matchDeepSeek(s string, i int) int {
	if isASCIIPunct(s[i]) && i+1 < len(s) && isASCIILetter(s[i+1]) {
		e := i + 1
		for e < len(s) && isASCIILetter(s[e]) {
			e++
		}
		return e
	}
	c, n := class(s, i)
	// [^\r\n\p{L}\p{P}\p{S}]?[\p{L}\p{M}]+
	if c&(cLetter|cPunct|cSymbol) == 0 && s[i] != '\r' && s[i] != '\n' {
		if c2, _ := classAt(s, i+n); i+n < len(s) && c2&(cLetter|cMark) != 0 {
			return run(s, i+n, cLetter|cMark)
		}
	}
	if c&(cLetter|cMark) != 0 {
		return run(s, i, cLetter|cMark)
	}
	// ' ?[\p{P}\p{S}]+[\r\n]*'
	j := i
	if s[i] == ' ' {
		j++
	}
	if c2, _ := classAt(s, j); j < len(s) && c2&(cPunct|cSymbol) != 0 {
		return lineBreaks(s, run(s, j, cPunct|cSymbol), false)
	}
	if c&cSpace != 0 {
		return whitespace(s, i, cSpace, true)
	}
	return -1
}

// appendSplit appends to dst each match of m in s and each stretch of text
// between matches, in order.
func appendSplit(dst []string, s string, m matcher) []string {
	gap := 0
	for i := 0; i < len(s); {
		if e := m(s, i); e > i {
			if gap < i {
				dst = append(dst, s[gap:i])
			}
			dst = append(dst, s[i:e])
			i, gap = e, e
			continue
		}
		_, n := class(s, i)
		i += n
	}
	if gap < len(s) {
		dst = append(dst, s[gap:])
	}
	return dst
}
