package contextstack_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/seed-e7d2830f/promptkit"
	"github.com/seed-e7d2830f/promptkit/contextstack"
	"github.com/seed-e7d2830f/promptkit/manager"
	"github.com/seed-e7d2830f/promptkit/tokens"
)

// budgetStack is a run's stack: the baseline, a skill, a context prompt
// and three documents, one of them pinned with a low priority.
func budgetStack(t *testing.T) contextstack.Stack {
	git := contextstack.Skill{Name: "git", Description: "Work with Git repositories.", Location: "skills/git"}
	s, err := contextstack.NewBuilder().
		UserInstructions("platform", "Answer from the documents only, and cite them by number.").
		ActivatedSkill("skill:git", git, "Prefer commands that keep the user's changes.").
		ContextPrompt("memory", "The user works on a monorepo with long-lived branches.").
		Document("citations", contextstack.Document{ID: "1", Title: "Undoing commits", Text: "git reset --soft HEAD~1 keeps the changes staged."}).
		Layer(contextstack.Layer{Source: "pinned", Priority: 50, Content: contextstack.Document{ID: "2", Title: "House rules", Text: "Never rewrite shared history."}}).
		Document("citations", contextstack.Document{ID: "3", Title: "Reflog", Text: "git reflog lists where HEAD has been, so a lost commit can be found again."}).
		Build()
	require.NoError(t, err)
	return s
}

// Fit drops the fewest layers, the highest priority first (documents at
// StatePriority, the later first; then the context prompt at 600, the
// skill at 400; the pinned document at 50 last), never the baseline.
func TestFitDropsByPriority(t *testing.T) {
	m, err := manager.New(promptkit.FS())
	require.NoError(t, err)
	tok, err := tokens.Encoding("o200k_base")
	require.NoError(t, err)
	s := budgetStack(t)
	count := func(s contextstack.Stack) int {
		text, err := s.SystemPromptText(m)
		require.NoError(t, err)
		n := tok.Count(text)
		for _, d := range s.AllDocuments() {
			n += tok.Count(d.Title + d.Text)
		}
		return n
	}
	order := []string{"citations:3", "citations:1", "memory", "skill:git", "pinned:2"}
	// The stack after dropping the first k of the order, and its count.
	after := make([]contextstack.Stack, len(order)+1)
	after[0] = s
	for k, name := range order {
		prev := after[k]
		var keep []contextstack.Layer
		dropped := false
		for _, l := range prev.Layers() {
			id := l.Source
			if d, ok := l.Content.(contextstack.Document); ok {
				id += ":" + d.ID
			}
			if id == name && !dropped {
				dropped = true
				continue
			}
			keep = append(keep, l)
		}
		require.True(t, dropped, name)
		after[k+1] = contextstack.NewStack(keep...)
	}
	for k := range after {
		budget := count(after[k])
		fit, dropped, err := s.Fit(m, contextstack.Budget{Tokens: budget, Counter: tok})
		require.NoError(t, err, "budget %d", budget)
		var names []string
		for _, d := range dropped {
			id := d.Layer.Source
			if doc, ok := d.Layer.Content.(contextstack.Document); ok {
				id += ":" + doc.ID
			}
			names = append(names, id)
			assert.Equal(t, d.Layer, s.Layers()[d.Index])
		}
		if k == 0 {
			assert.Nil(t, names)
		} else {
			assert.Equal(t, order[:k], names, "budget %d", budget)
		}
		assert.Equal(t, after[k].Layers(), fit.Layers())
		assert.Equal(t, budget, count(fit))
		if k > 0 {
			// One token less needs one more drop (or cannot fit).
			_, more, err := s.Fit(m, contextstack.Budget{Tokens: budget - 1, Counter: tok})
			if k < len(order) {
				require.NoError(t, err)
				assert.Len(t, more, k+1)
			} else {
				var over *contextstack.OverBudgetError
				require.ErrorAs(t, err, &over)
				require.ErrorIs(t, err, contextstack.ErrOverBudget)
				assert.Equal(t, budget, over.Tokens)
				assert.Equal(t, budget-1, over.Budget)
			}
		}
	}
}

// A stack that fits comes back as it was: the request derived from it is
// the one derived without a budget.
func TestFitWithinBudgetChangesNothing(t *testing.T) {
	m, err := manager.New(promptkit.FS())
	require.NoError(t, err)
	tok, err := tokens.Encoding("o200k_base")
	require.NoError(t, err)
	s := budgetStack(t)
	fit, dropped, err := s.Fit(m, contextstack.Budget{Tokens: 1 << 20, Counter: tok})
	require.NoError(t, err)
	assert.Empty(t, dropped)
	clock := contextstack.WithClock(contextstack.FixedClock(time.Date(2025, 3, 1, 8, 0, 0, 0, time.UTC)))
	a, err := s.DeriveRequest(contextstack.Request{}, m, clock)
	require.NoError(t, err)
	b, err := fit.DeriveRequest(contextstack.Request{}, m, clock)
	require.NoError(t, err)
	assert.Equal(t, a, b)
	_, _, err = s.Fit(m, contextstack.Budget{Tokens: 10})
	require.Error(t, err)
}
