package engine_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/seed-e7d2830f/promptkit/internal/jinjaoracle"
)

// TestCasing compares promptkit's case operations and character classes
// with Python's for every code point of the first two planes and the
// supplementary special-purpose plane: upper, lower, title, capitalize,
// swapcase and casefold of each character alone, the case tests and
// isdigit, isnumeric… of each, its repr, and the final-sigma rule of lower
// next to each (which tells the cased and case-ignorable ones).
func TestCasing(t *testing.T) {
	rec := jinjaoracle.Record(t, "testdata/oracle/casing.json")
	var chars []string
	for r := rune(0); r < 0x20000 || r >= 0xE0000 && r < 0xE1000; r++ {
		if r == 0x20000 {
			r = 0xE0000 // planes 2 and 3 hold CJK ideographs only, uncased
		}
		if r >= 0xD800 && r <= 0xDFFF || r == '\n' {
			continue
		}
		chars = append(chars, string(r))
	}
	const chunk = 1 << 15
	templates := map[string]string{
		"upper":        "{{ s.upper() }}",
		"lower":        "{{ s.lower() }}",
		"title":        "{{ s.title() }}",
		"capitalize":   "{{ s.capitalize() }}",
		"swapcase":     "{{ s.swapcase() }}",
		"casefold":     "{{ s.casefold() }}",
		"filters":      "{{ s|upper }}{{ s|lower }}{{ s|title }}{{ s|capitalize }}",
		"tests":        "{% for c in s.split('\\n') %}{{ c.isupper()|int }}{{ c.islower()|int }}{{ c.istitle()|int }}{{ c is upper }}{{ c is lower }}\n{% endfor %}",
		"classes":      "{% for c in s.split('\\n') %}{{ c.isdigit()|int }}{{ c.isdecimal()|int }}{{ c.isnumeric()|int }}{{ c.isalpha()|int }}{{ c.isalnum()|int }}{{ c.isprintable()|int }}{{ c.isspace()|int }}\n{% endfor %}",
		"repr":         "{% for c in s.split('\\n') %}{{ [c] }}\n{% endfor %}",
		"sigma after":  "{% for c in s.split('\\n') %}{{ ('A' ~ c ~ 'Σ').lower() }}|{{ ('Σ' ~ c).lower() }}\n{% endfor %}",
		"sigma before": "{% for c in s.split('\\n') %}{{ ('AΣ' ~ c).lower() }}|{{ (c ~ 'Σb').lower() }}\n{% endfor %}",
	}
	for name, tpl := range templates {
		t.Run(name, func(t *testing.T) {
			for i := 0; i < len(chars); i += chunk {
				vars := map[string]any{"s": strings.Join(chars[i:min(i+chunk, len(chars))], "\n")}
				ans := rec.Render(t, tpl, vars)
				require.Empty(t, ans.Err)
				got, err := renderStock(tpl, vars)
				require.NoError(t, err)
				if !ans.Kept() {
					// Recorded by its digest: the live oracle shows where.
					assert.True(t, ans.Matches(got), "%s differs from Python's recorded answer for U+%04X…; run where python3-jinja2 is installed to see where", name, []rune(chars[i])[0])
					continue
				}
				if want := ans.Out; want != got {
					w, g := strings.Split(want, "\n"), strings.Split(got, "\n")
					for k := 0; k < min(len(w), len(g)); k++ {
						if w[k] != g[k] {
							assert.Failf(t, "differs", "%s near %U: Python %q, promptkit %q", name, []rune(chars[i+min(k, chunk-1)])[0], w[k], g[k])
							break
						}
					}
					assert.Equal(t, len(w), len(g))
					return
				}
			}
		})
	}
	for _, s := range []string{"ΟΔΟΣ", "ΣΑ", "ΑΣ.", "ΑΣ'Β", "Σ", "ΑΣ\u0301", "ΑΣ\u0301Β", "Α.Σ", "ΟΔΟΣ ΟΔΟΣ", "ΣΣΣ", "ΑΣΣ", "İstanbul", "ﬁnal ß", "ǅungla ǆ", "ΰ"} {
		tpl := "{{ s.lower() }}|{{ s.upper() }}|{{ s.title() }}|{{ s.capitalize() }}|{{ s.swapcase() }}|{{ s.casefold() }}|{{ s|title }}|{{ s|lower }}"
		want := rec.Render(t, tpl, map[string]any{"s": s})
		require.Empty(t, want.Err)
		got, err := renderStock(tpl, map[string]any{"s": s})
		require.NoError(t, err)
		assert.Equal(t, want.Out, got, "%q", s)
	}
}
