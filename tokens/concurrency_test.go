package tokens

import (
	"encoding/json"
	"os"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A Tokenizer is shared by concurrent counts: a byte-level tokenizer.json
// fills its memo of whole-word tokens while they run (bpeModel.whole), and
// the first Encoding calls race to load the vocabulary. Every goroutine
// must get the reference's ids (run with -race by CI).
func TestConcurrentCounts(t *testing.T) {
	texts := readTexts(t, "testdata/vectors")
	var vf vectorFile
	data, err := os.ReadFile("testdata/vectors/qwen3.json")
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(data, &vf))
	tok := vectorTokenizer(t, vf.Header.Tokenizer, nil) // a fresh one: its memo is empty
	raw := make([]string, len(texts))
	for i, c := range texts {
		raw[i] = c.bytes(t)
	}

	var wg sync.WaitGroup
	for g := range 4 {
		wg.Go(func() { // assert, not require: FailNow belongs to the test's goroutine
			o, err := Encoding("cl100k_base")
			if !assert.NoError(t, err) {
				return
			}
			for i := range texts {
				k := (i + g*len(texts)/4) % len(texts)
				c, text := texts[k], raw[k]
				want := vf.IDs[c.Name]
				if len(want) == 0 {
					want = []int{}
				}
				assert.Equal(t, want, tok.Encode(text), c.Name)
				assert.Equal(t, len(o.Encode(text)), o.Count(text), c.Name)
			}
		})
	}
	wg.Wait()
}
