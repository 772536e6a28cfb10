// Package openaichat turns promptkit's messages and tools into the
// Chat Completions params of OpenAI's official Go SDK
// (github.com/openai/openai-go/v3):
//
//	msgs, err := openaichat.Messages(conversation)
//	tools, err := openaichat.Tools(defs)
//	resp, err := client.Chat.Completions.New(ctx, openai.ChatCompletionNewParams{
//		Model: openai.ChatModelGPT4o, Messages: msgs, Tools: tools,
//	})
//
// Every message and part maps onto its own param: system, developer,
// user, assistant (text, tool calls) and tool messages; text, image (URL
// or data URL, detail), input_audio and file parts. The Chat Completions
// shape is promptkit's own, so nothing is lost but two things OpenAI has
// no field for:
//
//   - a tool message's Name (the call's ID says which call it answers);
//   - a cache mark where OpenAI takes no prompt_cache_breakpoint (on a
//     tool, or on a message without parts), and a mark's TTL: Anthropic's
//     "5m" and "1h" are not OpenAI's "30m" and "12h", so a breakpoint
//     keeps the request's TTL. Anywhere else a mark becomes a
//     prompt_cache_breakpoint: on its part, or on the last part of its
//     message.
//
// An assistant's ReasoningContent is sent as "reasoning_content", the
// field OpenAI-compatible servers that return it (DeepSeek, vLLM, …) read
// back; OpenAI's own API refuses it, so leave it out with DropReasoning
// when the conversation goes there. Anything else OpenAI does not take is
// an error that names the message and part.
package openaichat

import (
	"encoding/json"
	"errors"
	"fmt"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/packages/param"
	"github.com/openai/openai-go/v3/shared"

	"github.com/seed-e7d2830f/promptkit/message"
)

// ErrUnsupported is a message, part or tool that has no form in the Chat
// Completions API.
var ErrUnsupported = errors.New("openaichat: no Chat Completions form")

// Option configures a conversion.
type Option func(*config)

type config struct {
	dropReasoning bool
}

// DropReasoning leaves assistants' ReasoningContent out, for OpenAI's own
// API, which takes no reasoning_content.
func DropReasoning() Option { return func(c *config) { c.dropReasoning = true } }

// Messages converts a conversation to Chat Completions message params.
func Messages(msgs []message.Message, opts ...Option) ([]openai.ChatCompletionMessageParamUnion, error) {
	var cfg config
	for _, o := range opts {
		o(&cfg)
	}
	out := make([]openai.ChatCompletionMessageParamUnion, 0, len(msgs))
	for i, m := range msgs {
		p, err := convert(m, cfg)
		if err != nil {
			return nil, fmt.Errorf("openaichat: messages[%d] (%s): %w", i, m.Role, err)
		}
		out = append(out, p)
	}
	return out, nil
}

func unsupported(format string, args ...any) error {
	return fmt.Errorf("%s: %w", fmt.Sprintf(format, args...), ErrUnsupported)
}

func convert(m message.Message, cfg config) (openai.ChatCompletionMessageParamUnion, error) {
	var u openai.ChatCompletionMessageParamUnion
	name := func(opt *param.Opt[string]) {
		if m.Name != "" {
			*opt = param.NewOpt(m.Name)
		}
	}
	if m.ReasoningContent != "" && m.Role != message.RoleAssistant {
		return u, unsupported("reasoning_content on a %s message", m.Role)
	}
	if len(m.ToolCalls) > 0 && m.Role != message.RoleAssistant {
		return u, unsupported("tool calls on a %s message", m.Role)
	}
	if m.ToolCallID != "" && m.Role != message.RoleTool {
		return u, unsupported("tool_call_id on a %s message", m.Role)
	}
	switch m.Role {
	case message.RoleSystem:
		p := &openai.ChatCompletionSystemMessageParam{}
		name(&p.Name)
		text, parts, err := textContent(m)
		p.Content.OfString, p.Content.OfArrayOfContentParts = text, parts
		u.OfSystem = p
		return u, err
	case message.RoleDeveloper:
		p := &openai.ChatCompletionDeveloperMessageParam{}
		name(&p.Name)
		text, parts, err := textContent(m)
		p.Content.OfString, p.Content.OfArrayOfContentParts = text, parts
		u.OfDeveloper = p
		return u, err
	case message.RoleUser:
		p := &openai.ChatCompletionUserMessageParam{}
		name(&p.Name)
		if s, ok := asString(m); ok {
			p.Content.OfString = s
		} else {
			parts, err := userParts(m)
			if err != nil {
				return u, err
			}
			p.Content.OfArrayOfContentParts = parts
		}
		u.OfUser = p
		return u, nil
	case message.RoleAssistant:
		p := &openai.ChatCompletionAssistantMessageParam{}
		name(&p.Name)
		if s, ok := asString(m); ok {
			p.Content.OfString = s
		} else {
			_, parts, err := textContent(m)
			if err != nil {
				return u, err
			}
			for i := range parts {
				p.Content.OfArrayOfContentParts = append(p.Content.OfArrayOfContentParts,
					openai.ChatCompletionAssistantMessageParamContentArrayOfContentPartUnion{OfText: &parts[i]})
			}
		}
		for i, c := range m.ToolCalls {
			if c.ID == "" {
				return u, unsupported("tool_calls[%d] (%s) has no id, which the API requires", i, c.Name)
			}
			p.ToolCalls = append(p.ToolCalls, openai.ChatCompletionMessageToolCallUnionParam{
				OfFunction: &openai.ChatCompletionMessageFunctionToolCallParam{
					ID: c.ID, Function: openai.ChatCompletionMessageFunctionToolCallFunctionParam{Name: c.Name, Arguments: c.Arguments},
				}})
		}
		if m.ReasoningContent != "" && !cfg.dropReasoning {
			p.SetExtraFields(map[string]any{"reasoning_content": m.ReasoningContent})
		}
		u.OfAssistant = p
		return u, nil
	case message.RoleTool:
		if m.ToolCallID == "" {
			return u, unsupported("a tool message without tool_call_id")
		}
		p := &openai.ChatCompletionToolMessageParam{ToolCallID: m.ToolCallID}
		text, parts, err := textContent(m)
		p.Content.OfString, p.Content.OfArrayOfContentParts = text, parts
		u.OfTool = p
		return u, err
	}
	return u, unsupported("the role %q (want system, developer, user, assistant or tool)", m.Role)
}

