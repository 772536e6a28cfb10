//promptkit:allow-inline the budget's tests: templates with marks, and what they render
package engine_test

import (
	"context"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/seed-e7d2830f/promptkit/internal/engine"
	"github.com/seed-e7d2830f/promptkit/internal/jinja"
)

// words counts the words of a text: a counter whose sums are exact, so
// the tests can say which cuts a budget takes.
func words(s string) int { return len(strings.Fields(s)) }

func compileMarked(t *testing.T, src string, vars ...string) *engine.Template {
	t.Helper()
	tree, err := jinja.Parse("t.md", src, jinja.Options{})
	require.NoError(t, err)
	prog, err := jinja.Check(tree, &jinja.Config{Catalog: engine.Catalog(engine.Options{}), Declared: vars,
		Load: func(name string) (*jinja.Tree, error) {
			return jinja.Parse(name, "inc {% shrink priority=0 %}one two{% endshrink %}", jinja.Options{})
		}})
	require.NoError(t, err)
	tmpl, err := engine.Compile(prog, engine.Options{Strict: true})
	require.NoError(t, err)
	return tmpl
}

const markedDoc = `Head.
{% shrink priority=2 %}Block of four words.{% endshrink %}
{% for d in docs shrink priority=1 keep=1 %}[{{ loop.index }}/{{ loop.length }} {{ d }}] {% endfor %}
{% shrink priority=1 %}Low one.{% endshrink %}
End.`

func TestRenderBudgetCutsInOrder(t *testing.T) {
	tmpl := compileMarked(t, markedDoc, "docs")
	lim := engine.Limits{}.WithDefaults()
	docs := []any{"a b", "c d", "e f"}
	full, err := tmpl.Render(context.Background(), map[string]any{"docs": docs}, &lim)
	require.NoError(t, err)
	require.Equal(t, 17, words(full))
	tests := []struct {
		budget int
		fits   bool
		tokens int
		cuts   []engine.Cut // marks: 0 the block (2), 1 the loop (1), 2 the low block (1)
		text   string
	}{
		{100, true, 17, nil, full},
		{17, true, 17, nil, full},
		// Priority 1 first, the later mark first: the low block, then the
		// loop's items from the end, keeping one, then the block.
		{16, true, 15, []engine.Cut{{Mark: 2, Tokens: 2}}, "Head.\nBlock of four words.\n[1/3 a b] [2/3 c d] [3/3 e f] \n\nEnd."},
		{12, true, 12, []engine.Cut{{Mark: 2, Tokens: 2}, {Mark: 1, Items: 1, Tokens: 3}}, "Head.\nBlock of four words.\n[1/2 a b] [2/2 c d] \n\nEnd."},
		{9, true, 9, []engine.Cut{{Mark: 2, Tokens: 2}, {Mark: 1, Items: 2, Tokens: 6}}, "Head.\nBlock of four words.\n[1/1 a b] \n\nEnd."},
		{8, true, 5, []engine.Cut{{Mark: 2, Tokens: 2}, {Mark: 1, Items: 2, Tokens: 6}, {Mark: 0, Tokens: 4}}, "Head.\n\n[1/1 a b] \n\nEnd."},
		{4, false, 5, []engine.Cut{{Mark: 2, Tokens: 2}, {Mark: 1, Items: 2, Tokens: 6}, {Mark: 0, Tokens: 4}}, "Head.\n\n[1/1 a b] \n\nEnd."},
	}
	for _, tt := range tests {
		r, err := tmpl.RenderBudget(context.Background(), []any{docs}, &lim, false, engine.Counter{Count: words}, tt.budget)
		require.NoError(t, err)
		assert.Equal(t, tt.fits, r.Fits, "budget %d", tt.budget)
		assert.Equal(t, tt.tokens, r.Tokens, "budget %d", tt.budget)
		assert.Equal(t, tt.cuts, r.Cuts, "budget %d", tt.budget)
		assert.Equal(t, tt.text, r.Text, "budget %d", tt.budget)
		assert.Equal(t, words(r.Text), r.Tokens)
	}
	marks := tmpl.Marks()
	require.Len(t, marks, 3)
	assert.Equal(t, engine.Mark{Kind: "items", Priority: 1, File: "t.md", Line: 3, Col: 1, Drop: "end", Keep: 1}, marks[1])
	assert.Equal(t, "block", marks[0].Kind)
}

// The shortest prefix of the cut order that fits, whatever the estimate
// said: a budget one token under each prefix's count cuts one more.
func TestRenderBudgetShortestPrefix(t *testing.T) {
	src := `{% for d in docs shrink priority=0 drop="start" %}<{{ d }}> {% endfor %}tail`
	tmpl := compileMarked(t, src, "docs")
	lim := engine.Limits{}.WithDefaults()
	docs := []any{"a", "b c", "d e f", "g", "h i j k"}
	for budget := 1; budget <= 12; budget++ {
		r, err := tmpl.RenderBudget(context.Background(), []any{docs}, &lim, false, engine.Counter{Count: words}, budget)
		require.NoError(t, err)
		// Cut from the start: keep the longest suffix that fits.
		want := 0
		for k := 0; k <= len(docs); k++ {
			n := 1
			for _, d := range docs[k:] {
				n += words(d.(string))
			}
			if n <= budget {
				want = k
				break
			}
			want = k
		}
		got := 0
		if len(r.Cuts) > 0 {
			got = r.Cuts[0].Items
		}
		assert.Equal(t, want, got, "budget %d: %q", budget, r.Text)
		assert.True(t, r.Fits, "budget %d", budget)
		assert.LessOrEqual(t, r.Renders, 5, "budget %d", budget)
	}
}

