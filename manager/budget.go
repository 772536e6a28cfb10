package manager

import (
	"context"
	"fmt"
	"strings"
	"time"
	"unicode"

	"github.com/seed-e7d2830f/promptkit/internal/engine"
	"github.com/seed-e7d2830f/promptkit/tokens"
)

// Budget is a render's token budget: at most Tokens tokens, as the
// tokenizer counts them. The tokenizer is Tokenizer; if nil, the encoding
// Encoding names (o200k_base, cl100k_base, …, tokens.Encoding); if empty,
// the encoding of the model the template's call contract names
// (tokens.ForModel: gpt-4o → o200k_base).
type Budget struct {
	Tokens    int
	Tokenizer *tokens.Tokenizer
	Encoding  string
}

// Budgeted is the result of a render within a token budget.
type Budgeted struct {
	// Text is the prompt (RenderBudget); Messages the messages
	// (RenderMessagesBudget).
	Text     string
	Messages []Message
	// Tokens is the result's count: of Text, or the sum of the counts of
	// the messages' text parts (without the tokens a model's chat format
	// adds around them). It is at most Budget.
	Tokens    int
	Budget    int
	Tokenizer string // the tokenizer's name (o200k_base, a tokenizer.json's path)
	// Cuts are what was cut, in the order it was cut: lower priority
	// first, of equal priorities the mark that stands later first. Empty
	// when the whole render fits.
	Cuts []Cut
}

// Cut is one mark of a template that a budgeted render cut: a
// {% shrink %} block or a {% chat %} message dropped, or a loop's items
// cut from one end.
type Cut struct {
	Kind      string // "block", "message" or "items"
	Priority  int64  // the mark's priority=
	Path      string // where the mark stands: the file (an included one, perhaps), line and column of its tag
	Line, Col int
	// Of items: how many were cut from each run of the loop, and from
	// which end ("end" or "start", the loop's drop=).
	Items int
	Drop  string
	// Tokens is what the cut saved, as the full render printed it: the
	// tokens of the regions cut where they stood (of a messages render
	// or a region in a set block, each counted alone); counted whole, the
	// result may differ by a token or so a cut where tokens merged across
	// it.
	Tokens int
}

// String says where the mark stands and what was cut:
// "templates/doc.md:3:1: items (priority 1): 2 cut from the end, 60 tokens".
func (c Cut) String() string {
	what := "dropped"
	if c.Kind == "items" {
		what = fmt.Sprintf("%d cut from the %s", c.Items, c.Drop)
	}
	return fmt.Sprintf("%s:%d:%d: %s (priority %d): %s, %d tokens", c.Path, c.Line, c.Col, c.Kind, c.Priority, what, c.Tokens)
}

// OverBudgetError says by how much a render cannot fit its budget: with
// every cut the template's marks allow, it is still Tokens tokens. It is
// the cause of an *Error of kind ErrOverBudget; errors.As finds it.
type OverBudgetError struct {
	Template  string
	Tokens    int // the render with every cut made
	Budget    int
	Tokenizer string
	Cuts      []Cut // every cut the render made
}

// Over is how many tokens the render is over the budget.
func (e *OverBudgetError) Over() int { return e.Tokens - e.Budget }

func (e *OverBudgetError) Error() string {
	if len(e.Cuts) == 0 {
		return fmt.Sprintf("needs %d tokens (%s) and has nothing to cut, %d over the budget of %d", e.Tokens, e.Tokenizer, e.Over(), e.Budget)
	}
	return fmt.Sprintf("needs %d tokens (%s) with every cut its marks allow (%d cuts), %d over the budget of %d",
		e.Tokens, e.Tokenizer, len(e.Cuts), e.Over(), e.Budget)
}

// RenderBudget renders the named template, as RenderContext does, within
// budget: when the whole render is over budget.Tokens, it cuts what the
// template marks as cuttable ({% shrink priority=N %} blocks, loops marked
// shrink), lowest priority first, and returns the render of the fewest
// cuts, in that order, that fits, with what it cut. The result is
// deterministic: the same template, values and budget give the same cuts
// and the same text. When even every cut leaves it over, the error wraps
// ErrOverBudget and an *OverBudgetError that says by how many tokens. A
// template without marks renders whole or is over the budget. Without a
// budget (Render) a mark changes nothing. See "Token budgets" in the
// package documentation.
func (m *Manager) RenderBudget(ctx context.Context, name string, vars map[string]any, budget Budget) (*Budgeted, error) {
	return m.renderBudget(ctx, name, vars, budget, false)
}

