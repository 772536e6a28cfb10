package manager_test

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/seed-e7d2830f/promptkit/manager"
	"github.com/seed-e7d2830f/promptkit/tokens"
)

// A budget in index.json is checked at load: every problem at once, the
// template over its budget naming the variables that can overflow it,
// the one whose worst case has no bound naming what leaves it unbounded;
// the one that fits loads.
func TestBudgetCheckedAtLoad(t *testing.T) {
	_, err := manager.Open("testdata/budgetcheck")
	require.ErrorIs(t, err, manager.ErrOverBudget)
	var le *manager.LoadError
	require.ErrorAs(t, err, &le)
	var got []string
	for _, p := range le.Problems {
		require.ErrorIs(t, p, manager.ErrOverBudget)
		got = append(got, fmt.Sprintf("%s %v: %s", p.Template, p.Variables, p.Error()))
	}
	assert.Equal(t, []string{
		`loose [docs note question]: templates/loose.md: template "loose": budget: cannot prove that every render fits 4000 tokens (o200k_base) after every allowed cut: ` +
			`nothing bounds templates/loose.md:1:1: a loop over docs, whose schema sets no maxItems; templates/loose.md:1:38: the filter truncate, which the bound does not follow; ` +
			`templates/loose.md:3:4: question, whose schema sets no maxLength; templates/loose.md:3:19: note, which has no schema ` +
			`(bound docs, note, question with maxLength, maxItems or an enum in the schema, or mark what may be cut)`,
		`research_small [docs question]: templates/research.md: template "research_small": budget: a render may need 10806 tokens (cl100k_base) after every allowed cut, ` +
			`over the budget of 2000 by 8806: docs up to 8718, question up to 2000, the rest (fixed text) 88 (a bound in bytes: each token is at least one byte)`,
	}, got)
}

// The proof is sound: the template it proves fits 12000 tokens renders
// within them whatever its values, here the largest its schemas allow —
// each character four bytes, and invalid UTF-8 — with every cut made.
func TestBudgetProofHoldsForLargestValues(t *testing.T) {
	src := os.DirFS("testdata/budgetcheck")
	fsys := fstest.MapFS{"index.json": {Data: []byte(`{"version": 1, "templates": {"research": {"path": "templates/research.md",
		"variables": [{"name": "question", "schema": {"type": "string", "maxLength": 500}}, {"name": "docs", "schema": {"$ref": "schemas/docs.json"}}],
		"model": {"name": "gpt-4o"}, "budget": {"tokens": 12000}}}}`)}}
	for _, f := range []string{"templates/research.md", "schemas/docs.json"} {
		data, err := fs.ReadFile(src, f)
		require.NoError(t, err)
		fsys[f] = &fstest.MapFile{Data: data}
	}
	m, err := manager.New(fsys)
	require.NoError(t, err)
	tpl, ok := m.Lookup("research")
	require.True(t, ok)
	assert.Equal(t, manager.TokenBudget{Tokens: 12000}, tpl.Budget)
	o200k, err := tokens.Encoding("o200k_base")
	require.NoError(t, err)
	for _, char := range []string{"😀", "\xff", "a", " ", "语"} {
		docs := make([]any, 50)
		for i := range docs {
			docs[i] = map[string]any{"title": strings.Repeat(char, 80), "text": strings.Repeat(char, 1000), "lang": "zh"}
		}
		vars := map[string]any{"question": strings.Repeat(char, 500), "docs": docs}
		r, err := m.RenderBudget(context.Background(), "research", vars, manager.Budget{Tokens: 12000})
		require.NoError(t, err, "%q", char)
		assert.Equal(t, o200k.Count(r.Text), r.Tokens)
		assert.LessOrEqual(t, r.Tokens, 12000)
	}
}

// Each construct's bound, exactly: a budget of the bound loads, one token
// less is refused saying the bound.
func TestWorstCaseBounds(t *testing.T) {
	str := func(n int) string { return fmt.Sprintf(`{"type": "string", "maxLength": %d}`, n) }
	tests := []struct {
		name, src string
		vars      map[string]string // name: schema
		bound     int
	}{
		{"text", "Hello.\n", nil, 6}, // the final newline is not kept
		{"string", "[{{ s }}]", map[string]string{"s": str(10)}, 42},
		{"if takes the longer branch", "{% if b %}{{ s }}{% else %}long fixed text{% endif %}", map[string]string{"b": `{"type": "boolean"}`, "s": str(3)}, 15},
		{"loop", "{% for x in xs %}<{{ x }}>{% endfor %}", map[string]string{"xs": `{"type": "array", "maxItems": 3, "items": ` + str(2) + `}`}, 30},
		{"marked loop keeps keep", "{% for x in xs shrink priority=1 keep=1 %}<{{ x }}>{% endfor %}", map[string]string{"xs": `{"type": "array", "items": ` + str(2) + `}`}, 10},
		{"shrink dropped", "a{% shrink priority=0 %}{{ s }}{% endshrink %}b", map[string]string{"s": `{"type": "string"}`}, 2},
		{"range and loop.index", "{% for i in range(1, 4) %}{{ loop.index }}.{% endfor %}", nil, 63},
		{"enum and integer", "{{ e }} {{ n }}", map[string]string{"e": `{"enum": ["ab", "abcd"]}`, "n": `{"type": "integer", "minimum": -5, "maximum": 999}`}, 11},
		{"join", `{{ xs | join(", ") }}`, map[string]string{"xs": `{"type": "array", "maxItems": 4, "items": ` + str(1) + `}`}, 24},
		{"set and concatenation", `{% set t = s ~ "!" %}{{ t }}{{ t | trim }}`, map[string]string{"s": str(1)}, 10},
		{"an image is no text", `{% chat role="user" %}{{ s }}{{ u | image }}{% endchat %}`, map[string]string{"s": str(2), "u": `{"type": "string"}`}, 8},
		{"chat priority dropped", `{% chat role="system" %}sys{% endchat %}{% chat role="user" priority=1 %}{{ s }}{% endchat %}`, map[string]string{"s": `{"type": "string"}`}, 3},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			load := func(tokens int) error {
				var decl []string
				for n, s := range tt.vars {
					decl = append(decl, fmt.Sprintf(`{"name": %q, "schema": %s}`, n, s))
				}
				index := fmt.Sprintf(`{"version": 1, "templates": {"t": {"path": "t.md", "variables": [%s], "budget": {"tokens": %d, "encoding": "o200k_base"}}}}`,
					strings.Join(decl, ", "), tokens)
				_, err := manager.New(fstest.MapFS{"index.json": {Data: []byte(index)}, "t.md": {Data: []byte(tt.src)}})
				return err
			}
			require.NoError(t, load(tt.bound))
			err := load(tt.bound - 1)
			require.True(t, errors.Is(err, manager.ErrOverBudget), "%v", err)
			assert.Contains(t, err.Error(), fmt.Sprintf("may need %d tokens (o200k_base)", tt.bound))
		})
	}
}

