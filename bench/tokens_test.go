package bench

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/tiktoken-go/tokenizer"

	"github.com/seed-e7d2830f/promptkit/tokens"
)

// The texts of the token-count benchmark (testdata/tokens, see its README),
// which tokens_bench.js counts with tiktoken and js-tiktoken in the same run.
var tokenTexts = []string{"english", "chinese", "code"}

var tokenFiles = map[string]string{"english": "english.md", "chinese": "chinese.md", "code": "code.go.txt"}

func readTokenText(tb testing.TB, name string) string {
	b, err := os.ReadFile(filepath.Join("testdata", "tokens", tokenFiles[name]))
	if err != nil {
		tb.Fatal(err)
	}
	return string(b)
}

// BenchmarkTokens counts each text with promptkit's tokens and, for
// scale, with tiktoken-go's own Count (which promptkit does not use: it
// takes only its vocabularies).
func BenchmarkTokens(b *testing.B) {
	for _, enc := range []string{"o200k_base", "cl100k_base"} {
		tok, err := tokens.Encoding(enc)
		if err != nil {
			b.Fatal(err)
		}
		lib, err := tokenizer.Get(tokenizer.Encoding(enc))
		if err != nil {
			b.Fatal(err)
		}
		for _, name := range tokenTexts {
			text := readTokenText(b, name)
			b.Run("promptkit/"+enc+"/"+name, func(b *testing.B) {
				b.SetBytes(int64(len(text)))
				for b.Loop() {
					tok.Count(text)
				}
			})
			b.Run("tiktoken-go/"+enc+"/"+name, func(b *testing.B) {
				b.SetBytes(int64(len(text)))
				for b.Loop() {
					if _, err := lib.Count(text); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

// BenchmarkTokensFirstLoad is the first Encoding call of a process, which
// reads the vocabulary (tokens.sh runs it with -benchtime 1x, in a fresh
// process each round; later calls return the loaded tokenizer).
func BenchmarkTokensFirstLoad(b *testing.B) {
	for _, enc := range []string{"o200k_base", "cl100k_base"} {
		b.Run(enc, func(b *testing.B) {
			for b.Loop() {
				if _, err := tokens.Encoding(enc); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// TestTokenCountsAgree prints the counts the table compares with the
// JavaScript engines' (go test -run TokenCounts -v).
func TestTokenCountsAgree(t *testing.T) {
	for _, enc := range []string{"o200k_base", "cl100k_base"} {
		tok, err := tokens.Encoding(enc)
		if err != nil {
			t.Fatal(err)
		}
		for _, name := range tokenTexts {
			t.Logf("count %s %s %d", enc, name, tok.Count(readTokenText(t, name)))
		}
	}
}
