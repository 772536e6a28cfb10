package manager_test

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"sync"
	"testing"
	"testing/fstest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/seed-e7d2830f/promptkit/manager"
	"github.com/seed-e7d2830f/promptkit/tokens"
)

var updateBudget = flag.Bool("update", false, "rewrite testdata/budget/golden from the current renders")

const budgetSet = "testdata/budget"

// budgetVars reads testdata/budget/vars/NAME.json.
func budgetVars(t testing.TB, name string) map[string]any {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(budgetSet, "vars", name+".json"))
	require.NoError(t, err)
	v, err := manager.DecodeJSON(data)
	require.NoError(t, err)
	return v.(map[string]any)
}

// golden compares got with testdata/budget/golden/FILE (-update rewrites it).
func golden(t *testing.T, file, got string) {
	t.Helper()
	path := filepath.Join(budgetSet, "golden", file)
	if *updateBudget {
		require.NoError(t, os.WriteFile(path, []byte(got), 0o644))
	}
	want, err := os.ReadFile(path)
	require.NoError(t, err)
	assert.Equal(t, string(want), got, file)
}

func messagesJSON(t *testing.T, msgs []manager.Message) string {
	data, err := json.MarshalIndent(msgs, "", "  ")
	require.NoError(t, err)
	return string(data) + "\n"
}

// A budgeted render cuts what the marks say, in their order — lower
// priority first, of equal priorities the later mark first, a loop's
// items one at a time — and no more than it must: each budget gets the
// shortest prefix of that order whose render fits, counted exactly.
func TestRenderBudget(t *testing.T) {
	m, err := manager.Open(budgetSet)
	require.NoError(t, err)
	const research, support = "templates/research.md", "templates/support.md"
	example := manager.Cut{Kind: "block", Priority: 1, Path: research, Line: 8, Col: 1, Tokens: 17}
	docs := func(n, saved int) manager.Cut {
		return manager.Cut{Kind: "items", Priority: 1, Path: research, Line: 5, Col: 1, Items: n, Drop: "end", Tokens: saved}
	}
	style := manager.Cut{Kind: "block", Priority: 2, Path: research, Line: 2, Col: 1, Tokens: 22}
	memory := manager.Cut{Kind: "message", Priority: 0, Path: support, Line: 2, Col: 16, Tokens: 22}
	turns := func(n, saved int) manager.Cut {
		return manager.Cut{Kind: "items", Priority: 1, Path: support, Line: 3, Col: 1, Items: n, Drop: "start", Tokens: saved}
	}
	tests := []struct {
		template string
		messages bool
		budget   int
		tokens   int
		cuts     []manager.Cut
		golden   string
	}{
		{"research", false, 200, 117, nil, "research-full.txt"},
		{"research", false, 117, 117, nil, "research-full.txt"},
		{"research", false, 116, 100, []manager.Cut{example}, "research-100.txt"},
		{"research", false, 80, 80, []manager.Cut{example, docs(1, 20)}, "research-80.txt"},
		{"research", false, 79, 62, []manager.Cut{example, docs(2, 38)}, "research-62.txt"},
		{"research", false, 61, 40, []manager.Cut{example, docs(2, 38), style}, "research-40.txt"},
		{"research", false, 40, 40, []manager.Cut{example, docs(2, 38), style}, "research-40.txt"},
		{"support", true, 200, 67, nil, "support-full.json"},
		{"support", true, 50, 45, []manager.Cut{memory}, "support-45.json"},
		{"support", true, 40, 36, []manager.Cut{memory, turns(1, 9)}, "support-36.json"},
		{"support", true, 30, 28, []manager.Cut{memory, turns(2, 17)}, "support-28.json"},
		// A text template asked for messages: one user message, its text
		// trimmed, counted trimmed (so are the regions, each alone).
		{"research", true, 79, 62, []manager.Cut{example, docs(2, 38)}, "research-62.json"},
	}
	tok, err := tokens.Encoding("o200k_base")
	require.NoError(t, err)
	for _, tt := range tests {
		t.Run(fmt.Sprintf("%s/%d/messages=%v", tt.template, tt.budget, tt.messages), func(t *testing.T) {
			vars := budgetVars(t, tt.template)
			// research's contract names gpt-4o: its encoding is o200k_base.
			b := manager.Budget{Tokens: tt.budget}
			if tt.template == "support" {
				b.Encoding = "o200k_base"
			}
			var r *manager.Budgeted
			var err error
			if tt.messages {
				r, err = m.RenderMessagesBudget(context.Background(), tt.template, vars, b)
			} else {
				r, err = m.RenderBudget(context.Background(), tt.template, vars, b)
			}
			require.NoError(t, err)
			assert.Equal(t, tt.cuts, r.Cuts)
			assert.Equal(t, tt.tokens, r.Tokens)
			assert.Equal(t, tt.budget, r.Budget)
			assert.Equal(t, "o200k_base", r.Tokenizer)
			assert.LessOrEqual(t, r.Tokens, tt.budget)
			if tt.messages {
				assert.Empty(t, r.Text)
				n := 0
				for _, msg := range r.Messages {
					n += tok.Count(msg.Text())
				}
				assert.Equal(t, n, r.Tokens, "the count is the messages' text")
				golden(t, tt.golden, messagesJSON(t, r.Messages))
				return
			}
			assert.Equal(t, tok.Count(r.Text), r.Tokens)
			golden(t, tt.golden, r.Text)
		})
	}
	full, err := m.Render("research", budgetVars(t, "research"))
	require.NoError(t, err)
	golden(t, "research-full.txt", full)
}

