package manager_test

import (
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/seed-e7d2830f/promptkit/manager"
)

// hostileIndex declares one template t.md with optional variables, so any
// source that only uses a, xs and n passes the variable checks.
const hostileIndex = `{"version":1,"templates":{"t":{"path":"t.md","variables":[
 {"name":"a","required":false},{"name":"xs","required":false},{"name":"n","required":false}]}}}`

// loadHostile loads src as t.md and fails the test if loading hangs
// (hangBound: far above what a loaded machine takes, far below a hang).
func loadHostile(t *testing.T, src string, opts ...manager.Option) (*manager.Manager, error) {
	t.Helper()
	start := time.Now()
	m, err := manager.New(set(hostileIndex, map[string]string{"t.md": src}), opts...)
	assert.Less(t, time.Since(start), hangBound, "loading hung")
	return m, err
}

func TestHostileDeepExpressions(t *testing.T) {
	deep := 10000
	cases := map[string]string{
		"parentheses":  "{{ " + strings.Repeat("(", deep) + "1" + strings.Repeat(")", deep) + " }}",
		"unary minus":  "{{ " + strings.Repeat("-", deep) + "1 }}",
		"not":          "{{ " + strings.Repeat("not ", deep) + "a }}",
		"lists":        "{{ " + strings.Repeat("[", deep) + strings.Repeat("]", deep) + " }}",
		"filter args":  "{{ " + strings.Repeat("a|default(", deep) + "1" + strings.Repeat(")", deep) + " }}",
		"plus chain":   "{{ 1" + strings.Repeat(" + 1", deep) + " }}",
		"filter chain": "{{ a" + strings.Repeat("|upper", deep) + " }}",
		"attributes":   "{{ a" + strings.Repeat(".b", deep) + " }}",
		"conditionals": "{{ 1" + strings.Repeat(" if a else 1", deep) + " }}",
		"in a tag":     "{% if " + strings.Repeat("(", deep) + "a" + strings.Repeat(")", deep) + " %}x{% endif %}",
	}
	for name, src := range cases {
		t.Run(name, func(t *testing.T) {
			_, err := loadHostile(t, src)
			require.ErrorIs(t, err, manager.ErrTemplate)
			assert.Contains(t, err.Error(), "expression nested deeper than 64 levels")
			assert.Contains(t, err.Error(), "t.md:1:")
		})
	}
}

func TestHostileModerateNestingRenders(t *testing.T) {
	// Nesting well inside the limit renders, and quickly: 30 unary minus
	// signs used to cost 2^30 translations.
	m, err := loadHostile(t, "{{ "+strings.Repeat("-", 30)+"1 }}{{ "+strings.Repeat("(", 50)+"2"+strings.Repeat(")", 50)+" }}{{ not "+strings.Repeat("not ", 40)+"a | default }}")
	require.NoError(t, err)
	out, err := m.Render("t", nil)
	require.NoError(t, err)
	assert.Equal(t, "12True", out, "41 nots of an undefined value's default")
}

func TestHostileDeepBlocks(t *testing.T) {
	// The parser refuses the 65th level before recursing further: a million
	// nested blocks (a 21 MB file, too slow to lex here) used to overflow
	// the goroutine stack, which kills the process.
	for _, n := range []int{65, 20000, 200000} {
		_, err := loadHostile(t, strings.Repeat("{% if a %}", n)+"x"+strings.Repeat("{% endif %}", n))
		require.ErrorIs(t, err, manager.ErrTemplate)
		assert.Contains(t, err.Error(), "blocks nested deeper than 64")
	}
	_, err := loadHostile(t, strings.Repeat("{% for x in xs %}", 64)+"{{ x }}"+strings.Repeat("{% endfor %}", 64))
	require.NoError(t, err, "64 levels are allowed")
}

func TestHostileLongLines(t *testing.T) {
	// An 80 KB line of tags (positions used to be counted from the start of
	// the line for every token: quadratic) and a 4 MB line of text.
	src := strings.Repeat("{{ a }}x", 10000)
	m, err := loadHostile(t, src)
	require.NoError(t, err)
	out, err := m.Render("t", map[string]any{"a": "y"})
	require.NoError(t, err)
	assert.Equal(t, strings.Repeat("yx", 10000), out)

	_, err = loadHostile(t, strings.Repeat("x", 200000)+"{{ a b }}")
	require.ErrorIs(t, err, manager.ErrTemplate)
	assert.Contains(t, err.Error(), "t.md:1:200006", "the column of an error at the end of a long line is exact")

	m, err = loadHostile(t, strings.Repeat("长", 1<<20))
	require.NoError(t, err)
	out, err = m.Render("t", nil)
	require.NoError(t, err)
	assert.Len(t, out, 3<<20)
}

