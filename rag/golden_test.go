package rag

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/seed-e7d2830f/promptkit/builders"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var update = flag.Bool("update", false, "rewrite testdata/golden/*.golden.json from the current templates")

// TestGolden builds every testdata/golden/NAME.input.json (the data of the
// rag_answer builder, as a host or `promptkit build rag_answer --data`
// passes it) and compares the messages with NAME.golden.json. The golden
// form shows each message's text unescaped, so a template change reads as
// a plain diff; go test ./rag -update rewrites them.
func TestGolden(t *testing.T) {
	inputs, err := filepath.Glob(filepath.Join("testdata", "golden", "*.input.json"))
	require.NoError(t, err)
	require.NotEmpty(t, inputs)
	b := New(defaultSet(t))
	for _, in := range inputs {
		name := strings.TrimSuffix(filepath.Base(in), ".input.json")
		t.Run(name, func(t *testing.T) {
			raw, err := os.ReadFile(in)
			require.NoError(t, err)
			var data map[string]any
			dec := json.NewDecoder(bytes.NewReader(raw))
			dec.UseNumber()
			require.NoError(t, dec.Decode(&data))
			msgs, err := b.BuildMessages(builders.NewContext(builders.Task{}, data))
			require.NoError(t, err)

			type golden struct {
				Role    string `json:"role"`
				Content string `json:"content"`
			}
			out := make([]golden, len(msgs))
			for i, m := range msgs {
				out[i] = golden{m.Role, m.Text()}
			}
			var buf bytes.Buffer
			enc := json.NewEncoder(&buf)
			enc.SetEscapeHTML(false)
			enc.SetIndent("", "  ")
			require.NoError(t, enc.Encode(out))

			path := filepath.Join("testdata", "golden", name+".golden.json")
			if *update {
				require.NoError(t, os.WriteFile(path, buf.Bytes(), 0o644))
				return
			}
			want, err := os.ReadFile(path)
			require.NoError(t, err, "run go test ./rag -update to create it")
			assert.Equal(t, string(want), buf.String(), "the messages differ from %s; if the change is intended, run go test ./rag -update and review the diff", path)
		})
	}
}
