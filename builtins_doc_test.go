package promptkit_test

import (
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/seed-e7d2830f/promptkit/internal/engine"
	"github.com/seed-e7d2830f/promptkit/internal/jinja"
)

// The README's lists of builtins are the runtime's: every filter, test,
// global, method and loop attribute the engine's tables hold, and each
// refused one, named in the README, and nothing else.
func TestReadmeListsTheRuntimeBuiltins(t *testing.T) {
	data, err := os.ReadFile("README.md")
	require.NoError(t, err)
	readme := string(data)
	names := regexp.MustCompile("`([^`]+)`")
	list := func(label string) []string {
		i := strings.Index(readme, "**"+label+"**")
		require.GreaterOrEqual(t, i, 0, "the README lists %s", label)
		para := readme[i:]
		para = para[:strings.Index(para, "\n\n")]
		var out []string
		for _, m := range names.FindAllStringSubmatch(para, -1) {
			out = append(out, m[1])
		}
		slices.Sort(out)
		return out
	}
	cat := engine.Catalog(engine.Options{})
	supported := func(m map[string]jinja.Spec) []string {
		var out []string
		for n, s := range m {
			if s.Refused == "" {
				out = append(out, n)
			}
		}
		slices.Sort(out)
		return out
	}
	assert.Equal(t, supported(cat.Filters), list("Filters"))
	assert.Equal(t, supported(cat.Tests), list("Tests"))
	assert.Equal(t, supported(cat.Globals), list("Global functions"))
	assert.Equal(t, supported(cat.Methods), list("Methods"))
	assert.Equal(t, slices.Sorted(slices.Values(cat.Loop)), list("loop"))

	refused := list("Refused")
	for _, table := range []map[string]jinja.Spec{cat.Filters, cat.Globals, cat.Methods} {
		for n, s := range table {
			if s.Refused != "" {
				assert.Contains(t, refused, n, "the README names the refused %s", n)
			}
		}
	}
}
