package langchainprompt

import (
	"fmt"

	"github.com/tmc/langchaingo/llms"

	"github.com/seed-e7d2830f/promptkit/message"
)

// ChatMessages converts promptkit messages into LangChainGo's text chat
// messages: system, human and AI messages of their text. A message with a
// part that is not text (an image), tool calls, a tool result, reasoning, a
// name or a cache mark is an error naming it, never dropped.
func ChatMessages(msgs []message.Message) ([]llms.ChatMessage, error) {
	out := make([]llms.ChatMessage, len(msgs))
	for i, m := range msgs {
		if err := plain(m); err != nil {
			return nil, fmt.Errorf("langchainprompt: message %d: %w", i, err)
		}
		for j, p := range m.Parts {
			if p.CacheControl != nil {
				return nil, fmt.Errorf("langchainprompt: message %d, part %d: LangChainGo has no cache mark", i, j)
			}
			if p.Type != message.PartText {
				return nil, fmt.Errorf("langchainprompt: message %d, part %d: a ChatMessage holds text only, not a part of type %s: use FormatMessageContents (llms.MessageContent)", i, j, p.Type)
			}
		}
		switch m.Role {
		case message.RoleSystem:
			out[i] = llms.SystemChatMessage{Content: m.Text()}
		case message.RoleUser:
			out[i] = llms.HumanChatMessage{Content: m.Text()}
		default: // plain let only the three roles through
			out[i] = llms.AIChatMessage{Content: m.Text()}
		}
	}
	return out, nil
}

// MessageContents converts promptkit messages into the message contents
// llms.Model.GenerateContent takes: text parts as TextContent, images as
// ImageURLContent (the URL as given, http(s) or data:, and its detail).
// What else a message holds is an error, as for ChatMessages.
func MessageContents(msgs []message.Message) ([]llms.MessageContent, error) {
	out := make([]llms.MessageContent, len(msgs))
	for i, m := range msgs {
		if err := plain(m); err != nil {
			return nil, fmt.Errorf("langchainprompt: message %d: %w", i, err)
		}
		mc := llms.MessageContent{Role: roles[m.Role], Parts: []llms.ContentPart{}}
		for j, p := range m.Parts {
			switch {
			case p.CacheControl != nil:
				return nil, fmt.Errorf("langchainprompt: message %d, part %d: LangChainGo has no cache mark", i, j)
			case p.Type == message.PartText:
				mc.Parts = append(mc.Parts, llms.TextContent{Text: p.Text})
			case p.Type == message.PartImage:
				mc.Parts = append(mc.Parts, llms.ImageURLContent{URL: p.URL, Detail: p.Detail})
			default:
				return nil, fmt.Errorf("langchainprompt: message %d, part %d: a part of type %s has no LangChainGo form here", i, j, p.Type)
			}
		}
		out[i] = mc
	}
	return out, nil
}

// roles maps the roles plain lets through.
var roles = map[string]llms.ChatMessageType{
	message.RoleSystem:    llms.ChatMessageTypeSystem,
	message.RoleUser:      llms.ChatMessageTypeHuman,
	message.RoleAssistant: llms.ChatMessageTypeAI,
}

// plain reports what of m, beyond its role's text and images, LangChainGo's
// prompt messages have no place for.
func plain(m message.Message) error {
	switch {
	case roles[m.Role] == "":
		return fmt.Errorf("role %q has no LangChainGo prompt message (system, user, assistant have)", m.Role)
	case len(m.ToolCalls) > 0, m.ToolCallID != "":
		return fmt.Errorf("tool calls and results are not prompt messages")
	case m.ReasoningContent != "", m.Name != "":
		return fmt.Errorf("reasoning and names are not prompt messages")
	case m.CacheControl != nil:
		return fmt.Errorf("LangChainGo has no cache mark")
	}
	return nil
}
