package tokens

import (
	"bytes"
	"compress/gzip"
	"encoding/base64"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// The vectors (testdata/vectors) are the ids the reference tokenizers give
// for every text of testdata/corpus.json and 300 generated ones, written by
// testdata/gen/gen.mjs. TestVectors holds promptkit to them without Node;
// TestVectorsCurrent (CI) writes them afresh with Node and fails on any
// difference, so they cannot drift from the pinned references.

type vectorText struct {
	Name   string `json:"name"`
	Text   string `json:"text"`
	Base64 string `json:"base64"`
}

func (v vectorText) bytes(t testing.TB) string {
	if v.Base64 == "" {
		return v.Text
	}
	b, err := base64.StdEncoding.DecodeString(v.Base64)
	require.NoError(t, err)
	return string(b)
}

type vectorFile struct {
	Header struct {
		Tokenizer string                     `json:"tokenizer"`
		Overrides map[string]json.RawMessage `json:"overrides"`
		Reference string                     `json:"reference"`
	} `json:"header"`
	IDs map[string][]int `json:"ids"`
}

func readTexts(t testing.TB, dir string) []vectorText {
	var texts struct {
		Cases []vectorText `json:"cases"`
	}
	data, err := os.ReadFile(filepath.Join(dir, "texts.json"))
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(data, &texts))
	require.NotEmpty(t, texts.Cases)
	return texts.Cases
}

// vectorTokenizer builds the tokenizer a vector file's header names.
func vectorTokenizer(t testing.TB, tokenizer string, overrides map[string]json.RawMessage) *Tokenizer {
	if !strings.Contains(tokenizer, "/") {
		tok, err := Encoding(tokenizer)
		require.NoError(t, err)
		return tok
	}
	data, err := os.ReadFile(filepath.Join("testdata", tokenizer))
	require.NoError(t, err)
	if len(overrides) > 0 {
		zr, err := gzip.NewReader(bytes.NewReader(data))
		require.NoError(t, err)
		data, err = io.ReadAll(zr)
		require.NoError(t, err)
		var m map[string]json.RawMessage
		require.NoError(t, json.Unmarshal(data, &m))
		for k, v := range overrides {
			m[k] = v
		}
		data, err = json.Marshal(m)
		require.NoError(t, err)
	}
	tok, err := ParseJSON(tokenizer, data)
	require.NoError(t, err)
	return tok
}

func vectorFiles(t testing.TB, dir string) []string {
	names, err := filepath.Glob(filepath.Join(dir, "*.json"))
	require.NoError(t, err)
	var out []string
	for _, n := range names {
		if filepath.Base(n) != "texts.json" {
			out = append(out, n)
		}
	}
	sort.Strings(out)
	require.NotEmpty(t, out)
	return out
}

func TestVectors(t *testing.T) {
	texts := readTexts(t, "testdata/vectors")
	for _, file := range vectorFiles(t, "testdata/vectors") {
		name := strings.TrimSuffix(filepath.Base(file), ".json")
		t.Run(name, func(t *testing.T) {
			var vf vectorFile
			data, err := os.ReadFile(file)
			require.NoError(t, err)
			require.NoError(t, json.Unmarshal(data, &vf))
			tok := vectorTokenizer(t, vf.Header.Tokenizer, vf.Header.Overrides)
			require.Len(t, vf.IDs, len(texts))
			bad := 0
			for _, c := range texts {
				want, ok := vf.IDs[c.Name]
				require.True(t, ok, "no ids for %s", c.Name)
				text := c.bytes(t)
				got := tok.Encode(text)
				if len(want) == 0 {
					want = []int{}
				}
				if !equalIDs(got, want) {
					bad++
					if bad <= 5 {
						t.Errorf("%s: %s (%s):\n got %v\nwant %v\ntext %q", name, c.Name, vf.Header.Reference, got, want, text)
					}
					continue
				}
				require.Equal(t, len(want), tok.Count(text), "%s: Count of %s", name, c.Name)
			}
			if bad > 0 {
				t.Errorf("%s: %d of %d texts differ from %s", name, bad, len(texts), vf.Header.Reference)
			}
		})
	}
}

func equalIDs(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// TestVectorsCurrent runs gen.mjs into a temporary folder and compares its
// output with testdata/vectors byte for byte. It needs Node and
// testdata/gen/node_modules (npm ci there): it skips without them, except
// under CI=true, where .ci/run installs them.
// raceEnabled is set by race_test.go under -race.
var raceEnabled bool

func TestVectorsCurrent(t *testing.T) {
	node, err := exec.LookPath("node")
	_, modErr := os.Stat("testdata/gen/node_modules/tiktoken/package.json")
	if err != nil || modErr != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("node or testdata/gen/node_modules is missing (.ci/run runs npm ci in tokens/testdata/gen): %v %v", err, modErr)
		}
		t.Skip("node or tokens/testdata/gen/node_modules is missing: run npm ci in tokens/testdata/gen to check the vectors against the references")
	}
	if testing.Short() || raceEnabled {
		t.Skip("-short or -race: the references take about half a minute, and the run without -race checks them")
	}
	out := t.TempDir()
	cmd := exec.Command(node, "gen.mjs", "--out", out)
	cmd.Dir = "testdata/gen"
	msg, err := cmd.CombinedOutput()
	require.NoError(t, err, "%s", msg)
	want, err := filepath.Glob("testdata/vectors/*.json")
	require.NoError(t, err)
	got, err := filepath.Glob(filepath.Join(out, "*.json"))
	require.NoError(t, err)
	require.Equal(t, len(want), len(got), "the references wrote another set of files")
	for _, w := range want {
		a, err := os.ReadFile(w)
		require.NoError(t, err)
		b, err := os.ReadFile(filepath.Join(out, filepath.Base(w)))
		require.NoError(t, err)
		require.True(t, bytes.Equal(a, b), "%s differs from what the references write now (the texts include the set's templates/*.md, so a template edit changes them): run node gen.mjs in tokens/testdata/gen and review the change", w)
	}
}
