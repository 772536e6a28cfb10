package einoprompt

import (
	"context"
	"fmt"

	"github.com/cloudwego/eino/callbacks"
	"github.com/cloudwego/eino/components"
	"github.com/cloudwego/eino/components/prompt"
	"github.com/cloudwego/eino/schema"

	"github.com/seed-e7d2830f/promptkit/manager"
)

var _ prompt.ChatTemplate = (*Template)(nil)

// Template is one template of a promptkit set as an Eino chat template.
type Template struct {
	m    *manager.Manager
	name string
}

// New returns the template called name of the set m serves as an Eino
// chat template. A name the set does not have is an error wrapping
// manager.ErrUnknownTemplate.
func New(m *manager.Manager, name string) (*Template, error) {
	if _, ok := m.Lookup(name); !ok {
		_, err := m.RenderMessages(name, nil) // the manager's own error, naming the templates it has
		return nil, fmt.Errorf("einoprompt: %w", err)
	}
	return &Template{m: m, name: name}, nil
}

// Format renders the template with vs under promptkit's strict checks and
// returns its messages as Eino messages. Eino's options are accepted and
// have nothing to set. Errors are the manager's (errors.Is with
// manager.ErrMissingVariables and the other sentinels) or a conversion's.
func (t *Template) Format(ctx context.Context, vs map[string]any, _ ...prompt.Option) (out []*schema.Message, err error) {
	ctx = callbacks.EnsureRunInfo(ctx, t.GetType(), components.ComponentOfPrompt)
	ctx = callbacks.OnStart(ctx, &prompt.CallbackInput{Variables: vs})
	defer func() {
		if err != nil {
			_ = callbacks.OnError(ctx, err)
		}
	}()
	msgs, err := t.m.RenderMessagesContext(ctx, t.name, vs)
	if err != nil {
		return nil, err
	}
	if out, err = Messages(msgs); err != nil {
		return nil, err
	}
	_ = callbacks.OnEnd(ctx, &prompt.CallbackOutput{Result: out})
	return out, nil
}

// GetType names the template's kind in Eino's callbacks and traces.
func (t *Template) GetType() string { return "Promptkit" }

// IsCallbacksEnabled tells Eino that Format runs the callbacks itself.
func (t *Template) IsCallbacksEnabled() bool { return true }
