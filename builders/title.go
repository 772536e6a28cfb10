package builders

import "github.com/seed-e7d2830f/promptkit/prompts"

// Title builds the prompt that asks the model for a task title of at most
// 15 characters, from the template title.
//
// It reads the data key intent; when that is absent or empty, the task's
// intent is used, and one of them must be set (ErrMissingValue).
//
// Escaped with EscapeXML: intent.
type Title struct {
	base
}

// NewTitle returns the title builder.
func NewTitle(r Renderer) *Title {
	return &Title{base: newBase("title", r, keyIntent)}
}

// Build renders the title prompt.
func (b *Title) Build(ctx Context) (string, error) {
	d, err := b.begin(ctx)
	if err != nil {
		return "", err
	}
	intent, err := d.intent()
	if err != nil {
		return "", err
	}
	return b.rendered(prompts.RenderTitle(b.r, prompts.TitleVars{Intent: EscapeXML(intent)}))
}