func TestHostileIncludeCycles(t *testing.T) {
	idx := `{"version":1,"templates":{"t":{"path":"t.md"}}}`
	for name, files := range map[string]map[string]string{
		"self":  {"t.md": `{% include "t.md" %}`},
		"pair":  {"t.md": `{% include "a.md" %}`, "a.md": `{% include "b.md" %}`, "b.md": `x{% include "./a.md" %}`},
		"inner": {"t.md": `{% if 1 %}{% for x in [1] %}{% include "t.md" %}{% endfor %}{% endif %}`},
	} {
		t.Run(name, func(t *testing.T) {
			_, err := manager.New(set(idx, files))
			require.ErrorIs(t, err, manager.ErrTemplate)
			assert.Contains(t, err.Error(), "include cycle")
		})
	}
	// A deep chain without a cycle stops at the include depth limit.
	files := map[string]string{"t.md": `{% include "p0.md" %}`}
	for i := 0; i < 40; i++ {
		files["p"+strconv.Itoa(i)+".md"] = `{% include "p` + strconv.Itoa(i+1) + `.md" %}`
	}
	files["p40.md"] = "end"
	_, err := manager.New(set(idx, files))
	require.ErrorIs(t, err, manager.ErrTemplate)
	assert.Contains(t, err.Error(), "includes nested deeper than 32")
}

func TestHostileLoopsMultiplyingOutput(t *testing.T) {
	src := `{% for a in xs %}{% for b in xs %}{% for c in xs %}{{ a }}{{ b }}{{ c }}{% endfor %}{% endfor %}{% endfor %}`
	m, err := loadHostile(t, src, manager.WithMaxOutputBytes(1<<20))
	require.NoError(t, err)
	xs := make([]int, 1000) // 10^9 iterations if nothing stops it
	start := time.Now()
	_, err = m.Render("t", map[string]any{"xs": xs})
	require.ErrorIs(t, err, manager.ErrOutputLimit)
	assert.Contains(t, err.Error(), `template "t"`)
	assert.Less(t, time.Since(start), hangBound)

	// With a generous output limit, the iteration limit stops it.
	m, err = loadHostile(t, `{% for a in xs %}{% for b in xs %}{% for c in xs %}{% endfor %}{% endfor %}{% endfor %}`, manager.WithMaxIterations(200_000))
	require.NoError(t, err)
	_, err = m.Render("t", map[string]any{"xs": xs})
	require.ErrorIs(t, err, manager.ErrOutputLimit)
	assert.Contains(t, err.Error(), "loop iterations")
	assert.Contains(t, err.Error(), `template "t"`)

	out, err := m.Render("t", map[string]any{"xs": []int{1}})
	require.NoError(t, err, "the manager keeps working")
	assert.Empty(t, out)
}

func TestHostileHugeRange(t *testing.T) {
	for _, src := range []string{"{% for i in range(1000000000) %}{% endfor %}", "{{ range(10**12)|length }}", "{{ range(0, 10**18, 2)|length }}"} {
		m, err := loadHostile(t, src)
		require.NoError(t, err)
		_, err = m.Render("t", nil)
		require.ErrorIs(t, err, manager.ErrTemplate, src)
		assert.Contains(t, err.Error(), "range() is limited to 100000 items")
	}
}

func TestHostileValuesBuiltInTheTemplate(t *testing.T) {
	// Each would allocate gigabytes (or loop for hours) before reaching the
	// output limit if values were not bounded.
	for name, src := range map[string]string{
		"repeat":   `{{ "x" * 4000000000 }}`,
		"doubling": `{% set s = "xxxxxxxxxxxxxxxx" %}` + strings.Repeat(`{% set s = s ~ s %}`, 40) + `{{ s|length }}`,
		"plus":     `{% set s = "xxxxxxxxxxxxxxxx" %}` + strings.Repeat(`{% set s = s + s %}`, 40) + `{{ s|length }}`,
		"lists":    `{% set l = range(100000)|list %}` + strings.Repeat(`{% set l = l + l %}`, 30) + `{{ l|length }}`,
		"replace":  `{% set s = "x" * 10000 %}{{ s|replace("x", s) }}`,
		"method":   `{% set s = "x" * 10000 %}{{ s.replace("x", s) }}`,
		"join":     `{% set s = "x" * 1000000 %}{{ [s, s, s, s, s, s, s, s, s, s, s, s, s, s, s, s, s]|join }}`,
		"indent":   `{{ ("x\n" * 100000)|indent(1000000) }}`,
		"indent 2": `{{ "x\ny"|indent(100000000000) }}`,
	} {
		t.Run(name, func(t *testing.T) {
			m, err := loadHostile(t, src)
			require.NoError(t, err)
			start := time.Now()
			_, err = m.Render("t", nil)
			require.ErrorIs(t, err, manager.ErrOutputLimit)
			assert.Contains(t, err.Error(), `template "t"`)
			assert.Less(t, time.Since(start), hangBound)
		})
	}
	m, err := loadHostile(t, `{{ 3 ** 1000000000000000000 }}`)
	require.NoError(t, err)
	start := time.Now()
	_, err = m.Render("t", nil)
	require.ErrorIs(t, err, manager.ErrOutputLimit, "an integer too large to build, never a wrapped or rounded one")
	assert.Contains(t, err.Error(), "t.md:1:4: template \"t\": a value built by the template would take")
	assert.Less(t, time.Since(start), hangBound, "** takes log(exponent) steps (10^18 steps would never end)")
	m, err = loadHostile(t, `{{ ("ab" * 3)|indent(2) }} {{ {"a": 1}|tojson(-3) }}`)
	require.NoError(t, err)
	out, err := m.Render("t", nil)
	require.NoError(t, err)
	assert.Equal(t, "ababab {\n\"a\": 1\n}", out, "a negative indent is none, as in Python")
}
