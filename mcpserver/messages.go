package mcpserver

import (
	"encoding/base64"
	"fmt"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/seed-e7d2830f/promptkit/message"
)

// MetaRole is the _meta key that carries a message's own role on each of
// its contents when MCP has no such role: a system block's contents are
// user messages with {"promptkit/role": "system"}.
const MetaRole = "promptkit/role"

// MetaDetail is the _meta key of an image's detail ("low", "high", …),
// which MCP's image content has no field for.
const MetaDetail = "promptkit/detail"

// Messages turns rendered messages into MCP prompt messages, in order. An
// MCP prompt message holds one content and has one of two roles, user or
// assistant, so:
//
//   - a message of several parts (text, an image, text) becomes one
//     prompt message per part, each with the message's role; a message
//     without content becomes one empty text;
//   - a system message becomes user messages whose contents carry
//     {"promptkit/role": "system"} in their _meta (MetaRole): MCP clients
//     put a prompt into the conversation as the user's turns, and one
//     that knows the key can send the text as its model's system prompt
//     instead. The text is never changed — no "System:" prefix is added;
//     a developer message is written the same way, with its role;
//   - an image given as a data: URL is image content (its bytes and MIME
//     type), one given as an http(s) URL a resource link to that URL (MCP
//     image content holds bytes, and promptkit never fetches a URL); a
//     detail goes into _meta (MetaDetail);
//   - audio is audio content.
//
// What MCP prompt messages cannot carry is an error naming the message,
// never dropped: a tool call, a tool result, reasoning, a name, a cache
// mark, a file part. Templates make none of them.
func Messages(msgs []message.Message) ([]*mcp.PromptMessage, error) {
	out := make([]*mcp.PromptMessage, 0, len(msgs))
	for i, m := range msgs {
		role, meta, err := roleOf(m)
		if err != nil {
			return nil, fmt.Errorf("mcpserver: message %d: %w", i, err)
		}
		if len(m.Parts) == 0 {
			out = append(out, &mcp.PromptMessage{Role: role, Content: &mcp.TextContent{Text: "", Meta: meta()}})
			continue
		}
		for j, p := range m.Parts {
			c, err := content(p, meta())
			if err != nil {
				return nil, fmt.Errorf("mcpserver: message %d, part %d: %w", i, j, err)
			}
			out = append(out, &mcp.PromptMessage{Role: role, Content: c})
		}
	}
	return out, nil
}

// roleOf is the MCP role of m and a maker of the _meta its contents carry
// (a fresh map each: contents must not share one).
func roleOf(m message.Message) (mcp.Role, func() mcp.Meta, error) {
	switch {
	case len(m.ToolCalls) > 0:
		return "", nil, fmt.Errorf("an MCP prompt message cannot carry tool calls")
	case m.ToolCallID != "":
		return "", nil, fmt.Errorf("an MCP prompt message cannot carry a tool result")
	case m.ReasoningContent != "":
		return "", nil, fmt.Errorf("an MCP prompt message cannot carry reasoning")
	case m.Name != "":
		return "", nil, fmt.Errorf("an MCP prompt message cannot carry a name")
	case m.CacheControl != nil:
		return "", nil, fmt.Errorf("an MCP prompt message cannot carry a cache mark")
	}
	none := func() mcp.Meta { return nil }
	switch m.Role {
	case message.RoleUser, message.RoleAssistant:
		return mcp.Role(m.Role), none, nil
	case message.RoleSystem, message.RoleDeveloper:
		return "user", func() mcp.Meta { return mcp.Meta{MetaRole: m.Role} }, nil
	}
	return "", nil, fmt.Errorf("role %q has no MCP prompt form (user, assistant, system and developer have)", m.Role)
}

// content is one part as MCP content, with meta.
func content(p message.Part, meta mcp.Meta) (mcp.Content, error) {
	if p.CacheControl != nil {
		return nil, fmt.Errorf("an MCP content cannot carry a cache mark")
	}
	switch p.Type {
	case message.PartText:
		return &mcp.TextContent{Text: p.Text, Meta: meta}, nil
	case message.PartImage:
		if p.Detail != "" {
			if meta == nil {
				meta = mcp.Meta{}
			}
			meta[MetaDetail] = p.Detail
		}
		if strings.HasPrefix(p.URL, "data:") {
			mime, data, err := dataURL(p.URL)
			if err != nil {
				return nil, err
			}
			return &mcp.ImageContent{Data: data, MIMEType: mime, Meta: meta}, nil
		}
		return &mcp.ResourceLink{URI: p.URL, Name: "image", Meta: meta}, nil
	case message.PartAudio:
		if p.Audio == nil {
			return nil, fmt.Errorf("an audio part without audio")
		}
		data, err := base64.StdEncoding.DecodeString(p.Audio.Data)
		if err != nil {
			return nil, fmt.Errorf("audio: %w", err)
		}
		return &mcp.AudioContent{Data: data, MIMEType: "audio/" + p.Audio.Format, Meta: meta}, nil
	}
	return nil, fmt.Errorf("a %s part has no MCP prompt form", p.Type)
}

// dataURL splits a base64 data: URL into its MIME type and its bytes.
func dataURL(u string) (mime string, data []byte, err error) {
	head, b64, ok := strings.Cut(strings.TrimPrefix(u, "data:"), ",")
	mime, enc, _ := strings.Cut(head, ";")
	if !ok || enc != "base64" || mime == "" {
		return "", nil, fmt.Errorf("an image data: URL must be data:TYPE;base64,…")
	}
	data, err = base64.StdEncoding.DecodeString(b64)
	if err != nil {
		return "", nil, fmt.Errorf("image data: URL: %w", err)
	}
	return mime, data, nil
}