// A budget that index.json declares wrongly is an ErrIndex problem; one
// that names no encoding needs a contract model whose encoding is known.
func TestBudgetDeclarationErrors(t *testing.T) {
	for decl, want := range map[string]string{
		`{"tokens": 0}`:                       "tokens must be 1 or more",
		`{"tokens": 10, "encoding": "o200k"}`: `encoding: tokens: unknown encoding "o200k"; did you mean "o200k_base"?`,
		`{"tokens": 10, "model": "gpt-4o"}`:   `unknown field "model" (allowed: tokens, encoding)`,
		`{"tokens": 10}`:                      `budget: name its encoding ("encoding": "o200k_base"): the call contract names no model whose encoding is known (model "")`,
	} {
		index := fmt.Sprintf(`{"version": 1, "templates": {"t": {"path": "t.md", "budget": %s}}}`, decl)
		_, err := manager.New(fstest.MapFS{"index.json": {Data: []byte(index)}, "t.md": {Data: []byte("hi")}})
		require.Error(t, err, decl)
		assert.Contains(t, err.Error(), want, decl)
	}
}

// What the walk cannot follow — an attribute of a value without a schema,
// of a local it cannot follow, an item of such a value — makes the bound
// unbounded, naming the place; it never loops.
func TestWorstCaseUnfollowable(t *testing.T) {
	for _, tc := range []struct{ src, why string }{
		{"{{ d.a.b }}", `t.md:1:4: d, which has no schema`},
		{"{% set x = d %}{{ x.a.b }}", `t.md:1:12: d, which has no schema`},
		{"{{ d['a']['b'] }}", `t.md:1:4: d, which has no schema`},
		{"{% for x in [d] %}{{ x.a.b }}{% endfor %}", `t.md:1:14: d, which has no schema`},
	} {
		index := `{"version": 1, "templates": {"t": {"path": "t.md", "variables": ["d"], "budget": {"tokens": 100, "encoding": "o200k_base"}}}}`
		_, err := manager.New(fstest.MapFS{"index.json": {Data: []byte(index)}, "t.md": {Data: []byte(tc.src)}})
		require.ErrorIs(t, err, manager.ErrOverBudget, tc.src)
		assert.Contains(t, err.Error(), "cannot prove", tc.src)
		assert.Contains(t, err.Error(), tc.why, tc.src)

		m, err := manager.New(fstest.MapFS{"index.json": {Data: []byte(`{"version": 1, "templates": {"t": {"path": "t.md", "variables": ["d"]}}}`)},
			"t.md": {Data: []byte(tc.src)}}, manager.WithWorstCase())
		require.NoError(t, err, tc.src)
		w, ok := m.WorstCase("t")
		require.True(t, ok)
		assert.False(t, w.Bounded(), tc.src)
		assert.Contains(t, strings.Join(w.Unbounded, "; "), tc.why, tc.src)
	}
}

// WithWorstCase bounds every template at load; without it, only those
// that declare a budget have a bound.
func TestWorstCaseOption(t *testing.T) {
	fsys := fstest.MapFS{
		"index.json": {Data: []byte(`{"version": 1, "templates": {
			"t": {"path": "t.md", "variables": [{"name": "s", "schema": {"type": "string", "maxLength": 10}}]},
			"b": {"path": "t.md", "variables": [{"name": "s", "schema": {"type": "string", "maxLength": 10}}], "budget": {"tokens": 100, "encoding": "o200k_base"}}}}`)},
		"t.md": {Data: []byte("[{{ s }}]")},
	}
	m, err := manager.New(fsys)
	require.NoError(t, err)
	_, ok := m.WorstCase("t")
	assert.False(t, ok, "no bound without the option or a budget")
	w, ok := m.WorstCase("b")
	require.True(t, ok)
	assert.Equal(t, manager.WorstCase{Bytes: 42, Variables: map[string]int64{"s": 40}}, w)

	m, err = manager.New(fsys, manager.WithWorstCase())
	require.NoError(t, err)
	w, ok = m.WorstCase("t")
	require.True(t, ok)
	assert.Equal(t, int64(42), w.Bytes)
	assert.True(t, w.Bounded())
	_, ok = m.WorstCase("missing")
	assert.False(t, ok)
}
