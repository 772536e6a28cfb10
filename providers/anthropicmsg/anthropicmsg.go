// Package anthropicmsg turns promptkit's messages and tools into the
// Messages API params of Anthropic's official Go SDK
// (github.com/anthropics/anthropic-sdk-go/v2):
//
//	system, msgs, err := anthropicmsg.Messages(conversation)
//	tools, err := anthropicmsg.Tools(defs)
//	resp, err := client.Messages.New(ctx, anthropic.MessageNewParams{
//		Model: anthropic.ModelClaudeSonnet4_5, MaxTokens: 1024,
//		System: system, Messages: msgs, Tools: tools,
//	})
//
// The conversion follows what the Messages API requires:
//
//   - the system and developer messages that open the conversation become
//     the system prompt, one text block per part; one later in the
//     conversation becomes a system turn where it stands;
//   - an assistant's tool calls become tool_use blocks (their arguments
//     must be a JSON object), and each tool message a tool_result block
//     in a user turn;
//   - consecutive messages of one role are merged into one turn, their
//     blocks in order: parallel tool calls' results share one user turn,
//     and a user message after them follows in the same turn;
//   - images become image blocks with a base64 source (a data: URL of a
//     JPEG, PNG, GIF or WebP) or a URL source; files become document
//     blocks: a PDF or plain text by data: URL, or an uploaded file by ID,
//     the filename as the document's title;
//   - a cache mark becomes cache_control, with its TTL, on its block, or on
//     the last block of its message.
//
// Two things are left out, as documented: an image's detail (Anthropic
// has no resolution hint), and a tool message's Name (the tool_use_id
// says which call it answers). An assistant's ReasoningContent has no
// Anthropic form (a thinking block needs the signature Anthropic issued
// with it): it is an error unless DropReasoning leaves it out. Everything
// else Anthropic does not take — audio, a participant's name, an image in
// an assistant message, an unknown role — is an error that names the
// message and part.
package anthropicmsg

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/anthropics/anthropic-sdk-go/v2"
	"github.com/anthropics/anthropic-sdk-go/v2/packages/param"

	"github.com/seed-e7d2830f/promptkit/message"
)

// ErrUnsupported is a message, part or tool that has no form in the
// Messages API.
var ErrUnsupported = errors.New("anthropicmsg: no Messages API form")

// Option configures a conversion.
type Option func(*config)

type config struct {
	dropReasoning bool
}

// DropReasoning leaves assistants' ReasoningContent out instead of
// refusing it.
func DropReasoning() Option { return func(c *config) { c.dropReasoning = true } }

func unsupported(format string, args ...any) error {
	return fmt.Errorf("%s: %w", fmt.Sprintf(format, args...), ErrUnsupported)
}

// Messages converts a conversation to the system prompt and the turns of
// a Messages API request.
func Messages(msgs []message.Message, opts ...Option) (system []anthropic.TextBlockParam, turns []anthropic.MessageParam, err error) {
	var cfg config
	for _, o := range opts {
		o(&cfg)
	}
	// The system and developer messages that open the conversation.
	i := 0
	for ; i < len(msgs) && isSystem(msgs[i].Role); i++ {
		blocks, err := systemBlocks(msgs[i])
		if err != nil {
			return nil, nil, fmt.Errorf("anthropicmsg: messages[%d] (%s): %w", i, msgs[i].Role, err)
		}
		system = append(system, blocks...)
	}
	for ; i < len(msgs); i++ {
		m := msgs[i]
		role, blocks, sysBlocks, err := turn(m, cfg)
		if err != nil {
			return nil, nil, fmt.Errorf("anthropicmsg: messages[%d] (%s): %w", i, m.Role, err)
		}
		if n := len(turns); n > 0 && *turns[n-1].GetRole() == role {
			last := &turns[n-1]
			switch {
			case last.OfUser != nil:
				last.OfUser.Content = append(last.OfUser.Content, blocks...)
			case last.OfAssistant != nil:
				last.OfAssistant.Content = append(last.OfAssistant.Content, blocks...)
			default:
				last.OfSystem.Content = append(last.OfSystem.Content, sysBlocks...)
			}
			continue
		}
		switch role {
		case "user":
			turns = append(turns, anthropic.MessageParam{OfUser: &anthropic.UserMessageParam{Content: blocks}})
		case "assistant":
			turns = append(turns, anthropic.MessageParam{OfAssistant: &anthropic.AssistantMessageParam{Content: blocks}})
		default:
			turns = append(turns, anthropic.MessageParam{OfSystem: &anthropic.SystemMessageParam{Content: sysBlocks}})
		}
	}
	return system, turns, nil
}

func isSystem(role string) bool { return role == message.RoleSystem || role == message.RoleDeveloper }

