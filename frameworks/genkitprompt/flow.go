package genkitprompt

import (
	"context"
	"fmt"

	"github.com/firebase/genkit/go/ai"
	"github.com/firebase/genkit/go/core"
	"github.com/firebase/genkit/go/genkit"

	"github.com/seed-e7d2830f/promptkit/manager"
)

// Vars are a template's variables. Decoded from JSON, numbers are int64
// when integral and float64 otherwise, and null is nil (manager.DecodeJSON).
type Vars map[string]any

// UnmarshalJSON reads a JSON object of variables as promptkit passes
// values to templates.
func (v *Vars) UnmarshalJSON(data []byte) error {
	x, err := manager.DecodeJSON(data)
	if err != nil {
		return err
	}
	if x == nil {
		*v = nil
		return nil
	}
	obj, ok := x.(map[string]any)
	if !ok {
		return fmt.Errorf("genkitprompt: the variables are a JSON object, not %T", x)
	}
	*v = obj
	return nil
}

// Define registers the template called name of the set m serves as a
// Genkit flow of that name: input the template's variables, output its
// messages. Each run renders the set serving at that moment, so a
// watched or followed set's reloads reach the flow. A name the set does
// not have is an error wrapping manager.ErrUnknownTemplate.
func Define(g *genkit.Genkit, m *manager.Manager, name string) (*core.Flow[Vars, []*ai.Message, struct{}], error) {
	if _, ok := m.Lookup(name); !ok {
		_, err := m.RenderMessages(name, nil) // the manager's own error, naming the templates it has
		return nil, fmt.Errorf("genkitprompt: %w", err)
	}
	return genkit.DefineFlow(g, name, func(ctx context.Context, vars Vars) ([]*ai.Message, error) {
		msgs, err := m.RenderMessagesContext(ctx, name, vars)
		if err != nil {
			return nil, err
		}
		return Messages(msgs)
	}), nil
}
