package genkitprompt

import (
	"fmt"
	"strings"

	"github.com/firebase/genkit/go/ai"

	"github.com/seed-e7d2830f/promptkit/message"
)

// roles maps promptkit's roles to Genkit's.
var roles = map[string]ai.Role{
	message.RoleSystem:    ai.RoleSystem,
	message.RoleUser:      ai.RoleUser,
	message.RoleAssistant: ai.RoleModel,
}

// Messages converts promptkit messages into Genkit messages, in order (see
// the package documentation for what maps where).
func Messages(msgs []message.Message) ([]*ai.Message, error) {
	out := make([]*ai.Message, len(msgs))
	for i, m := range msgs {
		role, ok := roles[m.Role]
		switch {
		case !ok:
			return nil, fmt.Errorf("genkitprompt: message %d: role %q has no Genkit prompt message (system, user, assistant have)", i, m.Role)
		case len(m.ToolCalls) > 0 || m.ToolCallID != "" || m.ReasoningContent != "" || m.Name != "" || m.CacheControl != nil:
			return nil, fmt.Errorf("genkitprompt: message %d: tool calls, tool results, reasoning, names and cache marks are not prompt messages", i)
		}
		gm := &ai.Message{Role: role, Content: []*ai.Part{}}
		for j, p := range m.Parts {
			switch {
			case p.CacheControl != nil || p.Detail != "":
				return nil, fmt.Errorf("genkitprompt: message %d, part %d: a Genkit part has no cache mark or detail", i, j)
			case p.Type == message.PartText:
				gm.Content = append(gm.Content, ai.NewTextPart(p.Text))
			case p.Type == message.PartImage:
				gm.Content = append(gm.Content, ai.NewMediaPart(contentType(p.URL), p.URL))
			default:
				return nil, fmt.Errorf("genkitprompt: message %d, part %d: a part of type %s has no Genkit form here", i, j, p.Type)
			}
		}
		out[i] = gm
	}
	return out, nil
}

// contentType is a data: URL's MIME type, "" for another URL (the model
// plugin finds it out).
func contentType(u string) string {
	head, _, ok := strings.Cut(strings.TrimPrefix(u, "data:"), ",")
	if !ok || !strings.HasPrefix(u, "data:") {
		return ""
	}
	mime, _, _ := strings.Cut(head, ";")
	return mime
}