// turn converts one message after the opening system messages: the role
// of its turn and its blocks.
func turn(m message.Message, cfg config) (role string, blocks []anthropic.ContentBlockParamUnion, sys []anthropic.TextBlockParam, err error) {
	if m.Name != "" && m.Role != message.RoleTool {
		return "", nil, nil, unsupported("a participant's name (%q)", m.Name)
	}
	if m.ReasoningContent != "" && (m.Role != message.RoleAssistant || !cfg.dropReasoning) {
		return "", nil, nil, unsupported("reasoning_content: a thinking block needs Anthropic's signature (DropReasoning leaves it out)")
	}
	if len(m.ToolCalls) > 0 && m.Role != message.RoleAssistant {
		return "", nil, nil, unsupported("tool calls on a %s message", m.Role)
	}
	if m.ToolCallID != "" && m.Role != message.RoleTool {
		return "", nil, nil, unsupported("tool_call_id on a %s message", m.Role)
	}
	switch m.Role {
	case message.RoleSystem, message.RoleDeveloper:
		sys, err = systemBlocks(m)
		return "system", nil, sys, err
	case message.RoleUser:
		blocks, err = contentBlocks(m, true)
		if err == nil && len(blocks) == 0 {
			err = unsupported("a user message without content")
		}
		return "user", blocks, nil, err
	case message.RoleAssistant:
		blocks, err = contentBlocks(m, false)
		if err != nil {
			return "", nil, nil, err
		}
		for i, c := range m.ToolCalls {
			if c.ID == "" {
				return "", nil, nil, unsupported("tool_calls[%d] (%s) has no id, which tool_use requires", i, c.Name)
			}
			input := strings.TrimSpace(c.Arguments)
			if !strings.HasPrefix(input, "{") || !json.Valid([]byte(input)) {
				return "", nil, nil, unsupported("tool_calls[%d] (%s): arguments that are not a JSON object cannot be a tool_use input", i, c.Name)
			}
			blocks = append(blocks, anthropic.ContentBlockParamUnion{OfToolUse: &anthropic.ToolUseBlockParam{
				ID: c.ID, Name: c.Name, Input: json.RawMessage(input)}})
		}
		if len(blocks) == 0 {
			return "", nil, nil, unsupported("an assistant message without content or tool calls")
		}
		markLast(blocks, m.CacheControl)
		return "assistant", blocks, nil, nil
	case message.RoleTool:
		if m.ToolCallID == "" {
			return "", nil, nil, unsupported("a tool message without tool_call_id")
		}
		result := &anthropic.ToolResultBlockParam{ToolUseID: m.ToolCallID}
		parts, err := contentBlocks(m, true)
		if err != nil {
			return "", nil, nil, err
		}
		for i, b := range parts {
			var u anthropic.ToolResultBlockParamContentUnion
			switch {
			case b.OfText != nil:
				u.OfText = b.OfText
			case b.OfImage != nil:
				u.OfImage = b.OfImage
			case b.OfDocument != nil:
				u.OfDocument = b.OfDocument
			default:
				return "", nil, nil, unsupported("content[%d]: not a tool result's content", i)
			}
			result.Content = append(result.Content, u)
		}
		if m.CacheControl != nil {
			result.CacheControl = cacheControl(m.CacheControl)
		}
		return "user", []anthropic.ContentBlockParamUnion{{OfToolResult: result}}, nil, nil
	}
	return "", nil, nil, unsupported("the role %q (want system, developer, user, assistant or tool)", m.Role)
}

// systemBlocks are a system message's text parts as text blocks.
func systemBlocks(m message.Message) ([]anthropic.TextBlockParam, error) {
	if m.Name != "" {
		return nil, unsupported("a participant's name (%q)", m.Name)
	}
	var out []anthropic.TextBlockParam
	for i, p := range m.Parts {
		if p.Type != message.PartText {
			return nil, unsupported("content[%d]: a %s part in a system prompt, which takes text only", i, p.Type)
		}
		out = append(out, anthropic.TextBlockParam{Text: p.Text, CacheControl: cacheControl(p.CacheControl)})
	}
	if m.CacheControl != nil && len(out) > 0 {
		out[len(out)-1].CacheControl = cacheControl(m.CacheControl)
	}
	return out, nil
}

// contentBlocks converts a message's parts, with its cache mark on the
// last; media are taken where Anthropic takes them (user turns and tool
// results).
func contentBlocks(m message.Message, media bool) ([]anthropic.ContentBlockParamUnion, error) {
	var out []anthropic.ContentBlockParamUnion
	for i, p := range m.Parts {
		if p.Type != message.PartText && !media {
			return nil, unsupported("content[%d]: a %s part in an assistant message", i, p.Type)
		}
		var b anthropic.ContentBlockParamUnion
		switch p.Type {
		case message.PartText:
			b.OfText = &anthropic.TextBlockParam{Text: p.Text, CacheControl: cacheControl(p.CacheControl)}
		case message.PartImage:
			img, err := imageBlock(p)
			if err != nil {
				return nil, fmt.Errorf("content[%d]: %w", i, err)
			}
			b.OfImage = img
		case message.PartFile:
			doc, err := documentBlock(p)
			if err != nil {
				return nil, fmt.Errorf("content[%d]: %w", i, err)
			}
			b.OfDocument = doc
		default:
			return nil, unsupported("content[%d]: a %s part", i, p.Type)
		}
		out = append(out, b)
	}
	if m.Role != message.RoleTool {
		markLast(out, m.CacheControl)
	}
	return out, nil
}

