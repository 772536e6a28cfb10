package manager_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/seed-e7d2830f/promptkit/manager"
	"github.com/seed-e7d2830f/promptkit/tokens"
)

// A budgeted render against a plain render and a count of its result,
// on testdata/budget's research template with 20 documents of about 60
// tokens (the full render is about 1,400 tokens of o200k_base): fits is
// a budget the whole render fits (one render, counted); cut needs half of
// the documents cut (a recording render, the regions counted, renders of
// the cut plan counted).
//
//	go test -run '^$' -bench Budget -benchmem ./manager
func BenchmarkBudget(b *testing.B) {
	m, err := manager.Open(budgetSet)
	if err != nil {
		b.Fatal(err)
	}
	tok, err := tokens.Encoding("o200k_base")
	if err != nil {
		b.Fatal(err)
	}
	docs := make([]any, 20)
	for i := range docs {
		docs[i] = fmt.Sprintf("Report %d: the river's length was measured again in %d; %s", i, 1990+i,
			strings.Repeat("the survey used satellite images and field notes from both banks. ", 4))
	}
	vars := map[string]any{"question": "Which river is the longest?", "docs": docs}
	ctx := context.Background()
	full, err := m.Render("research", vars)
	if err != nil {
		b.Fatal(err)
	}
	n := tok.Count(full)
	b.Run("plain+count", func(b *testing.B) {
		for b.Loop() {
			out, err := m.RenderContext(ctx, "research", vars)
			if err != nil {
				b.Fatal(err)
			}
			tok.Count(out)
		}
	})
	for _, c := range []struct {
		name   string
		budget int
	}{{"fits", n}, {"cut", n / 2}} {
		r, err := m.RenderBudget(ctx, "research", vars, manager.Budget{Tokens: c.budget, Tokenizer: tok})
		if err != nil {
			b.Fatal(err)
		}
		if (len(r.Cuts) > 0) != (c.name == "cut") {
			b.Fatalf("%s: %d cuts", c.name, len(r.Cuts))
		}
		b.Run(c.name, func(b *testing.B) {
			for b.Loop() {
				if _, err := m.RenderBudget(ctx, "research", vars, manager.Budget{Tokens: c.budget, Tokenizer: tok}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
