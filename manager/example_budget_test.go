package manager_test

import (
	"context"
	"errors"
	"fmt"

	"github.com/seed-e7d2830f/promptkit/manager"
)

// RenderBudget cuts what the template marks, lowest priority first, until
// the prompt fits; what cannot fit says by how much.
func ExampleManager_RenderBudget() {
	m, err := manager.Open("testdata/budget")
	if err != nil {
		fmt.Println(err)
		return
	}
	vars := map[string]any{
		"question": "Which river is the longest?",
		"docs":     []any{"The Nile is about 6,650 km long.", "The Amazon is about 6,400 km long.", "The Yangtze is about 6,300 km long."},
	}
	// The template's contract names gpt-4o: its tokens are o200k_base's.
	r, err := m.RenderBudget(context.Background(), "research", vars, manager.Budget{Tokens: 80})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, c := range r.Cuts {
		fmt.Println("cut", c)
	}
	fmt.Println(r.Tokens, "tokens")

	_, err = m.RenderBudget(context.Background(), "research", vars, manager.Budget{Tokens: 30})
	var over *manager.OverBudgetError
	if errors.As(err, &over) {
		fmt.Println(over.Over(), "tokens too many even with", len(over.Cuts), "cuts")
	}
	// Output:
	// cut templates/research.md:8:1: block (priority 1): dropped, 17 tokens
	// cut templates/research.md:5:1: items (priority 1): 1 cut from the end, 20 tokens
	// 80 tokens
	// 10 tokens too many even with 3 cuts
}
