package manager

import (
	"context"
	"strings"
	"time"
	"unicode"
)

// RenderMessages renders the named template into chat messages, under the
// same strict rules as Render. Each {% chat role=… %} block makes one
// message, in the order the blocks run (a block in a loop makes one
// message per iteration); a block's text is trimmed of surrounding
// whitespace, and {{ x | image }} splits it into text and image parts. A
// template without chat blocks renders to one user message holding its
// trimmed text.
//
// A variable's value is always text inside its own message: a value
// containing "{% endchat %}", a role marker such as "system:" or
// "<|im_start|>", or JSON that looks like a message cannot end, start or
// re-role a message, because messages are collected as the template runs,
// never parsed out of rendered text. A role taken from a value (role=
// turn.role) must be one of the roles its block lists (allow=[…]).
func (m *Manager) RenderMessages(name string, vars map[string]any) ([]Message, error) {
	return m.RenderMessagesContext(context.Background(), name, vars)
}

// RenderMessagesContext is RenderMessages that stops when ctx ends (see
// RenderContext).
func (m *Manager) RenderMessagesContext(ctx context.Context, name string, vars map[string]any) ([]Message, error) {
	s := m.cur.Load()
	c := s.templates[name]
	if o := m.cfg.observer; o != nil {
		start := time.Now()
		msgs, err := renderMessagesIn(ctx, s, name, c, vars, m.cfg)
		observeRender(o, s, name, c, true, start, messagesBytes(msgs), err)
		return msgs, err
	}
	return renderMessagesIn(ctx, s, name, c, vars, m.cfg)
}

func renderMessagesIn(ctx context.Context, s *snapshot, name string, c *compiled, vars map[string]any, cfg *config) ([]Message, error) {
	if c == nil {
		return nil, unknownTemplate(s, name)
	}
	return c.renderMessages(ctx, vars, cfg)
}

func (c *compiled) renderMessages(ctx context.Context, vars map[string]any, cfg *config) ([]Message, error) {
	out, msgs, err := c.run(ctx, vars, cfg, c.chat)
	if err != nil || c.chat {
		return msgs, err
	}
	msg := Message{Role: RoleUser}
	if text := strings.TrimFunc(out, unicode.IsSpace); text != "" {
		msg.Parts = []Part{{Type: PartText, Text: text}}
	}
	return []Message{msg}, nil
}

// chatTemplateError is Render's answer for a chat template.
func (c *compiled) chatTemplateError() error {
	return c.errorf(ErrChatTemplate, nil, "is a chat template: it renders to messages; use RenderMessages")
}
