package contextstack

import (
	"cmp"
	"errors"
	"fmt"
	"slices"
	"strings"
)

// ErrOverBudget is wrapped by *OverBudgetError: a stack that does not fit
// its token budget even with every layer it may drop dropped.
var ErrOverBudget = errors.New("contextstack: over the token budget")

// Counter counts the tokens of a text: a *tokens.Tokenizer
// (tokens.Encoding("o200k_base")) is one.
type Counter interface {
	Count(text string) int
}

// Budget is a token budget for what a stack contributes to a model call:
// its system prompt and its documents (each document's title and text),
// at most Tokens tokens as Counter counts them.
type Budget struct {
	Tokens  int
	Counter Counter
}

// Dropped is one layer Fit dropped: its index in the stack it was given,
// and the layer.
type Dropped struct {
	Index int
	Layer Layer
}

// OverBudgetError says by how much a stack cannot fit its budget: with
// every droppable layer dropped it still counts Tokens.
type OverBudgetError struct {
	Tokens, Budget int
}

func (e *OverBudgetError) Error() string {
	return fmt.Sprintf("contextstack: %d tokens with every droppable layer dropped, %d over the budget of %d", e.Tokens, e.Tokens-e.Budget, e.Budget)
}

func (e *OverBudgetError) Unwrap() error { return ErrOverBudget }

// Fit returns the stack without the layers it must drop for its system
// prompt (rendered through r) and documents to fit b, and the layers it
// dropped, in the order it dropped them. Prompt layers and documents may
// be dropped, the highest effective priority first (documents, at
// StatePriority by default, before every prompt layer; then context
// prompts, tool instructions, skills…), of equal priorities the later in
// the stack first; UserInstructions, the baseline, and the layers that
// are neither prompt nor document (tools, bundles) are never dropped.
// Fit drops one layer at a time until the count fits, so it drops the
// fewest in that order.
//
// A stack that fits drops nothing and comes back as it was; without Fit,
// DeriveRequest assembles every layer, as before. When even every
// droppable layer dropped leaves it over, the error is an
// *OverBudgetError (ErrOverBudget). A layer that fails to render is a
// *RenderError, as SystemPrompt's.
func (s Stack) Fit(r Renderer, b Budget) (Stack, []Dropped, error) {
	if b.Counter == nil {
		return Stack{}, nil, errors.New("contextstack: a budget needs a Counter")
	}
	texts := make([]string, len(s.layers)) // what each layer adds: its rendered block, or a document's title and text
	var order []int                        // the prompt layers, in system prompt order
	var droppable []int
	for i, l := range s.layers {
		_, prompt := promptPriority(l.Content)
		switch c := l.Content.(type) {
		case Document:
			texts[i] = c.Title + c.Text
			droppable = append(droppable, i)
			continue
		case UserInstructions:
		default:
			if prompt {
				droppable = append(droppable, i)
			}
		}
		if !prompt {
			continue
		}
		text, tmpl, err := l.Content.render(r)
		if err != nil {
			return Stack{}, nil, &RenderError{Layer: i, Type: l.Type(), Source: l.Source, Template: tmpl, Err: err}
		}
		if strings.TrimSpace(text) != "" {
			texts[i] = text
			order = append(order, i)
		}
	}
	priority := func(i int) int { return s.layers[i].EffectivePriority() }
	slices.SortStableFunc(order, func(a, c int) int { return cmp.Compare(priority(a), priority(c)) })
	slices.SortStableFunc(droppable, func(a, c int) int {
		if d := cmp.Compare(priority(c), priority(a)); d != 0 {
			return d
		}
		return cmp.Compare(c, a)
	})
	dropped := make([]bool, len(s.layers))
	count := func() int {
		var sb strings.Builder
		first := true
		for _, i := range order {
			if dropped[i] {
				continue
			}
			if !first {
				sb.WriteString(BlockSeparator)
			}
			sb.WriteString(texts[i])
			first = false
		}
		n := b.Counter.Count(sb.String())
		for i, l := range s.layers {
			if _, ok := l.Content.(Document); ok && !dropped[i] {
				n += b.Counter.Count(texts[i])
			}
		}
		return n
	}
	n := count()
	var out []Dropped
	for _, i := range droppable {
		if n <= b.Tokens {
			break
		}
		dropped[i] = true
		out = append(out, Dropped{Index: i, Layer: s.layers[i].clone()})
		n = count()
	}
	if n > b.Tokens {
		return Stack{}, nil, &OverBudgetError{Tokens: n, Budget: b.Tokens}
	}
	if len(out) == 0 {
		return s, nil, nil
	}
	kept := make([]Layer, 0, len(s.layers)-len(out))
	for i, l := range s.layers {
		if !dropped[i] {
			kept = append(kept, l) // layers are immutable once in a stack: shared, as filter shares them
		}
	}
	return Stack{layers: kept, valid: s.valid}, out, nil
}