// A render that cannot fit, even with every cut its marks allow, is
// ErrOverBudget, a kind of ErrTemplate, wrapping an *OverBudgetError
// that says by how many tokens.
func TestRenderBudgetOver(t *testing.T) {
	m, err := manager.Open(budgetSet)
	require.NoError(t, err)
	_, err = m.RenderBudget(context.Background(), "research", budgetVars(t, "research"), manager.Budget{Tokens: 30})
	require.ErrorIs(t, err, manager.ErrOverBudget)
	require.ErrorIs(t, err, manager.ErrTemplate)
	assert.Equal(t, "templates/research.md: template \"research\": needs 40 tokens (o200k_base) with every cut its marks allow (3 cuts), 10 over the budget of 30", err.Error())
	var over *manager.OverBudgetError
	require.ErrorAs(t, err, &over)
	assert.Equal(t, "research", over.Template)
	assert.Equal(t, 40, over.Tokens)
	assert.Equal(t, 30, over.Budget)
	assert.Equal(t, 10, over.Over())
	assert.Equal(t, "o200k_base", over.Tokenizer)
	assert.Len(t, over.Cuts, 3)
	var me *manager.Error
	require.ErrorAs(t, err, &me)
	assert.Equal(t, "research", me.Template)
	assert.Equal(t, "templates/research.md", me.Path)
	assert.Equal(t, "over_budget", manager.ErrorKind(err))

	// A template without marks fits whole or not at all.
	_, err = m.RenderBudget(context.Background(), "plain", budgetVars(t, "plain"), manager.Budget{Tokens: 5, Encoding: "o200k_base"})
	require.ErrorAs(t, err, &over)
	assert.Equal(t, 11, over.Tokens)
	assert.Empty(t, over.Cuts)
	assert.ErrorContains(t, err, `template "plain": needs 11 tokens (o200k_base) and has nothing to cut, 6 over the budget of 5`)
	r, err := m.RenderBudget(context.Background(), "plain", budgetVars(t, "plain"), manager.Budget{Tokens: 11, Encoding: "o200k_base"})
	require.NoError(t, err)
	assert.Equal(t, "Answer in one sentence: Which river is the longest?", r.Text)
	assert.Empty(t, r.Cuts)
}

