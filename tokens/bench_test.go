package tokens

import (
	"os"
	"strings"
	"testing"
)

// The texts the benchmarks count (and bench/ counts with tiktoken and
// js-tiktoken): English prose and Markdown (docs/performance.md), Chinese
// prompts (the default set's templates), Go code (this package).
func benchTexts(b *testing.B) map[string]string {
	read := func(paths ...string) string {
		var s strings.Builder
		for _, p := range paths {
			data, err := os.ReadFile(p)
			if err != nil {
				b.Fatal(err)
			}
			s.Write(data)
		}
		return s.String()
	}
	return map[string]string{
		"english": read("../docs/performance.md"),
		"chinese": read("../templates/agent_system.md", "../templates/planner_board.md", "../templates/polish.md", "../templates/subagent_system.md", "../templates/title.md"),
		"code":    read("bpe.go", "pretokenize.go", "hf.go"),
	}
}

func BenchmarkCount(b *testing.B) {
	texts := benchTexts(b)
	for _, enc := range []string{"o200k_base", "cl100k_base", "qwen3", "llama3", "llama2"} {
		var tok *Tokenizer
		var err error
		if strings.Contains(enc, "_") {
			tok, err = Encoding(enc)
		} else {
			tok, err = ReadFile(os.DirFS("testdata/tokenizers/"+enc), "tokenizer.json.gz")
		}
		if err != nil {
			b.Fatal(err)
		}
		for _, name := range []string{"english", "chinese", "code"} {
			text := texts[name]
			b.Run(enc+"/"+name, func(b *testing.B) {
				b.SetBytes(int64(len(text)))
				b.ReportAllocs()
				for b.Loop() {
					tok.Count(text)
				}
			})
		}
	}
}

// BenchmarkLoad reads an encoding's vocabulary (what the first Encoding
// call of a process pays; tiktoken-go's own tables are built once before),
// and parses a tokenizer.json.
func BenchmarkLoad(b *testing.B) {
	for _, spec := range encodingSpecs[:2] {
		b.Run(spec.name, func(b *testing.B) {
			for b.Loop() {
				if _, err := loadEncoding(spec); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
	for _, name := range []string{"qwen3", "llama3", "llama2"} {
		data, err := os.ReadFile("testdata/tokenizers/" + name + "/tokenizer.json.gz")
		if err != nil {
			b.Fatal(err)
		}
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := ParseJSON(name, data); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
