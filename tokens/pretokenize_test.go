package tokens

import (
	"math/rand/v2"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/dlclark/regexp2/v2"
	"github.com/stretchr/testify/require"
)

// Each scanner must cut every text exactly as its regular expression does
// under a backtracking engine with lookahead: github.com/dlclark/regexp2
// (.NET's semantics: \s is White_Space, as in Oniguruma and Rust's regex;
// its Unicode classes are Go's tables, as the scanners'). The expressions
// below are the ones in tokenizer.json and tiktoken, with (?i:…) spelled
// as the ASCII classes the JavaScript reference folds to, and, for
// JavaScript's \s, its class written out. GPT-2's contractions are
// grouped, (?:'s|…|'d), which means the same: regexp2 cuts the ungrouped
// expression at U+007F, as neither JavaScript nor Rust does (a bug of its
// alternation optimisation, found by FuzzScanners; testdata/fuzz keeps the
// text).

const jsSpace = `[\t\n\v\f\r \x{a0}\x{1680}\x{2000}-\x{200a}\x{2028}\x{2029}\x{202f}\x{205f}\x{3000}\x{feff}]`

var asciiContractions = `(?:'[sS]|'[tT]|'[rR][eE]|'[vV][eE]|'[mM]|'[lL][lL]|'[dD])`

var scannerCases = []struct {
	name    string
	m       matcher
	pattern string
}{
	{"cl100k", matchCL100K(3), asciiContractions + `|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+`},
	{"qwen", matchCL100K(1), asciiContractions + `|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+`},
	{"o200k", matchO200K, `[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+` + asciiContractions + `?|[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*` + asciiContractions + `?|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n/]*|\s*[\r\n]+|\s+(?!\S)|\s+`},
	{"gpt2", matchGPT2(cSpace), `(?:'s|'t|'re|'ve|'m|'ll|'d)| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+`},
	{"gpt2-js", matchGPT2(cJSSpace), `(?:'s|'t|'re|'ve|'m|'ll|'d)| ?\p{L}+| ?\p{N}+| ?(?:(?!` + jsSpace + `)[^\p{L}\p{N}])+|` + jsSpace + `+(?!(?!` + jsSpace + `).)|` + jsSpace + `+`},
	{"deepseek-digits", matchDigits3, `\p{N}{1,3}`},
	{"deepseek-han-kana", matchKanaHan, "[\u4e00-\u9fa5\u3040-\u309f\u30a0-\u30ff]+"},
	{"deepseek", matchDeepSeek, "[!\"#$%&'()*+,\\-./:;<=>?@\\[\\\\\\]^_`{|}~][A-Za-z]+|[^\r\n\\p{L}\\p{P}\\p{S}]?[\\p{L}\\p{M}]+| ?[\\p{P}\\p{S}]+[\r\n]*|\\s*[\r\n]+|\\s+(?!\\S)|\\s+"},
}

// regexpPieces cuts s as Split (Isolated) does with a regexp2 expression:
// every match, and every stretch between matches.
func regexpPieces(t testing.TB, re *regexp2.Regexp, s string) []string {
	runes := []rune(s)
	var out []string
	prev := 0
	m, err := re.FindRunesMatch(runes)
	require.NoError(t, err)
	for m != nil {
		if m.RuneIndex > prev {
			out = append(out, string(runes[prev:m.RuneIndex]))
		}
		if m.RuneLength > 0 {
			out = append(out, string(runes[m.RuneIndex:m.RuneIndex+m.RuneLength]))
		}
		prev = m.RuneIndex + m.RuneLength
		m, err = re.FindNextMatch(m)
		require.NoError(t, err)
	}
	if prev < len(runes) {
		out = append(out, string(runes[prev:]))
	}
	return out
}

func scannerPieces(m matcher, s string) []string { return appendSplit(nil, s, m) }

// pieceRunes are the runes the generated texts are made of: a few of each
// class the scanners tell apart (ASCII, Unicode letters of every case,
// marks, numbers of every kind, punctuation, symbols, every kind of space,
// format and private-use characters).
var pieceRunes = []rune("aZsStTrReEvVmMlLdDxQ'''  \t\n\r\v\f/\\.,!?-_()[]{}<>|#@$%^&*+=~`\";:0123456789" +
	"中文日本のひらカタｶ한ёЖÉéßǅǈİıſΩωªʰ" + "\u0301\u0308\u093f\u0e35" +
	"٣Ⅻ½²¹" + "\u00a0\u3000\u2003\u0085\ufeff\u2028\u2029\u1680\u202f" +
	"\u200b\u200d\u200e\u00ad\ue000" + "👍🏽❤\ufe0f€©→★♪")

func randomText(r *rand.Rand) string {
	var b strings.Builder
	n := r.IntN(24)
	for range n {
		c := pieceRunes[r.IntN(len(pieceRunes))]
		k := 1
		if r.IntN(6) == 0 {
			k = 1 + r.IntN(5) // runs: whitespace runs, digit runs, repeated letters
		}
		for range k {
			b.WriteRune(c)
		}
	}
	return b.String()
}

func TestScannersMatchTheirExpressions(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	texts := []string{"", " ", "  ", " \n", "a  b", "a \n b", "\n\n x", "'s", "'S'", " 'll", "x'ſ", "HELLOworld", "helloWORLD", "中文abc", "ǅungla", "e\u0301", "\u0301\u0301a", "12345", "a1b22c333", "   ", "\t\tx", "1\u0301"}
	for range 20000 {
		texts = append(texts, randomText(r))
	}
	for _, sc := range scannerCases {
		t.Run(sc.name, func(t *testing.T) {
			re := regexp2.MustCompile(sc.pattern, regexp2.None)
			bad := 0
			for _, s := range texts {
				want := regexpPieces(t, re, s)
				got := scannerPieces(sc.m, s)
				if strings.Join(got, "\x00") != strings.Join(want, "\x00") {
					bad++
					if bad <= 5 {
						t.Errorf("%s: %q:\n got %q\nwant %q", sc.name, s, got, want)
					}
				}
			}
			require.Zero(t, bad, "%s: %d of %d texts cut differently", sc.name, bad, len(texts))
		})
	}
}

// FuzzScanners holds every scanner to its expression on any valid text.
func FuzzScanners(f *testing.F) {
	for _, s := range []string{"", "hello world", "  \n\n x", "HELLOworld'S", "中文 123 👍🏽", "e\u0301\u0301 \u0085\ufeff"} {
		f.Add(s)
	}
	res := make([]*regexp2.Regexp, len(scannerCases))
	for i, sc := range scannerCases {
		res[i] = regexp2.MustCompile(sc.pattern, regexp2.None)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if !utf8.ValidString(s) || len(s) > 512 {
			return
		}
		for i, sc := range scannerCases {
			want := regexpPieces(t, res[i], s)
			got := scannerPieces(sc.m, s)
			require.Equal(t, want, got, "%s: %q", sc.name, s)
		}
	})
}