// The tokenizer is the budget's, else its encoding's, else the contract
// model's; a budget that names none for a template whose contract names
// no model is ErrContract, as are a chat template rendered to text and a
// negative budget errors naming the template.
func TestRenderBudgetTokenizer(t *testing.T) {
	m, err := manager.Open(budgetSet)
	require.NoError(t, err)
	ctx := context.Background()
	vars := budgetVars(t, "research")
	cl, err := tokens.Encoding("cl100k_base")
	require.NoError(t, err)
	for _, b := range []manager.Budget{{Tokens: 1000, Tokenizer: cl}, {Tokens: 1000, Encoding: "cl100k_base"}} {
		r, err := m.RenderBudget(ctx, "research", vars, b)
		require.NoError(t, err)
		assert.Equal(t, "cl100k_base", r.Tokenizer)
		assert.Equal(t, cl.Count(r.Text), r.Tokens)
	}
	_, err = m.RenderMessagesBudget(ctx, "support", budgetVars(t, "support"), manager.Budget{Tokens: 100})
	require.ErrorIs(t, err, manager.ErrContract)
	assert.ErrorContains(t, err, `template "support": a token budget needs a tokenizer: none was given and the call contract names no model`)
	_, err = m.RenderBudget(ctx, "research", vars, manager.Budget{Tokens: 100, Encoding: "o200k"})
	require.ErrorIs(t, err, tokens.ErrUnknownEncoding)
	assert.ErrorContains(t, err, "o200k_base")
	_, err = m.RenderBudget(ctx, "support", budgetVars(t, "support"), manager.Budget{Tokens: 100, Encoding: "o200k_base"})
	require.ErrorIs(t, err, manager.ErrChatTemplate)
	_, err = m.RenderBudget(ctx, "research", vars, manager.Budget{Tokens: -1})
	require.ErrorIs(t, err, manager.ErrTemplate)
	assert.ErrorContains(t, err, `template "research": a token budget of -1`)
	_, err = m.RenderBudget(ctx, "reserch", vars, manager.Budget{Tokens: 100})
	require.ErrorIs(t, err, manager.ErrUnknownTemplate)
	_, err = m.RenderBudget(ctx, "research", map[string]any{"question": "q"}, manager.Budget{Tokens: 100})
	require.ErrorIs(t, err, manager.ErrMissingVariables)
}

// Without a budget a mark changes nothing: each template of the set
// renders what the same template with its marks taken out renders, and a
// budget it fits cuts nothing.
func TestMarksChangeNothingWithoutBudget(t *testing.T) {
	unmark := regexp.MustCompile(` shrink priority=\S+( drop="\w+")?( keep=\d+)?| priority=\d+|\{% (end)?shrink[^%]*%\}`)
	marked := os.DirFS(budgetSet)
	plain := fstest.MapFS{}
	for _, f := range []string{"index.json", "templates/research.md", "templates/support.md", "templates/plain.md"} {
		data, err := os.ReadFile(filepath.Join(budgetSet, f))
		require.NoError(t, err)
		plain[f] = &fstest.MapFile{Data: []byte(unmark.ReplaceAllString(string(data), ""))}
		assert.NotContains(t, string(plain[f].Data), "priority", f)
	}
	a, err := manager.New(marked)
	require.NoError(t, err)
	b, err := manager.New(plain)
	require.NoError(t, err)
	ctx := context.Background()
	for _, vars := range []map[string]any{
		budgetVars(t, "research"),
		{"question": "q", "docs": []any{}},
		{"question": "q", "docs": []any{"only"}},
	} {
		x, err := a.Render("research", vars)
		require.NoError(t, err)
		y, err := b.Render("research", vars)
		require.NoError(t, err)
		assert.Equal(t, y, x)
		r, err := a.RenderBudget(ctx, "research", vars, manager.Budget{Tokens: 1 << 20})
		require.NoError(t, err)
		assert.Equal(t, y, r.Text)
		assert.Empty(t, r.Cuts)
	}
	vars := budgetVars(t, "support")
	x, err := a.RenderMessages("support", vars)
	require.NoError(t, err)
	y, err := b.RenderMessages("support", vars)
	require.NoError(t, err)
	assert.Equal(t, y, x)
	r, err := a.RenderMessagesBudget(ctx, "support", vars, manager.Budget{Tokens: 1 << 20, Encoding: "o200k_base"})
	require.NoError(t, err)
	assert.Equal(t, y, r.Messages)
	assert.Empty(t, r.Cuts)
}