// markLast puts a message's cache mark on its last block.
func markLast(blocks []anthropic.ContentBlockParamUnion, c *message.CacheControl) {
	if c == nil || len(blocks) == 0 {
		return
	}
	if cc := blocks[len(blocks)-1].GetCacheControl(); cc != nil {
		*cc = cacheControl(c)
	}
}

func cacheControl(c *message.CacheControl) anthropic.CacheControlEphemeralParam {
	if c == nil {
		return anthropic.CacheControlEphemeralParam{}
	}
	return anthropic.CacheControlEphemeralParam{Type: "ephemeral", TTL: anthropic.CacheControlEphemeralTTL(c.TTL)}
}

var imageTypes = []string{"image/jpeg", "image/png", "image/gif", "image/webp"}

func imageBlock(p message.Part) (*anthropic.ImageBlockParam, error) {
	b := &anthropic.ImageBlockParam{CacheControl: cacheControl(p.CacheControl)}
	if !strings.HasPrefix(strings.ToLower(p.URL), "data:") {
		b.Source.OfURL = &anthropic.URLImageSourceParam{URL: p.URL}
		return b, nil
	}
	mime, data, err := dataURL(p.URL)
	if err != nil {
		return nil, err
	}
	if !slices.Contains(imageTypes, mime) {
		return nil, unsupported("an image of type %s (want %s)", mime, strings.Join(imageTypes, ", "))
	}
	b.Source.OfBase64 = &anthropic.Base64ImageSourceParam{Data: data, MediaType: anthropic.Base64ImageSourceMediaType(mime)}
	return b, nil
}

func documentBlock(p message.Part) (*anthropic.DocumentBlockParam, error) {
	b := &anthropic.DocumentBlockParam{CacheControl: cacheControl(p.CacheControl)}
	if p.File.Filename != "" {
		b.Title = param.NewOpt(p.File.Filename)
	}
	if p.File.Data == "" {
		b.Source.OfFile = &anthropic.FileDocumentSourceParam{FileID: p.File.ID}
		return b, nil
	}
	if p.File.ID != "" {
		return nil, unsupported("a file with both file_data and file_id")
	}
	mime, data, err := dataURL(p.File.Data)
	if err != nil {
		return nil, err
	}
	switch mime {
	case "application/pdf":
		b.Source.OfBase64 = &anthropic.Base64PDFSourceParam{Data: data}
	case "text/plain":
		text, err := base64.StdEncoding.DecodeString(data)
		if err != nil {
			return nil, unsupported("file_data: invalid base64: %v", err)
		}
		b.Source.OfText = &anthropic.PlainTextSourceParam{Data: string(text)}
	default:
		return nil, unsupported("a file of type %s (want application/pdf or text/plain)", mime)
	}
	return b, nil
}

// dataURL splits a data:<type>;base64,<data> URL.
func dataURL(u string) (mime, data string, err error) {
	head, data, ok := strings.Cut(u, ",")
	mime, b64 := strings.CutSuffix(strings.ToLower(head), ";base64")
	mime, isData := strings.CutPrefix(mime, "data:")
	if !ok || !b64 || !isData {
		return "", "", unsupported("a data: URL that is not data:<type>;base64,…")
	}
	return mime, data, nil
}

// Tools converts function tools to Messages API tool params: the
// parameters' schema becomes the input_schema (properties in their
// order), a cache mark its cache_control.
func Tools(tools []message.Tool) ([]anthropic.ToolUnionParam, error) {
	out := make([]anthropic.ToolUnionParam, 0, len(tools))
	for i, t := range tools {
		tp := &anthropic.ToolParam{Name: t.Name, CacheControl: cacheControl(t.CacheControl)}
		if t.Description != "" {
			tp.Description = param.NewOpt(t.Description)
		}
		if t.Strict != nil {
			tp.Strict = param.NewOpt(*t.Strict)
		}
		if len(t.Parameters) > 0 {
			var schema map[string]json.RawMessage
			if err := json.Unmarshal(t.Parameters, &schema); err != nil {
				return nil, fmt.Errorf("anthropicmsg: tools[%d] (%s): parameters: %v: %w", i, t.Name, err, ErrUnsupported)
			}
			for k, v := range schema {
				switch k {
				case "type":
					if string(v) != `"object"` {
						return nil, fmt.Errorf("anthropicmsg: tools[%d] (%s): an input_schema is of type object, not %s: %w", i, t.Name, v, ErrUnsupported)
					}
				case "properties":
					tp.InputSchema.Properties = v
				case "required":
					if err := json.Unmarshal(v, &tp.InputSchema.Required); err != nil {
						return nil, fmt.Errorf("anthropicmsg: tools[%d] (%s): required: %v: %w", i, t.Name, err, ErrUnsupported)
					}
				default:
					if tp.InputSchema.ExtraFields == nil {
						tp.InputSchema.ExtraFields = map[string]any{}
					}
					tp.InputSchema.ExtraFields[k] = v
				}
			}
		}
		out = append(out, anthropic.ToolUnionParam{OfTool: tp})
	}
	return out, nil
}