// A region inside a region cut before is not counted twice; an inner mark
// cut after its outer one changed nothing and is not listed.
func TestRenderBudgetNested(t *testing.T) {
	src := `a b {% shrink priority=1 %}c d {% shrink priority=2 %}e f g{% endshrink %} h{% endshrink %} i`
	tmpl := compileMarked(t, src)
	lim := engine.Limits{}.WithDefaults()
	r, err := tmpl.RenderBudget(context.Background(), nil, &lim, false, engine.Counter{Count: words}, 3)
	require.NoError(t, err)
	assert.Equal(t, "a b  i", r.Text)
	assert.Equal(t, []engine.Cut{{Mark: 0, Tokens: 6}}, r.Cuts)
	src = `a b {% shrink priority=2 %}c d {% shrink priority=1 %}e f g{% endshrink %} h{% endshrink %} i`
	tmpl = compileMarked(t, src)
	r, err = tmpl.RenderBudget(context.Background(), nil, &lim, false, engine.Counter{Count: words}, 3)
	require.NoError(t, err)
	assert.Equal(t, "a b  i", r.Text)
	assert.Equal(t, []engine.Cut{{Mark: 1, Tokens: 3}, {Mark: 0, Tokens: 3}}, r.Cuts, "the outer block's count leaves out the inner one's, cut before")
}

// Marks inside captures (a macro's output, a set block) and includes are
// cut as well.
func TestRenderBudgetCaptures(t *testing.T) {
	src := `{% macro m() %}x {% shrink priority=5 %}y z{% endshrink %}{% endmacro %}{{ m() }}` +
		`{% set s %}{% shrink priority=4 %}p q{% endshrink %}{% endset %}{{ s | upper }} {% include "inc.md" %}`
	tmpl := compileMarked(t, src)
	lim := engine.Limits{}.WithDefaults()
	full, err := tmpl.Render(context.Background(), nil, &lim)
	require.NoError(t, err)
	assert.Equal(t, "x y zP Q inc one two", full)
	r, err := tmpl.RenderBudget(context.Background(), nil, &lim, false, engine.Counter{Count: words}, 3)
	require.NoError(t, err)
	assert.Equal(t, "x  inc ", r.Text)
	assert.Len(t, r.Cuts, 3)
}

// A chat message with priority= is dropped whole; the count of messages
// is the sum of their text parts' counts.
func TestRenderBudgetMessages(t *testing.T) {
	src := `{% chat role="system" %}Be brief.{% endchat %}` +
		`{% for turn in history shrink priority=1 drop="start" %}{% chat role=turn.role allow=["user", "assistant"] %}{{ turn.text }}{% endchat %}{% endfor %}` +
		`{% chat role="user" priority=0 %}An aside of five words.{% endchat %}` +
		`{% chat role="user" %}{{ question }}{% endchat %}`
	tmpl := compileMarked(t, src, "history", "question")
	lim := engine.Limits{}.WithDefaults()
	history := []any{
		map[string]any{"role": "user", "text": "one two three"},
		map[string]any{"role": "assistant", "text": "four five"},
		map[string]any{"role": "user", "text": "six"},
	}
	r, err := tmpl.RenderBudget(context.Background(), []any{history, "why?"}, &lim, true, engine.Counter{Count: words}, 5)
	require.NoError(t, err)
	assert.True(t, r.Fits)
	var got []string
	for _, m := range r.Messages {
		got = append(got, m.Role+":"+m.Text())
	}
	assert.Equal(t, []string{"system:Be brief.", "user:six", "user:why?"}, got)
	assert.Equal(t, 4, r.Tokens)
}

// Without a budget, marks change nothing: a marked template renders what
// the same template without its marks renders.
func TestMarksWithoutBudget(t *testing.T) {
	unmark := regexp.MustCompile(` shrink priority=\S+( drop="\w+")?( keep=\d+)?| priority=\d+|\{% (end)?shrink[^%]*%\}`)
	for _, src := range []string{markedDoc,
		`{% for d in docs if d != "c d" shrink priority=1 keep=1 %}{{ loop.index }}{{ loop.last }}{{ d }}{% else %}none{% endfor %}`,
	} {
		plain := unmark.ReplaceAllString(src, "")
		require.NotContains(t, plain, "shrink")
		a, b := compileMarked(t, src, "docs"), compileMarked(t, plain, "docs")
		lim := engine.Limits{}.WithDefaults()
		for _, docs := range [][]any{{}, {"a b"}, {"a b", "c d", "e f"}} {
			x, err := a.Render(context.Background(), map[string]any{"docs": docs}, &lim)
			require.NoError(t, err)
			y, err := b.Render(context.Background(), map[string]any{"docs": docs}, &lim)
			require.NoError(t, err)
			assert.Equal(t, y, x)
			r, err := a.RenderBudget(context.Background(), []any{docs}, &lim, false, engine.Counter{Count: words}, 1000)
			require.NoError(t, err)
			assert.Equal(t, y, r.Text, "a budget that fits cuts nothing")
			assert.Empty(t, r.Cuts)
		}
	}
}
