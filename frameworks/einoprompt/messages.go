package einoprompt

import (
	"fmt"
	"strings"

	"github.com/cloudwego/eino/schema"

	"github.com/seed-e7d2830f/promptkit/message"
)

// Messages converts promptkit messages into Eino messages, in order (see
// the package documentation for what maps where).
func Messages(msgs []message.Message) ([]*schema.Message, error) {
	out := make([]*schema.Message, len(msgs))
	for i, m := range msgs {
		em, err := convert(m)
		if err != nil {
			return nil, fmt.Errorf("einoprompt: message %d: %w", i, err)
		}
		out[i] = em
	}
	return out, nil
}

func convert(m message.Message) (*schema.Message, error) {
	if m.CacheControl != nil {
		return nil, fmt.Errorf("an Eino message has no cache mark")
	}
	em := &schema.Message{Name: m.Name, ToolCallID: m.ToolCallID, ReasoningContent: m.ReasoningContent}
	switch m.Role {
	case message.RoleSystem:
		em.Role = schema.System
	case message.RoleUser:
		em.Role = schema.User
	case message.RoleAssistant:
		em.Role = schema.Assistant
	case message.RoleTool:
		em.Role, em.ToolName, em.Name = schema.Tool, m.Name, ""
	default:
		return nil, fmt.Errorf("role %q is not an Eino role (system, user, assistant, tool)", m.Role)
	}
	for _, c := range m.ToolCalls {
		em.ToolCalls = append(em.ToolCalls, schema.ToolCall{ID: c.ID, Type: "function",
			Function: schema.FunctionCall{Name: c.Name, Arguments: c.Arguments}})
	}
	if len(m.Parts) == 1 && m.Parts[0].Type == message.PartText && m.Parts[0].CacheControl == nil {
		em.Content = m.Parts[0].Text
		return em, nil
	}
	for j, p := range m.Parts {
		if p.CacheControl != nil {
			return nil, fmt.Errorf("part %d: an Eino message part has no cache mark", j)
		}
		switch {
		case p.Type == message.PartText && m.Role == message.RoleUser:
			em.UserInputMultiContent = append(em.UserInputMultiContent, schema.MessageInputPart{Type: schema.ChatMessagePartTypeText, Text: p.Text})
		case p.Type == message.PartText && m.Role == message.RoleAssistant:
			em.AssistantGenMultiContent = append(em.AssistantGenMultiContent, schema.MessageOutputPart{Type: schema.ChatMessagePartTypeText, Text: p.Text})
		case p.Type == message.PartImage && m.Role == message.RoleUser:
			common, err := media(p.URL)
			if err != nil {
				return nil, fmt.Errorf("part %d: %w", j, err)
			}
			em.UserInputMultiContent = append(em.UserInputMultiContent, schema.MessageInputPart{Type: schema.ChatMessagePartTypeImageURL,
				Image: &schema.MessageInputImage{MessagePartCommon: common, Detail: schema.ImageURLDetail(p.Detail)}})
		case p.Type == message.PartImage && m.Role == message.RoleAssistant && p.Detail == "":
			common, err := media(p.URL)
			if err != nil {
				return nil, fmt.Errorf("part %d: %w", j, err)
			}
			em.AssistantGenMultiContent = append(em.AssistantGenMultiContent, schema.MessageOutputPart{Type: schema.ChatMessagePartTypeImageURL,
				Image: &schema.MessageOutputImage{MessagePartCommon: common}})
		default:
			return nil, fmt.Errorf("part %d: an Eino %s message has no place for a %s", j, m.Role, describe(p))
		}
	}
	return em, nil
}

func describe(p message.Part) string {
	if p.Type == message.PartImage && p.Detail != "" {
		return "image with a detail"
	}
	return "part of type " + string(p.Type)
}

// media is an image URL as Eino keeps it: a data: URL as its base64 data
// and MIME type, any other URL as it is.
func media(u string) (schema.MessagePartCommon, error) {
	if !strings.HasPrefix(u, "data:") {
		return schema.MessagePartCommon{URL: &u}, nil
	}
	head, data, ok := strings.Cut(strings.TrimPrefix(u, "data:"), ",")
	mime, enc, _ := strings.Cut(head, ";")
	if !ok || enc != "base64" || mime == "" {
		return schema.MessagePartCommon{}, fmt.Errorf("an image data: URL must be data:TYPE;base64,…")
	}
	return schema.MessagePartCommon{Base64Data: &data, MIMEType: mime}, nil
}