// RenderMessagesBudget is RenderBudget for RenderMessages: what may be cut
// includes {% chat … priority=N %} messages, and the count is the sum of
// the counts of the messages' text parts.
func (m *Manager) RenderMessagesBudget(ctx context.Context, name string, vars map[string]any, budget Budget) (*Budgeted, error) {
	return m.renderBudget(ctx, name, vars, budget, true)
}

func (m *Manager) renderBudget(ctx context.Context, name string, vars map[string]any, budget Budget, messages bool) (*Budgeted, error) {
	s := m.cur.Load()
	c := s.templates[name]
	var start time.Time
	if m.cfg.observer != nil {
		start = time.Now()
	}
	var r *Budgeted
	var err error
	if c == nil {
		err = unknownTemplate(s, name)
	} else {
		r, err = c.renderBudget(ctx, vars, m.cfg, budget, messages)
	}
	if o := m.cfg.observer; o != nil {
		n := 0
		if r != nil {
			n = len(r.Text) + messagesBytes(r.Messages)
		}
		observeRender(o, s, name, c, messages, start, n, err)
	}
	return r, err
}

// tokenizer is the budget's tokenizer for c.
func (c *compiled) tokenizer(b Budget) (*tokens.Tokenizer, error) {
	switch {
	case b.Tokenizer != nil:
		return b.Tokenizer, nil
	case b.Encoding != "":
		tok, err := tokens.Encoding(b.Encoding)
		if err != nil {
			return nil, &Error{Kind: ErrTemplate, Template: c.info.Name, Path: c.info.Path, Msg: "budget", Err: err}
		}
		return tok, nil
	case c.info.Contract.Model.Name == "":
		return nil, c.errorf(ErrContract, nil, "a token budget needs a tokenizer: none was given and the call contract names no model")
	}
	tok, err := tokens.ForModel(c.info.Contract.Model.Name)
	if err != nil {
		return nil, &Error{Kind: ErrContract, Template: c.info.Name, Path: c.info.Path,
			Msg: "a token budget's tokenizer: the contract's model", Err: err}
	}
	return tok, nil
}

func (c *compiled) renderBudget(ctx context.Context, vars map[string]any, cfg *config, b Budget, messages bool) (*Budgeted, error) {
	if c.chat && !messages {
		return nil, c.chatTemplateError()
	}
	if b.Tokens < 0 {
		return nil, c.errorf(ErrTemplate, nil, "a token budget of %d: want 0 or more", b.Tokens)
	}
	tok, err := c.tokenizer(b)
	if err != nil {
		return nil, err
	}
	ctx, cancel := cfg.renderContext(ctx)
	if cancel != nil {
		defer cancel()
	}
	var buf [16]any
	vals, lim, err := c.prepare(ctx, vars, cfg, buf[:0])
	if err != nil {
		return nil, err
	}
	counter := engine.Counter{Count: tok.Count, Marked: tok.CountMarked}
	wrap := messages && !c.chat // a text template as one user message: its text trimmed
	if wrap {
		counter = engine.Counter{Count: func(s string) int { return tok.Count(strings.TrimFunc(s, unicode.IsSpace)) }}
	}
	r, err := c.tmpl.RenderBudget(ctx, vals, lim, c.chat, counter, b.Tokens)
	if err != nil {
		return nil, c.renderError(err)
	}
	out := &Budgeted{Text: r.Text, Messages: r.Messages, Tokens: r.Tokens, Budget: b.Tokens, Tokenizer: tok.Name(), Cuts: c.cuts(r.Cuts)}
	if wrap {
		msg := Message{Role: RoleUser}
		if text := strings.TrimFunc(r.Text, unicode.IsSpace); text != "" {
			msg.Parts = []Part{{Type: PartText, Text: text}}
		}
		out.Messages = []Message{msg}
	}
	if messages {
		out.Text = "" // a chat template's text outside its messages is not the result
	}
	if !r.Fits {
		e := &OverBudgetError{Template: c.info.Name, Tokens: r.Tokens, Budget: b.Tokens, Tokenizer: tok.Name(), Cuts: out.Cuts}
		return nil, &Error{Kind: ErrOverBudget, Template: c.info.Name, Path: c.info.Path, Msg: e.Error(), Err: e, causeInMsg: true}
	}
	return out, nil
}

// cuts describes the engine's cuts by the template's marks.
func (c *compiled) cuts(cuts []engine.Cut) []Cut {
	if len(cuts) == 0 {
		return nil
	}
	marks := c.tmpl.Marks()
	out := make([]Cut, len(cuts))
	for i, k := range cuts {
		mk := marks[k.Mark]
		out[i] = Cut{Kind: mk.Kind, Priority: mk.Priority, Path: mk.File, Line: mk.Line, Col: mk.Col,
			Items: k.Items, Drop: mk.Drop, Tokens: k.Tokens}
	}
	return out
}
