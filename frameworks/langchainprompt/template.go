package langchainprompt

import (
	"context"
	"errors"
	"fmt"

	"github.com/tmc/langchaingo/llms"
	"github.com/tmc/langchaingo/prompts"

	"github.com/seed-e7d2830f/promptkit/manager"
)

var (
	_ prompts.FormatPrompter   = (*Template)(nil)
	_ prompts.MessageFormatter = (*Template)(nil)
	_ prompts.Formatter        = (*Template)(nil)
)

// Template is one template of a promptkit set as a LangChainGo prompt.
type Template struct {
	m    *manager.Manager
	name string
}

// New returns the template called name of the set m serves as a
// LangChainGo prompt. A name the set does not have is an error wrapping
// manager.ErrUnknownTemplate.
func New(m *manager.Manager, name string) (*Template, error) {
	if _, ok := m.Lookup(name); !ok {
		_, err := m.RenderMessages(name, nil) // the manager's own error, naming the templates it has
		return nil, fmt.Errorf("langchainprompt: %w", err)
	}
	return &Template{m: m, name: name}, nil
}

// Format renders a text template's prompt, exactly.
func (t *Template) Format(values map[string]any) (string, error) {
	return t.m.Render(t.name, values)
}

// FormatPrompt renders the template as a prompt value: a text template's
// prompt exactly, a chat template's messages.
func (t *Template) FormatPrompt(values map[string]any) (llms.PromptValue, error) {
	text, err := t.m.Render(t.name, values)
	if err == nil {
		return prompts.StringPromptValue(text), nil
	}
	if !errors.Is(err, manager.ErrChatTemplate) {
		return nil, err
	}
	msgs, err := t.FormatMessages(values)
	if err != nil {
		return nil, err
	}
	return prompts.ChatPromptValue(msgs), nil
}

// FormatMessages renders the template's messages as LangChainGo chat
// messages (text only).
func (t *Template) FormatMessages(values map[string]any) ([]llms.ChatMessage, error) {
	msgs, err := t.m.RenderMessages(t.name, values)
	if err != nil {
		return nil, err
	}
	return ChatMessages(msgs)
}

// FormatMessageContents renders the template's messages as the message
// contents llms.Model.GenerateContent takes, images included.
func (t *Template) FormatMessageContents(ctx context.Context, values map[string]any) ([]llms.MessageContent, error) {
	msgs, err := t.m.RenderMessagesContext(ctx, t.name, values)
	if err != nil {
		return nil, err
	}
	return MessageContents(msgs)
}

// GetInputVariables returns the template's required variables, in
// index.json's order: a LangChainGo chain refuses a call without every
// input variable, and an optional one may be left out (it may still be
// passed).
func (t *Template) GetInputVariables() []string {
	info, _ := t.m.Lookup(t.name)
	names := []string{}
	for _, v := range info.Variables {
		if v.Required {
			names = append(names, v.Name)
		}
	}
	return names
}
