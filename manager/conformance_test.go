package manager_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"sort"
	"testing"
	"testing/fstest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/seed-e7d2830f/promptkit/manager"
)

type confCase struct {
	Name     string          `json:"name"`
	Template string          `json:"template"`
	Inputs   json.RawMessage `json:"inputs"`
	Optional []string        `json:"optional"`
	Declare  []string        `json:"declare"`
	Strict   string          `json:"strict"`
}

type confExpected struct {
	Cases []struct {
		Name   string `json:"name"`
		Output string `json:"output"`
		Error  string `json:"error"`
	} `json:"cases"`
}

// runConformance renders every case of a suite (cases + expected files
// made by Python's Jinja2) and compares byte for byte; a case marked
// strict must be refused the way it says.
func runConformance(t *testing.T, casesFile, expectedFile string) {
	var cases []confCase
	var exp confExpected
	readJSON(t, casesFile, &cases)
	readJSON(t, expectedFile, &exp)
	want := map[string]string{}
	for _, c := range exp.Cases {
		require.Empty(t, c.Error, "Jinja2 rejected case %s", c.Name)
		want[c.Name] = c.Output
	}
	require.NotEmpty(t, cases)
	for _, c := range cases {
		t.Run(c.Name, func(t *testing.T) {
			expected, ok := want[c.Name]
			require.True(t, ok, "no expected output for %s", c.Name)
			vAny, err := manager.DecodeJSON(c.Inputs)
			require.NoError(t, err)
			inputs, _ := vAny.(map[string]any)
			var decl []any
			if c.Declare != nil {
				for _, d := range c.Declare {
					decl = append(decl, d)
				}
			} else {
				keys := make([]string, 0, len(inputs))
				for k := range inputs {
					keys = append(keys, k)
				}
				sort.Strings(keys)
				for _, k := range keys {
					decl = append(decl, k)
				}
				for _, o := range c.Optional {
					decl = append(decl, map[string]any{"name": o, "required": false})
				}
			}
			// The expected outputs are Jinja2's with its default Undefined:
			// the cases render in a lenient set.
			index, err := json.Marshal(map[string]any{"version": 1, "undefined": "lenient", "templates": map[string]any{
				"case": map[string]any{"path": "case.md", "variables": decl},
			}})
			require.NoError(t, err)
			fsys := fstest.MapFS{"index.json": {Data: index}, "case.md": {Data: []byte(c.Template)}}
			m, err := manager.New(fsys)
			if c.Strict == "undeclared" {
				require.ErrorIs(t, err, manager.ErrUndeclaredVariable)
				return
			}
			require.NoError(t, err)
			got, err := m.Render("case", inputs)
			if c.Strict == "missing" {
				require.ErrorIs(t, err, manager.ErrMissingVariables)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, expected, got)
		})
	}
}

func readJSON(t *testing.T, file string, v any) {
	t.Helper()
	data, err := os.ReadFile(file)
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(data, v))
}

func TestJinjaConformance(t *testing.T) {
	runConformance(t, filepath.Join("testdata", "conformance", "cases.json"), filepath.Join("testdata", "conformance", "expected.json"))
}

// TestPromptkitConformance runs promptkit's own cases, made the same way
// (testdata/conformance/generate.py over promptkit_cases.json).
func TestPromptkitConformance(t *testing.T) {
	runConformance(t, filepath.Join("testdata", "conformance", "promptkit_cases.json"), filepath.Join("testdata", "conformance", "promptkit_expected.json"))
}

// TestExtraConformance runs a second batch of promptkit's cases (edge
// semantics found while reviewing), made the same way.
func TestExtraConformance(t *testing.T) {
	runConformance(t, filepath.Join("testdata", "conformance", "extra_cases.json"), filepath.Join("testdata", "conformance", "extra_expected.json"))
}

// TestJinjaSemanticsConformance runs the cases of the semantics Jinja
// templates rely on most (indexing by character, chained and bracketed
// comparisons, printf formatting, loop attributes, macros and call blocks,
// every filter family), made the same way (generate.py jinja_cases.json
// jinja_expected.json).
func TestJinjaSemanticsConformance(t *testing.T) {
	runConformance(t, filepath.Join("testdata", "conformance", "jinja_cases.json"), filepath.Join("testdata", "conformance", "jinja_expected.json"))
}