// asString returns the message's content when it goes as one string
// (ok, with s set) or as none (ok, s unset): a message written so, that
// carries no cache mark.
func asString(m message.Message) (s param.Opt[string], ok bool) {
	if m.CacheControl != nil && len(m.Parts) > 0 {
		return s, false
	}
	switch m.Form() {
	case message.ContentString:
		return param.NewOpt(m.Text()), true
	case message.ContentNull, message.ContentAbsent:
		return s, true
	}
	return s, false
}

// textContent is the content of a message whose parts may only be text:
// a string, or text parts with the message's cache mark on the last.
func textContent(m message.Message) (param.Opt[string], []openai.ChatCompletionContentPartTextParam, error) {
	if s, ok := asString(m); ok {
		return s, nil, nil
	}
	var parts []openai.ChatCompletionContentPartTextParam
	for i, p := range m.Parts {
		if p.Type != message.PartText {
			return param.Opt[string]{}, nil, unsupported("content[%d]: a %s part in a %s message, which takes text only", i, p.Type, m.Role)
		}
		t := openai.ChatCompletionContentPartTextParam{Text: p.Text}
		if p.CacheControl != nil || m.CacheControl != nil && i == len(m.Parts)-1 {
			t.PromptCacheBreakpoint = openai.NewChatCompletionContentPartTextPromptCacheBreakpointParam()
		}
		parts = append(parts, t)
	}
	return param.Opt[string]{}, parts, nil
}

func userParts(m message.Message) ([]openai.ChatCompletionContentPartUnionParam, error) {
	var out []openai.ChatCompletionContentPartUnionParam
	for i, p := range m.Parts {
		mark := p.CacheControl != nil || m.CacheControl != nil && i == len(m.Parts)-1
		var u openai.ChatCompletionContentPartUnionParam
		switch p.Type {
		case message.PartText:
			t := &openai.ChatCompletionContentPartTextParam{Text: p.Text}
			if mark {
				t.PromptCacheBreakpoint = openai.NewChatCompletionContentPartTextPromptCacheBreakpointParam()
			}
			u.OfText = t
		case message.PartImage:
			img := &openai.ChatCompletionContentPartImageParam{
				ImageURL: openai.ChatCompletionContentPartImageImageURLParam{URL: p.URL, Detail: p.Detail}}
			if mark {
				img.PromptCacheBreakpoint = openai.NewChatCompletionContentPartImagePromptCacheBreakpointParam()
			}
			u.OfImageURL = img
		case message.PartAudio:
			a := &openai.ChatCompletionContentPartInputAudioParam{
				InputAudio: openai.ChatCompletionContentPartInputAudioInputAudioParam{Data: p.Audio.Data, Format: p.Audio.Format}}
			if mark {
				a.PromptCacheBreakpoint = openai.NewChatCompletionContentPartInputAudioPromptCacheBreakpointParam()
			}
			u.OfInputAudio = a
		case message.PartFile:
			f := &openai.ChatCompletionContentPartFileParam{}
			if p.File.Filename != "" {
				f.File.Filename = param.NewOpt(p.File.Filename)
			}
			if p.File.Data != "" {
				f.File.FileData = param.NewOpt(p.File.Data)
			}
			if p.File.ID != "" {
				f.File.FileID = param.NewOpt(p.File.ID)
			}
			if mark {
				f.PromptCacheBreakpoint = openai.NewChatCompletionContentPartFilePromptCacheBreakpointParam()
			}
			u.OfFile = f
		default:
			return nil, unsupported("content[%d]: a part of type %q", i, p.Type)
		}
		out = append(out, u)
	}
	return out, nil
}

// Tools converts function tools to Chat Completions tool params. The
// parameters' schema is sent as it is, nested keys in their order (the
// SDK writes the top-level keys of a schema sorted).
func Tools(tools []message.Tool) ([]openai.ChatCompletionToolUnionParam, error) {
	out := make([]openai.ChatCompletionToolUnionParam, 0, len(tools))
	for i, t := range tools {
		def := shared.FunctionDefinitionParam{Name: t.Name}
		if t.Description != "" {
			def.Description = param.NewOpt(t.Description)
		}
		if t.Strict != nil {
			def.Strict = param.NewOpt(*t.Strict)
		}
		if len(t.Parameters) > 0 {
			var schema map[string]json.RawMessage
			if err := json.Unmarshal(t.Parameters, &schema); err != nil {
				return nil, fmt.Errorf("openaichat: tools[%d] (%s): parameters: %v: %w", i, t.Name, err, ErrUnsupported)
			}
			def.Parameters = shared.FunctionParameters{}
			for k, v := range schema {
				def.Parameters[k] = v
			}
		}
		out = append(out, openai.ChatCompletionFunctionTool(def))
	}
	return out, nil
}