// Budgeted renders from many goroutines at once: each equal to the
// render alone (the cut plan is the render's own; under -race the
// detector checks that no render writes what another reads).
func TestConcurrentBudgetedRenders(t *testing.T) {
	m, err := manager.Open(budgetSet)
	require.NoError(t, err)
	ctx := context.Background()
	research, support := budgetVars(t, "research"), budgetVars(t, "support")
	budgets := []int{200, 116, 80, 79, 61, 30}
	render := func(i int) (string, error) {
		b := manager.Budget{Tokens: budgets[i%len(budgets)], Encoding: "o200k_base"}
		var r *manager.Budgeted
		var err error
		if i%2 == 0 {
			r, err = m.RenderBudget(ctx, "research", research, b)
		} else {
			r, err = m.RenderMessagesBudget(ctx, "support", support, b)
		}
		if err != nil {
			return err.Error(), nil
		}
		return fmt.Sprintf("%d %v %q %v", r.Tokens, r.Cuts, r.Text, r.Messages), nil
	}
	const cases = 12
	want := make([]string, cases)
	for i := range want {
		want[i], err = render(i)
		require.NoError(t, err)
	}
	const goroutines, rounds = 8, 30
	var wg sync.WaitGroup
	errs := make(chan error, goroutines)
	for g := range goroutines {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for r := range rounds {
				i := (g + r) % cases
				if got, _ := render(i); got != want[i] {
					errs <- fmt.Errorf("case %d: %s from goroutine %d, %s alone", i, got, g, want[i])
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

// The result is the shortest prefix of the cut order whose render fits,
// counted by the real tokenizer, even where tokens merge across the cuts:
// a loop cut from the end renders as the loop over the first items, so
// each budget's answer is checked against plain renders of every prefix.
func TestRenderBudgetShortestPrefixO200k(t *testing.T) {
	fsys := fstest.MapFS{
		"index.json": {Data: []byte(`{"version": 1, "templates": {
			"glued": {"path": "glued.md", "variables": ["docs"]},
			"lines": {"path": "lines.md", "variables": ["docs"]}}}`)},
		"glued.md": {Data: []byte(`{% for d in docs shrink priority=1 %}{{ d }}{% endfor %}!`)},
		"lines.md": {Data: []byte("{% for d in docs shrink priority=1 %}{{ loop.index }}/{{ loop.length }} {{ d }}\n{% endfor %}end")},
	}
	m, err := manager.New(fsys)
	require.NoError(t, err)
	tok, err := tokens.Encoding("o200k_base")
	require.NoError(t, err)
	pool := []any{"un", "believ", "able", " ", "  ", "123", "4567", "😀", "\u200d", "😀", "Hello", " world", "'s", "\n\n", "\t", "语言", "模型", ".", "..", "the end"}
	lists := [][]any{pool}
	rng := rand.New(rand.NewPCG(30, 2))
	for range 20 {
		list := make([]any, 12)
		for i := range list {
			list[i] = pool[rng.IntN(len(pool))]
		}
		lists = append(lists, list)
	}
	for i := range 2 * len(lists) {
		name, docs := []string{"glued", "lines"}[i%2], lists[i/2]
		counts := make([]int, len(docs)+1) // counts[k]: the render with the last k items cut
		for k := range counts {
			out, err := m.Render(name, map[string]any{"docs": docs[:len(docs)-k]})
			require.NoError(t, err)
			counts[k] = tok.Count(out)
		}
		for budget := counts[len(docs)]; budget <= counts[0]; budget++ {
			want := 0
			for counts[want] > budget {
				want++
			}
			r, err := m.RenderBudget(context.Background(), name, map[string]any{"docs": docs}, manager.Budget{Tokens: budget, Tokenizer: tok})
			require.NoError(t, err, "%s: budget %d", name, budget)
			got := 0
			if len(r.Cuts) > 0 {
				got = r.Cuts[0].Items
			}
			require.Equal(t, want, got, "%s: budget %d", name, budget)
			require.Equal(t, counts[want], r.Tokens)
		}
	}
}
