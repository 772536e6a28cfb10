package engine_test

import (
	"math/rand"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/seed-e7d2830f/promptkit/internal/jinjaoracle"
)

// TestWordwrapRandom wraps random strings of letters, digits, hyphens,
// white space (ASCII and not) and punctuation at several widths and
// settings with promptkit and Jinja2: wordwrap is CPython's textwrap, whose
// chunking (hyphens, em-dashes) and long-word rules are easy to get wrong.
func TestWordwrapRandom(t *testing.T) {
	rec := jinjaoracle.Record(t, "testdata/oracle/wordwrap.json")
	r := rand.New(rand.NewSource(1))
	alphabet := []string{"a", "b", "Z", "1", "2", "-", "-", " ", " ", "  ", ",", ".", "'", "!", "_", "é", "\t", "\u00a0", "?", "&", "(", ")"}
	for round := 0; round < 10; round++ {
		ts := make([]any, 100)
		for k := range ts {
			var b strings.Builder
			for n := r.Intn(25); n > 0; n-- {
				b.WriteString(alphabet[r.Intn(len(alphabet))])
			}
			ts[k] = b.String()
		}
		for _, args := range []string{"1", "2", "3", "5", "4, false", "3, true, '|', false", "2, false, '|', false"} {
			tpl := "{% for t in ts %}{{ t|wordwrap(" + args + ") }}\n=====\n{% endfor %}"
			vars := map[string]any{"ts": ts}
			want := rec.Render(t, tpl, vars)
			require.Empty(t, want.Err)
			require.True(t, want.Kept(), "the answer is recorded whole")
			got, err := renderStock(tpl, vars)
			require.NoError(t, err)
			w, g := strings.Split(want.Out, "\n=====\n"), strings.Split(got, "\n=====\n")
			require.Len(t, g, len(w))
			for i := range w {
				assert.Equal(t, w[i], g[i], "wordwrap(%s) of %q", args, ts[min(i, len(ts)-1)])
			}
		}
	}
}
